// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario.h"

#include <cstdint>
#include <vector>

namespace headroom {

/// One tensor a block keeps for backward, sized per token.
struct SavedTensor
{
    const char *name;
    std::uint64_t valuesPerToken;
    std::uint64_t bytesPerValue;
    const char *why; ///< the code that keeps it (framework behaviour, see docs/estimator.md)
};

/// The per-tensor inventory of one block in training, for the scenario's family and profile.
struct LayerInventory
{
    std::vector<SavedTensor> tensors;
    std::uint64_t bytesPerToken = 0;          ///< sum over tensors
    std::uint64_t layerInputBytesPerToken = 0; ///< what full checkpointing keeps per layer
    std::uint64_t opSelectiveBytesPerToken = 0; ///< what op-level selective checkpointing keeps
    std::uint64_t finalNormBytesPerToken = 0; ///< the final norm before the lm_head
    std::uint64_t scoreBytesPerElement = 0;   ///< eager attention: bytes per b x heads x s^2 element
};

/// Builds the inventory (bytes per token for one block) for training.
LayerInventory trainingInventory(const Scenario &scenario);

/// Bytes per token of one block's transient working set in inference (nothing is saved).
std::uint64_t inferenceWorkingBytesPerToken(const Scenario &scenario);


} // namespace headroom
