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
                               const std::optional<nlohmann::json> &fallbackModel)
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
        if (fileFormat == TrainConfigFormat::Auto)
            fileFormat = detectFormat(parseConfigText(view, name), name);
        const bool takesOverrides = fileFormat == TrainConfigFormat::Torchtune || fileFormat == TrainConfigFormat::Litgpt;
        run.imports.push_back(importTrainConfig(view, name, fileFormat,
                                                takesOverrides ? overrides : std::vector<std::string>{}));
        overridesUsed = overridesUsed || takesOverrides;
    }
    if (!overridesUsed)
        throw TrainConfigError("--train-arg", "", "overrides apply to torchtune and LitGPT configs, and none was given");

    nlohmann::json doc = base ? *base : nlohmann::json{{"format", "headroom-scenario"}, {"version", 1}};
    if (!doc.is_object())
        throw ScenarioError("", "the scenario is not a JSON object");
    doc.merge_patch(mergeImports(run.imports));

    if (!modelConfig.isEmpty()) {
        doc["model"] = {{"config", QFileInfo(modelConfig).absoluteFilePath().toStdString()}};
        run.modelNote = "from " + local(modelConfig);
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
