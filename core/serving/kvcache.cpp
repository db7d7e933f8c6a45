// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/kvcache.h"

#include "scenario/checked.h"
#include "scenario/names.h"
#include "parallel/parallel.h"
#include "scenario/units.h"

#include <algorithm>
#include <array>

namespace headroom {

KvValueType kvValueType(DType dtype)
{
    KvValueType type;
    type.name = enumName(dtype);
    const int bits = dtypeBits(dtype);
    // Whole bytes per value, or two 4-bit values per byte.
    type.blockValues = bits % 8 == 0 ? 1 : 8 / std::uint64_t(bits);
    type.blockBytes = bits % 8 == 0 ? std::uint64_t(bits) / 8 : 1;
    return type;
}

bool isStateKind(LayerKind kind)
{
    return kind == LayerKind::GatedDeltaNet || kind == LayerKind::Lightning || kind == LayerKind::Kda ||
           kind == LayerKind::Mamba2 || kind == LayerKind::Mamba1 || kind == LayerKind::ShortConv;
}

KvOptions kvOptions(const Scenario &s)
{
    KvOptions options;
    options.type = kvValueType(s.inference.kvDType);
    const std::uint64_t compute = std::uint64_t(dtypeBits(s.precision.compute)) / 8;
    options.convBytes = options.recurrentBytes = options.indexerBytes = compute;
    options.indexerFp8 = false;
    return options;
}

KvLayout kvLayout(const Scenario &s) { return kvLayout(s, kvOptions(s)); }

KvLayout kvLayout(const Scenario &s, const KvValueType &type)
{
    KvOptions options = kvOptions(s);
    options.type = type;
    options.indexerFp8 = true;
    return kvLayout(s, options);
}

namespace {

std::uint64_t u(int value) { return static_cast<std::uint64_t>(value); }

constexpr std::array kKinds{LayerKind::Full,   LayerKind::Mla,           LayerKind::Sliding,
                            LayerKind::Chunked, LayerKind::GatedDeltaNet, LayerKind::Lightning,
                            LayerKind::Kda,    LayerKind::Mamba2,        LayerKind::Mamba1,
                            LayerKind::ShortConv};

/// One layer of `kind` on one of `tensor` ranks.
KvLayerGroup layerOf(const ModelArch &m, LayerKind kind, std::uint64_t tensor, const KvOptions &o)
{
    KvLayerGroup g;
    g.kind = kind;
    const LinearShape &l = m.linear;
    const std::uint64_t kernelState = l.convKernel > 1 ? u(l.convKernel) - 1 : 0;
    const std::uint64_t heads = ceilDiv(u(l.heads), tensor);
    const std::uint64_t keyHeads = u(l.keyHeads > 0 ? l.keyHeads : l.heads);
    const char *what = "K and V";
    switch (kind) {
    case LayerKind::Full:
    case LayerKind::Sliding:
    case LayerKind::Chunked: {
        const std::uint64_t kvHeads = ceilDiv(u(m.kvHeads), tensor);
        g.keyValuesPerToken = mulChecked(kvHeads, u(m.headDim), "KV cache");
        g.valuesPerToken = 2 * g.keyValuesPerToken;
        g.window = kind == LayerKind::Full ? 0 : u(m.slidingWindow);
        g.what = "2 (K and V) x " + groupDigits(kvHeads) + " kv_heads x " + groupDigits(m.headDim) + " head_dim";
        break;
    }
    case LayerKind::Mla: {
        const std::uint64_t latent = u(m.kvLoraRank) + u(m.qkRopeHeadDim);
        switch (o.mla) {
        case MlaCache::Latent:
            // One compressed vector and the shared rotary key, the same on every tensor-parallel
            // rank (vLLM and SGLang's MLA caches).
            g.keyValuesPerToken = g.valuesPerToken = latent;
            g.what = "(" + groupDigits(m.kvLoraRank) + " kv_lora_rank + " + groupDigits(m.qkRopeHeadDim) +
                     " rope) latent values";
            break;
        case MlaCache::SeparateKv:
            // llama.cpp: K holds the latent and the rotary key, V the latent again.
            g.keyValuesPerToken = latent;
            g.valuesPerToken = latent + u(m.kvLoraRank);
            g.what = "(" + groupDigits(latent) + " K latent + rope + " + groupDigits(m.kvLoraRank) + " V latent) values";
            break;
        case MlaCache::PerHead: {
            // Transformers' DeepseekV3Attention caches key_states and value_states per head.
            const std::uint64_t h = ceilDiv(u(m.heads), tensor);
            g.keyValuesPerToken = h * (u(m.qkNopeHeadDim) + u(m.qkRopeHeadDim));
            g.valuesPerToken = g.keyValuesPerToken + h * u(m.vHeadDim);
            g.what = groupDigits(h) + " heads x (" + groupDigits(m.qkNopeHeadDim + m.qkRopeHeadDim) + " K + " +
                     groupDigits(m.vHeadDim) + " V) per-head values";
            break;
        }
        }
        if (m.indexerHeadDim > 0) {
            const std::uint64_t d = u(m.indexerHeadDim);
            g.extraBytesPerToken = o.indexerFp8 ? d + ceilDiv(d, 128) * 4 : d * o.indexerBytes;
            g.what += " + the indexer's " + groupDigits(d) + "-value key";
        }
        break;
    }
    case LayerKind::GatedDeltaNet:
        // vLLM MambaStateShapeCalculator.gated_delta_net_state_shape: a conv state over q, k
        // and v of kernel - 1 steps, a head_v_dim x head_k_dim state per value head.
        g.convValues = ceilDiv(2 * keyHeads * u(l.keyDim) + u(l.heads) * u(l.valueDim), tensor) * kernelState;
        g.recurrentValues = heads * u(l.valueDim) * u(l.keyDim);
        what = "conv + delta-rule state";
        break;
    case LayerKind::Kda:
        g.convValues = ceilDiv(u(l.heads) * u(l.valueDim) + 2 * keyHeads * u(l.keyDim), tensor) * kernelState;
        g.recurrentValues = heads * u(l.valueDim) * u(l.valueDim);
        what = "conv + delta-rule state (fp32)";
        break;
    case LayerKind::Lightning:
        g.recurrentValues = heads * u(l.valueDim) * u(l.valueDim);
        what = "head_dim x head_dim state per head";
        break;
    case LayerKind::Mamba2: {
        // n_groups extended so that every rank holds the groups its heads read.
        const std::uint64_t groups = u(l.groups);
        const std::uint64_t extended = groups % tensor == 0 ? groups : groups + tensor - groups % tensor;
        const std::uint64_t inner = u(l.heads) * u(l.valueDim);
        g.convValues = ceilDiv(inner + 2 * extended * u(l.keyDim), tensor) * kernelState;
        g.recurrentValues = heads * u(l.valueDim) * u(l.keyDim);
        what = "conv + SSM state";
        break;
    }
    case LayerKind::Mamba1:
        // vLLM MambaStateShapeCalculator.mamba1_state_shape: a conv state of d_conv - 1 steps
        // over the inner channels, a d_state state per channel; both split by tensor parallelism.
        g.convValues = ceilDiv(u(l.heads) * u(l.valueDim), tensor) * kernelState;
        g.recurrentValues = heads * u(l.valueDim) * u(l.keyDim);
        what = "conv + SSM state";
        break;
    case LayerKind::ShortConv:
        g.convValues = ceilDiv(u(m.hidden), tensor) * kernelState;
        what = "conv state";
        break;
    case LayerKind::None: break;
    }
    if (isStateKind(kind))
        g.what = groupDigits(g.convValues) + " conv + " + groupDigits(g.recurrentValues) + " recurrent values (" +
                 what + ") per sequence";
    return g;
}

std::uint64_t valuesToBytes(std::uint64_t values, const KvValueType &type)
{
    // ceil(values / blockValues) blocks of blockBytes.
    return mulChecked(ceilDiv(values, type.blockValues), type.blockBytes, "KV cache");
}

} // namespace

KvLayout kvLayout(const Scenario &s, const KvOptions &options)
{
    const ModelArch &m = s.model;
    const ParallelLayout parallel = parallelLayout(s);
    KvLayout layout;
    layout.type = options.type;
    layout.convBytes = options.convBytes;
    layout.recurrentBytes = options.recurrentBytes;
    const std::uint64_t stageLayers = parallel.layersPerStage(std::uint64_t(m.layers));
    const std::uint64_t all = std::uint64_t(m.layers);
    // The stage holds its share of each kind (the model's proportion; the kinds that grow with
    // the context rounded up first, the last kind the rest).
    std::array<std::uint64_t, kKinds.size()> counts{};
    for (int layer = 0; layer < m.layers; ++layer) {
        const LayerKind kind = m.layerKind(layer);
        for (std::size_t i = 0; i < kKinds.size(); ++i)
            counts[i] += kKinds[i] == kind ? 1 : 0;
    }
    std::size_t last = 0;
    std::uint64_t cached = 0; // layers that keep anything (MLP-only layers keep nothing)
    for (std::size_t i = 0; i < kKinds.size(); ++i) {
        cached += counts[i];
        if (counts[i])
            last = i;
    }
    std::uint64_t left = stageLayers >= all ? cached
                                            : std::min(stageLayers, ceilDiv(mulChecked(cached, stageLayers, "KV cache"), all));
    for (std::size_t i = 0; i < kKinds.size() && left > 0; ++i) {
        if (!counts[i])
            continue;
        const std::uint64_t share =
            i == last ? left : std::min(left, ceilDiv(mulChecked(counts[i], stageLayers, "KV cache"), all));
        left -= share;
        KvLayerGroup group = layerOf(m, kKinds[i], parallel.tensor, options);
        group.layers = share;
        if (share)
            layout.groups.push_back(group);
    }
    return layout;
}

std::uint64_t stateBytesPerLayer(const KvLayout &layout, const KvLayerGroup &group)
{
    return addChecked(mulChecked(group.convValues, layout.convBytes, "KV cache"),
                      mulChecked(group.recurrentValues, group.kind == LayerKind::Kda ? 4 : layout.recurrentBytes,
                                 "KV cache"),
                      "KV cache");
}

namespace {

/// Values (of the part `part` picks) and extra bytes for `sequences` x `tokens`.
template <typename Part>
std::uint64_t cacheBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens, bool states,
                         bool extras, Part part)
{
    std::uint64_t values = 0, bytes = 0;
    for (const KvLayerGroup &group : layout.groups) {
        const std::uint64_t kept = group.window ? std::min(tokens, group.window) : tokens;
        values = addChecked(values, productChecked("KV cache", group.layers, part(group), sequences, kept), "KV cache");
        if (extras)
            bytes = addChecked(bytes, productChecked("KV cache", group.layers, group.extraBytesPerToken, sequences, kept),
                               "KV cache");
        if (states)
            bytes = addChecked(bytes, productChecked("KV cache", group.layers, stateBytesPerLayer(layout, group), sequences),
                               "KV cache");
    }
    return addChecked(valuesToBytes(values, layout.type), bytes, "KV cache");
}

} // namespace

std::uint64_t kvCacheBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens)
{
    return cacheBytes(layout, sequences, tokens, true, true, [](const KvLayerGroup &g) { return g.valuesPerToken; });
}

std::uint64_t kvKeyBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens)
{
    return cacheBytes(layout, sequences, tokens, false, true, [](const KvLayerGroup &g) { return g.keyValuesPerToken; });
}

std::uint64_t kvValueBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens)
{
    return cacheBytes(layout, sequences, tokens, false, false,
                      [](const KvLayerGroup &g) { return g.valuesPerToken - g.keyValuesPerToken; });
}

std::uint64_t kvBytesPerToken(const KvLayout &layout)
{
    std::uint64_t values = 0, bytes = 0;
    for (const KvLayerGroup &group : layout.groups) {
        values = addChecked(values, mulChecked(group.layers, group.valuesPerToken, "KV cache"), "KV cache");
        bytes = addChecked(bytes, mulChecked(group.layers, group.extraBytesPerToken, "KV cache"), "KV cache");
    }
    return addChecked(valuesToBytes(values, layout.type), bytes, "KV cache");
}

std::uint64_t stateBytesPerSequence(const KvLayout &layout)
{
    std::uint64_t bytes = 0;
    for (const KvLayerGroup &group : layout.groups)
        bytes = addChecked(bytes, mulChecked(group.layers, stateBytesPerLayer(layout, group), "KV cache"), "KV cache");
    return bytes;
}

} // namespace headroom
