// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/architecture.h"

#include "scenario/checked.h"

#include <algorithm>

namespace headroom {

int ModelArch::moeLayers() const
{
    int count = 0;
    for (int layer = 0; layer < layers; ++layer)
        count += isMoeLayer(layer) ? 1 : 0;
    return count;
}

namespace {

const char *kWhat = "parameter count";

std::uint64_t u(int value) { return static_cast<std::uint64_t>(value); }

/// The MLP matrices of one expert (or of a dense MLP) of width `width`, `copies` times.
void addMlp(std::vector<MatrixShape> &shapes, const ModelArch &arch, std::uint64_t width,
            std::uint64_t copies, MatrixGroup group)
{
    if (copies == 0)
        return;
    const std::uint64_t hidden = u(arch.hidden);
    const bool experts = group == MatrixGroup::RoutedExperts || group == MatrixGroup::SharedExperts;
    if (arch.mlp == Mlp::Gated)
        shapes.push_back({LoraTarget::Gate, hidden, width, copies, group, experts ? "experts.gate_proj" : "gate_proj"});
    shapes.push_back({LoraTarget::Up, hidden, width, copies, group, experts ? "experts.up_proj" : "up_proj"});
    shapes.push_back({LoraTarget::Down, width, hidden, copies, group, experts ? "experts.down_proj" : "down_proj"});
}

} // namespace

std::vector<MatrixShape> matrixShapes(const ModelArch &arch)
{
    const std::uint64_t hidden = u(arch.hidden);
    const std::uint64_t layers = u(arch.layers);
    std::vector<MatrixShape> shapes;
    if (arch.latentAttention()) {
        // DeepSeek-V2/V3: queries through an optional low-rank bottleneck, keys and values
        // through one compressed vector (plus a shared rotary key) expanded per head.
        const std::uint64_t qkHead = u(arch.qkNopeHeadDim) + u(arch.qkRopeHeadDim);
        const std::uint64_t heads = u(arch.heads);
        if (arch.qLoraRank > 0) {
            shapes.push_back({LoraTarget::Q, hidden, u(arch.qLoraRank), layers, MatrixGroup::Attention, "q_a_proj"});
            shapes.push_back({LoraTarget::Q, u(arch.qLoraRank), heads * qkHead, layers, MatrixGroup::Attention, "q_b_proj"});
        } else {
            shapes.push_back({LoraTarget::Q, hidden, heads * qkHead, layers, MatrixGroup::Attention, "q_proj"});
        }
        shapes.push_back({LoraTarget::K, hidden, u(arch.kvLoraRank) + u(arch.qkRopeHeadDim), layers,
                          MatrixGroup::Attention, "kv_a_proj_with_mqa"});
        shapes.push_back({LoraTarget::V, u(arch.kvLoraRank), heads * (u(arch.qkNopeHeadDim) + u(arch.vHeadDim)),
                          layers, MatrixGroup::Attention, "kv_b_proj"});
        shapes.push_back({LoraTarget::O, heads * u(arch.vHeadDim), hidden, layers, MatrixGroup::Attention, "o_proj"});
    } else {
        const std::uint64_t qWidth = u(arch.heads) * u(arch.headDim);
        const std::uint64_t kvWidth = u(arch.kvHeads) * u(arch.headDim);
        shapes.push_back({LoraTarget::Q, hidden, qWidth, layers, MatrixGroup::Attention, "q_proj"});
        shapes.push_back({LoraTarget::K, hidden, kvWidth, layers, MatrixGroup::Attention, "k_proj"});
        shapes.push_back({LoraTarget::V, hidden, kvWidth, layers, MatrixGroup::Attention, "v_proj"});
        shapes.push_back({LoraTarget::O, qWidth, hidden, layers, MatrixGroup::Attention, "o_proj"});
    }
    const std::uint64_t moeLayers = u(arch.moeLayers());
    addMlp(shapes, arch, u(arch.intermediate), layers - moeLayers, MatrixGroup::DenseMlp);
    addMlp(shapes, arch, u(arch.routedWidth()), mulChecked(moeLayers, u(arch.experts), kWhat),
           MatrixGroup::RoutedExperts);
    addMlp(shapes, arch, u(arch.sharedWidth()), mulChecked(moeLayers, u(arch.sharedExperts), kWhat),
           MatrixGroup::SharedExperts);
    shapes.push_back({LoraTarget::LmHead, hidden, u(arch.vocab), 1, MatrixGroup::LmHead, "lm_head"});
    return shapes;
}

ParamCounts countParams(const ModelArch &arch)
{
    ParamCounts counts;
    const std::uint64_t hidden = u(arch.hidden);
    const std::uint64_t layers = u(arch.layers);
    const std::uint64_t moeLayers = u(arch.moeLayers());
    const std::uint64_t denseLayers = layers - moeLayers;
    const bool gated = arch.mlp == Mlp::Gated;

    std::uint64_t largestBlockLinear = 0;
    std::uint64_t attentionPerLayer = 0, densePerLayer = 0, moePerLayer = 0, oneRoutedExpert = 0;
    for (const MatrixShape &shape : matrixShapes(arch)) {
        if (shape.group == MatrixGroup::LmHead)
            continue;
        const std::uint64_t size = mulChecked(shape.inFeatures, shape.outFeatures, kWhat);
        counts.largestMatrix = std::max(counts.largestMatrix, size);
        const std::uint64_t all = mulChecked(size, shape.copies, kWhat);
        counts.blockLinear = addChecked(counts.blockLinear, all, kWhat);
        switch (shape.group) {
        case MatrixGroup::Attention:
            counts.attentionLinear = addChecked(counts.attentionLinear, all, kWhat);
            attentionPerLayer += size;
            break;
        case MatrixGroup::DenseMlp: densePerLayer += size; break;
        case MatrixGroup::RoutedExperts:
            counts.expertLinear = addChecked(counts.expertLinear, all, kWhat);
            counts.routedExpertLinear = addChecked(counts.routedExpertLinear, all, kWhat);
            moePerLayer = addChecked(moePerLayer, mulChecked(size, u(arch.experts), kWhat), kWhat);
            oneRoutedExpert += size;
            break;
        case MatrixGroup::SharedExperts:
            counts.expertLinear = addChecked(counts.expertLinear, all, kWhat);
            moePerLayer = addChecked(moePerLayer, mulChecked(size, u(arch.sharedExperts), kWhat), kWhat);
            break;
        case MatrixGroup::LmHead: break;
        }
    }
    largestBlockLinear = attentionPerLayer + std::max(denseLayers ? densePerLayer : 0, moeLayers ? moePerLayer : 0);

    // Small tensors of one block: norms, biases, routers, sinks.
    const std::uint64_t normSize = arch.norm == Norm::LayerNorm ? 2 * hidden : hidden;
    std::uint64_t attentionSmall = u(arch.normsPerLayer) * normSize;
    std::uint64_t qWidth = u(arch.heads) * u(arch.headDim);
    std::uint64_t kvWidth = u(arch.kvHeads) * u(arch.headDim);
    if (arch.latentAttention()) {
        attentionSmall += u(arch.kvLoraRank) + u(arch.qLoraRank); // kv_a / q_a layer norms
        qWidth = u(arch.heads) * (u(arch.qkNopeHeadDim) + u(arch.qkRopeHeadDim));
        kvWidth = 0;
    }
    if (arch.qkNorm == QkNorm::Head)
        attentionSmall += 2 * u(arch.headDim);
    else if (arch.qkNorm == QkNorm::Full)
        attentionSmall += qWidth + kvWidth;
    if (arch.attentionSinks)
        attentionSmall += u(arch.heads);
    if (arch.bias != Bias::None)
        attentionSmall += qWidth + 2 * kvWidth;
    if (arch.bias == Bias::All)
        attentionSmall += hidden; // o_proj bias
    const auto mlpBias = [&](std::uint64_t width) {
        return arch.bias == Bias::All ? (gated ? 2 * width : width) + hidden : 0;
    };
    const std::uint64_t denseSmall = mlpBias(u(arch.intermediate));
    const std::uint64_t routedBias = mlpBias(u(arch.routedWidth()));
    std::uint64_t moeSmall = hidden * u(arch.experts); // router
    if (arch.bias == Bias::All || arch.routerBias)
        moeSmall += u(arch.experts); // router bias
    moeSmall = addChecked(moeSmall, mulChecked(routedBias, u(arch.experts), kWhat), kWhat);
    moeSmall = addChecked(moeSmall, mulChecked(mlpBias(u(arch.sharedWidth())), u(arch.sharedExperts), kWhat), kWhat);

    const std::uint64_t small =
        addChecked(addChecked(mulChecked(attentionSmall, layers, kWhat), mulChecked(denseSmall, denseLayers, kWhat), kWhat),
                   mulChecked(moeSmall, moeLayers, kWhat), kWhat);
    counts.perLayer = largestBlockLinear + attentionSmall +
                      std::max(denseLayers ? denseSmall : 0, moeLayers ? moeSmall : 0);
    counts.smallTensors = addChecked(small, normSize, kWhat); // + the final norm
    counts.embeddings = mulChecked(u(arch.vocab), hidden, kWhat);
    if (arch.position == Position::Learned)
        counts.embeddings = addChecked(counts.embeddings, mulChecked(u(arch.maxPositions), hidden, kWhat), kWhat);
    counts.lmHead = arch.tiedEmbeddings ? 0 : mulChecked(u(arch.vocab), hidden, kWhat);
    counts.largestMatrix = std::max(counts.largestMatrix, u(arch.vocab) * hidden);

    counts.derived = addChecked(addChecked(counts.blockLinear, counts.smallTensors, kWhat),
                                addChecked(counts.embeddings, counts.lmHead, kWhat), kWhat);
    counts.total = counts.derived;
    // One token uses every parameter but the routed experts it is not sent to.
    const std::uint64_t unrouted =
        mulChecked(mulChecked(oneRoutedExpert + routedBias, u(arch.experts - arch.expertsPerToken), kWhat),
                   moeLayers, kWhat);
    counts.active = counts.derived - std::min(unrouted, counts.derived);
    if (arch.rough) {
        // Only the size is known: every parameter is treated as a block matrix.
        counts.total = counts.active = *arch.params;
        counts.blockLinear = counts.total;
        counts.attentionLinear = counts.expertLinear = counts.routedExpertLinear = 0;
        counts.smallTensors = counts.embeddings = counts.lmHead = 0;
        counts.perLayer = counts.total / layers;
    } else if (arch.params && *arch.params != counts.derived) {
        // The override moves the block matrices; embeddings and norms keep their counted size.
        const std::uint64_t derivedBlock = counts.blockLinear;
        counts.total = *arch.params;
        const std::uint64_t fixed = counts.smallTensors + counts.embeddings + counts.lmHead;
        counts.blockLinear = counts.total > fixed ? counts.total - fixed : 0;
        if (counts.total < fixed) {
            counts.embeddings = counts.total;
            counts.smallTensors = counts.lmHead = 0;
        }
        counts.perLayer = counts.blockLinear / layers;
        // The groups keep their shares of the block matrices.
        const auto scaled = [&](std::uint64_t part) {
            return derivedBlock ? static_cast<std::uint64_t>(static_cast<long double>(part) *
                                                             counts.blockLinear / derivedBlock)
                                : 0;
        };
        counts.attentionLinear = scaled(counts.attentionLinear);
        counts.expertLinear = scaled(counts.expertLinear);
        counts.routedExpertLinear = scaled(counts.routedExpertLinear);
        counts.active = counts.total - std::min(scaled(unrouted), counts.total);
    }
    return counts;
}

} // namespace headroom
