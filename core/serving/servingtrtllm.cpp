// SPDX-License-Identifier: GPL-3.0-or-later
// TensorRT-LLM's KV pool (docs/serving.md cites each step). PyTorch backend (the default of 1.x,
// trtllm-serve and the LLM API): tensorrt_llm/_torch/pyexecutor/_util.py,
// KvCacheCreator.configure_kv_cache_capacity() runs warm-up requests of max_num_tokens tokens with
// a small temporary KV cache, measures the peak (torch + non-torch) and sizes the pool by
// _cal_max_memory(): (total - peak + temporary KV) x free_gpu_memory_fraction; max_tokens =
// that // kv bytes per token; resource_manager.py KVCacheManager.calculate_max_num_blocks()
// rounds max_tokens up to tokens_per_block blocks. The TensorRT engine path (before 1.0) takes
// the fraction of what the engine, its execution context and runtime buffers leave.
#include "serving/servingengines.h"

#include "scenario/checked.h"
#include "scenario/names.h"
#include "scenario/units.h"
#include "training/modelstate.h"
#include "training/overhead.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

namespace headroom::detail {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

std::string gib(std::uint64_t bytes) { return formatBytes(bytes, Unit::GiB); }

/// TensorRT-LLM's own two-decimal GiB ("Allocated 52.51 GiB ...").
std::string gib2(std::uint64_t bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", double(bytes) / double(kGiB));
    return text;
}

} // namespace

bool trtllmPytorchBackend(const ServingConfig &cfg)
{
    if (cfg.trtllmBackend != TrtllmBackend::Auto)
        return cfg.trtllmBackend == TrtllmBackend::Pytorch;
    const std::optional<EngineVersion> v = parseEngineVersion(cfg.version);
    return cfg.version.empty() || !v || *v >= EngineVersion{1, 0, 0};
}

std::vector<std::uint32_t> trtllmCudaGraphBatchSizes(const ServingConfig &cfg)
{
    std::vector<std::uint32_t> sizes;
    if (!cfg.cudaGraph || !trtllmPytorchBackend(cfg))
        return sizes;
    // llm_args.py CudaGraphConfig._generate_cuda_graph_batch_sizes (max_batch_size 0 there: 128).
    const std::uint32_t top = cfg.cudaGraphMaxBatchSize ? cfg.cudaGraphMaxBatchSize : 128;
    if (cfg.cudaGraphPadding) {
        sizes = {1, 2, 4};
        for (std::uint32_t i = 1; i <= 16; ++i)
            sizes.push_back(i * 8);
    } else {
        for (std::uint32_t i = 1; i < 32; ++i)
            sizes.push_back(i);
        sizes.insert(sizes.end(), {32, 64, 128});
    }
    // Powers of two from 256 below the largest size, then the largest itself.
    for (std::uint64_t p = 256; p < top; p *= 2)
        sizes.push_back(static_cast<std::uint32_t>(p));
    std::erase_if(sizes, [&](std::uint32_t b) { return b > top || b > cfg.maxBatchSize; });
    const std::uint32_t last = std::min(top, cfg.maxBatchSize);
    if (sizes.empty() || sizes.back() != last)
        sizes.push_back(last);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

EnginePhases trtllmPhases(const EstimateContext &c, const Gpu &gpu)
{
    const Scenario &s = c.s;
    const ServingConfig &cfg = *s.serving;
    const bool formulas = c.formulas;
    const bool pytorch = trtllmPytorchBackend(cfg);
    EnginePhases out;
    ServingFigures &f = out.figures;
    f.engine = Engine::Trtllm;
    f.gpuId = gpu.id;
    f.deviceTotalBytes = cfg.totalGpuMemoryGiB
                             ? roundedBytes(*cfg.totalGpuMemoryGiB * double(kGiB), "GPU memory")
                             : cudaTotalBytes(gpu.id, gpu.capacityBytes());

    const Term weights = weightsTerm(c);
    const Term metadata = quantMetadataTerm(c);
    f.weightsBytes = addChecked(weights.bytes, metadata.bytes, "weights");

    // The warm-up (PyTorch) or the engine's execution context (TensorRT): a forward of
    // max_num_tokens tokens, the dummy context requests' one output token each.
    Term activation;
    activation.bytes = mulChecked(cfg.maxNumTokens, engineForwardBytesPerToken(c), "activations");
    f.activationBytes = activation.bytes;

    // Outside torch: the CUDA context (and NCCL, cuBLAS), measured by the engine as
    // used - torch allocated after the warm-up; a log's figure when given.
    f.nonTorchBytes = cfg.nonTorchMiB ? roundedBytes(*cfg.nonTorchMiB * double(kMiB), "non-torch memory")
                                      : cudaContextBytes(s);
    const std::vector<std::uint32_t> graphs = trtllmCudaGraphBatchSizes(cfg);
    const std::uint64_t layersOnRank =
        ceilDiv(std::uint64_t(std::max(1, c.m.layers)), std::max<std::uint64_t>(1, s.parallel.pipeline));
    if (!graphs.empty()) {
        // Not in TensorRT-LLM's code: vLLM's measured pool per graph and layer (docs/serving.md).
        const double assumedMiB = double(graphs.size()) * double(layersOnRank) * 166.0 / 1024.0 + 340.0;
        f.cudaGraphBytes = roundedBytes(cfg.cudaGraphMiB.value_or(assumedMiB) * double(kMiB), "CUDA graphs");
    }
    f.cudaGraphInBudget = pytorch; // captured in the warm-up the peak is measured over

    const std::uint64_t peak = addChecked(
        addChecked(addChecked(f.weightsBytes, f.activationBytes, "GPU memory"), f.nonTorchBytes, "GPU memory"),
        f.cudaGraphBytes, "GPU memory");
    const std::uint64_t freeAfterPeak = f.deviceTotalBytes > peak ? f.deviceTotalBytes - peak : 0;
    // The temporary KV cache of the warm-up is added back: (total - peak + temporary) x fraction
    // is the same as (total - the peak without it) x fraction.
    std::uint64_t available = roundedBytes(double(freeAfterPeak) * cfg.freeGpuMemoryFraction, "KV cache");

    const KvLayout layout = kvLayout(s, engineKvValueType(cfg.kvCacheDtype, s.precision.compute));
    f.kvBytesPerToken = kvBytesPerToken(layout);
    const std::uint64_t perToken = std::max<std::uint64_t>(1, f.kvBytesPerToken);
    std::uint64_t maxTokens = available / perToken;
    const bool capped = cfg.maxTokens && *cfg.maxTokens < maxTokens;
    if (capped)
        maxTokens = *cfg.maxTokens; // "Both free_gpu_memory_fraction and max_tokens are set"
    const std::uint64_t block = std::max<std::uint32_t>(1, cfg.tokensPerBlock);
    f.blockSize = cfg.tokensPerBlock;
    f.blocks = ceilDiv(maxTokens, block); // math.ceil(max_tokens / tokens_per_block)
    f.kvCacheTokens = mulChecked(f.blocks, block, "KV cache");
    f.kvCacheBytes = mulChecked(f.kvCacheTokens, f.kvBytesPerToken, "KV cache");
    f.budgetBytes = addChecked(peak, f.kvCacheBytes, "GPU memory");

    const std::uint64_t maxSeqLen = cfg.maxModelLen;
    f.maxConcurrencyTokens = maxSeqLen;
    f.maxConcurrency = double(f.kvCacheTokens) / double(std::max<std::uint64_t>(1, maxSeqLen));
    f.maxNumSeqs = cfg.maxBatchSize;
    // A pool shorter than max_seq_len lowers it (the attention window's upper bound); no block
    // at all stops the start-up ("Impossible to fit in any sequence in kvCache").
    f.startsOk = f.blocks > 0;
    f.maxLenThatFits = f.kvCacheTokens;

    const std::vector<std::uint64_t> counts = cfg.requests.counts();
    std::uint64_t usedTokens = 0;
    for (std::size_t i = 0; i < counts.size(); ++i)
        usedTokens = addChecked(
            usedTokens, mulChecked(counts[i], ceilDiv(cfg.requests.classes[i].tokens(), block) * block, "KV cache"),
            "KV cache");
    f.requestTokens = usedTokens;
    f.requestSequences = cfg.requests.concurrency;
    f.requestKvBytes = mulChecked(std::min(usedTokens, f.kvCacheTokens), f.kvBytesPerToken, "KV cache");
    const std::uint64_t longest = longestRequest(cfg.requests);
    const std::uint64_t kvSequences = f.kvCacheTokens / std::max<std::uint64_t>(1, ceilDiv(longest, block) * block);
    f.limit = longest > maxSeqLen                ? ServingLimit::MaxModelLen
              : cfg.maxBatchSize < kvSequences ? ServingLimit::MaxNumSeqs
                                                 : ServingLimit::KvCache;
    f.requestsFit = f.startsOk && usedTokens <= f.kvCacheTokens && longest <= maxSeqLen &&
                    cfg.requests.concurrency <= cfg.maxBatchSize;

    Term workspace;
    workspace.bytes = addChecked(f.nonTorchBytes, f.cudaGraphBytes, "workspace");
    if (formulas) {
        activation.expression = n(cfg.maxNumTokens) + " warm-up tokens (max_num_tokens) x " +
                                n(engineForwardBytesPerToken(c)) + " B (a layer's working set)";
        activation.notes.push_back(pytorch ? "The warm-up requests fill max_num_tokens; their peak is measured "
                                             "before the KV cache is sized."
                                           : "The TensorRT engine's execution context for max_num_tokens, "
                                             "allocated before the KV cache.");
        workspace.expression = gib(f.nonTorchBytes) + " outside torch (CUDA context, NCCL, cuBLAS)";
        if (f.cudaGraphBytes)
            workspace.expression += " + " + gib(f.cudaGraphBytes) + " CUDA graph pool" +
                                    (cfg.cudaGraphMiB ? std::string()
                                                      : " (assumed: " + n(graphs.size()) + " graphs x " +
                                                            n(layersOnRank) + " layers x 166 KiB + 340 MiB)");
    }

    Composition profile;
    at(profile, ConsumerId::Weights) = weights;
    at(profile, ConsumerId::QuantMetadata) = metadata;
    at(profile, ConsumerId::Activations) = activation;
    at(profile, ConsumerId::Workspace) = workspace;
    out.profile = profile;
    Composition serve = profile;
    Term used, free;
    used.bytes = f.requestKvBytes;
    free.bytes = f.kvCacheBytes - f.requestKvBytes;
    if (formulas) {
        used.expression = n(std::min(usedTokens, f.kvCacheTokens)) + " tokens of " + n(f.requestSequences) +
                          " requests (whole blocks of " + n(block) + ") x " + n(f.kvBytesPerToken) + " B";
        free.expression = n(f.blocks) + " blocks x " + n(block) + " tokens x " + n(f.kvBytesPerToken) +
                          " B - what the requests use";
        free.notes.push_back("free_gpu_memory_fraction " + formatDecimal(cfg.freeGpuMemoryFraction) + " x (" +
                             gib(f.deviceTotalBytes) + " total - " + gib(peak) + " peak) = " + gib(available) +
                             (capped ? "; max_tokens " + n(*cfg.maxTokens) + " is smaller and is used" : std::string()) +
                             ".");
    }
    at(serve, ConsumerId::KvCache) = used;
    at(serve, ConsumerId::KvCacheFree) = free;
    out.serve = serve;

    // What no code sizes: said in the estimate's warnings.
    if (!cfg.cudaGraphMiB && !graphs.empty())
        out.warnings.push_back("TensorRT-LLM's CUDA graph pool (" + std::to_string(graphs.size()) +
                               " graphs) is not sized from its code: assumed " + gib(f.cudaGraphBytes) +
                               "; give cuda_graph_mib from a log (\"Memory used outside torch\")");
    if (!cfg.nonTorchMiB)
        out.warnings.push_back(std::string("TensorRT-LLM's memory outside torch is taken as the CUDA context alone") +
                               (pytorch ? " (NCCL, cuBLAS and attention workspaces are not sized)"
                                        : " (the TensorRT engine's runtime buffers and decoder, sized by "
                                          "max_batch_size and the vocabulary, are not sized)") +
                               ": give non_torch_mib from a log");
    if (pytorch)
        out.warnings.push_back("TensorRT-LLM's warm-up peak is a max_num_tokens forward as vLLM's kernels would run "
                               "it, not measured on TensorRT-LLM: not validated");
    else
        out.warnings.push_back("TensorRT-LLM's execution context memory comes from the engine build (trtllm-build); "
                               "it is taken as a max_num_tokens forward: not validated");

    if (formulas) {
        f.notes.push_back(std::string("TensorRT-LLM ") + (pytorch ? "PyTorch backend" : "TensorRT engine") +
                          (cfg.version.empty() ? std::string() : " " + cfg.version) + ": max_seq_len=" + n(maxSeqLen) +
                          ", max_num_requests=" + n(cfg.maxBatchSize) + ", max_num_tokens=" + n(cfg.maxNumTokens) +
                          ", tokens_per_block=" + n(block));
        if (pytorch)
            f.notes.push_back("Peak memory during memory usage profiling (torch + non-torch): " + gib2(peak) +
                              " GiB, available KV cache memory when calculating max tokens: " + gib2(available) +
                              " GiB, fraction is set " + formatDecimal(cfg.freeGpuMemoryFraction) + ", kv size is " +
                              std::to_string(f.kvBytesPerToken));
        else
            f.notes.push_back("Memory usage when calculating max tokens in paged kv cache: total: " +
                              gib2(f.deviceTotalBytes) + " GiB, available: " + gib2(freeAfterPeak) + " GiB");
        f.notes.push_back("[MemUsageChange] Allocated " + gib2(f.kvCacheBytes) +
                          " GiB for max tokens in paged KV cache (" + std::to_string(f.kvCacheTokens) + ").");
        if (f.startsOk && f.kvCacheTokens < maxSeqLen)
            f.notes.push_back("TensorRT-LLM lowers max_seq_len to the pool: " + n(f.kvCacheTokens) + " tokens.");
        if (!f.startsOk)
            f.notes.push_back("TensorRT-LLM refuses to start: Impossible to fit in any sequence in kvCache "
                              "(no KV block fits after the warm-up peak); lower max_num_tokens or raise "
                              "free_gpu_memory_fraction.");
    }
    return out;
}

} // namespace headroom::detail
