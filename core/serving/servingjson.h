// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <functional>
#include <nlohmann/json_fwd.hpp>

namespace headroom {

/// Reads a scenario's `serving` section; `scenario` is the rest of it, already read (the task
/// and the model bound some values). Keys of another engine are errors that name the engine
/// they belong to. Throws ScenarioError naming the key ("serving.max_model_len: ...").
/// `readDraft` reads serving.speculative.model (a model object, as readModel reads `model`).
using DraftModelReader = std::function<ModelArch(const nlohmann::json &)>;
ServingConfig servingFromJson(const nlohmann::json &node, const Scenario &scenario,
                              const DraftModelReader &readDraft = {});
/// The section as written back: the engine's own keys, every one written out.
nlohmann::json servingToJson(const ServingConfig &serving);

namespace detail {
/// serving.speculative (servingspecjson.cpp): vLLM's --speculative-config; what is not modelled
/// is refused naming the key.
SpeculativeConfig readSpeculative(const nlohmann::json &node, const ServingConfig &serving, const Scenario &scenario,
                                  const DraftModelReader &readDraft);
nlohmann::json speculativeToJson(const SpeculativeConfig &speculative);
} // namespace detail

} // namespace headroom
