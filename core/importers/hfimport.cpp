// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face TrainingArguments (and TRL's SFTConfig) as JSON, PEFT's adapter_config.json and
// BitsAndBytesConfig fields; defaults from transformers' training_args.py, peft's LoraConfig and
// utils/quantization_config.py (docs/frameworks.md).
#include "importers/configreader.h"

#include <algorithm>

namespace headroom::importers {

namespace {

/// TrainingArguments.optim -> scenario optimizer and step implementation.
bool optimName(const std::string &optim, std::string &optimizer, std::string &impl)
{
    struct Row { const char *name; const char *optimizer; const char *impl; };
    static const Row rows[] = {
        {"adamw_torch", "adamw", "foreach"},       {"adamw_torch_fused", "adamw", "fused"},
        {"adamw_hf", "adamw", "fused"},            {"adamw_apex_fused", "adamw", "fused"},
        {"adafactor", "adafactor", ""},            {"adamw_bnb_8bit", "adamw_8bit", ""},
        {"adamw_8bit", "adamw_8bit", ""},          {"paged_adamw_8bit", "paged_adamw_8bit", ""},
        {"paged_adamw_32bit", "paged_adamw", ""},  {"paged_adamw", "paged_adamw", ""},
        {"adamw_torch_8bit", "adamw_8bit", ""},    {"sgd", "sgd", ""},
        {"lion_32bit", "lion", ""},                {"lion_8bit", "lion", ""},
        {"adamw_anyprecision", "adamw", "foreach"},
        {"adamw_torch_4bit", "adamw_4bit", ""},
    };
    for (const Row &row : rows)
        if (optim == row.name) {
            optimizer = row.optimizer;
            impl = row.impl;
            return true;
        }
    return false;
}

} // namespace

bool trainingArgsOptim(const std::string &optim, std::string &optimizer, std::string &impl)
{
    return optimName(optim, optimizer, impl);
}

void importBitsAndBytes(const json &tree, TrainImport &out, ConfigReader *within, const std::string &prefix)
{
    ConfigReader own(tree, out);
    ConfigReader &r = within ? *within : own;
    auto key = [&](const char *name) { return prefix + name; };
    const bool four = r.flag(key("load_in_4bit")).value_or(false);
    const bool eight = r.flag(key("load_in_8bit")).value_or(false);
    if (four && eight)
        r.fail(key("load_in_4bit"), "load_in_4bit and load_in_8bit cannot both be true");
    if (four) {
        const std::string type = r.text(key("bnb_4bit_quant_type")).value_or("fp4");
        if (type != "nf4" && type != "fp4")
            r.fail(key("bnb_4bit_quant_type"), "must be nf4 or fp4 (got " + quotedText(type) + ")");
        if (!r.has(key("bnb_4bit_quant_type")))
            r.defaulted("precision.weights = fp4 (BitsAndBytesConfig bnb_4bit_quant_type defaults to \"fp4\")");
        r.set("precision.weights", type, key("load_in_4bit, bnb_4bit_quant_type"));
        const bool dq = r.flag(key("bnb_4bit_use_double_quant")).value_or(false);
        r.set("precision.double_quant", dq, key("bnb_4bit_use_double_quant"));
        if (const auto compute = r.text(key("bnb_4bit_compute_dtype"))) {
            const std::string name = dtypeName(*compute);
            if (name.empty())
                r.fail(key("bnb_4bit_compute_dtype"), "must be float32, bfloat16 or float16 (got " + quotedText(*compute) + ")");
            if (name == "fp32")
                r.warn(key("bnb_4bit_compute_dtype"), "fp32 dequantises each weight to 4 B on use; the transient is counted at 2 B");
        } else {
            r.warn(key("bnb_4bit_compute_dtype"), "absent: bitsandbytes dequantises to float32 (4 B per weight, transient); counted at 2 B");
        }
        if (const auto storage = r.text(key("bnb_4bit_quant_storage")); storage && dtypeName(*storage).empty() && *storage != "uint8")
            r.fail(key("bnb_4bit_quant_storage"), "must be uint8 or a float dtype");
    } else if (eight) {
        r.set("precision.weights", "int8", key("load_in_8bit"));
        if (r.flag(key("llm_int8_has_fp16_weight")).value_or(false))
            r.warn(key("llm_int8_has_fp16_weight"), "keeps an fp16 copy of every int8 weight; not modelled");
    }
    if (r.has(key("llm_int8_skip_modules")))
        r.warn(key("llm_int8_skip_modules"), "modules kept unquantized besides lm_head are not modelled");
    r.noEffect({key("quant_method"), key("llm_int8_threshold"), key("llm_int8_enable_fp32_cpu_offload"),
                key("bnb_4bit_quant_storage"), key("_load_in_4bit"), key("_load_in_8bit")});
    if (!within)
        r.finish();
}

void importPeftAdapter(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    const std::string type = r.text("peft_type").value_or("LORA");
    if (type != "LORA")
        r.fail("peft_type", "only LORA adapters are modelled (got " + quotedText(type) + ")");
    r.set("train.method", "lora", "peft_type LORA");
    if (const auto rank = r.count("r", 1, 65536))
        r.set("train.lora.rank", *rank, "r");
    else
        r.defaulted("train.lora.rank = 8 (LoraConfig r)");
    if (const auto dropout = r.number("lora_dropout", 0, 0.999))
        r.set("train.lora.dropout", *dropout, "lora_dropout");
    else
        r.defaulted("train.lora.dropout = 0.0 (LoraConfig lora_dropout)");
    if (const json *modules = r.find("target_modules")) {
        std::vector<std::string> targets;
        auto add = [&](const std::string &name) {
            if (name == "all-linear") {
                targets = {"q", "k", "v", "o", "gate", "up", "down"};
                return;
            }
            const auto mapped = loraTargetsFor(name);
            if (mapped.empty())
                r.warn("target_modules", "module " + quotedText(name) + " is not one the estimator knows; left out");
            for (const std::string &t : mapped)
                if (std::find(targets.begin(), targets.end(), t) == targets.end())
                    targets.push_back(t);
        };
        if (modules->is_string())
            add(modules->get<std::string>());
        else if (modules->is_array())
            for (const json &item : *modules)
                if (item.is_string())
                    add(item.get<std::string>());
        if (targets.empty())
            r.fail("target_modules", "names no module the estimator knows (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, ...)");
        r.set("train.lora.targets", targets, "target_modules");
    } else {
        r.defaulted("train.lora.targets = q, v (target_modules null: PEFT's default for Llama-style models)");
    }
    if (r.has("modules_to_save"))
        r.warn("modules_to_save", "fully trained copies of these modules (their gradients and optimizer state) are not modelled");
    if (r.flag("use_dora").value_or(false))
        r.warn("use_dora", "DoRA's weight-norm computation per adapted layer is not modelled; estimated as LoRA");
    if (const auto bias = r.text("bias"); bias && *bias != "none")
        r.warn("bias", "trainable biases are not modelled (a few parameters per layer)");
    if (r.has("layers_to_transform"))
        r.warn("layers_to_transform", "LoRA on a subset of layers is not modelled; every layer is counted");
    if (const json *pattern = r.find("rank_pattern"); pattern && !pattern->empty())
        r.warn("rank_pattern", "per-module ranks are not modelled; r is used everywhere");
    r.noEffect({"lora_alpha", "alpha_pattern", "auto_mapping", "base_model_name_or_path", "revision",
                "fan_in_fan_out", "inference_mode", "init_lora_weights", "layers_pattern", "layer_replication",
                "loftq_config", "megatron_config", "megatron_core", "task_type", "use_rslora", "lora_bias",
                "eva_config", "corda_config", "exclude_modules", "trainable_token_indices", "target_parameters",
                "use_qalora", "qalora_group_size"});
    if (const auto base = tree.find("base_model_name_or_path"); base != tree.end() && base->is_string())
        out.model = base->get<std::string>();
    r.finish();
}

void importTrainingArgs(const json &tree, TrainImport &out, ConfigReader *within, const TrlClass *trl)
{
    ConfigReader own(tree, out);
    ConfigReader &r = within ? *within : own;
    r.set("framework", json{{"name", "hf_transformers"}}, "(TrainingArguments)");
    if (const auto batch = r.count("per_device_train_batch_size", 1, 1 << 20))
        r.set("train.micro_batch", *batch, "per_device_train_batch_size");
    else
        r.set("train.micro_batch", 8, "per_device_train_batch_size absent: TrainingArguments' default 8");
    if (const auto accum = r.count("gradient_accumulation_steps", 1, 1'000'000))
        r.set("train.grad_accum", *accum, "gradient_accumulation_steps");
    if (const auto ckpt = r.flag("gradient_checkpointing"))
        r.set("train.gradient_checkpointing", *ckpt ? "full" : "none", "gradient_checkpointing");
    else if (trl)
        r.set("train.gradient_checkpointing", "full",
              std::string("gradient_checkpointing absent: ") + trl->name + "'s default True");
    if (r.flag("gradient_checkpointing_kwargs.use_reentrant").value_or(false))
        r.warn("gradient_checkpointing_kwargs.use_reentrant", "reentrant checkpointing needs enable_input_require_grads with LoRA; memory as non-reentrant");
    const bool fp16 = r.flag("fp16").value_or(false);
    // TRL's configs default bf16 to True when fp16 is not set (trl/trainer/*_config.py).
    const bool bf16 = r.flag("bf16").value_or(trl && !fp16);
    if (bf16 && fp16)
        r.fail("bf16", "bf16 and fp16 cannot both be true");
    const std::string compute = bf16 ? "bf16" : fp16 ? "fp16" : "fp32";
    r.set("precision.compute", compute,
          bf16 ? (trl && !tree.contains("bf16") ? std::string("bf16 absent: ") + trl->name + "'s default True"
                                                : std::string("bf16"))
               : fp16 ? "fp16" : "bf16 and fp16 false (fp32 training)");
    // The load dtype is from_pretrained's torch_dtype (TRL's ModelConfig has it as a field,
    // `dtype` in recent releases).
    const char *dtypeKey = !tree.contains("torch_dtype") && tree.contains("dtype") ? "dtype" : "torch_dtype";
    if (const auto dtype = r.text(dtypeKey)) {
        const std::string name = dtypeName(*dtype);
        if (name.empty() && *dtype != "auto")
            r.fail(dtypeKey, "must be auto, bfloat16, float16 or float32 (got " + quotedText(*dtype) + ")");
        r.set("precision.weights", name.empty() ? compute : name, dtypeKey);
    } else if (trl) {
        // TrlParser fills ModelConfig: its dtype defaults to "float32" from TRL 0.27 (#4778), and
        // was None before, from_pretrained's float32 under transformers 4; the scripts pass it to
        // from_pretrained, so bf16/fp16 train under autocast over fp32 weights.
        r.set("precision.weights", "fp32",
              "dtype absent: ModelConfig's default float32 (TRL 0.27 on; before it from_pretrained's float32)");
    } else {
        r.set("precision.weights", compute, "(model loaded in the training dtype)");
        r.warn("torch_dtype", "not a TrainingArguments field: the weights are assumed loaded in " + compute +
                                  " (from_pretrained(torch_dtype=...)); with fp32 weights and bf16/fp16 set, "
                                  "training is autocast: set precision.weights fp32");
    }
    if (const auto optim = r.text("optim")) {
        std::string optimizer, impl;
        if (!optimName(*optim, optimizer, impl)) {
            r.warn("optim", quotedText(*optim) + " is not modelled; AdamW assumed");
            optimizer = "adamw";
        }
        r.set("train.optimizer", optimizer, "optim");
        if (!impl.empty())
            r.set("train.optimizer_impl", impl, "optim");
    } else {
        r.defaulted("train.optimizer = adamw (optim adamw_torch, TrainingArguments' default)");
    }
    // Liger's kernels (TrainingArguments.use_liger_kernel): the fused linear cross-entropy
    // (and TRL's fused GRPO/DPO losses) never materialise the logits.
    if (r.flag("use_liger_kernel").value_or(false))
        r.set("kernels.loss", "fused", "use_liger_kernel");
    if (const auto compile = r.flag("torch_compile"))
        r.set("train.compile", *compile, "torch_compile");
    // TRL's SFTConfig: the sequence length of a batch.
    if (trl && trl->sequenceElsewhere) {
        // GRPO: the prompt and completion lengths (the TRL reader).
    } else if (const auto seq = r.count("max_length", 1, 16 * 1024 * 1024)) {
        r.set("train.seq_len", *seq, std::string("max_length (TRL ") + (trl ? trl->name : "SFTConfig") + ")");
    } else if (const auto legacy = r.count("max_seq_length", 1, 16 * 1024 * 1024)) {
        r.set("train.seq_len", *legacy, "max_seq_length (TRL SFTConfig before 0.19)");
    } else if (trl) {
        r.set("train.seq_len", 1024, std::string("max_length absent: ") + trl->name + "'s default 1024");
    } else {
        r.warn("max_length", "no sequence length in TrainingArguments: set train.seq_len (the scenario's default applies)");
    }
    if (r.flag("packing").value_or(false))
        r.out().mapped.push_back("packing -> every sequence is max_length long");
    if (const json *quant = r.find("quantization_config"); quant && quant->is_object())
        importBitsAndBytes(*quant, out, &r, "quantization_config.");
    if (const json *deepspeed = r.find("deepspeed")) {
        if (deepspeed->is_object())
            importDeepspeed(*deepspeed, out, &r, "deepspeed.");
        else
            r.warn("deepspeed", "a path: give the DeepSpeed JSON as another --train-config");
    }
    if (const json *fsdp = r.find("fsdp"); fsdp && !(fsdp->is_string() && fsdp->get<std::string>().empty()) &&
                                           !(fsdp->is_boolean() && !fsdp->get<bool>())) {
        std::string options = fsdp->is_string() ? fsdp->get<std::string>() : fsdp->dump();
        if (options.find("shard_grad_op") != std::string::npos)
            r.set("parallel.strategy", "zero2", "fsdp shard_grad_op");
        else if (options.find("no_shard") != std::string::npos)
            r.set("parallel.strategy", "ddp", "fsdp no_shard");
        else
            r.set("parallel.strategy", "fsdp", "fsdp");
        if (options.find("offload") != std::string::npos) {
            r.set("parallel.offload_params", true, "fsdp offload");
            r.set("parallel.offload_optimizer", true, "fsdp offload");
        }
        if (options.find("hybrid_shard") != std::string::npos)
            r.warn("fsdp", "hybrid_shard shards within a node only; modelled as full sharding");
        r.warn("fsdp", "the number of GPUs comes from the launcher; set parallel.gpus");
    }
    if (const json *fsdpConfig = r.find("fsdp_config"); fsdpConfig && fsdpConfig->is_object()) {
        if (r.flag("fsdp_config.activation_checkpointing").value_or(false))
            r.set("train.gradient_checkpointing", "full", "fsdp_config.activation_checkpointing");
        const bool v2 = r.count("fsdp_config.fsdp_version", 1, 2).value_or(1) == 2;
        r.set("parallel.flat_params", !v2 && r.flag("fsdp_config.use_orig_params").value_or(true),
              "fsdp_config.fsdp_version, use_orig_params");
    }
    r.noEffect({"output_dir", "overwrite_output_dir", "num_train_epochs", "max_steps", "learning_rate",
                "lr_scheduler_type", "warmup_ratio", "warmup_steps", "weight_decay", "adam_beta1", "adam_beta2",
                "adam_epsilon", "max_grad_norm", "logging_steps", "logging_dir", "logging_strategy", "save_strategy",
                "save_steps", "save_total_limit", "eval_strategy", "evaluation_strategy", "eval_steps",
                "report_to", "run_name", "seed", "data_seed", "tf32", "group_by_length", "push_to_hub",
                "hub_model_id", "dataloader_num_workers", "dataloader_pin_memory", "remove_unused_columns",
                "label_names", "load_best_model_at_end", "metric_for_best_model", "do_train", "do_eval",
                "per_device_eval_batch_size", "ddp_find_unused_parameters", "dataset_text_field",
                "completion_only_loss", "assistant_only_loss", "neftune_noise_alpha", "bf16_full_eval",
                "fp16_full_eval", "disable_tqdm", "optim_args", "lr_scheduler_kwargs", "save_only_model",
                "include_num_input_tokens_seen", "dataset_num_proc", "torch_compile_backend", "torch_compile_mode"});
    if (!within)
        r.finish();
}

} // namespace headroom::importers
