// SPDX-License-Identifier: GPL-3.0-or-later
#include "architecture.h"

#include "checked.h"

#include <algorithm>

namespace headroom {

std::vector<MatrixShape> matrixShapes(const ModelArch &arch)
{
    const std::uint64_t hidden = arch.hidden;
    const std::uint64_t qWidth = std::uint64_t(arch.heads) * arch.headDim;
    const std::uint64_t kvWidth = std::uint64_t(arch.kvHeads) * arch.headDim;
    const std::uint64_t inter = arch.intermediate;
    const std::uint64_t experts = arch.experts;
    std::vector<MatrixShape> shapes{
        {LoraTarget::Q, hidden, qWidth, 1},
        {LoraTarget::K, hidden, kvWidth, 1},
        {LoraTarget::V, hidden, kvWidth, 1},
        {LoraTarget::O, qWidth, hidden, 1},
    };
    if (arch.mlp == Mlp::Gated)
        shapes.push_back({LoraTarget::Gate, hidden, inter, experts});
    shapes.push_back({LoraTarget::Up, hidden, inter, experts});
    shapes.push_back({LoraTarget::Down, inter, hidden, experts});
    shapes.push_back({LoraTarget::LmHead, hidden, std::uint64_t(arch.vocab), 1});
    return shapes;
}

ParamCounts countParams(const ModelArch &arch)
{
    const char *what = "parameter count";
    ParamCounts counts;
    const std::uint64_t hidden = arch.hidden;
    const std::uint64_t qWidth = std::uint64_t(arch.heads) * arch.headDim;
    const std::uint64_t kvWidth = std::uint64_t(arch.kvHeads) * arch.headDim;
    const std::uint64_t inter = arch.intermediate;

    std::uint64_t linear = 0;
    for (const MatrixShape &shape : matrixShapes(arch)) {
        if (shape.kind == LoraTarget::LmHead)
            continue;
        const std::uint64_t size = mulChecked(shape.inFeatures, shape.outFeatures, what);
        counts.largestMatrix = std::max(counts.largestMatrix, size);
        linear = addChecked(linear, mulChecked(size, shape.perLayer, what), what);
    }
    std::uint64_t small = 0;
    if (arch.bias != Bias::None)
        small += qWidth + 2 * kvWidth;
    if (arch.bias == Bias::All) {
        small += hidden; // o_proj bias
        const std::uint64_t mlpBias = (arch.mlp == Mlp::Gated ? 2 * inter : inter) + hidden;
        small = addChecked(small, mulChecked(mlpBias, std::uint64_t(arch.experts), what), what);
    }
    if (arch.experts > 1)
        small += hidden * std::uint64_t(arch.experts); // router
    const std::uint64_t normSize = arch.norm == Norm::LayerNorm ? 2 * hidden : hidden;
    small += std::uint64_t(arch.normsPerLayer) * normSize;

    counts.perLayer = addChecked(linear, small, what);
    counts.blockLinear = mulChecked(linear, std::uint64_t(arch.layers), what);
    counts.smallTensors =
        addChecked(mulChecked(small, std::uint64_t(arch.layers), what), normSize, what);
    counts.embeddings = mulChecked(std::uint64_t(arch.vocab), hidden, what);
    if (arch.position == Position::Learned)
        counts.embeddings = addChecked(
            counts.embeddings, mulChecked(std::uint64_t(arch.maxPositions), hidden, what), what);
    counts.lmHead = arch.tiedEmbeddings ? 0 : mulChecked(std::uint64_t(arch.vocab), hidden, what);
    counts.largestMatrix = std::max(counts.largestMatrix, std::uint64_t(arch.vocab) * hidden);

    counts.derived = addChecked(addChecked(counts.blockLinear, counts.smallTensors, what),
                                addChecked(counts.embeddings, counts.lmHead, what), what);
    counts.total = counts.derived;
    if (arch.rough) {
        // Only the size is known: every parameter is treated as a block matrix.
        counts.total = *arch.params;
        counts.blockLinear = counts.total;
        counts.smallTensors = counts.embeddings = counts.lmHead = 0;
        counts.perLayer = counts.total / std::uint64_t(arch.layers);
    } else if (arch.params && *arch.params != counts.derived) {
        // The override moves the block matrices; embeddings and norms keep their counted size.
        counts.total = *arch.params;
        const std::uint64_t fixed = counts.smallTensors + counts.embeddings + counts.lmHead;
        counts.blockLinear = counts.total > fixed ? counts.total - fixed : 0;
        if (counts.total < fixed) {
            counts.embeddings = counts.total;
            counts.smallTensors = counts.lmHead = 0;
        }
        counts.perLayer = counts.blockLinear / std::uint64_t(arch.layers);
    }
    return counts;
}

} // namespace headroom
