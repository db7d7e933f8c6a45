// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate/estimate.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace headroom {

/// The v1 estimate document ("headroom-estimate"); formulas are written in `unit`.
nlohmann::json estimateToJson(const Estimate &estimate, Unit unit = Unit::GiB);

/// A serving engine's figures: the contract's budget_bytes, kv_cache_bytes, kv_cache_tokens,
/// max_concurrency and max_concurrency_tokens, then the rest of what it prints.
nlohmann::json servingFiguresToJson(const ServingFigures &figures);

/// One CSV row per consumer of the peak: id,bytes,size,share,formula (RFC 4180 quoting).
std::string estimateToCsv(const Estimate &estimate, Unit unit = Unit::GiB);

/// Share of the device peak, 0..1.
double consumerShare(const Estimate &estimate, const Consumer &consumer);

} // namespace headroom
