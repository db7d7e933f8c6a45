// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <QString>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// Asks for the config.json keys an import lacks and writes them into `config`; false when
/// the user cancels.
using MissingFieldsPrompt = std::function<bool(const QString &path, const std::vector<std::string> &fields,
                                               nlohmann::json &config)>;

/// An architecture read from a model file, and one line saying what was read.
struct ModelImport
{
    ModelArch arch;
    QString summary;
};

/// True for what File > Import model reads: a Hugging Face config.json, a .safetensors file,
/// a model.safetensors.index.json or a .gguf file (by name, or a JSON file with a model_type).
bool isModelFile(const QString &path);

/// Reads a config.json (asking for missing keys through `prompt`) or safetensors headers (the
/// exact parameter total, with the config.json beside them when there is one, else on top of
/// `current`). Returns nothing when the user cancels; throws std::exception with a message
/// naming the file when the file cannot be read.
std::optional<ModelImport> importModelFile(const QString &path, const ModelArch &current,
                                           const MissingFieldsPrompt &prompt);

} // namespace headroom
