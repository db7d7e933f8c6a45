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
    /// The other consumers the engine printed, in GiB as printed (measured.weights_gib, ...):
    /// weights, the profile run's activation peak, non-torch memory, the CUDA graph pool.
    std::optional<double> weightsGiB, activationGiB, nonTorchGiB, cudaGraphGiB;
    std::optional<double> maxConcurrency;      ///< "Maximum concurrency for L tokens per request: Xx"
    std::optional<bool> started;               ///< false: the engine refused to start
    std::string refusal;                       ///< the engine's reason, as printed (started false)
    std::string engineVersion;                 ///< as the log or its source states it
    std::string confidence;                    ///< high, medium or low
    bool verified = false;                     ///< re-read in its source
    std::string url;
};

/// Parses a case; `fileName` names it in errors and must match its id. Throws ValidationError.
ServingCase parseServingCase(std::string_view text, const std::string &fileName);

/// One printed figure against the estimate's.
struct FigureError
{
    std::string key;                 ///< "kv_cache", "kv_tokens", "weights", "activation", ...
    double printed = 0;              ///< GiB for memory, tokens, or x for concurrency
    double estimated = 0;
    std::optional<double> relative;  ///< (estimated - printed) / printed; none when printed <= 0
    std::optional<double> gib;       ///< estimated - printed in GiB (memory figures only)
};

/// A case compared: signed errors (estimate - printed) / printed, where the log printed it.
struct ServingCaseResult
{
    ServingCase log;
    ServingFigures figures;
    std::optional<double> bytesError;
    std::optional<double> tokensError;
    std::vector<FigureError> errors; ///< every figure the log printed, in kServingFigureKeys order
    std::optional<bool> refusalPredicted; ///< the estimate starts (or refuses) as the engine did
};

/// The figures compared, in report order.
inline constexpr const char *kServingFigureKeys[] = {"kv_cache",   "kv_tokens",  "weights",        "activation",
                                                     "non_torch", "cuda_graph", "max_concurrency"};
/// Errors of one figure over every case that printed it.
struct FigureSummary
{
    std::string key;
    ErrorSummary relative;           ///< over the cases with a positive printed value
    std::size_t gibCount = 0;        ///< memory figures: cases compared in GiB
    double medianAbsGiB = 0;
    double p90AbsGiB = 0;
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
    std::vector<FigureSummary> figures; ///< one per kServingFigureKeys entry
    std::size_t startCases = 0;         ///< cases that say whether the engine started
    std::size_t startPredicted = 0;     ///< of those, the estimate agrees (and refuses when it did)
};

/// "vllm 0.10", "vllm 0.6 (V0)", "sglang": the group a case reports under.
std::string servingGroupName(const Scenario &scenario);
/// Estimates every case and summarizes the errors per group.
ServingReport validateServing(const std::vector<ServingCase> &cases);
/// The report as JSON ("headroom-serving-validation" v1).
nlohmann::json servingReportToJson(const ServingReport &report);

} // namespace headroom
