// SPDX-License-Identifier: GPL-3.0-or-later
// TRL trainer configs as TrlParser reads them (one YAML/JSON holding the trainer config class's
// fields, ModelConfig's and the script's): GRPOConfig (trl/trainer/grpo_config.py), DPOConfig
// (dpo_config.py), RewardConfig (reward_config.py), PPOConfig (trl/experimental/ppo/ppo_config.py)
// and SFTConfig (sft_config.py), on top of
// TrainingArguments (hfimport.cpp); ModelConfig (trl/trainer/model_config.py) for the PEFT and bitsandbytes fields. Defaults and
// names as in TRL f2cd577 (docs/training-configs.md).
#include "importers/configreader.h"

#include <algorithm>

namespace headroom::importers {

namespace {

enum class TrlKind { Sft, Dpo, Grpo, Reward, Ppo, Kto };

TrlKind trlKind(const json &tree)
{
    if (isTrlPpoConfig(tree))
        return TrlKind::Ppo;
    if (hasTrlKtoFields(tree))
        return TrlKind::Kto;
    if (tree.contains("center_rewards_coefficient"))
        return TrlKind::Reward;
    // loss_type is both trainers' key with disjoint values (grpo_config.py, dpo_config.py; a
    // list in DPOConfig combines losses).
    auto lossIs = [&](std::initializer_list<const char *> names) {
        if (!tree.contains("loss_type"))
            return false;
        const json &loss = tree["loss_type"];
        const json values = loss.is_array() ? loss : json::array({loss});
        for (const json &value : values)
            for (const char *name : names)
                if (value.is_string() && value.get<std::string>() == name)
                    return true;
        return false;
    };
    for (const char *key : {"num_generations", "use_vllm", "vllm_mode", "vllm_gpu_memory_utilization"})
        if (tree.contains(key))
            return TrlKind::Grpo;
    if (lossIs({"grpo", "bnpo", "dr_grpo", "dapo", "cispo", "sapo"}))
        return TrlKind::Grpo;
    // DPOConfig has max_completion_length too: its own fields say DPO before that key says GRPO.
    if (hasTrlDpoFields(tree))
        return TrlKind::Dpo;
    if (lossIs({"sigmoid", "hinge", "ipo", "exo_pair", "nca_pair", "robust", "bco_pair", "sppo_hard", "aot",
                "aot_pair", "apo_zero", "apo_down", "discopop", "sft"}))
        return TrlKind::Dpo;
    if (tree.contains("max_completion_length"))
        return TrlKind::Grpo;
    return tree.contains("beta") ? TrlKind::Dpo : TrlKind::Sft;
}

/// ModelConfig: use_peft, lora_r, lora_dropout, lora_target_modules, load_in_4bit/8bit.
void readModelConfig(ConfigReader &r, bool vllm)
{
    const bool peft = r.flag("use_peft").value_or(false);
    const bool four = r.flag("load_in_4bit").value_or(false);
    const bool eight = r.flag("load_in_8bit").value_or(false);
    if (four && eight)
        r.fail("load_in_4bit", "load_in_4bit and load_in_8bit cannot both be true");
    if ((four || eight) && !peft)
        r.fail(four ? "load_in_4bit" : "load_in_8bit",
               "a quantized base trains only with adapters (ModelConfig: \"Works only with LoRA\"): set use_peft true");
    if (eight && vllm)
        r.fail("load_in_8bit", "vLLM does not support in-flight 8-bit quantization (TRL refuses use_vllm with it)");
    if (four) {
        const std::string type = r.text("bnb_4bit_quant_type").value_or("nf4");
        if (type != "nf4" && type != "fp4")
            r.fail("bnb_4bit_quant_type", "must be nf4 or fp4 (got " + quotedText(type) + ")");
        r.set("train.method", "qlora", "use_peft, load_in_4bit");
        r.set("precision.weights", type, r.has("bnb_4bit_quant_type") ? "bnb_4bit_quant_type"
                                                                       : "load_in_4bit (ModelConfig's bnb_4bit_quant_type nf4)");
        r.set("precision.double_quant", r.flag("use_bnb_nested_quant").value_or(false), "use_bnb_nested_quant");
    } else if (eight) {
        r.set("train.method", "lora", "use_peft");
        r.set("precision.weights", "int8", "load_in_8bit");
    } else if (peft) {
        r.set("train.method", "lora", "use_peft");
    } else {
        r.set("train.method", "full", "use_peft absent or false: every weight trains");
    }
    if (!peft) {
        for (const char *key : {"lora_r", "lora_dropout", "lora_target_modules"})
            if (r.has(key))
                r.out().ignored.push_back(std::string(key) + " (use_peft is false: no adapter)");
        return;
    }
    if (const auto rank = r.count("lora_r", 1, 65536))
        r.set("train.lora.rank", *rank, "lora_r");
    else
        r.set("train.lora.rank", 16, "lora_r absent: ModelConfig's default 16");
    r.set("train.lora.dropout", r.number("lora_dropout", 0, 0.999).value_or(0.05),
          r.has("lora_dropout") ? "lora_dropout" : "lora_dropout absent: ModelConfig's default 0.05");
    if (const auto modules = r.strings("lora_target_modules")) {
        std::vector<std::string> targets;
        for (const std::string &name : *modules) {
            if (name == "all-linear") {
                targets = {"q", "k", "v", "o", "gate", "up", "down"};
                break;
            }
            const auto mapped = loraTargetsFor(name);
            if (mapped.empty())
                r.warn("lora_target_modules", "module " + quotedText(name) + " is not one the estimator knows; left out");
            for (const std::string &t : mapped)
                if (std::find(targets.begin(), targets.end(), t) == targets.end())
                    targets.push_back(t);
        }
        if (targets.empty())
            r.fail("lora_target_modules", "names no module the estimator knows (q_proj, k_proj, v_proj, o_proj, "
                                          "gate_proj, up_proj, down_proj, all-linear)");
        r.set("train.lora.targets", targets, "lora_target_modules");
    } else {
        r.set("train.lora.targets", std::vector<std::string>{"q", "v"},
              "lora_target_modules absent: PEFT's default for Llama- and Qwen-style models (q_proj, v_proj)");
    }
    if (r.has("lora_modules_to_save"))
        r.warn("lora_modules_to_save", "fully trained copies of these modules are not modelled");
    if (r.flag("use_dora").value_or(false))
        r.warn("use_dora", "DoRA's weight-norm computation per adapted layer is not modelled; estimated as LoRA");
    r.noEffect({"lora_alpha", "lora_task_type", "use_rslora", "lora_target_parameters"});
}

/// ds3_gather_for_generation (GRPOConfig, PPOConfig; default true): under ZeRO-3, generate()
/// runs with every parameter gathered, which the estimate counts.
void readDs3Gather(ConfigReader &r)
{
    if (!r.flag("ds3_gather_for_generation").value_or(true))
        r.warn("ds3_gather_for_generation", "false (ZeRO-3 generation on the shards, one layer gathered at a time) "
                                            "is not modelled: the whole model gathered for generate() is counted, "
                                            "an upper bound");
}

void readGrpo(ConfigReader &r, TrainImport &out)
{
    readDs3Gather(r);
    r.set("train.objective", "grpo", "num_generations, use_vllm (a TRL GRPOConfig)");
    const std::int64_t completion = r.count("max_completion_length", 1, 16 * 1024 * 1024).value_or(512);
    r.set("train.grpo.completion_length", completion,
          r.has("max_completion_length") ? "max_completion_length" : "max_completion_length absent: GRPOConfig's default 512");
    // max_prompt_length: GRPOConfig had it (default 512) until TRL removed it; without it the
    // prompts are as long as the dataset's.
    std::int64_t prompt = 512;
    if (const auto given = r.count("max_prompt_length", 1, 16 * 1024 * 1024)) {
        prompt = *given;
    } else {
        r.warn("max_prompt_length", "absent: the prompts are as long as the dataset's; estimated at 512 tokens "
                                    "(set train.seq_len to the longest prompt + max_completion_length)");
    }
    r.set("train.seq_len", prompt + completion, "max_prompt_length + max_completion_length");
    r.set("train.grpo.num_generations", r.count("num_generations", 1, 1 << 16).value_or(8),
          r.has("num_generations") ? "num_generations" : "num_generations absent: GRPOConfig's default 8");
    const double beta = r.number("beta", 0, 1000).value_or(0.0);
    r.set("train.grpo.beta", beta, r.has("beta") ? "beta" : "beta absent: GRPOConfig's default 0.0 (no reference model)");
    if (const auto steps = r.count("steps_per_generation", 1, 1'000'000))
        r.set("train.grpo.steps_per_generation", *steps, "steps_per_generation");
    if (r.has("generation_batch_size"))
        r.warn("generation_batch_size", "sets steps_per_generation through the GPU count; give steps_per_generation "
                                        "(train.grpo.steps_per_generation) instead: gradient_accumulation_steps is used");
    const bool vllm = r.flag("use_vllm").value_or(false);
    std::string rollout = "hf_generate";
    if (vllm) {
        const std::string mode = r.text("vllm_mode").value_or("colocate");
        if (mode != "colocate" && mode != "server")
            r.fail("vllm_mode", "must be colocate or server (got " + quotedText(mode) + ")");
        rollout = mode == "colocate" ? "vllm_colocate" : "vllm_server";
        if (!r.has("vllm_mode"))
            r.defaulted("train.grpo.rollout = vllm_colocate (vllm_mode's default in GRPOConfig at TRL f2cd577)");
    } else {
        for (const char *key : {"vllm_mode", "vllm_gpu_memory_utilization", "vllm_enable_sleep_mode",
                                "vllm_tensor_parallel_size", "vllm_max_model_length", "vllm_max_model_len"})
            if (r.has(key))
                out.ignored.push_back(std::string(key) + " (use_vllm is false: generate() in the trainer)");
    }
    r.set("train.grpo.rollout", rollout, vllm ? "use_vllm, vllm_mode" : "use_vllm absent or false (generate())");
    if (rollout == "vllm_colocate") {
        r.set("train.grpo.vllm_gpu_memory_utilization", r.number("vllm_gpu_memory_utilization", 0.001, 1).value_or(0.3),
              r.has("vllm_gpu_memory_utilization") ? "vllm_gpu_memory_utilization"
                                                   : "vllm_gpu_memory_utilization absent: GRPOConfig's default 0.3");
        r.set("train.grpo.vllm_sleep", r.flag("vllm_enable_sleep_mode").value_or(false), "vllm_enable_sleep_mode");
        if (const auto tp = r.count("vllm_tensor_parallel_size", 1, 1024))
            r.set("train.grpo.vllm_tensor_parallel", *tp, "vllm_tensor_parallel_size");
        const char *lenKey = r.has("vllm_max_model_length") ? "vllm_max_model_length" : "vllm_max_model_len";
        if (const auto len = r.count(lenKey, 1, 16 * 1024 * 1024))
            r.set("train.grpo.vllm_max_model_len", *len, lenKey);
    } else if (rollout == "vllm_server") {
        r.noEffect({"vllm_server_base_url", "vllm_server_host", "vllm_server_port", "vllm_server_timeout",
                    "vllm_group_port", "vllm_gpu_memory_utilization", "vllm_tensor_parallel_size"});
    }
    if (r.flag("cast_lm_head_to_fp32").value_or(false))
        r.warn("cast_lm_head_to_fp32", "an fp32 lm_head and fp32 logits are not modelled; counted in the compute dtype");
    if (r.flag("use_transformers_paged").value_or(false) || r.flag("use_transformers_continuous_batching").value_or(false))
        r.warn("use_transformers_continuous_batching", "transformers' paged generation cache is not modelled; "
                                                       "counted as generate()'s");
    r.noEffect({"num_iterations", "epsilon", "epsilon_high", "delta", "loss_type", "scale_rewards", "temperature",
                "top_p", "top_k", "min_p", "repetition_penalty", "reward_weights", "mask_truncated_completions",
                "log_completions", "num_completions_to_print", "sync_ref_model", "ref_model_mixup_alpha",
                "ref_model_sync_steps", "shuffle_dataset", "importance_sampling_level",
                "top_entropy_quantile", "vllm_importance_sampling_correction", "vllm_importance_sampling_cap",
                "generation_kwargs", "chat_template_kwargs", "num_generations_eval", "disable_dropout",
                "vllm_model_impl", "vllm_structured_outputs_regex", "wandb_log_unique_prompts",
                // open-r1's GRPOScriptArguments (its recipes are TrlParser files too)
                "reward_funcs", "dataset_prompt_column", "system_prompt", "chat_template", "code_language",
                "code_eval_test_batch_size", "code_provider", "parallel_code_exec_per_proc", "cosine_min_value_wrong",
                "cosine_max_value_wrong", "cosine_min_value_correct", "cosine_max_value_correct", "cosine_max_len",
                "repetition_n_grams", "repetition_max_penalty", "e2b_router_url", "morph_router_url",
                "enforce_same_language", "max_completion_len", "soft_punish_cache",
                "callbacks", "benchmarks", "hub_model_revision", "wandb_entity", "wandb_project", "wandb_run_group"});
}

void readDpo(ConfigReader &r)
{
    const bool referenceFree = r.flag("reference_free").value_or(false) || r.has("simpo_gamma") || r.has("cpo_alpha");
    r.set("train.objective", referenceFree ? "preference" : "dpo",
          referenceFree ? "reference_free / simpo_gamma / cpo_alpha (no reference model)"
                        : "beta with DPOConfig fields (a frozen reference; under PEFT the adapter-disabled base)");
    if (r.flag("precompute_ref_log_probs").value_or(false))
        r.warn("precompute_ref_log_probs", "precomputed reference log-probabilities are not modelled: the "
                                           "reference copy of a full fine-tune is counted");
    r.noEffect({"beta", "loss_type", "loss_weights", "label_smoothing", "rpo_alpha", "max_prompt_length",
                "max_completion_length", "truncation_mode", "sync_ref_model", "ref_model_mixup_alpha",
                "ref_model_sync_steps", "ref_model_init_kwargs", "precompute_ref_batch_size", "simpo_gamma",
                "cpo_alpha", "use_weighting", "ld_alpha", "f_divergence_type", "f_alpha_divergence_coef",
                "discopop_tau", "tools", "padding_value", "pad_token", "disable_dropout", "generate_during_eval"});
}

/// PPOConfig: PPOTrainer (trl/experimental/ppo/ppo_trainer.py) trains the policy and a value
/// model, with a frozen reference (the adapter-disabled policy under PEFT) and a frozen reward
/// model; generate() runs local_rollout_forward_batch_size queries at a time.
void readPpo(ConfigReader &r)
{
    readDs3Gather(r);
    r.set("train.objective", "ppo", "kl_coef, vf_coef, reward_model_path (a TRL PPOConfig)");
    const std::int64_t response = r.count("response_length", 1, 16 * 1024 * 1024).value_or(53);
    r.set("train.ppo.response_length", response,
          r.has("response_length") ? "response_length" : "response_length absent: PPOConfig's default 53");
    // The queries are the dataset's prompts, tokenized whole (examples/scripts/ppo/ppo.py:
    // padding=False, no truncation): PPOConfig has no query length.
    r.warn("response_length", "PPOConfig has no query length: the queries are as long as the dataset's prompts; "
                              "estimated at 512 query tokens (set train.seq_len to the longest query + "
                              "response_length)");
    r.set("train.seq_len", 512 + response, "512 query tokens (assumed) + response_length");
    r.set("train.ppo.rollout_batch", r.count("local_rollout_forward_batch_size", 1, 1 << 20).value_or(64),
          r.has("local_rollout_forward_batch_size") ? "local_rollout_forward_batch_size"
                                                    : "local_rollout_forward_batch_size absent: PPOConfig's default 64");
    r.set("train.ppo.num_mini_batches", r.count("num_mini_batches", 1, 1 << 16).value_or(1),
          r.has("num_mini_batches") ? "num_mini_batches" : "num_mini_batches absent: PPOConfig's default 1");
    r.noEffect({"num_ppo_epochs", "whiten_rewards", "kl_coef", "kl_estimator", "cliprange", "vf_coef",
                "cliprange_value", "gamma", "lam", "total_episodes", "num_sample_generations", "stop_token",
                "stop_token_id", "temperature", "missing_eos_penalty", "sft_model_path", "reward_model_path",
                "model_adapter_name", "ref_adapter_name", "dataset_num_proc",
                "world_size", "num_total_batches", "micro_batch_size", "local_batch_size", "batch_size",
                "local_mini_batch_size", "mini_batch_size", "exp_name"});
}

} // namespace

void importTrl(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    const TrlKind kind = trlKind(tree);
    TrlClass cls;
    cls.name = kind == TrlKind::Grpo     ? "GRPOConfig"
               : kind == TrlKind::Dpo    ? "DPOConfig"
               : kind == TrlKind::Reward ? "RewardConfig"
               : kind == TrlKind::Ppo    ? "PPOConfig"
               : kind == TrlKind::Kto    ? "KTOConfig"
                                         : "SFTConfig";
    cls.sequenceElsewhere = kind == TrlKind::Grpo || kind == TrlKind::Ppo;
    importTrainingArgs(tree, out, &r, &cls);
    const bool vllm = kind == TrlKind::Grpo && tree.contains("use_vllm") && tree["use_vllm"].is_boolean() &&
                      tree["use_vllm"].get<bool>();
    readModelConfig(r, vllm);
    switch (kind) {
    case TrlKind::Grpo: readGrpo(r, out); break;
    case TrlKind::Dpo: readDpo(r); break;
    case TrlKind::Reward:
        // RewardTrainer: AutoModelForSequenceClassification(num_labels=1); compute_loss runs the
        // chosen and rejected sequences as one batch (torch.chunk(logits, 2)).
        r.set("train.objective", "reward", "center_rewards_coefficient (a TRL RewardConfig)");
        r.noEffect({"center_rewards_coefficient", "disable_dropout", "pad_to_multiple_of"});
        break;
    case TrlKind::Ppo: readPpo(r); break;
    case TrlKind::Kto:
        // KTOTrainer (trl/experimental/kto): unpaired completions, each with its desirable label;
        // a KL batch of mismatched completions runs under no_grad; the reference as DPO's.
        r.set("train.objective", "kto", "desirable_weight / undesirable_weight (a TRL KTOConfig)");
        if (r.flag("precompute_ref_log_probs").value_or(false))
            r.warn("precompute_ref_log_probs", "precomputed reference log-probabilities are not modelled: the "
                                               "reference copy of a full fine-tune is counted");
        r.noEffect({"beta", "desirable_weight", "undesirable_weight", "loss_type", "max_prompt_length",
                    "max_completion_length", "disable_dropout"});
        break;
    case TrlKind::Sft: break;
    }
    // Liger's fused linear losses (LigerFusedLinearGRPOLoss, ...DPOLoss, the SFT cross-entropy)
    // never materialise the logits.
    if (r.flag("use_liger_loss").value_or(false))
        r.set("kernels.loss", "fused", "use_liger_loss");
    if (const auto model = r.text("model_name_or_path"))
        out.model = *model;
    if (const auto attn = r.text("attn_implementation")) {
        if (*attn == "eager")
            r.set("kernels.attention", "eager", "attn_implementation");
        else if (attn->find("flash") != std::string::npos)
            r.set("kernels.attention", "flash", "attn_implementation");
        else if (*attn == "sdpa")
            r.set("kernels.attention", "sdpa", "attn_implementation");
        else
            r.warn("attn_implementation", quotedText(*attn) + " is not modelled; sdpa assumed");
    }
    r.noEffect({"model_revision", "trust_remote_code", "dataset_name", "dataset_config", "dataset_train_split",
                "dataset_test_split", "dataset_streaming", "gradient_checkpointing_kwargs", "hub_strategy",
                "log_level", "logging_first_step", "model_init_kwargs", "dataset_kwargs",
                "eos_token", "env", "dataset_mixture", "datasets"});
    r.finish();
}

} // namespace headroom::importers
