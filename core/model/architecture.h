// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <cstdint>
#include <vector>

namespace headroom {

/// Where a weight matrix sits: what quantization scopes, expert parallelism and LoRA act on.
/// `Attention` is every token mixer: softmax attention, MLA, and the linear-attention and
/// Mamba-2 layers' projections (LoRA's q target is their input projection, o their output).
enum class MatrixGroup { Attention, DenseMlp, RoutedExperts, SharedExperts, LmHead };

/// One kind of weight matrix and how many copies of it the model has.
struct MatrixShape
{
    LoraTarget kind;
    std::uint64_t inFeatures = 0;
    std::uint64_t outFeatures = 0;
    std::uint64_t copies = 1; ///< in the whole model (layers x experts; the lm_head: 1)
    MatrixGroup group = MatrixGroup::Attention;
    const char *name = ""; ///< "q_proj", "kv_b_proj", "experts.down_proj"
};

/// Where the parameters of a model are, counted from its architecture.
struct ParamCounts
{
    std::uint64_t total = 0;        ///< what the estimate uses: the override when given
    std::uint64_t derived = 0;      ///< counted from the architecture
    std::uint64_t embeddings = 0;   ///< token (and learned position) embeddings
    std::uint64_t lmHead = 0;       ///< 0 when tied to the embeddings
    std::uint64_t blockLinear = 0;  ///< weight matrices in all blocks (what 4/8-bit formats quantize)
    std::uint64_t smallTensors = 0; ///< norms, biases, routers and sinks: kept in 16 bit when quantized
    std::uint64_t perLayer = 0;     ///< all parameters of the largest block (what ZeRO-3 gathers)
    std::uint64_t largestMatrix = 0; ///< elements of the largest single weight matrix
    std::uint64_t attentionLinear = 0; ///< attention projections of all blocks
    std::uint64_t expertLinear = 0;    ///< routed and shared experts' MLP matrices
    std::uint64_t routedExpertLinear = 0; ///< routed experts' MLP matrices (what expert parallelism splits)
    /// Parameters one token uses, as model cards count them: all but the experts it is not
    /// routed to and the input embedding table (a lookup, not a matmul; gpt-oss-20b: 3.61B).
    std::uint64_t active = 0;
    std::uint64_t linearMixer = 0; ///< linear-attention and Mamba-2 layers' matrices (in attentionLinear too)
    std::uint64_t vision = 0;      ///< the vision encoder and projector (in smallTensors: kept 16-bit)
    std::uint64_t mtp = 0;         ///< multi-token-prediction layers: in the checkpoint, not in `total`
    bool operator==(const ParamCounts &) const = default;
};

/// The weight matrices of the model (the lm_head last, even when tied), with their shapes.
std::vector<MatrixShape> matrixShapes(const ModelArch &arch);

/// Counts parameters exactly; `params` in the architecture overrides the total, and the
/// difference is attributed to the block matrices. Throws OverflowError beyond 2^64.
ParamCounts countParams(const ModelArch &arch);

} // namespace headroom
