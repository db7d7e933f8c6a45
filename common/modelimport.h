// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/hfconfig.h"
#include "io/safetensors.h"
#include "scenario/scenariojson.h"

#include <QString>
#include <nlohmann/json.hpp>

namespace headroom {

/// Reads and parses a JSON file of at most `maxBytes` under the input policy (a regular file,
/// depth and duplicate keys checked). Throws ScenarioError under `key` naming the file when it
/// cannot be opened, is too large or is not JSON.
nlohmann::json readJsonFile(const QString &path, const std::string &key,
                            std::uint64_t maxBytes = limits::kConfigBytes);

/// Reads a Hugging Face config.json with, when it states no quantization_config, the
/// hf_quant_config.json beside it (NVIDIA ModelOpt checkpoints) as its quantization_config.
nlohmann::json readModelConfigJson(const QString &path);

/// Reads a Hugging Face config.json and maps it to an architecture, named as the user calls it
/// (importedModelName: its `_name_or_path`, else its folder). Throws HfConfigError
/// (with the missing fields, for the user to fill in) or ScenarioError (unreadable file).
HfImport importModelConfig(const QString &path);

/// The headers of a safetensors checkpoint: a `.safetensors` file, a
/// `model.safetensors.index.json` with its shards, or a folder holding either. Reads 8 bytes
/// and the header of each file, never the weights. Throws SafetensorsError naming the file.
WeightsSummary readModelWeights(const QString &path);

/// True when `path` and `folder`, each with every link followed (also a link to nothing), are
/// the same or `path` lies below `folder`: where a file another file links to may be read from.
bool resolvesInside(const QString &path, const QString &folder);

/// True when `path`, with every link followed, lies inside one of `folders` or the user's home
/// folder (a home of "/" does not count): where a file that another file names may be read from.
bool insideUsersFolders(const QString &path, const QStringList &folders);

/// Reads the `model.config` files of a scenario, relative to the scenario file's folder. A file
/// must be (with its links followed) inside that folder or the user's home folder, or be
/// `explicitConfig` (what --model-config gave); anything else is refused (ScenarioError) without
/// being looked at.
ConfigResolver configResolver(const QString &scenarioPath, const QString &explicitConfig = {});

} // namespace headroom
