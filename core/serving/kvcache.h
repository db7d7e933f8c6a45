// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// How a cache stores its values: `blockBytes` bytes per `blockValues` values (bf16: 2 per 1;
/// fp8: 1 per 1; llama.cpp's q8_0: 34 per 32, q4_0: 18 per 32).
struct KvValueType
{
    std::uint64_t blockValues = 1;
    std::uint64_t blockBytes = 2;
    std::string name = "bf16";
    bool operator==(const KvValueType &) const = default;
};

/// The value type of a cache in one of the scenario's dtypes.
KvValueType kvValueType(DType dtype);

/// Layers of one pipeline stage that cache alike.
struct KvLayerGroup
{
    std::uint64_t layers = 0;
    /// Cached values per token per layer on one rank: 2 x kv_heads x head_dim (K and V, KV heads
    /// split by tensor parallelism).
    std::uint64_t valuesPerToken = 0;
    /// Tokens a layer keeps at most (sliding-window attention), 0 for the whole context.
    std::uint64_t window = 0;
    std::string what; ///< "2 (K and V) x 8 kv_heads x 128 head_dim"
    bool operator==(const KvLayerGroup &) const = default;
};

/// The KV cache layout of one rank: what every cached token costs, layer group by group.
struct KvLayout
{
    std::vector<KvLayerGroup> groups;
    KvValueType type;
    bool operator==(const KvLayout &) const = default;
};

/// The layout for the scenario's model, KV dtype and tensor/pipeline split (the busiest rank).
KvLayout kvLayout(const Scenario &scenario);
/// The same model cached in another value type (a serving engine's own cache type).
KvLayout kvLayout(const Scenario &scenario, const KvValueType &type);

/// Bytes to cache `sequences` sequences of `tokens` tokens each (windows applied).
/// Throws OverflowError past 2^64.
std::uint64_t kvCacheBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens);
/// Bytes of one more token in every layer, windows ignored (what a full-attention token costs).
std::uint64_t kvBytesPerToken(const KvLayout &layout);

} // namespace headroom
