// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: what a GRPO run's generation (the rollout) holds in the trainer's
// GPU. TRL's GRPOTrainer (trl/trainer/grpo_trainer.py, trl/generation/vllm_generation.py)
// generates with vLLM in the same process (vllm_mode colocate), with a vLLM server on other
// GPUs (vllm_mode server), or with the policy's own generate() (use_vllm false).

#include "estimate/estimatecontext.h"
#include "serving/servingfigures.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::detail {

struct RolloutTerms
{
    /// The colocated engine while it generates (weights copy, KV pool, CUDA graphs, non-torch).
    Term awake;
    /// What the engine keeps through the training step: all of it, or under sleep mode (level
    /// 2: weights and KV pool released) its CUDA graphs and non-torch memory.
    Term duringTraining;
    /// generate() in the trainer (no vLLM): the generation's KV cache and last-token logits.
    Term trainerCache;
    Term trainerLogits;
    /// generate() under DeepSpeed ZeRO-3: TRL's unwrap_model_for_generation gathers every
    /// parameter (ds3_gather_for_generation, default true) beside the shards while it generates.
    Term gathered;
    /// The colocated engine's start-up figures on the target GPU.
    std::optional<ServingFigures> figures;
    /// What vLLM's start-up check needs free: total x vllm_gpu_memory_utilization.
    std::uint64_t requestedBytes = 0;
    std::uint64_t deviceTotalBytes = 0;
    std::vector<std::string> warnings;
    std::vector<std::string> assumptions;
};

/// Sequences one rank generates per generation round: micro_batch x steps_per_generation
/// (TRL GRPOConfig.__post_init__: steps_per_generation defaults to gradient_accumulation_steps).
std::uint64_t rolloutSequences(const Scenario &s);

/// The scenario vLLM is started with in a colocated GRPO run (task inference, vLLM serving):
/// TRL's VLLMGeneration._init_vllm arguments.
Scenario colocatedVllmScenario(const Scenario &s, const std::string &gpuId);

/// The scenario of a GRPO run's vLLM server (vllm_mode server) on one GPU like `gpuId`:
/// `trl vllm-serve`'s defaults, serving the round's completions from every trainer rank.
Scenario serverVllmScenario(const Scenario &s, const std::string &gpuId);

/// The rollout's terms for a training scenario with objective grpo (empty terms otherwise).
RolloutTerms rolloutTerms(const EstimateContext &c);

} // namespace headroom::detail
