// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario.h"

#include <cstdint>
#include <string>

namespace headroom {

/// What a sharding strategy splits across the data-parallel ranks (ZeRO's stages).
enum class ShardLevel { None = 0, OptimizerState = 1, Gradients = 2, Parameters = 3 };

/// The parallelism algebra of a scenario: how its GPUs divide into data-, tensor- and
/// pipeline-parallel groups and what each rank keeps. Every consumer divides through here.
struct ParallelLayout
{
    std::uint64_t gpus = 1;
    std::uint64_t dataParallel = 1;
    std::uint64_t tensor = 1;
    std::uint64_t pipeline = 1;
    ShardLevel shardLevel = ShardLevel::None;
    Strategy strategy = Strategy::None;

    /// True when the strategy shards `what` across more than one data-parallel rank.
    bool shards(ShardLevel what) const;
    /// Tensor x pipeline: how many ways each layer's weights are split.
    std::uint64_t modelSplit() const { return tensor * pipeline; }
    /// Layers held by the busiest (first) pipeline stage.
    std::uint64_t layersPerStage(std::uint64_t layers) const;
    /// Micro-batches whose activations the first stage keeps (1F1B: up to `pipeline`).
    std::uint64_t microBatchesInFlight(std::uint64_t gradAccum) const;
    /// Bytes of a model-wide tensor on one rank: split by tensor x pipeline, then by the
    /// data-parallel ranks when `sharded`. Rounds up.
    std::uint64_t perRank(std::uint64_t bytes, bool sharded) const;
    /// " / 8 (tensor x pipeline) / 4 GPUs (zero3)": the divisors of perRank for formulas.
    std::string note(bool sharded) const;
};

/// The layout of a scenario's `parallel` block.
ParallelLayout parallelLayout(const Scenario &scenario);

} // namespace headroom
