// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainconfigimport.h"

#include "inputfile.h"
#include "io/inputpolicy.h"
#include "modelimport.h"
#include "scenario/scenariojson.h"
#include "scenario/units.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace headroom {

namespace {

std::string local(const QString &path) { return QDir::toNativeSeparators(path).toStdString(); }

} // namespace

QByteArray readTrainConfigFile(const QString &path)
{
    // The input policy of every reader: a regular file, counted on the bytes read (a device, a
    // FIFO with no writer or a folder is refused, never read without end or waited on).
    try {
        return readInputFile(path, limits::kTrainConfigBytes);
    } catch (const InputError &error) {
        throw TrainConfigError(local(path), "", error.detail);
    }
}

ImportedRun importTrainConfigs(const QStringList &paths, const QStringList &arguments,
                               const QString &format, const QString &modelConfig,
                               const std::optional<nlohmann::json> &base,
                               const std::optional<nlohmann::json> &fallbackModel, std::optional<int> gpus)
{
    ImportedRun run;
    const TrainConfigFormat chosen =
        format.isEmpty() ? TrainConfigFormat::Auto : formatFromName(format.toStdString());
    std::vector<std::string> overrides;
    for (const QString &argument : arguments)
        overrides.push_back(argument.toStdString());
    bool overridesUsed = overrides.empty();
    // Bounded work: a run has a handful of small files.
    if (std::size_t(paths.size()) > limits::kTrainConfigFiles)
        throw TrainConfigError("--train-config", "", "at most " + std::to_string(limits::kTrainConfigFiles) +
                                                         " training configuration files (got " +
                                                         std::to_string(paths.size()) + ")");
    std::uint64_t totalBytes = 0;
    for (const QString &path : paths) {
        const QByteArray text = readTrainConfigFile(path);
        totalBytes += std::uint64_t(text.size());
        if (totalBytes > limits::kTrainConfigTotalBytes)
            throw TrainConfigError(local(path), "", "the training configuration files hold more than " +
                                                        groupDigits(limits::kTrainConfigTotalBytes) +
                                                        " bytes together, the limit for one run");
        const std::string_view view(text.constData(), std::size_t(text.size()));
        const std::string name = local(path);
        TrainConfigFormat fileFormat = chosen;
        // A launch script (.sh) is told by its command, the rest by their keys.
        const bool script = QFileInfo(path).suffix() == QLatin1String("sh");
        if (fileFormat == TrainConfigFormat::Auto && !script)
            fileFormat = detectFormat(parseConfigText(view, name), name);
        const bool takesOverrides = fileFormat == TrainConfigFormat::Torchtune || fileFormat == TrainConfigFormat::Litgpt ||
                                    fileFormat == TrainConfigFormat::Torchtitan || fileFormat == TrainConfigFormat::Swift ||
                                    fileFormat == TrainConfigFormat::Trl ||
                                    (script && fileFormat == TrainConfigFormat::Auto);
        run.imports.push_back(importTrainConfig(view, name, fileFormat,
                                                takesOverrides ? overrides : std::vector<std::string>{}));
        overridesUsed = overridesUsed || takesOverrides;
    }
    // Files the configs name (a DeepSpeed JSON): read unless given.
    for (std::size_t i = 0; i < run.imports.size(); ++i) {
        const std::vector<std::pair<std::string, std::string>> references = run.imports[i].references;
        const QString owner = QString::fromStdString(run.imports[i].file);
        for (const auto &[key, reference] : references) {
            const QString name = QFileInfo(QString::fromStdString(reference)).fileName();
            const bool given = std::any_of(run.imports.begin(), run.imports.end(), [&](const TrainImport &other) {
                return other.format == TrainConfigFormat::Deepspeed &&
                       QFileInfo(QString::fromStdString(other.file)).fileName() == name;
            });
            if (given)
                continue;
            QString found;
            const QString relative = QString::fromStdString(reference);
            QStringList tried;
            if (QFileInfo(relative).isAbsolute()) {
                tried << relative;
            } else {
                tried << QDir::current().filePath(relative);
                QDir dir = QFileInfo(owner).absoluteDir();
                for (int up = 0; up < 4; ++up) {
                    tried << dir.filePath(relative);
                    if (!dir.cdUp())
                        break;
                }
            }
            // A config (perhaps downloaded) names files in its own folder or the folders above it
            // that are searched (never the file system's root), this folder or the user's home:
            // `/etc/shadow` or `../../..` past them is refused before it is looked at, saying
            // nothing of whether such a file exists.
            QStringList folders{QDir::currentPath()};
            for (QDir up = QFileInfo(owner).absoluteDir(); folders.size() <= 5 && !up.isRoot(); up.cdUp())
                folders << up.absolutePath();
            tried.erase(std::remove_if(tried.begin(), tried.end(),
                                       [&](const QString &candidate) { return !insideUsersFolders(candidate, folders); }),
                        tried.end());
            if (tried.isEmpty())
                throw TrainConfigError(run.imports[i].file, key, quotedText(reference) +
                                           " is outside the config's folder, this folder and your home folder: "
                                           "give that file as another --train-config");
            for (const QString &candidate : tried)
                if (QFileInfo(candidate).isFile()) {
                    found = candidate;
                    break;
                }
            if (found.isEmpty())
                throw TrainConfigError(run.imports[i].file, key, "names " + quotedText(reference) +
                                           ", which is not found from here or the config's folder: give it "
                                           "as another --train-config");
            if (run.imports.size() >= limits::kTrainConfigFiles)
                throw TrainConfigError(run.imports[i].file, key, "too many files with the ones it names");
            const QByteArray text = readTrainConfigFile(found);
            totalBytes += std::uint64_t(text.size());
            if (totalBytes > limits::kTrainConfigTotalBytes)
                throw TrainConfigError(local(found), "", "the training configuration files hold more than " +
                                                             groupDigits(limits::kTrainConfigTotalBytes) +
                                                             " bytes together, the limit for one run");
            TrainImport named = importTrainConfig(std::string_view(text.constData(), std::size_t(text.size())),
                                                  local(found), TrainConfigFormat::Deepspeed);
            named.mapped.insert(named.mapped.begin(), "(named by " + run.imports[i].file + " " + key + ")");
            run.imports.push_back(std::move(named));
        }
    }
    if (!overridesUsed)
        throw TrainConfigError("--train-arg", "", "overrides apply to torchtune, LitGPT, torchtitan and ms-swift configs, and none was given");

    nlohmann::json doc = base ? *base : nlohmann::json{{"format", "headroom-scenario"}, {"version", 1}};
    if (!doc.is_object())
        throw ScenarioError("", "the scenario is not a JSON object");
    doc.merge_patch(mergeImports(run.imports));

    // The world size: the launcher's (--gpus), else the files'; a sharded run needs one.
    if (gpus) {
        if (*gpus < 1 || *gpus > 65536)
            throw TrainConfigError("--gpus", "", "must be a whole number from 1 to 65536 (got " + std::to_string(*gpus) + ")");
        doc["parallel"]["gpus"] = *gpus;
        if (*gpus > 1 && !(doc["parallel"].contains("strategy") && doc["parallel"]["strategy"].is_string()))
            doc["parallel"]["strategy"] = "ddp";
    } else if (doc.contains("parallel") && doc["parallel"].is_object() && doc["parallel"].contains("strategy") &&
               doc["parallel"]["strategy"].is_string() && doc["parallel"]["strategy"] != "none" &&
               !doc["parallel"].contains("gpus")) {
        std::string file = local(paths.value(0)), from;
        for (const TrainImport &import : run.imports)
            for (const std::string &line : import.mapped)
                if (line.find("-> parallel.strategy") != std::string::npos) {
                    file = import.file;
                    from = line.substr(0, line.find(" -> "));
                }
        throw TrainConfigError(file, "", "runs on several GPUs (parallel.strategy " +
                                             doc["parallel"]["strategy"].get<std::string>() +
                                             (from.empty() ? "" : ", from " + from) +
                                             ") and no file says how many: give the count (--gpus N)");
    }

    // A file that writes its model out (LitGPT's model_config) gives it whole, over any other.
    const auto written = std::find_if(run.imports.begin(), run.imports.end(),
                                      [](const TrainImport &import) { return import.scenario.contains("model"); });
    if (!modelConfig.isEmpty()) {
        doc["model"] = {{"config", QFileInfo(modelConfig).absoluteFilePath().toStdString()}};
        run.modelNote = "from " + local(modelConfig);
    } else if (written != run.imports.end()) {
        doc["model"] = written->scenario["model"];
        run.modelNote = "the architecture " + written->file + " writes out";
    } else if (!base || !base->contains("model")) {
        std::string reference;
        for (const TrainImport &import : run.imports)
            if (!import.model.empty()) {
                reference = import.model;
                break;
            }
        const ModelPreset *preset = findModelReference(reference);
        if (preset) {
            doc["model"] = {{"preset", preset->id}};
            run.modelNote = preset->name + " (catalog " + preset->id + ") for " + quotedText(reference);
        } else if (fallbackModel) {
            doc["model"] = *fallbackModel;
            run.modelNote = reference.empty() ? "the current model (the files name none)"
                                              : "the current model (" + quotedText(reference) + " is not in the catalog)";
        } else if (reference.empty()) {
            throw TrainConfigError(local(paths.value(0)), "", "names no model: give --model-config config.json "
                                                              "(or a scenario file with a model)");
        } else {
            throw TrainConfigError(local(paths.value(0)), "", "names the model " + quotedText(reference) +
                                       ", which is not in Headroom's catalog: give --model-config with its config.json");
        }
    }

    // What the framework fills in: the preset settings for the keys no file set.
    if (doc.contains("framework")) {
        nlohmann::json plain = doc;
        plain.erase("framework");
        nlohmann::json withPreset = doc;
        try {
            // The model is the one given (--model-config) or the window's current one.
            QString modelFile = modelConfig;
            if (modelFile.isEmpty() && fallbackModel && fallbackModel->is_object() &&
                fallbackModel->contains("config") && (*fallbackModel)["config"].is_string())
                modelFile = QString::fromStdString((*fallbackModel)["config"].get<std::string>());
            Scenario parsed = scenarioFromJson(plain, builtinCatalog(),
                                               configResolver(QDir::currentPath() + QStringLiteral("/x"), modelFile));
            parsed.framework = frameworkFromJson(doc["framework"]);
            run.frameworkDefaults = applyPresetToDocument(withPreset, parsed);
        } catch (const ScenarioError &) {
            // The caller's parse reports the error with its key.
        }
    }
    run.document = doc;
    return run;
}

} // namespace headroom
