// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: each serving engine's memory accounting, read in its own source
// (docs/serving.md). An engine returns what it reserves, in consumers, and its printed figures.

#include "estimate/estimatecontext.h"
#include "serving/kvcache.h"
#include "serving/servingfigures.h"

#include <cstdint>
#include <functional>

namespace headroom::detail {

/// An engine's phases: the profile (or warm-up) run and serving with the KV pool allocated.
struct EnginePhases
{
    ServingFigures figures;
    Composition profile;
    Composition serve;
    std::uint64_t hostBytes = 0;
};

/// The GPU the engine runs on: the scenario's first catalog GPU (nullptr when there is none).
const Gpu *engineGpu(const EstimateContext &c);

/// The KV value type an engine stores for `type` (auto: the model's compute dtype).
KvValueType engineKvValueType(EngineKvType type, DType modelDType);

/// vLLM: requested = total x gpu_memory_utilization, less weights, the profile run's peak,
/// non-torch memory (and CUDA graphs from 0.21 on); the rest is KV blocks.
EnginePhases vllmPhases(const EstimateContext &c, const Gpu &gpu);
/// SGLang: mem_fraction_static x free memory before the weights, less the weights, is the pool.
EnginePhases sglangPhases(const EstimateContext &c, const Gpu &gpu);
/// llama.cpp: n_ctx cells of K and V for the offloaded layers, their weights, the compute buffer.
EnginePhases llamaCppPhases(const EstimateContext &c, const Gpu &gpu);

/// Hugging Face generate(): the KV cache of its cache implementation for `batch` sequences of
/// `context` tokens; the offloaded part goes to `hostBytes`.
Term hfCacheTerm(const EstimateContext &c, std::uint64_t &hostBytes);
/// generate()'s DynamicCache: torch.cat holds one layer's old and new K and V at once.
Term hfConcatTransient(const EstimateContext &c);

/// Runs the estimator on a scenario (the generate() path estimates derived scenarios).
using EstimateRunner = std::function<Estimate(const Scenario &, Detail, const Catalog &)>;
/// generate(): the plain inference estimate for the requests (batch = concurrency, context = the
/// longest request) with its cache implementation, and the figures an engine would print. The
/// largest batch that fits is searched only with formulas (the solver uses bytes only).
Estimate hfGenerateEstimate(const Scenario &scenario, Detail detail, const Catalog &catalog,
                            const EstimateRunner &run);

/// A vLLM-style forward's largest working set per token (fused kernels: merged gate_up and
/// SiLU-and-mul, MoE intermediate caches), on one tensor-parallel rank.
std::uint64_t engineForwardBytesPerToken(const EstimateContext &c);

/// The longest request of the load, and the sequences of each class.
std::uint64_t longestRequest(const ServingRequests &requests);

} // namespace headroom::detail
