// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario.h"

#include <cstdint>
#include <vector>

namespace headroom {

/// One kind of weight matrix in a transformer block (or the lm_head).
struct MatrixShape
{
    LoraTarget kind;
    std::uint64_t inFeatures = 0;
    std::uint64_t outFeatures = 0;
    std::uint64_t perLayer = 1; ///< copies per layer (experts for MLP matrices)
};

/// Where the parameters of a model are, counted from its architecture.
struct ParamCounts
{
    std::uint64_t total = 0;        ///< what the estimate uses: the override when given
    std::uint64_t derived = 0;      ///< counted from the architecture
    std::uint64_t embeddings = 0;   ///< token (and learned position) embeddings
    std::uint64_t lmHead = 0;       ///< 0 when tied to the embeddings
    std::uint64_t blockLinear = 0;  ///< weight matrices in all blocks (what 4/8-bit formats quantize)
    std::uint64_t smallTensors = 0; ///< norms, biases and routers: kept in 16 bit when quantized
    std::uint64_t perLayer = 0;     ///< all parameters of one block
    std::uint64_t largestMatrix = 0; ///< elements of the largest single weight matrix
};

/// The weight matrices of one block, plus the lm_head, with their shapes.
std::vector<MatrixShape> matrixShapes(const ModelArch &arch);

/// Counts parameters exactly; `params` in the architecture overrides the total, and the
/// difference is attributed to the block matrices. Throws OverflowError beyond 2^64.
ParamCounts countParams(const ModelArch &arch);

} // namespace headroom
