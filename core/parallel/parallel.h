// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/architecture.h"
#include "scenario/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// What a sharding strategy splits across the data-parallel ranks (ZeRO's stages).
enum class ShardLevel { None = 0, OptimizerState = 1, Gradients = 2, Parameters = 3 };

/// The ranks that hold different things: without pipeline parallelism every rank is alike;
/// with it, the first stage holds the embeddings and the most micro-batches in flight, the
/// last the lm_head and the loss.
enum class RankRole { Only, FirstStage, LastStage };

/// The parallelism algebra of a scenario: how its GPUs divide into data-, context-, tensor-,
/// pipeline- and expert-parallel groups and what each rank keeps. Every consumer divides
/// through here.
struct ParallelLayout
{
    std::uint64_t gpus = 1;
    std::uint64_t dataParallel = 1; ///< gpus / (tensor x pipeline x context)
    std::uint64_t tensor = 1;
    std::uint64_t pipeline = 1;
    std::uint64_t context = 1;
    std::uint64_t expert = 1;
    bool sequenceParallel = true;
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    std::uint64_t virtualStages = 1;
    ShardLevel shardLevel = ShardLevel::None;
    Strategy strategy = Strategy::None;

    /// Ranks that shard model state under ZeRO/FSDP: data x context parallel (torchtitan
    /// shards over its dp_shard x cp mesh; DeepSpeed-Ulysses over dp x sp).
    std::uint64_t shardGroup() const { return dataParallel * context; }
    /// Ranks that shard one routed expert's state: the shard group over expert parallelism.
    std::uint64_t expertShardGroup() const;
    /// True when the strategy shards `what` across more than one rank.
    bool shards(ShardLevel what) const;
    /// FSDP under pipeline parallelism (PyTorch's pipelining stages, torchtitan): the stage's
    /// parameters stay gathered from the first micro-batch's forward to the last backward
    /// (reshard_after_forward = not pp_enabled) and its gradients accumulate unsharded, in the
    /// reduce dtype, until the last micro-batch (set_requires_gradient_sync(False)).
    bool stageStaysGathered() const
    {
        return strategy == Strategy::Fsdp && pipeline > 1 && shards(ShardLevel::Parameters);
    }
    /// Tensor x pipeline: how many ways each layer's weights are split.
    std::uint64_t modelSplit() const { return tensor * pipeline; }
    /// Layers held by one pipeline stage (the larger share when they do not divide evenly).
    std::uint64_t layersPerStage(std::uint64_t layers) const;
    /// Micro-batches whose activations the first stage keeps (1F1B: up to `pipeline`).
    std::uint64_t microBatchesInFlight(std::uint64_t gradAccum) const;
    /// Bytes of a model-wide tensor on one rank: split by tensor x pipeline, then by the
    /// shard group when `sharded`. Rounds up.
    std::uint64_t perRank(std::uint64_t bytes, bool sharded) const;
    /// " / 4 GPUs (zero3)": the ZeRO/FSDP divisor of a per-rank figure, for formulas.
    std::string shardNote(bool sharded) const;
    /// " / 8 (tensor x pipeline) / 4 GPUs (zero3)": the divisors of perRank for formulas.
    std::string note(bool sharded) const;
    /// "8 GPUs: tensor 2 x pipeline 2 x data 2": the layout in words.
    std::string describe() const;
    /// The distinct kinds of rank, busiest candidates first.
    std::vector<RankRole> roles() const;
};

/// The layout of a scenario's `parallel` block.
ParallelLayout parallelLayout(const Scenario &scenario);
/// Throws ScenarioError naming the key when the `parallel` block cannot describe a run: GPUs
/// that tensor x pipeline x context do not divide, expert parallelism that does not divide the
/// experts or a stage's GPUs, more stages than layers, parameter offload without ZeRO-3/FSDP.
/// The scenario reader and the estimator both check through here.
void checkParallel(const Scenario &scenario);
/// Why a tensor-parallel size cannot split the scenario's model as the engines and frameworks
/// split it, or empty: the attention heads must divide evenly (vLLM, SGLang, Megatron-LM); the KV
/// heads too in training (Megatron-LM's num_query_groups), while the serving engines replicate
/// them, so there they must divide the size or be divisible by it; and the MLP widths (dense and
/// per expert) must divide evenly (the column-parallel linears' `divide`). The message names the
/// model key; the caller names the size's key (parallel.tensor, --tensor).
std::string tensorSplitProblem(const Scenario &scenario, std::uint64_t tensor);

/// "first pipeline stage", "last pipeline stage", "every GPU".
const char *rankRoleName(RankRole role);

/// What one rank of a role holds and processes.
struct RankShare
{
    RankRole role = RankRole::Only;
    std::uint64_t layers = 0;      ///< transformer blocks on the rank
    bool embeddings = true;        ///< holds the token embeddings (first stage)
    bool lmHead = true;            ///< holds the lm_head, the final norm and the loss (last stage)
    /// Activations kept, in micro-batches: inFlightNumerator / inFlightDenominator (1F1B's
    /// first stage: p; interleaved: p x (1 + (p - 1) / (p v)); GPipe: every micro-batch).
    std::uint64_t inFlightNumerator = 1;
    std::uint64_t inFlightDenominator = 1;
    std::uint64_t tokens = 0; ///< tokens of one micro-batch on the rank (seq_len / context)
};

/// The share of one role in a training or inference scenario.
RankShare rankShare(const Scenario &scenario, const ParallelLayout &layout, RankRole role);

/// The model's parameters that one rank holds before ZeRO/FSDP sharding: blocks of its stage
/// split by tensor parallelism, routed experts also by expert parallelism, the embeddings on
/// the first stage and the lm_head on the last (both vocabulary-parallel).
ParamCounts rankParams(const ParamCounts &model, const ModelArch &arch,
                       const ParallelLayout &layout, const RankShare &share);

} // namespace headroom
