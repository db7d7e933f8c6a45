// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "serving/llamacpphost.h"
#include "serving/serving.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// What bounds the number of concurrent sequences at a length.
enum class ServingLimit {
    KvCache,     ///< the KV pool (blocks, tokens or cells) is full
    MaxNumSeqs,  ///< the engine's sequence limit (max_num_seqs, n_parallel)
    MaxModelLen, ///< a sequence is longer than the engine accepts
    Memory,      ///< the GPU (engines without a fixed pool: generate())
};
/// Stable id ("kv_cache", "max_num_seqs", "max_model_len", "memory").
const char *servingLimitKey(ServingLimit limit);

/// llama.cpp on several devices: what one device holds (llama_model::load_tensors places the
/// layers, the KV cache follows each layer's device, the scheduler gives each a compute buffer).
struct LlamaDevice
{
    std::uint32_t index = 0;          ///< CUDA0, CUDA1, ... (the order of the scenario's gpus)
    std::string gpuId;
    std::uint64_t capacityBytes = 0;  ///< the catalog capacity (nvidia-smi)
    std::uint64_t freeBytes = 0;      ///< what the device reports free at load (the default split)
    double split = 0;                 ///< its share of the split, normalised
    std::uint32_t layers = 0;         ///< repeating layers on it
    bool output = false;              ///< the output layer is on it
    std::uint64_t weightsBytes = 0;
    std::uint64_t kvCacheBytes = 0;
    std::uint64_t computeBytes = 0;
    std::uint64_t contextBytes = 0;   ///< the CUDA context every device has
    std::uint64_t deviceBytes = 0;    ///< the sum: what nvidia-smi would show
    std::int64_t headroomBytes = 0;   ///< capacity - device bytes
    bool fits = false;
    bool operator==(const LlamaDevice &) const = default;
};

/// A serving engine's start-up figures for one GPU of the scenario (the first in `gpus`), as the
/// engine itself computes and prints them, and the requests against them.
struct ServingFigures
{
    Engine engine = Engine::Vllm;
    std::string gpuId;
    std::uint64_t deviceTotalBytes = 0; ///< what CUDA reports as the GPU's total
    /// What the engine reserves: vLLM total x gpu_memory_utilization (requested memory), SGLang
    /// mem_fraction_static x free memory, llama.cpp and generate() the device total.
    std::uint64_t budgetBytes = 0;
    std::uint64_t weightsBytes = 0;    ///< on this GPU
    std::uint64_t activationBytes = 0; ///< vLLM's profile peak, llama.cpp's compute buffer
    std::uint64_t nonTorchBytes = 0;
    std::uint64_t cudaGraphBytes = 0;
    bool cudaGraphInBudget = false;    ///< counted before the KV cache was sized
    std::uint64_t kvCacheBytes = 0;    ///< the KV pool on this GPU
    std::uint64_t kvCacheTokens = 0;   ///< "GPU KV cache size: N tokens" (as the engine prints it)
    std::uint64_t kvBytesPerToken = 0; ///< one more token in every layer of this GPU
    std::uint64_t blocks = 0;          ///< vLLM blocks (SGLang pages, llama.cpp cells)
    std::uint32_t blockSize = 1;       ///< tokens per block
    double maxConcurrency = 0;         ///< "Maximum concurrency for L tokens per request: Xx"
    std::uint64_t maxConcurrencyTokens = 0; ///< L: the engine's longest sequence
    std::uint32_t maxNumSeqs = 0;      ///< sequences the engine runs at once (0 = no limit)
    bool startsOk = true;              ///< one sequence of the longest length fits
    std::uint64_t maxLenThatFits = 0;  ///< "the estimated maximum model length is M"
    std::uint64_t requestKvBytes = 0;  ///< what the requests occupy of the pool
    std::uint64_t requestSequences = 0;
    std::uint64_t requestTokens = 0;   ///< tokens the requests cache
    bool requestsFit = true;           ///< every request runs at once within the engine's limits
    ServingLimit limit = ServingLimit::KvCache; ///< what ends concurrency at the requests' length
    std::uint64_t hostBytes = 0;       ///< llama.cpp weights, cache and buffers in CPU RAM
    std::uint32_t gpuLayers = 0;       ///< llama.cpp: repeating layers on the GPU
    /// llama.cpp with tensor_split: every device (the figures above are the tightest one's), and
    /// the host's share by kind. Empty for one device.
    std::vector<LlamaDevice> devices;
    std::uint64_t hostWeightsBytes = 0;
    std::uint64_t hostKvCacheBytes = 0;
    std::uint64_t hostBufferBytes = 0;
    /// llama.cpp: the CPU backend's compute buffer (pinned: "CUDA_Host compute buffer size").
    std::uint64_t hostComputeBytes = 0;
    bool pipelineParallel = false; ///< llama.cpp's scheduler keeps 4 copies of the split inputs
    /// llama.cpp: the weights in CPU RAM by load mode (mapped, anonymous, locked).
    LlamaHostWeights hostLoad;
    std::vector<std::string> notes;    ///< what the engine would print, and what it rests on
    bool operator==(const ServingFigures &) const = default;
};

} // namespace headroom
