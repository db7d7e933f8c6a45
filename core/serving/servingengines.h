// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: each serving engine's memory accounting, read in its own source
// (docs/serving.md). An engine returns what it reserves, in consumers, and its printed figures.

#include "estimate/estimatecontext.h"
#include "serving/kvcache.h"
#include "serving/servingfigures.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace headroom::detail {

/// An engine's phases: the profile (or warm-up) run and serving with the KV pool allocated.
struct EnginePhases
{
    ServingFigures figures;
    Composition profile;
    Composition serve;
    /// What the engine keeps in CPU RAM, by consumer (llama.cpp's CPU weights, cache and output
    /// buffer; vLLM's offloaded weights and LoRA adapter cache): the estimate's `host`.
    Composition host;
    std::vector<std::string> warnings; ///< what the engine's code does not size (the estimate's warnings)
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
/// vLLM's LoRA slots: values of one slot's A and B matrices in one layer on one tensor-parallel
/// rank (qkv_proj, o_proj, gate_up_proj, down_proj at `rank`).
std::uint64_t vllmLoraSlotElements(const ModelArch &m, std::uint64_t rank, std::uint64_t tensor);
/// vLLM's LoRA slots on the GPU (max_loras x a slot at max_lora_rank); the CPU cache of
/// max_cpu_loras adapters is added to `hostBytes`. Empty without enable_lora.
Term vllmLoraTerm(const EstimateContext &c, std::uint64_t &hostBytes);
/// --cpu-offload-gb: the weights' bytes vLLM keeps in CPU RAM (at most the weights).
std::uint64_t vllmCpuOffloadBytes(const EstimateContext &c, std::uint64_t weightsBytes);

/// What vLLM's speculative decoding adds (servingvllmspec.cpp); inactive without
/// serving.speculative.
struct VllmSpeculative
{
    bool active = false;
    Term weights;                     ///< the drafter's weights on this rank ("Model loading took")
    std::optional<Scenario> kvScenario; ///< the drafter's attention layers as a model (their KV groups)
    std::uint64_t kvLayers = 0;
    std::uint64_t drafterForward = 0; ///< the drafter's dummy_run over the profiled tokens
    std::uint64_t targetExtra = 0;    ///< EAGLE-3: auxiliary hidden states during the target's forward
    std::uint64_t buffers = 0;        ///< EagleProposer's persistent buffers
    std::uint64_t lookahead = 0;      ///< KV slots each running request holds beyond its tokens
    std::string drafterText;
    std::vector<std::string> notes;
};
/// The drafter of serving.speculative: weights, KV layers, profile run and lookahead.
VllmSpeculative vllmSpeculative(const EstimateContext &c, std::uint64_t batched, std::uint64_t maxSeqs);
/// The profile run's phases as vllmPhases sized them without a drafter.
struct SpeculativeProfileInputs
{
    std::uint64_t forward = 0;     ///< the target's forward over the profiled tokens
    std::uint64_t sampler = 0;     ///< the dummy sampler run's peak
    std::uint64_t hiddenBytes = 0; ///< hidden states alive during the sampler run
    std::uint64_t rows = 0;        ///< dummy requests
    std::uint64_t vocab = 0;
    std::uint64_t valueBytes = 2;  ///< the logits' dtype
    std::string forwardText;
};
/// Re-picks the profile's peak with the drafter's dummy_run, EAGLE-3's auxiliary hidden states
/// and the rejection sampler, and adds the proposer's buffers.
void vllmSpeculativeProfile(const VllmSpeculative &spec, const SpeculativeProfileInputs &in, Term &activation,
                            Term &samplerTerm, bool formulas);

/// TensorRT-LLM: free_gpu_memory_fraction x (total - the warm-up peak: weights, a max_num_tokens
/// forward, memory outside torch, CUDA graphs), in tokens_per_block blocks, capped by max_tokens.
EnginePhases trtllmPhases(const EstimateContext &c, const Gpu &gpu);
/// Whether TensorRT-LLM runs its PyTorch backend (the default from 1.0) rather than an engine.
bool trtllmPytorchBackend(const ServingConfig &cfg);
/// The batch sizes TensorRT-LLM captures CUDA graphs for (none on the TensorRT engine path).
std::vector<std::uint32_t> trtllmCudaGraphBatchSizes(const ServingConfig &cfg);
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
