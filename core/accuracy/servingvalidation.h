// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "serving/servingfigures.h"
#include "scenario/scenario.h"
#include "accuracy/validation.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One published serving-engine start-up log ("headroom-serving-log" v1, tests/data/serving):
/// the scenario that reproduces the launch and the KV figures the engine printed.
struct ServingCase
{
    std::string id;
    Scenario scenario;
    std::optional<std::uint64_t> kvCacheBytes; ///< KV cache memory the engine printed
    std::optional<std::uint64_t> kvTokens;     ///< "GPU KV cache size" / "#tokens"
    std::string engineVersion;                 ///< as the log or its source states it
    std::string confidence;                    ///< high, medium or low
    bool verified = false;                     ///< re-read in its source
    std::string url;
};

/// Parses a case; `fileName` names it in errors and must match its id. Throws ValidationError.
ServingCase parseServingCase(std::string_view text, const std::string &fileName);

/// A case compared: signed errors (estimate - printed) / printed, where the log printed it.
struct ServingCaseResult
{
    ServingCase log;
    ServingFigures figures;
    std::optional<double> bytesError;
    std::optional<double> tokensError;
};

/// Errors of one group of cases (an engine and its version family).
struct ServingGroup
{
    std::string name;
    ErrorSummary bytes;
    ErrorSummary tokens;
};

struct ServingReport
{
    std::vector<ServingCaseResult> cases;
    ErrorSummary bytes;  ///< over every case that printed its KV memory
    ErrorSummary tokens; ///< over every case that printed its KV tokens
    std::vector<ServingGroup> groups;
};

/// "vllm 0.10", "vllm 0.6 (V0)", "sglang": the group a case reports under.
std::string servingGroupName(const Scenario &scenario);
/// Estimates every case and summarizes the errors per group.
ServingReport validateServing(const std::vector<ServingCase> &cases);
/// The report as JSON ("headroom-serving-validation" v1).
nlohmann::json servingReportToJson(const ServingReport &report);

} // namespace headroom
