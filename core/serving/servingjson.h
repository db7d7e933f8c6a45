// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <nlohmann/json_fwd.hpp>

namespace headroom {

/// Reads a scenario's `serving` section; `scenario` is the rest of it, already read (the task
/// and the model bound some values). Keys of another engine are errors that name the engine
/// they belong to. Throws ScenarioError naming the key ("serving.max_model_len: ...").
ServingConfig servingFromJson(const nlohmann::json &node, const Scenario &scenario);
/// The section as written back: the engine's own keys, every one written out.
nlohmann::json servingToJson(const ServingConfig &serving);

} // namespace headroom
