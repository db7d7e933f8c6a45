// SPDX-License-Identifier: GPL-3.0-or-later
// What a user calls a model that came from a file (issue 22: "Llama-3.1-8B", not "custom 8.0B"),
// and where the Hugging Face hub keeps its downloads. Plain string work: the files themselves are
// read in common/ (localmodels.h, modelimport.h).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace headroom {

/// "meta-llama/Llama-3.1-8B" for a hub cache folder "models--meta-llama--Llama-3.1-8B", "gpt2"
/// for "models--gpt2" (huggingface_hub's repo_folder_name: "models--" + the id with "/" written
/// "--"); empty for any other name.
std::string hubRepoId(std::string_view folderName);

/// The model's name in a path: its last part, except that a snapshot of the hub cache
/// (`.../models--ORG--NAME/snapshots/REV[/config.json]`) is NAME, not the commit hash; a
/// `config.json` is named by its folder and any other `NAME.json` by NAME. Both separators
/// count. Empty when nothing is left ("/", "..", "config.json" alone).
std::string modelNameFromPath(std::string_view path);

/// What the user calls an imported config.json: the last part of its `_name_or_path` (what
/// transformers' save_pretrained writes: "meta-llama/Llama-3.1-8B" gives "Llama-3.1-8B"), else
/// modelNameFromPath(configPath). Escaped and cut as messages quote a value (control characters
/// escaped, at most limits::kQuoteChars bytes with "..."); empty when neither names it.
std::string importedModelName(const nlohmann::json &config, std::string_view configPath);

/// Why a scenario's `model.name` is refused (longer than limits::kModelNameBytes, or holding
/// control characters, bidirectional overrides or invalid UTF-8); empty when it is fine.
std::string modelNameProblem(std::string_view name);

/// The environment that decides where the hub cache is; empty strings count as unset.
struct HubCacheEnvironment
{
    std::string hfHubCache;        ///< HF_HUB_CACHE
    std::string legacyHubCache;    ///< HUGGINGFACE_HUB_CACHE (older huggingface_hub releases)
    std::string hfHome;            ///< HF_HOME
    std::string xdgCacheHome;      ///< XDG_CACHE_HOME
    std::string home;              ///< the user's home folder
};

/// The hub cache folder as huggingface_hub's constants.py finds it: HF_HUB_CACHE, else
/// HUGGINGFACE_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else
/// ~/.cache/huggingface/hub. A leading "~/" is the home folder (Python's expanduser). Empty when
/// nothing names one (no home).
std::string hubCacheFolder(const HubCacheEnvironment &env);

} // namespace headroom
