// SPDX-License-Identifier: GPL-3.0-or-later
#include "kvcache.h"

#include "checked.h"
#include "names.h"
#include "parallel.h"
#include "units.h"

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
    KvLayerGroup group;
    group.layers = parallel.layersPerStage(std::uint64_t(m.layers));
    const std::uint64_t kvHeads = ceilDiv(std::uint64_t(m.kvHeads), parallel.tensor);
    group.valuesPerToken = mulChecked(2 * kvHeads, std::uint64_t(m.headDim), "KV cache");
    group.window = m.slidingWindow > 0 ? std::uint64_t(m.slidingWindow) : 0;
    group.what = "2 (K and V) x " + groupDigits(kvHeads) + " kv_heads x " + groupDigits(m.headDim) +
                 " head_dim";
    layout.groups.push_back(group);
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
