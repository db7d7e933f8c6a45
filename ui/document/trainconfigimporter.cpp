// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/trainconfigimporter.h"

#include "scenario/scenariojson.h"
#include "trainconfigimport.h"

#include <QFileInfo>

namespace headroom {

bool isTrainConfigFile(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("yaml") || suffix == QLatin1String("yml"))
        return true;
    if (suffix != QLatin1String("json") || path.endsWith(QLatin1String(".headroom.json")))
        return false;
    try {
        const QByteArray text = readTrainConfigFile(path);
        const nlohmann::json tree = parseConfigText(std::string_view(text.constData(), std::size_t(text.size())),
                                                    path.toStdString());
        if (!tree.is_object() || tree.contains("format") || tree.contains("model_type"))
            return false;
        detectFormat(tree, path.toStdString());
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

TrainConfigResult importTrainConfigFiles(const QStringList &paths, const Scenario &current)
{
    const nlohmann::json currentDoc = scenarioToJson(current);
    nlohmann::json base = {{"format", "headroom-scenario"}, {"version", 1}, {"gpus", currentDoc["gpus"]}};
    if (currentDoc.contains("target_gpu")) // the user's GPU survives the import (one target GPU)
        base["target_gpu"] = currentDoc["target_gpu"];
    const ImportedRun run = importTrainConfigs(paths, {}, {}, {}, base, currentDoc["model"]);
    TrainConfigResult result;
    result.scenario = scenarioFromJson(run.document);
    result.scenario.name = current.name;
    QStringList formats;
    for (const TrainImport &import : run.imports) {
        formats << QString::fromLatin1(formatName(import.format));
        for (const std::string &warning : import.warnings)
            result.warnings << QString::fromStdString(warning);
    }
    result.summary = formats.join(QStringLiteral(" + ")) + QStringLiteral(": ") +
                     QString::fromStdString(run.modelNote);
    return result;
}

} // namespace headroom
