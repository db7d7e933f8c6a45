// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace headroom {

/// One tensor a block keeps for backward, sized per token.
struct SavedTensor
{
    const char *name;
    std::uint64_t valuesPerToken;
    std::uint64_t bytesPerValue;
    const char *why; ///< the code that keeps it (framework behaviour, see docs/estimator.md)
    /// Split across tensor-parallel ranks even without sequence parallelism (inside the
    /// column/row-parallel region); norms and residuals are replicated unless sequence parallel.
    bool tensorParallel = true;
};

/// The per-tensor inventory of one kind of block in training, for the scenario's profile.
struct LayerInventory
{
    std::vector<SavedTensor> tensors;
    std::uint64_t bytesPerToken = 0;          ///< sum over tensors
    std::uint64_t replicatedBytesPerToken = 0; ///< the part tensor parallelism alone does not split
    std::uint64_t layerInputBytesPerToken = 0; ///< what full checkpointing keeps per layer
    std::uint64_t opSelectiveBytesPerToken = 0; ///< what op-level selective checkpointing keeps
    std::uint64_t scoreBytesPerElement = 0;   ///< eager attention: bytes per b x heads x s^2 element

    /// Bytes per token on one of `tensor` ranks (sequence parallel: everything split).
    std::uint64_t perRank(std::uint64_t tensor, bool sequenceParallel) const;
};

/// The inventories of a model's blocks: dense-MLP blocks and mixture-of-experts blocks.
struct ModelInventory
{
    LayerInventory dense;
    LayerInventory moe;
    std::uint64_t denseLayers = 0;
    std::uint64_t moeLayers = 0;
    std::uint64_t finalNormBytesPerToken = 0; ///< the final norm before the lm_head

    /// Dense and mixture-of-experts blocks among `layers` blocks of a pipeline stage (the same
    /// proportion as the whole model, mixture-of-experts blocks rounded up).
    std::pair<std::uint64_t, std::uint64_t> split(std::uint64_t layers) const;
};

/// Bytes per value of the hidden states between a block's matmuls. bitsandbytes' Linear4bit and
/// Linear8bitLt return their input's dtype, so a base whose unquantized embeddings and norms are
/// fp32 (PEFT's prepare_model_for_kbit_training) carries an fp32 residual stream, and every
/// projection output is fp32 (the compute dtype otherwise).
std::uint64_t streamBytes(const Scenario &scenario);
/// Bytes per value of what attention and an unquantized lm_head produce from that stream: the
/// compute dtype under autocast, else the stream's (fp32 weights on an fp32 input).
std::uint64_t autocastBytes(const Scenario &scenario);

/// Builds the inventories (bytes per token for one block) for training.
ModelInventory trainingInventory(const Scenario &scenario);

/// Bytes per token of the largest block's transient working set in inference (nothing is saved).
std::uint64_t inferenceWorkingBytesPerToken(const Scenario &scenario);

} // namespace headroom
