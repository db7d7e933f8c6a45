// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face generate()'s caches (transformers cache_utils.py, docs/serving.md): DynamicCache
// grows by torch.cat per layer, StaticCache preallocates max_cache_len, offloading keeps the
// layer in use and the prefetched next one on the GPU, QuantizedCache stores nbits values with a
// scale and zero-point per group plus a residual of recent tokens in full precision.
#include "serving/servingengines.h"

#include "scenario/checked.h"
#include "estimate/estimate.h"
#include "estimate/verdict.h"
#include "scenario/names.h"
#include "training/runtimeterms.h"
#include "scenario/units.h"

#include <algorithm>

namespace headroom::detail {

namespace {

/// The layout with `layers` layers in total (the first group's share of them).
KvLayout layersOf(const KvLayout &layout, std::uint64_t layers)
{
    KvLayout part = layout;
    std::uint64_t total = 0;
    for (const KvLayerGroup &group : part.groups)
        total += group.layers;
    for (KvLayerGroup &group : part.groups)
        group.layers = total ? ceilDiv(group.layers * layers, total) : 0;
    return part;
}

KvLayout hfLayout(const Scenario &s)
{
    // DynamicCache keeps what each attention module passes it: DeepseekV3Attention's per-head
    // key_states and value_states; the linear layers' conv states in the model dtype, Gated
    // DeltaNet's recurrent state as fla's kernels return it (fp32), Mamba-2's in the model dtype.
    KvOptions options = kvOptions(s);
    options.mla = MlaCache::PerHead;
    if (s.model.hasKind(LayerKind::GatedDeltaNet))
        options.recurrentBytes = 4;
    return kvLayout(s, options);
}

} // namespace

Term hfCacheTerm(const EstimateContext &c, std::uint64_t &hostBytes)
{
    const Scenario &s = c.s;
    const ServingConfig &cfg = *s.serving;
    const KvLayout layout = hfLayout(s);
    const std::uint64_t batch = s.inference.batch;
    const std::uint64_t context = s.inference.context;
    Term term = kvCacheTerm(c, &layout);
    switch (cfg.cacheImplementation) {
    case HfCacheImpl::Dynamic:
        if (c.formulas)
            term.notes.push_back("DynamicCache: grows one step at a time by torch.cat, layer by layer.");
        break;
    case HfCacheImpl::Static: {
        const std::uint64_t length = std::max<std::uint64_t>(cfg.maxModelLen, context);
        term.bytes = kvCacheBytes(layout, batch, length);
        if (c.formulas) {
            term.expression = n(batch) + " sequences x " + n(length) + " max_cache_len x " +
                              n(kvBytesPerToken(layout)) + " B per token (all layers)";
            term.notes.push_back("StaticCache preallocates max_cache_len for every sequence at the first "
                                 "forward.");
        }
        break;
    }
    case HfCacheImpl::Offloaded: {
        const std::uint64_t all = term.bytes;
        term.bytes = std::min(all, kvCacheBytes(layersOf(layout, 2), batch, context));
        hostBytes = addChecked(hostBytes, all - term.bytes, "host memory");
        if (c.formulas) {
            term.expression = "2 layers (in use and prefetched) x " + n(batch) + " sequences x " +
                              n(context) + " tokens";
            term.notes.push_back("Offloaded cache: every other layer's K and V wait in CPU RAM (" +
                                 formatBytes(all - term.bytes, Unit::GB) + ").");
        }
        break;
    }
    case HfCacheImpl::Quantized: {
        // Every value at nbits plus a scale and a zero-point (compute dtype) per group, a
        // full-precision residual of up to residual_length tokens, and one layer dequantised
        // while it is updated.
        const std::uint64_t perToken = kvBytesPerToken(layout) / std::max<std::uint64_t>(1, c.compute);
        const std::uint64_t values = productChecked("KV cache", perToken, batch, context);
        const std::uint64_t quantized =
            addChecked(bitsToBytes(values, cfg.cacheNbits, "KV cache"),
                       productChecked("KV cache", ceilDiv(values, cfg.qGroupSize), 2, c.compute), "KV cache");
        const std::uint64_t residual = kvCacheBytes(layout, batch, std::min<std::uint64_t>(context, cfg.residualLength));
        const std::uint64_t oneLayer = kvCacheBytes(layersOf(layout, 1), batch, context);
        term.bytes = addChecked(addChecked(quantized, residual, "KV cache"), oneLayer, "KV cache");
        if (c.formulas) {
            term.expression = n(values) + " values x " + n(cfg.cacheNbits) + " bits + " +
                              n(ceilDiv(values, cfg.qGroupSize)) + " groups of " + n(cfg.qGroupSize) +
                              " x 2 x " + n(c.compute) + " B (scale, zero-point) + residual " +
                              formatBytes(residual, Unit::GB) + " + one dequantised layer " +
                              formatBytes(oneLayer, Unit::GB);
            term.notes.push_back("QuantizedCache (quanto/HQQ): older tokens in " + n(cfg.cacheNbits) +
                                 " bits, the last residual_length in full precision.");
        }
        break;
    }
    }
    return term;
}

Term hfConcatTransient(const EstimateContext &c)
{
    Term term;
    const ServingConfig &cfg = *c.s.serving;
    if (cfg.cacheImplementation != HfCacheImpl::Dynamic)
        return term;
    term.bytes = kvCacheBytes(layersOf(hfLayout(c.s), 1), c.s.inference.batch, c.s.inference.context);
    if (c.formulas)
        term.expression = "one layer's K and V copied by torch.cat";
    return term;
}

Estimate hfGenerateEstimate(const Scenario &scenario, Detail detail, const Catalog &catalog,
                            const EstimateRunner &run)
{
    const ServingConfig &cfg = *scenario.serving;
    Scenario derived = scenario;
    derived.inference.batch = cfg.requests.concurrency;
    derived.inference.context = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(longestRequest(cfg.requests), 1, std::uint64_t(16) << 20));
    derived.inference.kvCache = KvCache::Preallocated;
    Estimate e = run(derived, detail, catalog);
    const Gpu *gpu = targetGpu(scenario, catalog); // the verdict's GPU
    if (!gpu)
        return e;
    ServingFigures f;
    f.engine = Engine::HfGenerate;
    f.gpuId = gpu->id;
    f.deviceTotalBytes = cudaTotalBytes(gpu->id, gpu->capacityBytes());
    f.budgetBytes = f.deviceTotalBytes;
    f.weightsBytes = e.bytes(ConsumerId::Weights) + e.bytes(ConsumerId::QuantMetadata);
    f.activationBytes = e.bytes(ConsumerId::Activations) + e.bytes(ConsumerId::AttentionScores) +
                        e.bytes(ConsumerId::Logits);
    f.kvCacheBytes = e.bytes(ConsumerId::KvCache);
    f.kvCacheTokens = std::uint64_t(derived.inference.batch) * derived.inference.context;
    f.kvBytesPerToken = kvBytesPerToken(hfLayout(derived));
    f.blocks = f.kvCacheTokens;
    f.maxConcurrencyTokens = derived.inference.context;
    f.requestKvBytes = f.kvCacheBytes;
    f.requestSequences = cfg.requests.concurrency;
    f.requestTokens = f.kvCacheTokens;
    f.limit = ServingLimit::Memory;
    const std::uint64_t capacity = gpu->capacityBytes();
    f.requestsFit = e.peak.deviceBytes <= capacity;
    f.startsOk = true;
    if (detail == Detail::Formulas) {
        // The largest batch of sequences of this length that fits the GPU (exponential, then
        // binary search on the same estimator).
        auto fits = [&](std::uint64_t batch) {
            Scenario trial = derived;
            trial.inference.batch = static_cast<std::uint32_t>(batch);
            try {
                return run(trial, Detail::BytesOnly, catalog).peak.deviceBytes <= capacity;
            } catch (const OverflowError &) {
                return false;
            }
        };
        std::uint64_t low = 0, high = 1;
        constexpr std::uint64_t kMaxBatch = 1u << 20;
        while (high <= kMaxBatch && fits(high)) {
            low = high;
            high *= 2;
        }
        high = std::min(high, kMaxBatch + 1);
        while (high - low > 1) {
            const std::uint64_t mid = low + (high - low) / 2;
            (fits(mid) ? low : high) = mid;
        }
        f.maxConcurrency = double(low);
        f.maxNumSeqs = 0;
        f.notes.push_back(std::string("generate() with a ") + enumName(cfg.cacheImplementation) +
                          " cache: " + n(low) + " sequences of " + n(derived.inference.context) +
                          " tokens fit " + gpu->name + " (nothing is reserved up front).");
    }
    for (GpuFit &fit : e.gpus)
        if (fit.id == f.gpuId)
            fit.fits = fit.fits && f.requestsFit;
    e.serving = std::move(f);
    return e;
}

} // namespace headroom::detail
