// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A start-up log kept as a "headroom-serving-log" case (tests/data/serving/README.md) that
// `headroom validate` reads back: the scenario as the user described it, the engine's lines
// verbatim, its KV figures and the first-seen error. `headroom compare --save-case` and the
// window's "Save as a measured case..." both write it through servingCaseDocument.

#include "estimate/estimate.h"
#include "measure/enginelog.h"
#include "scenario/scenario.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// The case document, or `error` set (and an empty object returned) when the log prints neither
/// its KV cache memory nor its KV tokens, or the estimate has no serving figures. `id` is the
/// case's id (the file's name without .json); `logFileName` the log's file name, kept as source.
nlohmann::json servingCaseDocument(const std::string &id, const std::string &logFileName, const EngineLog &log,
                                   const Scenario &scenario, const Estimate &estimate,
                                   const std::vector<std::string> &notes, std::string &error);

/// What the log printed as the engine's whole budget: its "budget" figure, else weights +
/// activation peak + non-torch + CUDA graphs + KV cache (the log must print weights and KV cache).
/// `parts` names what was added. Nothing when the log prints neither.
std::optional<double> logMeasuredTotal(const EngineLog &log, std::vector<std::string> &parts);

} // namespace headroom
