// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Exact limits on the estimator: the largest value of one setting that fits a GPU (the answer
// fits and one more does not), or the fewest GPUs. Exponential then binary search on
// bytes-only estimates.

#include "scenario/catalog.h"
#include "estimate/estimate.h"
#include "scenario/scenario.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// What a solve finds.
/// MaxVllmUtilization: a GRPO run's colocated vLLM (train.grpo.vllm_gpu_memory_utilization),
/// in hundredths (42 = 0.42): the largest share vLLM may take that leaves room for training.
enum class SolveFor { MaxMicroBatch, MaxSeqLen, MaxContext, MaxConcurrency, MinGpus, MaxLoraRank, MaxVllmUtilization };
/// How many SolveFor values there are (tables indexed by a SolveFor are this long).
inline constexpr std::size_t kSolveForCount = std::size_t(SolveFor::MaxVllmUtilization) + 1;
/// "max-micro-batch", ..., as the command line spells them.
const char *solveForKey(SolveFor what);
std::optional<SolveFor> solveForFromKey(std::string_view key);
/// Every variable, in the order the Solve panel lists them.
std::vector<SolveFor> allSolveFors();

/// A variable that does not apply to the scenario (max-micro-batch when serving, ...).
class SolveError : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

struct SolveOptions
{
    /// Share of the GPU's capacity a configuration may use (1 = all of it). Engines with their
    /// own fraction (vLLM, SGLang) size themselves and ignore it.
    double margin = 1.0;
    /// For min-gpus, ways of splitting beyond what the scenario already uses: zero1, zero2,
    /// zero3, fsdp, tensor, pipeline.
    std::vector<std::string> strategies;
};

/// An exact boundary.
struct Solution
{
    SolveFor what = SolveFor::MaxMicroBatch;
    std::string gpuId;
    std::string gpuName;
    std::uint64_t value = 0;                    ///< fits; 0 when not even the smallest value fits
    std::optional<std::uint64_t> peakBytes;     ///< device bytes at `value` (none when 0)
    std::optional<std::uint64_t> nextValue;     ///< value + 1 (min-gpus: the next smaller count)
    std::optional<std::uint64_t> nextPeakBytes; ///< device bytes at nextValue; none when it does not exist
    std::uint64_t limitBytes = 0;               ///< capacity x margin (engines: their own budget)
    ConsumerId grows = ConsumerId::Activations; ///< what grows most from value to nextValue
    /// What stops it: memory, kv_cache, max_num_seqs, max_model_len, max_positions (a model's
    /// learned positions), or range (the format's maximum).
    std::string limit = "memory";
    std::string strategy;                       ///< min-gpus: "zero3", "tensor", "pipeline"
    Scenario scenario;                          ///< the scenario with the answer applied
    bool operator==(const Solution &) const = default;
};

/// The variables that make sense for this scenario.
std::vector<SolveFor> applicableSolves(const Scenario &scenario);

/// The scenario with `what` set to `value` (min-gpus: the scenario's own strategy over `value`
/// GPUs). Throws SolveError when the variable does not apply.
Scenario withSolveValue(const Scenario &scenario, SolveFor what, std::uint64_t value);
/// The current value of the variable in the scenario.
std::uint64_t solveValue(const Scenario &scenario, SolveFor what);

/// Solves one variable for one catalog GPU. Throws SolveError (not applicable, unknown GPU).
Solution solve(const Scenario &scenario, SolveFor what, const std::string &gpuId,
               const SolveOptions &options = {}, const Catalog &catalog = builtinCatalog());

/// The same variable for several GPUs at once (the capacity lines): where the GPU does not
/// change the estimate, the searches share their evaluations.
std::vector<Solution> solveForGpus(const Scenario &scenario, SolveFor what,
                                   const std::vector<std::string> &gpuIds,
                                   const SolveOptions &options = {},
                                   const Catalog &catalog = builtinCatalog());

} // namespace headroom
