// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Frameworks as presets: each names a documented bundle of behaviours (docs/frameworks.md) that
// sets the estimator's knobs wherever the scenario does not set them itself.

#include "scenario/scenario.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// A release number as its numeric parts ("v4.46.1" -> 4, 46, 1); suffixes such as ".dev0" end it.
struct Version
{
    std::vector<int> parts;
    /// Nothing when the text does not start with a number.
    static std::optional<Version> parse(std::string_view text);
    /// Component-wise; missing parts count as 0 ("4.46" == "4.46.0").
    int compare(const Version &other) const;
};

/// True when the run names a version and it is older than `release` (no version: the current
/// release, never older).
bool versionBefore(const FrameworkChoice &framework, std::string_view release);

/// Serving engines (hf_generate, vllm, sglang, llama_cpp) rather than training frameworks.
bool isServingEngine(Framework framework);
/// "Hugging Face Transformers", "torchtune", ...
const char *frameworkDisplayName(Framework framework);
/// The release a preset describes when the scenario names no version.
const char *currentRelease(Framework framework);

/// One knob a framework's preset sets, with the framework's own reason.
struct PresetSetting
{
    std::string key;    ///< dotted scenario key, "kernels.loss"
    nlohmann::json value;
    /// A behaviour of the framework's code (applied when the framework is chosen in the window),
    /// or a default of one of the user's own settings (filled in only where a file omits it).
    bool behaviour = true;
    std::string why;    ///< what the framework does, and where (repository, path)
};

/// The settings a framework's preset makes for this scenario (they may depend on its method,
/// precision and parallelism). Empty for Framework::None.
std::vector<PresetSetting> frameworkPreset(const Scenario &scenario);

/// Dotted paths of every key a scenario document sets ("train.lora.rank", "framework").
std::set<std::string> explicitKeys(const nlohmann::json &doc);

/// Writes the preset into a scenario document for every key it does not set itself; returns the
/// settings it applied. `parsed` is the document parsed without the preset.
std::vector<PresetSetting> applyPresetToDocument(nlohmann::json &doc, const Scenario &parsed);

/// The scenario with its framework's behaviours applied (overriding those knobs, as choosing a
/// model preset replaces the architecture); the user's own settings (batch, LoRA rank...) stay.
Scenario withFrameworkBehaviours(const Scenario &scenario);

/// Reads `framework`: a name, or {"name", "version"}. Throws ScenarioError naming the key.
FrameworkChoice frameworkFromJson(const nlohmann::json &value);
/// The `framework` value as written ({"name": ..., "version": ...}; version only when set).
nlohmann::json frameworkToJson(const FrameworkChoice &framework);

/// A short sentence on what the framework keeps for the loss, for the breakdown ("torchtune keeps
/// the fp32 log-softmax of every chunk until backward"); empty when nothing specific is known.
std::string frameworkLossNote(const Scenario &scenario);

} // namespace headroom
