// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "solve/frontier.h"
#include "solve/solver.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace headroom {

/// `headroom solve --format json`: {"for", "gpu", "value", "peak_bytes", "next_peak_bytes"} (the
/// contract), then next_value, limit_bytes, grows, limit, strategy and the applied changes.
nlohmann::json solutionToJson(const Solution &solution);

/// The frontier as JSON ("headroom-frontier" v1): curves of points and the operating point.
nlohmann::json frontierToJson(const Frontier &frontier);
/// One CSV row per point: gpu,tensor,allocation,tokens,sequences,limit.
std::string frontierToCsv(const Frontier &frontier);

} // namespace headroom
