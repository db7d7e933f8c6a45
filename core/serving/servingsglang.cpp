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
    const double fraction = cfg.memFractionStatic > 0 ? cfg.memFractionStatic : defaultFraction(c.parallel.tensor);
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
    const std::uint64_t chunk = cfg.chunkedPrefillSize ? cfg.chunkedPrefillSize
                                                       : (f.deviceTotalBytes < 25 * kGiB ? 2048 : 8192);
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
        const std::uint64_t half = f.kvCacheBytes / 2;
        f.notes.push_back("KV Cache is allocated. #tokens: " + n(f.kvCacheTokens) + ", K size: " +
                          formatBytes(half, Unit::GiB) + ", V size: " + formatBytes(half, Unit::GiB));
        f.notes.push_back("max_total_num_tokens=" + n(f.kvCacheTokens) + ", mem_fraction_static " +
                          formatDecimal(fraction) + (cfg.memFractionStatic > 0 ? "" : " (default for this tensor-parallel size)"));
        if (!f.startsOk)
            f.notes.push_back("SGLang refuses to start: not enough memory for the token pool; raise "
                              "--mem-fraction-static.");
    }
    return out;
}

} // namespace headroom::detail
