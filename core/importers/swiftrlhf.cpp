// SPDX-License-Identifier: GPL-3.0-or-later
// ms-swift's `swift rlhf` arguments (swift/arguments/rlhf_args.py RLHFArguments and
// swift/rlhf_trainers/args_mixin.py @ 3602360a): which objective each rlhf_type trains and,
// for GRPO and PPO, the generation. ms-swift runs TRL's trainers (its GRPOTrainer subclasses
// TRL's and starts the colocated vLLM as TRL does, rollout_mixin.py _prepare_vllm_engine).
#include "importers/configreader.h"

namespace headroom::importers {

namespace {

/// GRPO (rlhf_args.py _init_grpo, args_mixin.py): num_generations 8, max_completion_length 512,
/// beta 0.04 when unset; `max_length` is the prompt's (Command-line-parameters.md: "In PPO,
/// GRPO, GKD and inference scenarios, max_length refers to max_prompt_length").
void readGrpo(ConfigReader &r, std::int64_t completion)
{
    r.set("train.objective", "grpo", "rlhf_type grpo");
    r.set("train.grpo.completion_length", completion,
          r.has("max_completion_length") ? "max_completion_length" : "max_completion_length absent: ms-swift's default 512");
    r.set("train.grpo.num_generations", r.count("num_generations", 1, 1 << 16).value_or(8),
          r.has("num_generations") ? "num_generations" : "num_generations absent: ms-swift's default 8");
    r.set("train.grpo.beta", r.number("beta", 0, 1000).value_or(0.04),
          r.has("beta") ? "beta" : "beta absent: ms-swift's GRPO default 0.04 (a reference model)");
    if (const auto steps = r.count("steps_per_generation", 1, 1'000'000))
        r.set("train.grpo.steps_per_generation", *steps, "steps_per_generation");
    if (r.has("generation_batch_size"))
        r.warn("generation_batch_size", "sets steps_per_generation through the GPU count; give steps_per_generation "
                                        "instead: gradient_accumulation_steps is used");
    for (const char *key : {"reward_model", "teacher_model"})
        if (r.has(key))
            r.fail(key, "a model beside the policy in GRPO (its weights and forward) is not modelled");
    const bool vllm = r.flag("use_vllm").value_or(false);
    std::string rollout = "hf_generate";
    if (vllm) {
        const auto mode = r.text("vllm_mode");
        if (!mode)
            r.fail("vllm_mode", "is required with use_vllm true (ms-swift refuses it): colocate or server");
        if (*mode != "colocate" && *mode != "server")
            r.fail("vllm_mode", "must be colocate or server (got " + quotedText(*mode) + ")");
        rollout = *mode == "colocate" ? "vllm_colocate" : "vllm_server";
    }
    r.set("train.grpo.rollout", rollout, vllm ? "use_vllm, vllm_mode" : "use_vllm absent or false (generate())");
    if (rollout == "vllm_colocate") {
        // VllmArguments: vllm_gpu_memory_utilization 0.9; sleep_level 1 or 2 releases the weights
        // and the KV pool from the GPU between generations (level 1 to CPU RAM).
        r.set("train.grpo.vllm_gpu_memory_utilization", r.number("vllm_gpu_memory_utilization", 0.001, 1).value_or(0.9),
              r.has("vllm_gpu_memory_utilization") ? "vllm_gpu_memory_utilization"
                                                   : "vllm_gpu_memory_utilization absent: ms-swift's default 0.9");
        r.set("train.grpo.vllm_sleep", r.count("sleep_level", 0, 2).value_or(0) > 0, "sleep_level (1 or 2: asleep while training)");
        if (const auto tp = r.count("vllm_tensor_parallel_size", 1, 1024))
            r.set("train.grpo.vllm_tensor_parallel", *tp, "vllm_tensor_parallel_size");
        if (const auto len = r.count("vllm_max_model_len", 1, 16 * 1024 * 1024))
            r.set("train.grpo.vllm_max_model_len", *len, "vllm_max_model_len");
        if (r.has("vllm_max_num_seqs"))
            r.warn("vllm_max_num_seqs", "is not modelled; max_num_seqs per_device_train_batch_size x "
                                        "vllm_tensor_parallel_size x steps_per_generation is counted (ms-swift's own default)");
        r.warn("max_num_batched_tokens", "ms-swift leaves vLLM's batched-token limit at vLLM's default; TRL's 4096 "
                                         "is counted for the engine's profile run (vLLM's default profiles more)");
        if (r.flag("vllm_enable_lora").value_or(false))
            r.warn("vllm_enable_lora", "vLLM's LoRA slots (max_lora_rank) are not counted in the engine");
    } else {
        r.noEffect({"sleep_level", "vllm_gpu_memory_utilization", "vllm_tensor_parallel_size", "vllm_max_model_len",
                    "vllm_server_host", "vllm_server_port", "vllm_server_base_url", "vllm_server_timeout",
                    "vllm_enable_lora"});
    }
    for (const char *key : {"offload_model", "offload_optimizer"})
        if (r.flag(key).value_or(false))
            r.warn(key, "moving it to CPU RAM while vLLM generates is not modelled: counted on the GPU, an upper bound");
    if (r.flag("async_generate").value_or(false))
        r.warn("async_generate", "generation overlapping the training step is not modelled");
    r.noEffect({"reward_funcs", "reward_weights", "num_iterations", "epsilon", "epsilon_high", "delta", "temperature",
                "top_k", "top_p", "min_p", "repetition_penalty", "stop_words", "log_completions", "external_plugins",
                "move_model_batches", "dynamic_sample", "max_resample_times", "overlong_filter", "soft_max_length",
                "soft_cache_length", "scale_rewards", "importance_sampling_level", "vllm_enable_prefix_caching",
                "num_infer_workers", "columns", "enable_thinking", "multi_turn_scheduler", "max_turns",
                "vllm_limit_mm_per_prompt", "vllm_enforce_eager", "tau_pos", "tau_neg"});
}

} // namespace

void readSwiftRlhf(ConfigReader &r, const std::string &model)
{
    const std::string type = r.text("rlhf_type").value_or("dpo");
    if (!r.has("rlhf_type"))
        r.defaulted("rlhf_type dpo (ms-swift's default)");
    // A separate reference model (ref_model other than the model) is not modelled; for a full
    // fine-tune ms-swift copies the model itself (rlhf_args.py: ref_model = ref_model or model).
    if (const auto ref = r.text("ref_model"); ref && *ref != model)
        r.fail("ref_model", "a separate reference model is not modelled (the policy's own frozen copy is)");
    if (const auto adapters = r.find("ref_adapters"); adapters && !adapters->empty())
        r.fail("ref_adapters", "a reference built from other adapters is not modelled");
    const std::int64_t completion = r.count("max_completion_length", 1, 16 * 1024 * 1024).value_or(512);
    if (type == "dpo") {
        r.set("train.objective", "dpo", "rlhf_type dpo (chosen and rejected in one batch, a frozen reference)");
    } else if (type == "orpo" || type == "simpo" || type == "cpo") {
        r.set("train.objective", "preference", "rlhf_type " + type + " (pairs, no reference model)");
    } else if (type == "kto") {
        r.set("train.objective", "kto", "rlhf_type kto (unpaired completions, a frozen reference)");
    } else if (type == "rm") {
        // rlhf_args.py _init_rm: task_type seq_cls, num_labels 1 (TRL's RewardTrainer).
        r.set("train.objective", "reward", "rlhf_type rm (a one-label sequence-classification head)");
    } else if (type == "grpo") {
        readGrpo(r, completion);
    } else if (type == "ppo") {
        if (r.text("tuner_type").value_or(r.text("train_type").value_or("lora")) != "full")
            r.fail(r.has("tuner_type") ? "tuner_type" : "train_type",
                   "PPO under LoRA is not modelled (TRL trains the value model in full beside the adapters)");
        r.set("train.objective", "ppo", "rlhf_type ppo (TRL's PPOTrainer: policy, reference, reward and value models)");
        r.set("train.ppo.response_length", r.count("response_length", 1, 16 * 1024 * 1024).value_or(completion),
              "max_completion_length (ms-swift's response_length)");
        r.set("train.ppo.rollout_batch", r.count("local_rollout_forward_batch_size", 1, 1 << 20).value_or(64),
              "local_rollout_forward_batch_size (default 64)");
        r.set("train.ppo.num_mini_batches", r.count("num_mini_batches", 1, 1 << 16).value_or(1), "num_mini_batches (default 1)");
        r.noEffect({"reward_model", "num_ppo_epochs", "whiten_rewards", "kl_coef", "cliprange", "vf_coef",
                    "cliprange_value", "gamma", "lam", "num_sample_generations", "missing_eos_penalty", "temperature"});
    } else if (type == "gkd") {
        r.fail("rlhf_type", "gkd (on-policy distillation: the student generates, a teacher scores) is not modelled");
    } else {
        r.fail("rlhf_type", "must be dpo, orpo, simpo, kto, cpo, rm, ppo, grpo or gkd (got " + quotedText(type) + ")");
    }
    // The sequence: a pair's or completion's max_length; GRPO and PPO generate after a prompt
    // of max_length.
    if (type == "grpo" || type == "ppo") {
        std::int64_t prompt = 512;
        if (const auto given = r.count("max_length", 1, 16 * 1024 * 1024))
            prompt = *given;
        else
            r.warn("max_length", "absent: the prompts are as long as the dataset's; estimated at 512 tokens (set "
                                 "train.seq_len to the longest prompt + max_completion_length)");
        r.set("train.seq_len", prompt + completion, "max_length (the prompt) + max_completion_length");
    }
    if (type != "grpo")
        r.noEffect({"beta"});
    r.noEffect({"label_smoothing", "rpo_alpha", "ld_alpha", "discopop_tau", "loss_type", "loss_weights",
                "cpo_alpha", "simpo_gamma", "desirable_weight", "undesirable_weight", "center_rewards_coefficient",
                "sft_alpha", "ref_model_type", "ref_model_revision", "max_new_tokens", "precompute_ref_log_probs"});
}

} // namespace headroom::importers
