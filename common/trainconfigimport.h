// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "training/framework.h"
#include "importers/trainimport.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace headroom {

/// A run described by its training configuration files: the scenario document they make, with
/// what each file said and what the framework filled in.
struct ImportedRun
{
    nlohmann::json document;              ///< a complete v1 scenario document
    std::vector<TrainImport> imports;     ///< one per file, in order
    std::vector<PresetSetting> frameworkDefaults; ///< preset settings for keys no file set
    std::string modelNote;                ///< how the model was found ("llama-3.1-8b from ...")
};

/// Reads one training configuration file (the one place these files are read, so the input
/// policy applies to all of them). Throws TrainConfigError naming the file.
QByteArray readTrainConfigFile(const QString &path);

/// Reads the files, applies `arguments` (torchtune `key=value`, LitGPT `--key value`) to the
/// torchtune/LitGPT ones, merges them over `base` (a scenario document, or nothing) and finds
/// the model: `modelConfig` (a config.json) if given, else the base's, else the catalog model the
/// files name, else `fallbackModel` (the window's current model) when given. Throws
/// TrainConfigError or ScenarioError naming the file and key.
///
/// A file that names another (LLaMA-Factory's `deepspeed: path`) has it read too: from the
/// files given (same file name), else the path as written from the current folder, else from
/// the config's folder and the folders above it; not found is an error naming the key.
/// `gpus` is the launcher's world size (--gpus N): it wins over the files' counts. A run the
/// files shard over several GPUs (ZeRO, FSDP, DDP) without saying how many is refused, asking
/// for the count, never estimated as one GPU.
ImportedRun importTrainConfigs(const QStringList &paths, const QStringList &arguments,
                               const QString &format, const QString &modelConfig,
                               const std::optional<nlohmann::json> &base,
                               const std::optional<nlohmann::json> &fallbackModel = std::nullopt,
                               std::optional<int> gpus = std::nullopt);

} // namespace headroom
