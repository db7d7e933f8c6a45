// SPDX-License-Identifier: GPL-3.0-or-later
// Axolotl configs (examples/*/*.yml; schema src/axolotl/utils/schemas/config.py), as
// docs/frameworks.md describes.
#include "importers/configreader.h"

#include <algorithm>

namespace headroom::importers {

namespace {

bool optimizerName(const std::string &name, std::string &optimizer, std::string &impl)
{
    struct Row { const char *name; const char *optimizer; const char *impl; };
    static const Row rows[] = {
        {"adamw_torch", "adamw", "foreach"},      {"adamw_torch_fused", "adamw", "fused"},
        {"adamw_hf", "adamw", "fused"},           {"adamw_bnb_8bit", "adamw_8bit", ""},
        {"adamw_8bit", "adamw_8bit", ""},         {"adamw_torch_8bit", "adamw_8bit", ""},
        {"paged_adamw_8bit", "paged_adamw_8bit", ""}, {"paged_adamw_32bit", "paged_adamw", ""},
        {"adafactor", "adafactor", ""},           {"sgd", "sgd", ""},
        {"lion_pytorch", "lion", ""},             {"lion_8bit", "lion", ""},
    };
    for (const Row &row : rows)
        if (name == row.name) {
            optimizer = row.optimizer;
            impl = row.impl;
            return true;
        }
    return false;
}

} // namespace

void importAxolotl(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    r.set("framework", json{{"name", "axolotl"}}, "(Axolotl config)");
    if (const auto rl = r.text("rl")) {
        // Pairs (chosen and rejected in one batch): dpo and ipo against a frozen reference, orpo,
        // simpo and cpo without one; kto unpaired against one. Online RL (grpo, ...) is not modelled.
        if (*rl == "dpo" || *rl == "ipo")
            r.set("train.objective", "dpo", "rl " + *rl + " (a frozen reference; under LoRA the adapter-disabled base)");
        else if (*rl == "kto")
            r.set("train.objective", "kto", "rl kto (unpaired completions, a frozen reference)");
        else if (*rl == "orpo" || *rl == "simpo" || *rl == "cpo")
            r.set("train.objective", "preference", "rl " + *rl + " (reference-free)");
        else
            r.fail("rl", "post-training (" + quotedText(*rl) + ": unpaired or generated sequences, reward or value "
                         "models) is not modelled; rl dpo, ipo, kto, orpo, simpo and cpo are");
        r.noEffect({"kto_desirable_weight", "kto_undesirable_weight", "dpo_beta", "rl_beta", "orpo_alpha", "simpo_gamma", "cpo_alpha", "dpo_use_weighting",
                    "dpo_label_smoothing"});
        if (r.flag("precompute_ref_log_probs").value_or(false) && *rl != "orpo" && *rl != "simpo" && *rl != "cpo")
            r.warn("precompute_ref_log_probs", "precomputed reference log-probs are not modelled: the reference is counted");
    }
    if (r.flag("process_reward_model").value_or(false))
        r.fail("process_reward_model", "process reward models (a token-classification head, TRL PRMTrainer) are not "
                                       "modelled; reward_model (one score per sequence) is");
    if (r.flag("reward_model").value_or(false)) {
        // Axolotl's reward_model runs TRL's RewardTrainer on AutoModelForSequenceClassification.
        if (const auto labels = r.count("num_labels", 1, 1 << 20); labels && *labels != 1)
            r.fail("num_labels", "a reward model has one label (RewardTrainer); got " + std::to_string(*labels));
        r.set("train.objective", "reward", "reward_model (TRL RewardTrainer: chosen and rejected in one batch)");
        r.noEffect({"num_labels", "center_rewards_coefficient"});
    }
    if (r.has("qat"))
        r.fail("qat", "quantization-aware training (fake-quantized weights and activations) is not modelled");
    if (const auto base = r.text("base_model"))
        out.model = *base;
    const std::string adapter = r.text("adapter").value_or("");
    if (!adapter.empty() && adapter != "lora" && adapter != "qlora")
        r.fail("adapter", "must be lora or qlora (got " + quotedText(adapter) + ")");
    const bool four = r.flag("load_in_4bit").value_or(false);
    const bool eight = r.flag("load_in_8bit").value_or(false);
    if (adapter == "qlora" && !four)
        r.fail("load_in_4bit", "adapter qlora needs load_in_4bit: true");
    if (adapter.empty() && (four || eight))
        r.fail(four ? "load_in_4bit" : "load_in_8bit", "a quantized base needs adapter: lora or qlora");
    r.set("train.method", adapter.empty() ? "full" : four ? "qlora" : "lora", "adapter, load_in_4bit");

    std::string compute = "fp32";
    if (const json *bf16 = r.find("bf16")) {
        if ((bf16->is_boolean() && bf16->get<bool>()) || (bf16->is_string() && bf16->get<std::string>() == "auto")) {
            compute = "bf16";
            if (bf16->is_string())
                r.defaulted("bf16: auto -> bf16 (a GPU with bf16 support assumed)");
        }
    }
    if (compute == "fp32" && r.flag("fp16").value_or(false))
        compute = "fp16";
    r.set("precision.compute", compute, "bf16 / fp16");
    if (four) {
        r.set("precision.weights", "nf4", "load_in_4bit (Axolotl's qlora: nf4, double quantization)");
        r.set("precision.double_quant", true, "load_in_4bit");
    } else if (eight) {
        r.set("precision.weights", "int8", "load_in_8bit");
    } else {
        r.set("precision.weights", compute, "(loaded in the training dtype, cfg.torch_dtype)");
    }

    if (const auto seq = r.count("sequence_len", 1, 16 * 1024 * 1024))
        r.set("train.seq_len", *seq, "sequence_len");
    else
        r.set("train.seq_len", 512, "sequence_len absent: Axolotl's default 512");
    if (r.flag("sample_packing").value_or(false))
        out.mapped.push_back("sample_packing -> every micro-batch row is sequence_len tokens");
    else
        r.warn("sample_packing", "off: rows are padded to their batch's longest sample, up to sequence_len; the estimate takes the maximum");
    if (const auto micro = r.count("micro_batch_size", 1, 1 << 20))
        r.set("train.micro_batch", *micro, "micro_batch_size");
    if (const auto accum = r.count("gradient_accumulation_steps", 1, 1'000'000))
        r.set("train.grad_accum", *accum, "gradient_accumulation_steps");

    if (!adapter.empty()) {
        if (const auto rank = r.count("lora_r", 1, 65536))
            r.set("train.lora.rank", *rank, "lora_r");
        if (const auto dropout = r.number("lora_dropout", 0, 0.999))
            r.set("train.lora.dropout", *dropout, "lora_dropout");
        std::vector<std::string> targets;
        if (r.flag("lora_target_linear").value_or(false))
            targets = {"q", "k", "v", "o", "gate", "up", "down"};
        const json *modulesNode = r.find("lora_target_modules");
        if (modulesNode && modulesNode->is_string()) {
            // PEFT takes a string as a regular expression matched against whole module names.
            const RegexTargets selected = regexLoraTargets(modulesNode->get<std::string>());
            if (!selected.error.empty())
                r.fail("lora_target_modules", selected.error);
            if (selected.targets.empty())
                r.fail("lora_target_modules", "the pattern matches none of a decoder layer's linear modules "
                                              "(model.layers.N.self_attn.q_proj, ...)");
            for (const std::string &t : selected.targets)
                if (std::find(targets.begin(), targets.end(), t) == targets.end())
                    targets.push_back(t);
            if (selected.someLayers)
                r.warn("lora_target_modules", "the pattern selects only some layers; the adapter is counted on every layer (an upper bound)");
            out.mapped.push_back("lora_target_modules (a pattern, matched as PEFT does against model.layers.N.* names)");
        } else if (const auto modules = r.strings("lora_target_modules"))
            for (const std::string &module : *modules) {
                if (module.find("shared_expert") != std::string::npos) {
                    r.warn("lora_target_modules", "LoRA on the shared expert (" + quotedText(module) +
                                                      ") is not modelled; left out (one expert's small adapter)");
                    continue;
                }
                const auto mapped = loraTargetsFor(module);
                if (mapped.empty())
                    r.warn("lora_target_modules", "module " + quotedText(module) + " is not one the estimator knows; left out");
                for (const std::string &t : mapped)
                    if (std::find(targets.begin(), targets.end(), t) == targets.end())
                        targets.push_back(t);
            }
        if (!targets.empty())
            r.set("train.lora.targets", targets, "lora_target_linear / lora_target_modules");
        if (r.has("lora_modules_to_save"))
            r.warn("lora_modules_to_save", "fully trained copies (their gradients and optimizer state) are not modelled");
        r.noEffect({"lora_alpha", "lora_fan_in_fan_out", "lora_model_dir", "peft_use_rslora"});
        if (r.flag("peft_use_dora").value_or(false))
            r.warn("peft_use_dora", "DoRA is estimated as LoRA");
    }

    if (const json *gc = r.find("gradient_checkpointing")) {
        const std::string mode = gc->is_string() ? gc->get<std::string>() : (gc->is_boolean() && gc->get<bool>() ? "true" : "false");
        if (mode == "offload" || mode == "unsloth" || mode == "offload_disk") {
            r.set("train.gradient_checkpointing", "full", "gradient_checkpointing " + mode);
            r.set("train.offload_activations", true, "gradient_checkpointing " + mode + " (block inputs to CPU)");
            if (mode == "offload_disk")
                r.warn("gradient_checkpointing", "offload_disk is modelled as offload to CPU RAM");
        } else {
            r.set("train.gradient_checkpointing", mode == "true" ? "full" : "none", "gradient_checkpointing");
        }
    }
    if (const json *ao = r.find("activation_offloading")) {
        const bool on = (ao->is_boolean() && ao->get<bool>()) || ao->is_string();
        r.set("train.offload_activations", on, "activation_offloading");
        if (ao->is_string() && ao->get<std::string>() == "disk")
            r.warn("activation_offloading", "disk offloading is modelled as offload to CPU RAM");
    }
    if (const auto impl = r.text("attn_implementation")) {
        // Transformers' attn_implementation as Axolotl passes it (flash_attention_2, sdpa, eager,
        // flex_attention, a kernels-community flash kernel, xformers).
        std::string kind;
        if (*impl == "eager")
            kind = "eager";
        else if (*impl == "sdpa")
            kind = "sdpa";
        else if (impl->find("flash") != std::string::npos || *impl == "flex_attention" || *impl == "xformers")
            kind = "flash";
        if (kind.empty())
            r.fail("attn_implementation", "is not an attention Headroom knows (eager, sdpa, flash_attention_2, "
                                          "flex_attention, xformers; got " + quotedText(*impl) + ")");
        r.set("kernels.attention", kind, "attn_implementation " + quoteText(*impl) +
                                             (kind == "eager" ? " (materialises the scores)" : ""));
    } else if (r.flag("flash_attention").value_or(false) || r.flag("xformers_attention").value_or(false))
        r.set("kernels.attention", "flash", r.has("flash_attention") ? "flash_attention" : "xformers_attention");
    else if (r.flag("eager_attention").value_or(false))
        r.set("kernels.attention", "eager", "eager_attention");
    else if (r.flag("sdp_attention").value_or(false) || r.flag("flex_attention").value_or(false))
        r.set("kernels.attention", "sdpa", "sdp_attention / flex_attention");

    std::vector<std::string> plugins = r.strings("plugins").value_or(std::vector<std::string>{});
    auto plugin = [&](std::string_view name) {
        return std::any_of(plugins.begin(), plugins.end(), [&](const std::string &p) { return p.find(name) != std::string::npos; });
    };
    if (plugin("liger") && (r.flag("liger_rms_norm").value_or(false) || r.flag("liger_glu_activation").value_or(false)))
        r.set("kernels.profile", "fused", "LigerPlugin liger_rms_norm / liger_glu_activation");
    if ((plugin("liger") && r.flag("liger_fused_linear_cross_entropy").value_or(false)) ||
        (plugin("cut_cross_entropy") && r.flag("cut_cross_entropy").value_or(true)))
        r.set("kernels.loss", "fused", plugin("cut_cross_entropy") ? "CutCrossEntropyPlugin" : "liger_fused_linear_cross_entropy");
    else if (r.flag("chunked_cross_entropy").value_or(false))
        r.set("kernels.loss", "chunked", "chunked_cross_entropy");
    r.noEffect({"liger_rope", "liger_layer_norm", "liger_cross_entropy", "cut_cross_entropy",
                "chunked_cross_entropy_num_chunks"});

    if (const auto optimizer = r.text("optimizer")) {
        std::string name, impl;
        if (!optimizerName(*optimizer, name, impl)) {
            r.warn("optimizer", quotedText(*optimizer) + " is not modelled; AdamW assumed");
            name = "adamw";
        }
        r.set("train.optimizer", name, "optimizer");
        if (!impl.empty())
            r.set("train.optimizer_impl", impl, "optimizer");
    } else {
        r.set("train.optimizer_impl", "fused", "optimizer absent: Axolotl's default adamw_torch_fused");
    }
    if (const auto compile = r.flag("torch_compile"))
        r.set("train.compile", *compile, "torch_compile");
    if (const json *deepspeed = r.find("deepspeed")) {
        if (deepspeed->is_string())
            out.references.push_back({"deepspeed", deepspeed->get<std::string>()});
        else if (deepspeed->is_object())
            importDeepspeed(*deepspeed, out, &r, "deepspeed.");
        else
            r.fail("deepspeed", "must be the path of a DeepSpeed JSON");
    }
    if (const json *fsdp = r.find("fsdp_config"); fsdp && fsdp->is_object()) {
        r.set("parallel.strategy", "fsdp", "fsdp_config");
        const bool v2 = r.count("fsdp_config.fsdp_version", 1, 2).value_or(1) == 2 ||
                        r.count("fsdp_config.version", 1, 2).value_or(1) == 2 ||
                        r.count("fsdp_version", 1, 2).value_or(1) == 2;
        r.set("parallel.flat_params", !v2 && !adapter.empty(), "fsdp_config (FSDP1 with use_orig_params for LoRA)");
        if (r.flag("fsdp_config.offload_params").value_or(false) ||
            r.flag("fsdp_config.fsdp_offload_params").value_or(false)) {
            r.set("parallel.offload_params", true, "fsdp_config.offload_params");
            r.set("parallel.offload_optimizer", true, "fsdp_config.offload_params");
        }
        if (r.flag("fsdp_config.activation_checkpointing").value_or(false) ||
            r.flag("fsdp_config.fsdp_activation_checkpointing").value_or(false))
            r.set("train.gradient_checkpointing", "full", "fsdp_config.activation_checkpointing");
        if (r.flag("fsdp_config.reshard_after_forward") == false)
            r.set("parallel.strategy", "zero2", "fsdp_config.reshard_after_forward false (gathered parameters kept until backward)");
    }
    // N-D parallelism (tensor_parallel_size, context_parallel_size, dp_shard_size,
    // dp_replicate_size): the world size is their product when the data-parallel sizes are given.
    const std::int64_t tp = r.count("tensor_parallel_size", 1, 65536).value_or(1);
    const std::int64_t cp = r.count("context_parallel_size", 1, 65536).value_or(1);
    if (tp > 1)
        r.set("parallel.tensor", tp, "tensor_parallel_size");
    if (cp > 1)
        r.set("parallel.context", cp, "context_parallel_size");
    if (const auto ep = r.count("expert_parallel_size", 1, 65536); ep && *ep > 1)
        r.set("parallel.expert", *ep, "expert_parallel_size");
    if (const auto shard = r.count("dp_shard_size", 1, 65536)) {
        const std::int64_t replicate = r.count("dp_replicate_size", 1, 65536).value_or(1);
        r.set("parallel.gpus", *shard * replicate * tp * cp,
              "dp_shard_size x dp_replicate_size x tensor_parallel_size x context_parallel_size");
        if (replicate > 1)
            r.warn("dp_replicate_size", "hybrid sharding (replicas of shard groups) is modelled as sharding over every data-parallel rank");
        if (!out.scenario.contains("parallel") || !out.scenario["parallel"].contains("strategy"))
            r.set("parallel.strategy", "fsdp", "dp_shard_size");
    } else if ((tp > 1 || cp > 1) && (!out.scenario.contains("parallel") || !out.scenario["parallel"].contains("strategy"))) {
        // Tensor or context parallelism without FSDP or DeepSpeed: data-parallel replicas over
        // the launcher's GPUs, a count the file does not state (asked for, never taken as 1).
        r.set("parallel.strategy", "ddp", tp > 1 ? "tensor_parallel_size without dp_shard_size (the launcher's GPUs)"
                                                 : "context_parallel_size without dp_shard_size (the launcher's GPUs)");
    }
    r.noEffect({"fsdp_version", "fsdp_config.fsdp_version", "fsdp_config.version",
                "fsdp_config.auto_wrap_policy", "fsdp_config.transformer_layer_cls_to_wrap", "fsdp_config.state_dict_type",
                "fsdp_config.cpu_ram_efficient_loading", "fsdp_config.fsdp_state_dict_type",
                "fsdp_config.fsdp_auto_wrap_policy", "fsdp_config.fsdp_transformer_layer_cls_to_wrap",
                "fsdp_config.fsdp_cpu_ram_efficient_loading", "fsdp_config.fsdp_sync_module_states",
                "fsdp_config.fsdp_use_orig_params", "fsdp_config.sync_module_states", "fsdp_config.use_orig_params",
                "model_type", "tokenizer_type", "base_model_config", "strict", "datasets", "dataset_prepared_path",
                "val_set_size", "output_dir", "wandb_project", "wandb_entity", "wandb_watch", "wandb_name",
                "wandb_log_model", "num_epochs", "lr_scheduler", "learning_rate", "tf32", "resume_from_checkpoint",
                "logging_steps", "warmup_steps", "warmup_ratio", "evals_per_epoch", "saves_per_epoch",
                "weight_decay", "special_tokens", "pad_to_sequence_len", "hub_model_id", "chat_template",
                "eval_sample_packing", "max_grad_norm", "early_stopping_patience", "local_rank", "xformers_attention",
                "flash_attn_cross_entropy", "flash_attn_rms_norm", "flash_attn_fuse_qkv", "flash_attn_fuse_mlp",
                "group_by_length", "train_on_inputs", "bf16", "fp16", "loss_watchdog_threshold",
                "loss_watchdog_patience", "save_first_step", "gradient_checkpointing_kwargs", "use_tensorboard",
                "trust_remote_code", "seed", "max_steps", "eval_steps", "save_steps", "debug", "fsdp"});
    r.finish();
}

} // namespace headroom::importers
