// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/architecture.h"

#include "scenario/checked.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

namespace headroom {

int ModelArch::moeLayers() const { return layersWithMlp(LayerMlp::Moe); }

int ModelArch::layersWithMlp(LayerMlp mlp) const
{
    int count = 0;
    for (int layer = 0; layer < layers; ++layer)
        count += layerMlp(layer) == mlp ? 1 : 0;
    return count;
}

int ModelArch::layersOfKind(LayerKind kind) const
{
    int count = 0;
    for (int layer = 0; layer < layers; ++layer)
        count += layerKind(layer) == kind ? 1 : 0;
    return count;
}

int ModelArch::attentionLayers() const
{
    return layersOfKind(LayerKind::Full) + layersOfKind(LayerKind::Sliding) + layersOfKind(LayerKind::Chunked) +
           layersOfKind(LayerKind::Mla);
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

/// Widths of a linear-attention / Mamba-2 layer.
struct LinearWidths
{
    std::uint64_t key = 0;   ///< key heads x key dim (Mamba-2: groups x d_state)
    std::uint64_t value = 0; ///< value heads x value dim (Mamba-2: the inner width)
    std::uint64_t heads = 0;
};

LinearWidths linearWidths(const ModelArch &arch)
{
    const LinearShape &l = arch.linear;
    const std::uint64_t keyHeads = u(l.keyHeads > 0 ? l.keyHeads : l.heads);
    if (arch.hasKind(LayerKind::Mamba2))
        return {u(l.groups) * u(l.keyDim), u(l.heads) * u(l.valueDim), u(l.heads)};
    return {keyHeads * u(l.keyDim), u(l.heads) * u(l.valueDim), u(l.heads)};
}

/// The token mixer's matrices of one layer of `kind`, `copies` times.
void addMixer(std::vector<MatrixShape> &shapes, const ModelArch &arch, LayerKind kind, std::uint64_t copies)
{
    if (copies == 0)
        return;
    const std::uint64_t hidden = u(arch.hidden);
    const LinearWidths w = linearWidths(arch);
    const auto add = [&](LoraTarget target, std::uint64_t in, std::uint64_t out, const char *name) {
        shapes.push_back({target, in, out, copies, MatrixGroup::Attention, name});
    };
    switch (kind) {
    case LayerKind::Full:
    case LayerKind::Sliding:
    case LayerKind::Chunked: {
        const std::uint64_t qWidth = u(arch.heads) * u(arch.headDim);
        const std::uint64_t kvWidth = u(arch.kvHeads) * u(arch.headDim);
        add(LoraTarget::Q, hidden, arch.gatedAttention ? 2 * qWidth : qWidth, "q_proj");
        add(LoraTarget::K, hidden, kvWidth, "k_proj");
        add(LoraTarget::V, hidden, kvWidth, "v_proj");
        add(LoraTarget::O, qWidth, hidden, "o_proj");
        return;
    }
    case LayerKind::Mla: {
        // DeepSeek-V2/V3: queries through an optional low-rank bottleneck, keys and values
        // through one compressed vector (plus a shared rotary key) expanded per head.
        const std::uint64_t qkHead = u(arch.qkNopeHeadDim) + u(arch.qkRopeHeadDim);
        const std::uint64_t heads = u(arch.heads);
        if (arch.qLoraRank > 0) {
            add(LoraTarget::Q, hidden, u(arch.qLoraRank), "q_a_proj");
            add(LoraTarget::Q, u(arch.qLoraRank), heads * qkHead, "q_b_proj");
        } else {
            add(LoraTarget::Q, hidden, heads * qkHead, "q_proj");
        }
        add(LoraTarget::K, hidden, u(arch.kvLoraRank) + u(arch.qkRopeHeadDim), "kv_a_proj_with_mqa");
        add(LoraTarget::V, u(arch.kvLoraRank), heads * (u(arch.qkNopeHeadDim) + u(arch.vHeadDim)), "kv_b_proj");
        add(LoraTarget::O, heads * u(arch.vHeadDim), hidden, "o_proj");
        if (arch.indexerHeads > 0) {
            // DeepSeek-V3.2's lightning indexer: queries from the q latent, one shared key.
            const std::uint64_t ih = u(arch.indexerHeads), id = u(arch.indexerHeadDim);
            add(LoraTarget::Q, arch.qLoraRank > 0 ? u(arch.qLoraRank) : hidden, ih * id, "indexer.wq_b");
            add(LoraTarget::K, hidden, id, "indexer.wk");
            add(LoraTarget::Q, hidden, ih, "indexer.weights_proj");
        }
        return;
    }
    case LayerKind::GatedDeltaNet:
        // Qwen3-Next: q, k, v and the output gate z in one projection, beta and the decay in another.
        add(LoraTarget::Q, hidden, 2 * w.key + 2 * w.value, "in_proj_qkvz");
        add(LoraTarget::Q, hidden, 2 * w.heads, "in_proj_ba");
        add(LoraTarget::O, w.value, hidden, "out_proj");
        return;
    case LayerKind::Lightning:
        // MiniMax-M1: q, k, v in one projection, a sigmoid output gate, the output projection.
        add(LoraTarget::Q, hidden, 3 * w.value, "qkv_proj");
        add(LoraTarget::Q, hidden, w.value, "output_gate");
        add(LoraTarget::O, w.value, hidden, "out_proj");
        return;
    case LayerKind::Kda: {
        // Kimi Delta Attention (fla KimiDeltaAttention): q, k, v, the low-rank decay (f_a, f_b)
        // and output gate (g_a, g_b) of rank head_v_dim, beta, the output projection.
        const std::uint64_t headV = u(arch.linear.valueDim);
        add(LoraTarget::Q, hidden, w.key, "q_proj");
        add(LoraTarget::K, hidden, w.key, "k_proj");
        add(LoraTarget::V, hidden, w.value, "v_proj");
        add(LoraTarget::Q, hidden, headV, "f_a_proj");
        add(LoraTarget::Q, headV, w.key, "f_b_proj");
        add(LoraTarget::Q, hidden, w.heads, "b_proj");
        add(LoraTarget::Q, hidden, headV, "g_a_proj");
        add(LoraTarget::Q, headV, w.value, "g_b_proj");
        add(LoraTarget::O, w.value, hidden, "o_proj");
        return;
    }
    case LayerKind::Mamba2:
        // in_proj: the gate z, x, B and C (per group) and dt per head; out_proj from the inner width.
        add(LoraTarget::Q, hidden, 2 * w.value + 2 * w.key + w.heads, "in_proj");
        add(LoraTarget::O, w.value, hidden, "out_proj");
        return;
    case LayerKind::Mamba1: {
        // Jamba's JambaMambaMixer: in_proj to x and the gate z, x_proj to the time step (dt_rank)
        // and B and C (d_state each), dt_proj back to the inner width, out_proj.
        const std::uint64_t inner = u(arch.linear.heads) * u(arch.linear.valueDim);
        const std::uint64_t rank = u(arch.linear.dtRank);
        add(LoraTarget::Q, hidden, 2 * inner, "in_proj");
        add(LoraTarget::Q, inner, rank + 2 * u(arch.linear.keyDim), "x_proj");
        add(LoraTarget::Q, rank, inner, "dt_proj");
        add(LoraTarget::O, inner, hidden, "out_proj");
        return;
    }
    case LayerKind::ShortConv:
        // LFM2: B, C and x gates in one projection, the output projection.
        add(LoraTarget::Q, hidden, 3 * hidden, "in_proj");
        add(LoraTarget::O, hidden, hidden, "out_proj");
        return;
    case LayerKind::None: return;
    }
}

/// Norms, biases, convolution weights and per-head scalars of one layer's token mixer.
std::uint64_t mixerSmall(const ModelArch &arch, LayerKind kind)
{
    const std::uint64_t hidden = u(arch.hidden);
    const LinearWidths w = linearWidths(arch);
    const std::uint64_t kernel = u(arch.linear.convKernel);
    switch (kind) {
    case LayerKind::Full:
    case LayerKind::Sliding:
    case LayerKind::Chunked:
    case LayerKind::Mla: {
        std::uint64_t small = 0;
        std::uint64_t qWidth = u(arch.heads) * u(arch.headDim);
        std::uint64_t kvWidth = u(arch.kvHeads) * u(arch.headDim);
        if (kind == LayerKind::Mla) {
            small += u(arch.kvLoraRank) + u(arch.qLoraRank); // kv_a / q_a layer norms
            qWidth = u(arch.heads) * (u(arch.qkNopeHeadDim) + u(arch.qkRopeHeadDim));
            kvWidth = 0;
            if (arch.indexerHeads > 0)
                small += 2 * u(arch.indexerHeadDim); // the indexer's key LayerNorm
        }
        if (arch.qkNorm == QkNorm::Head)
            small += 2 * u(arch.headDim);
        else if (arch.qkNorm == QkNorm::Full)
            small += qWidth + kvWidth;
        if (arch.attentionSinks)
            small += u(arch.heads);
        if (arch.bias != Bias::None)
            small += qWidth + 2 * kvWidth;
        if (arch.bias == Bias::All)
            small += hidden; // o_proj bias
        return small;
    }
    case LayerKind::GatedDeltaNet:
        // conv1d over q, k, v (no bias), dt_bias and A_log per head, the gated norm per head dim.
        return (2 * w.key + w.value) * kernel + 2 * w.heads + u(arch.linear.valueDim);
    case LayerKind::Lightning: return w.value; // the norm over heads x head_dim
    case LayerKind::Kda:
        // Short convolutions on q, k and v, A_log per head, dt_bias per key value, the gated norm.
        return (2 * w.key + w.value) * kernel + w.heads + w.key + u(arch.linear.valueDim);
    case LayerKind::Mamba2: {
        const std::uint64_t conv = w.value + 2 * w.key;
        std::uint64_t small = conv * kernel + (arch.linear.convBias ? conv : 0) + 3 * w.heads + w.value;
        if (arch.linear.projBias)
            small += 2 * w.value + 2 * w.key + w.heads + hidden;
        return small;
    }
    case LayerKind::Mamba1: {
        // conv1d per channel (its bias with use_conv_bias), dt_proj's bias, A_log (d_inner x
        // d_state), D, the dt, B and C RMSNorms; in_proj and out_proj biases with use_bias.
        const std::uint64_t inner = u(arch.linear.heads) * u(arch.linear.valueDim);
        const std::uint64_t state = u(arch.linear.keyDim);
        std::uint64_t small = inner * kernel + (arch.linear.convBias ? inner : 0) + inner + inner * state + inner +
                              u(arch.linear.dtRank) + 2 * state;
        if (arch.linear.projBias)
            small += 2 * inner + hidden;
        return small;
    }
    case LayerKind::ShortConv: return hidden * kernel;
    case LayerKind::None: return 0;
    }
    return 0;
}

constexpr std::array kKinds{LayerKind::Full,      LayerKind::Sliding, LayerKind::Chunked, LayerKind::Mla,
                            LayerKind::GatedDeltaNet, LayerKind::Lightning, LayerKind::Kda, LayerKind::Mamba2,
                            LayerKind::Mamba1, LayerKind::ShortConv, LayerKind::None};

bool isLinearKind(LayerKind kind)
{
    return kind == LayerKind::GatedDeltaNet || kind == LayerKind::Lightning || kind == LayerKind::Kda ||
           kind == LayerKind::Mamba2 || kind == LayerKind::Mamba1 || kind == LayerKind::ShortConv;
}

} // namespace

std::vector<MatrixShape> matrixShapes(const ModelArch &arch)
{
    std::vector<MatrixShape> shapes;
    // Softmax attention first, then the other mixers (one shape per kind the model has).
    std::uint64_t attention = 0;
    for (LayerKind kind : {LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked})
        attention += u(arch.layersOfKind(kind));
    addMixer(shapes, arch, LayerKind::Full, attention);
    for (LayerKind kind : kKinds)
        if (kind != LayerKind::Full && kind != LayerKind::Sliding && kind != LayerKind::Chunked)
            addMixer(shapes, arch, kind, u(arch.layersOfKind(kind)));
    const std::uint64_t moeLayers = u(arch.moeLayers());
    addMlp(shapes, arch, u(arch.intermediate), u(arch.layersWithMlp(LayerMlp::Dense)), MatrixGroup::DenseMlp);
    addMlp(shapes, arch, u(arch.routedWidth()), mulChecked(moeLayers, u(arch.experts), kWhat),
           MatrixGroup::RoutedExperts);
    addMlp(shapes, arch, u(arch.sharedWidth()), mulChecked(moeLayers, u(arch.sharedExperts), kWhat),
           MatrixGroup::SharedExperts);
    shapes.push_back({LoraTarget::LmHead, u(arch.hidden), u(arch.vocab), 1, MatrixGroup::LmHead, "lm_head"});
    return shapes;
}

namespace {
ParamCounts countParamsOnce(const ModelArch &arch);
} // namespace

ParamCounts countParams(const ModelArch &arch)
{
    // The searches (solve, fits) estimate one model many times: the last count is kept, per
    // thread (a pure function of the architecture).
    thread_local std::optional<std::pair<ModelArch, ParamCounts>> last;
    if (last && last->first == arch)
        return last->second;
    const ParamCounts counts = countParamsOnce(arch);
    last.emplace(arch, counts);
    return counts;
}

namespace {

ParamCounts countParamsOnce(const ModelArch &arch)
{
    ParamCounts counts;
    const std::uint64_t hidden = u(arch.hidden);
    const std::uint64_t layers = u(arch.layers);
    const std::uint64_t moeLayers = u(arch.moeLayers());
    const bool gated = arch.mlp == Mlp::Gated;

    // Matrices of one layer of each mixer kind and of each MLP kind.
    std::array<std::uint64_t, kKinds.size()> mixerLinear{};
    std::uint64_t densePerLayer = 0, moePerLayer = 0, oneRoutedExpert = 0;
    const auto kindIndex = [](LayerKind kind) {
        return static_cast<std::size_t>(std::find(kKinds.begin(), kKinds.end(), kind) - kKinds.begin());
    };
    for (const MatrixShape &shape : matrixShapes(arch)) {
        if (shape.group == MatrixGroup::LmHead)
            continue;
        const std::uint64_t size = mulChecked(shape.inFeatures, shape.outFeatures, kWhat);
        counts.largestMatrix = std::max(counts.largestMatrix, size);
        const std::uint64_t all = mulChecked(size, shape.copies, kWhat);
        counts.blockLinear = addChecked(counts.blockLinear, all, kWhat);
        switch (shape.group) {
        case MatrixGroup::Attention: counts.attentionLinear = addChecked(counts.attentionLinear, all, kWhat); break;
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
    for (LayerKind kind : kKinds) {
        std::vector<MatrixShape> one;
        addMixer(one, arch, kind, 1);
        for (const MatrixShape &shape : one)
            mixerLinear[kindIndex(kind)] += shape.inFeatures * shape.outFeatures;
        if (isLinearKind(kind))
            counts.linearMixer = addChecked(counts.linearMixer,
                                            mulChecked(mixerLinear[kindIndex(kind)], u(arch.layersOfKind(kind)), kWhat),
                                            kWhat);
    }

    // Small tensors: norms, biases, routers, sinks, convolution weights.
    const std::uint64_t normSize = arch.norm == Norm::LayerNorm ? 2 * hidden : hidden;
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

    // Every layer: its mixer, its MLP and its norms (one per sub-block when it lacks one).
    std::uint64_t small = 0;
    for (int layer = 0; layer < arch.layers; ++layer) {
        const LayerKind kind = arch.layerKind(layer);
        const LayerMlp mlp = arch.layerMlp(layer);
        const bool both = kind != LayerKind::None && mlp != LayerMlp::None;
        const std::uint64_t norms = both ? u(arch.normsPerLayer) : u(std::max(1, arch.normsPerLayer / 2));
        const std::uint64_t mlpLinear = mlp == LayerMlp::Dense ? densePerLayer : mlp == LayerMlp::Moe ? moePerLayer : 0;
        const std::uint64_t mlpSmall = mlp == LayerMlp::Dense ? denseSmall : mlp == LayerMlp::Moe ? moeSmall : 0;
        const std::uint64_t layerSmall = norms * normSize + mixerSmall(arch, kind) + mlpSmall;
        small = addChecked(small, layerSmall, kWhat);
        counts.perLayer = std::max(counts.perLayer, mixerLinear[kindIndex(kind)] + mlpLinear + layerSmall);
    }
    counts.vision = arch.visionParams;
    counts.mtp = arch.mtpParams;
    counts.smallTensors = addChecked(addChecked(small, normSize, kWhat), counts.vision, kWhat); // + the final norm
    counts.embeddings = mulChecked(u(arch.vocab), hidden, kWhat);
    if (arch.position == Position::Learned)
        counts.embeddings = addChecked(counts.embeddings, mulChecked(u(arch.maxPositions), hidden, kWhat), kWhat);
    counts.lmHead = arch.tiedEmbeddings ? 0 : mulChecked(u(arch.vocab), hidden, kWhat);
    counts.largestMatrix = std::max(counts.largestMatrix, u(arch.vocab) * hidden);

    counts.derived = addChecked(addChecked(counts.blockLinear, counts.smallTensors, kWhat),
                                addChecked(counts.embeddings, counts.lmHead, kWhat), kWhat);
    counts.total = counts.derived;
    // One token uses every parameter but the routed experts it is not sent to; the input
    // embedding is a table lookup (model cards leave it out), the vision encoder runs on images.
    // A tied table is the lm_head too, which every token uses.
    const std::uint64_t unrouted =
        mulChecked(mulChecked(oneRoutedExpert + routedBias, u(arch.experts - arch.expertsPerToken), kWhat),
                   moeLayers, kWhat);
    const std::uint64_t inputTable = arch.tiedEmbeddings ? 0 : mulChecked(u(arch.vocab), hidden, kWhat);
    const std::uint64_t notActive = addChecked(addChecked(unrouted, inputTable, kWhat), counts.vision, kWhat);
    counts.active = counts.derived - std::min(notActive, counts.derived);
    (void)layers;
    if (arch.rough) {
        // Only the size is known: every parameter is treated as a block matrix.
        counts.total = counts.active = *arch.params;
        counts.blockLinear = counts.total;
        counts.attentionLinear = counts.expertLinear = counts.routedExpertLinear = counts.linearMixer = 0;
        counts.smallTensors = counts.embeddings = counts.lmHead = counts.vision = 0;
        counts.perLayer = counts.total / u(arch.layers);
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
        counts.perLayer = counts.blockLinear / u(arch.layers);
        // The groups keep their shares of the block matrices.
        const auto scaled = [&](std::uint64_t part) {
            return derivedBlock ? static_cast<std::uint64_t>(static_cast<long double>(part) *
                                                             counts.blockLinear / derivedBlock)
                                : 0;
        };
        counts.attentionLinear = scaled(counts.attentionLinear);
        counts.expertLinear = scaled(counts.expertLinear);
        counts.routedExpertLinear = scaled(counts.routedExpertLinear);
        counts.linearMixer = scaled(counts.linearMixer);
        // A larger total adds tensors the architecture cannot express (a config reader's gates
        // and biases), never experts: the unrouted experts stay as counted.
        const std::uint64_t off = addChecked(addChecked(counts.total > counts.derived ? unrouted : scaled(unrouted),
                                                        std::min(inputTable, counts.embeddings), kWhat),
                                             counts.vision, kWhat);
        counts.active = counts.total - std::min(off, counts.total);
    }
    return counts;
}

} // namespace

} // namespace headroom
