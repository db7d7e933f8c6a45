// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/modelimporter.h"

#include "model/architecture.h"
#include "ggufimport.h"
#include "io/ggufarch.h"
#include "io/inputpolicy.h"
#include "model/modelname.h"
#include "modelimport.h"
#include "scenario/units.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("modelimport", text); }

/// Imports a config.json, asking for what it lacks until it imports or the user cancels.
std::optional<HfImport> importConfig(const QString &path, const MissingFieldsPrompt &prompt)
{
    nlohmann::json config = readModelConfigJson(path);
    for (int attempt = 0;; ++attempt) {
        try {
            HfImport import = importHfConfig(config);
            import.arch.name = importedModelName(config, QFileInfo(path).absoluteFilePath().toStdString());
            return import;
        } catch (const HfConfigError &error) {
            if (error.missingFields.empty() || !prompt || attempt >= 8)
                throw HfConfigError(QDir::toNativeSeparators(path).toStdString() + ": " + error.what(),
                                    error.modelType, error.missingFields);
            if (!prompt(path, error.missingFields, config))
                return std::nullopt;
        }
    }
}

QString paramsText(std::uint64_t params)
{
    return QString::fromStdString(groupDigits(params));
}

} // namespace

bool isModelFile(const QString &path)
{
    const QString name = QFileInfo(path).fileName().toLower();
    if (name == QLatin1String("config.json") || name.endsWith(QLatin1String(".safetensors")) ||
        name.endsWith(QLatin1String(".safetensors.index.json")) || name.endsWith(QLatin1String(".gguf")))
        return true;
    if (!name.endsWith(QLatin1String(".json")) || name.endsWith(QLatin1String(".headroom.json")))
        return false;
    try {
        const nlohmann::json doc = readJsonFile(path, "", 4 * 1024 * 1024);
        return doc.is_object() && !doc.contains("format") && doc.contains("model_type");
    } catch (const std::exception &) {
        return false;
    }
}

std::optional<ModelImport> importModelFile(const QString &path, const ModelArch &current,
                                           const MissingFieldsPrompt &prompt)
{
    const QFileInfo info(path);
    const QString name = info.fileName().toLower();
    if (name.endsWith(QLatin1String(".gguf"))) {
        // A GGUF file carries its shape in its metadata; the parameter total is its tensors'.
        const GgufModel model = readGgufModel(path);
        const GgufArch arch = ggufArchitecture(model);
        ModelImport result{arch.arch ? *arch.arch : current, {}};
        result.arch.params = model.weights.params;
        result.summary = tr("%1: %2 tensors, %3 params, %4 of tensors (exact, from the GGUF header) on %5")
                             .arg(info.fileName(), paramsText(model.weights.tensors), paramsText(model.weights.params),
                                  QString::fromStdString(formatBytes(model.weights.bytes, Unit::GiB)),
                                  arch.arch ? tr("its %1 architecture").arg(QString::fromStdString(printable(model.architecture)))
                                            : tr("the current architecture"));
        return result;
    }
    const bool weights = info.isDir() || name.endsWith(QLatin1String(".safetensors")) ||
                         name.endsWith(QLatin1String(".safetensors.index.json"));
    if (!weights) {
        const std::optional<HfImport> config = importConfig(path, prompt);
        if (!config)
            return std::nullopt;
        return ModelImport{config->arch, tr("%1 (model_type %2): %3 params")
                                             .arg(info.fileName(), QString::fromStdString(config->modelType),
                                                  paramsText(countParams(config->arch).total))};
    }
    const WeightsSummary summary = readModelWeights(path);
    const QDir folder = info.isDir() ? QDir(path) : info.absoluteDir();
    const QString configPath = folder.filePath(QStringLiteral("config.json"));
    ModelImport result{current, {}};
    QString from = tr("the current architecture");
    if (QFileInfo::exists(configPath)) {
        const std::optional<HfImport> config = importConfig(configPath, prompt);
        if (!config)
            return std::nullopt;
        result.arch = config->arch;
        from = QStringLiteral("config.json");
    }
    result.arch.params = summary.params;
    result.summary = tr("%1: %2 tensors, %3 params (exact, from the safetensors headers) on %4")
                         .arg(info.fileName(), paramsText(summary.tensors), paramsText(summary.params), from);
    return result;
}

} // namespace headroom
