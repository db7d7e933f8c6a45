// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/kvcache.h"

#include "scenario/checked.h"
#include "scenario/names.h"
#include "parallel/parallel.h"
#include "scenario/units.h"

#include <algorithm>

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

KvLayout kvLayout(const Scenario &s) { return kvLayout(s, kvValueType(s.inference.kvDType)); }

KvLayout kvLayout(const Scenario &s, const KvValueType &type)
{
    const ModelArch &m = s.model;
    const ParallelLayout parallel = parallelLayout(s);
    KvLayout layout;
    layout.type = type;
    const std::uint64_t stageLayers = parallel.layersPerStage(std::uint64_t(m.layers));
    std::uint64_t values = 0;
    std::string what;
    if (m.latentAttention()) {
        // One compressed vector and the shared rotary key per token and layer, the same on
        // every tensor-parallel rank (vLLM and SGLang's MLA caches).
        values = std::uint64_t(m.kvLoraRank) + std::uint64_t(m.qkRopeHeadDim);
        what = "(" + groupDigits(m.kvLoraRank) + " kv_lora_rank + " + groupDigits(m.qkRopeHeadDim) +
               " rope) latent values";
    } else {
        const std::uint64_t kvHeads = ceilDiv(std::uint64_t(m.kvHeads), parallel.tensor);
        values = mulChecked(2 * kvHeads, std::uint64_t(m.headDim), "KV cache");
        what = "2 (K and V) x " + groupDigits(kvHeads) + " kv_heads x " + groupDigits(m.headDim) + " head_dim";
    }
    // Sliding-window layers keep at most the window; global layers the whole context. The
    // stage holds its share of each kind (the model's proportion, global layers rounded up).
    std::uint64_t sliding = 0;
    for (int layer = 0; layer < m.layers; ++layer)
        sliding += m.isSlidingLayer(layer) ? 1 : 0;
    const std::uint64_t all = std::uint64_t(m.layers);
    const std::uint64_t global = std::min(stageLayers, ceilDiv((all - sliding) * stageLayers, all));
    if (global > 0)
        layout.groups.push_back({global, values, 0, what});
    if (stageLayers > global)
        layout.groups.push_back({stageLayers - global, values, std::uint64_t(m.slidingWindow), what});
    return layout;
}

namespace {

std::uint64_t valuesToBytes(std::uint64_t values, const KvValueType &type)
{
    // ceil(values / blockValues) blocks of blockBytes.
    return mulChecked(ceilDiv(values, type.blockValues), type.blockBytes, "KV cache");
}

} // namespace

std::uint64_t kvCacheBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens)
{
    std::uint64_t values = 0;
    for (const KvLayerGroup &group : layout.groups) {
        const std::uint64_t kept = group.window ? std::min(tokens, group.window) : tokens;
        values = addChecked(values, productChecked("KV cache", group.layers, group.valuesPerToken,
                                                   sequences, kept),
                            "KV cache");
    }
    return valuesToBytes(values, layout.type);
}

std::uint64_t kvBytesPerToken(const KvLayout &layout)
{
    std::uint64_t values = 0;
    for (const KvLayerGroup &group : layout.groups)
        values = addChecked(values, mulChecked(group.layers, group.valuesPerToken, "KV cache"), "KV cache");
    return valuesToBytes(values, layout.type);
}

} // namespace headroom
