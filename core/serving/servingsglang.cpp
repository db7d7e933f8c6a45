// SPDX-License-Identifier: GPL-3.0-or-later
// SGLang's token pool (docs/serving.md): ModelRunner.profile_max_num_token() takes the free
// memory measured after the distributed init and before the weights, keeps
// (1 - mem_fraction_static) of it for activations and CUDA graphs, and turns what the weights
// leave of the rest into KV cells of `cell_size` bytes.
#include "serving/servingengines.h"

#include "scenario/checked.h"
#include "training/modelstate.h"
#include "training/overhead.h"
#include "scenario/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace headroom::detail {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

/// server_args.py's mem_fraction_static by tensor-parallel size (2024 - mid 2025 releases).
double defaultFraction(std::uint64_t tensor)
{
    if (tensor >= 16)
        return 0.79;
    if (tensor >= 8)
        return 0.81;
    if (tensor >= 4)
        return 0.85;
    if (tensor >= 2)
        return 0.87;
    return 0.88;
}

/// What SGLang's server arguments default to on this GPU.
struct SglangDefaults
{
    std::uint64_t chunk = 0;   ///< chunked_prefill_size
    std::uint64_t graphBs = 0; ///< cuda_graph_max_bs (0: not part of this release's rule)
    double fraction = 0;       ///< mem_fraction_static
    bool closedForm = false;   ///< derived from the reserved memory (PR #10975)
};

/// ServerArgs._handle_gpu_memory_settings (python/sglang/srt/server_args.py, PR #10975 "General
/// heuristics for --mem-fraction-static", October 2025; modelled from 0.5.4 and for an unstated
/// version): chunked_prefill_size and cuda_graph_max_bs by GPU-memory bucket, then
///   reserved_mem = 512 + max(chunk, 2048) x 1.5 + cuda_graph_max_bs x 2 + tp x pp / 8 x 1024 MiB,
///   at least 10,240 MiB above 60 GiB; mem_fraction_static = round((gpu_mem - reserved) / gpu_mem, 3).
/// gpu_mem is get_device_memory_capacity(): nvidia-smi's memory.total in MiB (the catalog
/// capacity), not the CUDA total; the CI logs of SGLang's documentation (February 2026, an H100
/// at TP 1) print mem_fraction_static=0.835 = round((81,559 - 13,440) / 81,559, 3).
/// Earlier releases: the fraction by tensor-parallel size, chunks of 2,048 under 25 GiB, else 8,192.
SglangDefaults sglangDefaults(const ServingConfig &cfg, std::uint64_t capacityBytes, std::uint64_t totalBytes,
                              std::uint64_t tensor, std::uint64_t pipeline)
{
    SglangDefaults d;
    const std::optional<EngineVersion> v = parseEngineVersion(cfg.version);
    d.closedForm = cfg.version.empty() || !v || *v >= EngineVersion{0, 5, 4};
    const double gpuMiB = double(capacityBytes) / double(kMiB);
    if (!d.closedForm) {
        d.chunk = cfg.chunkedPrefillSize ? cfg.chunkedPrefillSize : (totalBytes < 25 * kGiB ? 2048 : 8192);
        d.fraction = cfg.memFractionStatic > 0 ? cfg.memFractionStatic : defaultFraction(tensor);
        return d;
    }
    std::uint64_t chunk = 0, graphs = 0;
    if (gpuMiB < 20 * 1024) {
        chunk = 2048, graphs = 8; // T4, 4080
    } else if (gpuMiB < 35 * 1024) {
        chunk = 2048, graphs = tensor < 4 ? 24 : 80; // A10, 4090, 5090
    } else if (gpuMiB < 60 * 1024) {
        chunk = 4096, graphs = tensor < 4 ? 32 : 160; // A100 40GB, L40
    } else if (gpuMiB < 160 * 1024) {
        chunk = 8192, graphs = tensor < 4 ? 256 : 512; // H100, A100 80GB, H20, H200
    } else {
        chunk = 16384, graphs = 512; // B200, MI300
    }
    d.chunk = cfg.chunkedPrefillSize ? cfg.chunkedPrefillSize : chunk;
    d.graphBs = graphs;
    if (cfg.memFractionStatic > 0) {
        d.fraction = cfg.memFractionStatic;
        return d;
    }
    double reserved = 512 + double(std::max<std::uint64_t>(d.chunk, 2048)) * 1.5 + double(graphs) * 2 +
                      double(tensor * pipeline) / 8 * 1024;
    if (gpuMiB > 60 * 1024)
        reserved = std::max(reserved, 10.0 * 1024);
    d.fraction = std::round((gpuMiB - reserved) / gpuMiB * 1000) / 1000;
    return d;
}

} // namespace

EnginePhases sglangPhases(const EstimateContext &c, const Gpu &gpu)
{
    const Scenario &s = c.s;
    const ServingConfig &cfg = *s.serving;
    const bool formulas = c.formulas;
    EnginePhases out;
    ServingFigures &f = out.figures;
    f.engine = Engine::Sglang;
    f.gpuId = gpu.id;
    f.deviceTotalBytes = cfg.totalGpuMemoryGiB
                             ? roundedBytes(*cfg.totalGpuMemoryGiB * double(kGiB), "GPU memory")
                             : cudaTotalBytes(gpu.id, gpu.capacityBytes());
    const std::uint64_t context = cudaContextBytes(s);
    const std::uint64_t before = f.deviceTotalBytes > context ? f.deviceTotalBytes - context : 0;
    const SglangDefaults defaults =
        sglangDefaults(cfg, gpu.capacityBytes(), f.deviceTotalBytes, c.parallel.tensor, c.parallel.pipeline);
    const double fraction = defaults.fraction;
    f.budgetBytes = roundedBytes(double(before) * fraction, "GPU memory");

    const Term weights = weightsTerm(c);
    const Term metadata = quantMetadataTerm(c);
    f.weightsBytes = addChecked(weights.bytes, metadata.bytes, "weights");
    const std::uint64_t rest = f.budgetBytes > f.weightsBytes ? f.budgetBytes - f.weightsBytes : 0;

    const KvLayout layout = kvLayout(s, engineKvValueType(cfg.kvCacheDtype, s.precision.compute));
    f.kvBytesPerToken = kvBytesPerToken(layout); // cell_size
    const std::uint64_t page = cfg.pageSize;
    f.blockSize = cfg.pageSize;
    const std::uint64_t cells = f.kvBytesPerToken ? rest / f.kvBytesPerToken : 0;
    f.kvCacheTokens = cells / page * page; // max_total_num_tokens, page-aligned
    f.blocks = f.kvCacheTokens / page;
    // The pool tensors hold one page more than the tokens (the dummy page).
    f.kvCacheBytes = f.kvCacheTokens ? mulChecked(f.kvCacheTokens + page, f.kvBytesPerToken, "KV cache") : 0;
    f.maxConcurrencyTokens = cfg.maxModelLen;
    f.maxConcurrency = double(f.kvCacheTokens) / double(std::max<std::uint32_t>(1, cfg.maxModelLen));
    f.maxNumSeqs = cfg.maxNumSeqs;
    f.startsOk = f.kvCacheTokens > 0;
    f.maxLenThatFits = f.kvCacheTokens;

    const std::vector<std::uint64_t> counts = cfg.requests.counts();
    std::uint64_t usedTokens = 0;
    for (std::size_t i = 0; i < counts.size(); ++i)
        usedTokens = addChecked(usedTokens, mulChecked(counts[i], ceilDiv(cfg.requests.classes[i].tokens(), page) * page, "KV cache"), "KV cache");
    f.requestTokens = usedTokens;
    f.requestSequences = cfg.requests.concurrency;
    f.requestKvBytes = mulChecked(std::min(usedTokens, f.kvCacheTokens), f.kvBytesPerToken, "KV cache");
    const std::uint64_t longest = longestRequest(cfg.requests);
    const std::uint64_t kvSequences = f.kvCacheTokens / std::max<std::uint64_t>(1, longest);
    f.limit = longest > cfg.maxModelLen ? ServingLimit::MaxModelLen
              : (cfg.maxNumSeqs && cfg.maxNumSeqs < kvSequences) ? ServingLimit::MaxNumSeqs
                                                                 : ServingLimit::KvCache;
    f.requestsFit = f.startsOk && usedTokens <= f.kvCacheTokens && longest <= cfg.maxModelLen &&
                    (!cfg.maxNumSeqs || cfg.requests.concurrency <= cfg.maxNumSeqs);

    // Outside the fraction: a chunked-prefill forward and the CUDA graph pool.
    const std::uint64_t chunk = defaults.chunk;
    Term activation;
    activation.bytes = mulChecked(chunk, engineForwardBytesPerToken(c), "activations");
    f.activationBytes = activation.bytes;
    f.cudaGraphBytes = roundedBytes(cfg.cudaGraphMiB.value_or(512) * double(kMiB), "CUDA graphs");
    Term graphs;
    graphs.bytes = f.cudaGraphBytes;
    if (formulas) {
        activation.expression = n(chunk) + " chunked-prefill tokens x " +
                                n(engineForwardBytesPerToken(c)) + " B (a layer's working set)";
        activation.notes.push_back("Lives in the (1 - mem_fraction_static) part SGLang leaves free.");
        graphs.expression = formatBytes(f.cudaGraphBytes, Unit::GiB) + " CUDA graph pool";
    }

    Composition profile;
    at(profile, ConsumerId::Weights) = weights;
    at(profile, ConsumerId::QuantMetadata) = metadata;
    out.profile = profile;
    Composition serve = profile;
    at(serve, ConsumerId::Activations) = activation;
    at(serve, ConsumerId::Workspace) = graphs;
    Term used, free;
    used.bytes = f.requestKvBytes;
    free.bytes = f.kvCacheBytes - f.requestKvBytes;
    if (formulas) {
        used.expression = n(std::min(usedTokens, f.kvCacheTokens)) + " tokens of " + n(f.requestSequences) +
                          " requests x " + n(f.kvBytesPerToken) + " B (cell_size)";
        free.expression = "(" + n(f.kvCacheTokens) + " + " + n(page) + " padding) tokens x " +
                          n(f.kvBytesPerToken) + " B - what the requests use";
        free.notes.push_back("mem_fraction_static " + formatDecimal(fraction) + " x " +
                             formatBytes(before, Unit::GiB) + " free before the weights - " +
                             formatBytes(f.weightsBytes, Unit::GiB) + " weights = the token pool.");
    }
    at(serve, ConsumerId::KvCache) = used;
    at(serve, ConsumerId::KvCacheFree) = free;
    out.serve = serve;
    if (formulas) {
        // memory_pool.py's line as SGLang prints it: GB = 2^30 bytes, two decimals, no digit groups.
        char half[32];
        std::snprintf(half, sizeof half, "%.2f", double(f.kvCacheBytes / 2) / double(kGiB));
        f.notes.push_back("KV Cache is allocated. #tokens: " + std::to_string(f.kvCacheTokens) + ", K size: " + std::string(half) +
                          " GB, V size: " + std::string(half) + " GB");
        f.notes.push_back(
            "max_total_num_tokens=" + std::to_string(f.kvCacheTokens) + ", chunked_prefill_size=" +
            std::to_string(chunk) + ", mem_fraction_static " + formatDecimal(fraction) +
            (cfg.memFractionStatic > 0 ? std::string()
             : defaults.closedForm
                 ? " (the default: (GPU memory - reserved) / GPU memory, reserved from chunked prefill " +
                       std::to_string(chunk) + ", CUDA graph batch " + std::to_string(defaults.graphBs) +
                       " and tensor x pipeline size)"
                 : std::string(" (default for this tensor-parallel size)")));
        if (!f.startsOk)
            f.notes.push_back("SGLang refuses to start: not enough memory for the token pool; raise "
                              "--mem-fraction-static.");
    }
    return out;
}

} // namespace headroom::detail
