// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "solve/advisor.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

namespace headroom {

/// One scenario key that differs between two configurations: dotted path and new value.
using ScenarioChange = std::pair<std::string, nlohmann::json>;

/// The keys of the v1 scenario document that differ from `before` to `after`, in document order.
std::vector<ScenarioChange> scenarioChanges(const Scenario &before, const Scenario &after);

/// The advice as JSON ("format": "headroom-advice", version 1): numbers in bytes, lever and
/// skip-reason ids, each step's changed keys and full scenario. No prose: the app adds it.
nlohmann::json adviceToJson(const Advice &advice);

/// Stable id of a skip reason ("no_saving").
const char *skipReasonKey(SkipReason reason);

} // namespace headroom
