// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a model keeps between decoding steps, layer kind by layer kind: the attention layers'
// K and V per token (sliding and chunked layers at most their window), the MLA layers' latent
// (or per-head K and V, as the engine stores them) and DeepSeek sparse attention's indexer
// keys, the linear-attention and Mamba-2 layers' fixed conv and recurrent states per sequence.
// Every engine (serving*.cpp) and the plain inference model size their caches from here.

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

/// How an engine caches a latent-attention (MLA) layer.
enum class MlaCache {
    Latent,     ///< the compressed latent and the shared rotary key (vLLM, SGLang): rank + rope
    SeparateKv, ///< K as latent + rope and V as the latent, apart (mainline llama.cpp)
    PerHead,    ///< K and V expanded for every head (Transformers' generate(), DynamicCache)
};

/// What an engine keeps for each layer kind: the K/V value type, how MLA is stored, the
/// dtypes of the linear layers' states and of the sparse-attention indexer's keys.
struct KvOptions
{
    KvValueType type;
    MlaCache mla = MlaCache::Latent;
    std::uint64_t convBytes = 2;      ///< bytes per value of the short-convolution states
    std::uint64_t recurrentBytes = 2; ///< bytes per value of the recurrent (SSM, delta-rule) states
    /// DeepSeek-V3.2's indexer keys in fp8 with a fp32 scale per 128 values (vLLM, SGLang), else
    /// in `indexerBytes` per value.
    bool indexerFp8 = true;
    std::uint64_t indexerBytes = 2;
    bool operator==(const KvOptions &) const = default;
};

/// Layers of one pipeline stage that cache alike (one layer kind).
struct KvLayerGroup
{
    std::uint64_t layers = 0;
    /// Cached K and V values per token per layer on one rank: 2 x kv_heads x head_dim (KV heads
    /// split by tensor parallelism); the latent for MLA; 0 for the linear kinds.
    std::uint64_t valuesPerToken = 0;
    /// Tokens a layer keeps at most (sliding window, attention chunk), 0 for the whole context.
    std::uint64_t window = 0;
    std::string what; ///< "2 (K and V) x 8 kv_heads x 128 head_dim"
    LayerKind kind = LayerKind::Full;
    std::uint64_t keyValuesPerToken = 0;  ///< of valuesPerToken, the keys (llama.cpp types K and V apart)
    std::uint64_t extraBytesPerToken = 0; ///< the sparse-attention indexer's key per token and layer
    std::uint64_t convValues = 0;         ///< per sequence and layer: the short convolution's state
    std::uint64_t recurrentValues = 0;    ///< per sequence and layer: the recurrent state
    bool operator==(const KvLayerGroup &) const = default;
};

/// The KV cache layout of one rank: what every cached token costs, layer group by group.
struct KvLayout
{
    std::vector<KvLayerGroup> groups;
    KvValueType type;
    std::uint64_t convBytes = 2;
    std::uint64_t recurrentBytes = 2;
    bool operator==(const KvLayout &) const = default;
};

/// The plain inference model's options: the scenario's KV dtype, the MLA latent, the states in
/// the compute dtype.
KvOptions kvOptions(const Scenario &scenario);
/// The layout for the scenario's model, KV dtype and tensor/pipeline split (the busiest rank).
KvLayout kvLayout(const Scenario &scenario);
/// The same model cached in another value type (a serving engine's own cache type).
KvLayout kvLayout(const Scenario &scenario, const KvValueType &type);
/// The same model as an engine stores it.
KvLayout kvLayout(const Scenario &scenario, const KvOptions &options);

/// Bytes to cache `sequences` sequences of `tokens` tokens each (windows applied, the linear
/// layers' states once per sequence). Throws OverflowError past 2^64.
std::uint64_t kvCacheBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens);
/// Bytes of one more token in every layer, windows ignored (what a full-attention token costs;
/// the linear layers add nothing per token).
std::uint64_t kvBytesPerToken(const KvLayout &layout);
/// Bytes of the K values alone (or the V values alone) of `sequences` x `tokens`: llama.cpp
/// keeps K and V in their own types. The indexer keys go with K; the states with neither.
std::uint64_t kvKeyBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens);
std::uint64_t kvValueBytes(const KvLayout &layout, std::uint64_t sequences, std::uint64_t tokens);
/// Bytes of one layer group's states for one sequence (conv + recurrent).
std::uint64_t stateBytesPerLayer(const KvLayout &layout, const KvLayerGroup &group);
/// Bytes one sequence keeps in every linear layer whatever its length.
std::uint64_t stateBytesPerSequence(const KvLayout &layout);
/// True for the kinds that keep a fixed state per sequence instead of a per-token cache.
bool isStateKind(LayerKind kind);

} // namespace headroom
