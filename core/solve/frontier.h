// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Concurrency x context for serving: for each GPU (or tensor-parallel size), the most
// sequences that run at once as a function of tokens per sequence, from the exact solver.

#include "scenario/catalog.h"
#include "scenario/scenario.h"
#include "serving/servingfigures.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// How a curve allocates the cache: in blocks as the tokens arrive (paged attention), or the
/// engine's longest sequence (max_model_len) up front for every sequence (a contiguous, static
/// cache).
enum class FrontierAllocation { Paged, Contiguous };
const char *frontierAllocationKey(FrontierAllocation allocation);

struct FrontierPoint
{
    std::uint64_t tokens = 0;    ///< tokens per sequence (prompt + output)
    std::uint64_t sequences = 0; ///< the most sequences of that length at once
    ServingLimit limit = ServingLimit::KvCache; ///< what stops one more
    /// What one sequence of the answer holds of the KV pool (FrontierOptions::engineLimits; else
    /// 0, as when the scenario has no engine).
    std::uint64_t kvBytesPerSequence = 0;
    bool operator==(const FrontierPoint &) const = default;
};

struct FrontierCurve
{
    std::string gpuId;
    std::string gpuName;
    std::uint32_t tensor = 1;
    FrontierAllocation allocation = FrontierAllocation::Paged;
    std::vector<FrontierPoint> points;
    bool operator==(const FrontierCurve &) const = default;
};

/// The curves and the scenario's own load on them.
struct Frontier
{
    std::vector<FrontierCurve> curves;
    std::uint64_t operatingTokens = 0;       ///< the longest request of the load
    std::uint64_t operatingSequences = 0;    ///< the load's concurrency
    std::uint64_t operatingMaxSequences = 0; ///< the most that fit at that length on the first curve
    ServingLimit operatingLimit = ServingLimit::KvCache;
    std::uint64_t maxModelLen = 0; ///< vLLM's and SGLang's longest sequence; 0 for other engines
    bool operator==(const Frontier &) const = default;
};

struct FrontierOptions
{
    std::vector<std::string> gpuIds;   ///< empty: the scenario's GPUs
    std::vector<std::uint32_t> tensor; ///< tensor-parallel sizes for the first GPU; empty: the scenario's
    std::vector<std::uint64_t> tokens; ///< tokens per sequence; empty: doublings around the load
    bool contiguous = false;           ///< add the contiguous-allocation curve of every paged one
    /// The curves as the engine runs, for the window: no point beyond max_model_len (vLLM and
    /// SGLang refuse a longer request; with the default lengths, max_model_len is one of them),
    /// each curve ending before the first length at which the KV pool holds not one sequence,
    /// and each point's kvBytesPerSequence. Off (the command line): every length is solved with
    /// max_model_len raised to it, as docs/scenario-format.md says.
    bool engineLimits = false;
};

/// The scenario with every sequence `tokens` long: requests of that length (the engine's longest
/// sequence raised to it where it is shorter), or inference.context without an engine.
Scenario withTokensPerSequence(const Scenario &scenario, std::uint64_t tokens);

/// The frontier of an inference scenario. Throws SolveError for a training scenario.
Frontier servingFrontier(const Scenario &scenario, const FrontierOptions &options = {},
                         const Catalog &catalog = builtinCatalog());

} // namespace headroom
