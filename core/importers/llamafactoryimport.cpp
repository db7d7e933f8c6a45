// SPDX-License-Identifier: GPL-3.0-or-later
// LLaMA-Factory's `llamafactory-cli train` YAML (examples/train_*; fields and defaults from
// src/llamafactory/hparams/{finetuning,model,data}_args.py, the loading rules from
// model/adapter.py, model/model_utils/{attention,checkpointing,liger_kernel}.py and
// hparams/parser.py). The rest of the file is Hugging Face TrainingArguments.
#include "importers/configreader.h"

#include <algorithm>

namespace headroom::importers {

namespace {

std::vector<std::string> splitNames(const std::string &text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string::npos)
            comma = text.size();
        std::string name = text.substr(start, comma - start);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        if (!name.empty())
            out.push_back(name);
        start = comma + 1;
    }
    return out;
}

[[noreturn]] void refuseKind(const std::string &file, const std::string &what)
{
    throw TrainConfigError(file, "", "this is a LLaMA-Factory " + what + ", which Headroom does not estimate");
}

} // namespace

void importLlamaFactory(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    const std::string &file = out.file;
    // What the file runs: training (stage pt / sft), or something this reader does not estimate.
    if (r.has("export_dir"))
        refuseKind(file, "export (merge) config (export_dir: no training)");
    if (r.has("infer_backend") || (!r.flag("do_train").value_or(false) && r.flag("do_predict").value_or(false)))
        refuseKind(file, "inference or prediction config (no do_train): estimate inference with a scenario of task inference");
    if (r.has("tensor_model_parallel_size") || r.has("pipeline_model_parallel_size") || r.has("use_mca"))
        refuseKind(file, "Megatron-Core (mcore_adapter) config");
    if (r.flag("use_kt").value_or(false))
        refuseKind(file, "KTransformers config (CPU-offloaded MoE experts)");
    const std::string stage = r.text("stage").value_or("sft");
    // KTO (workflow/kto): unpaired completions against a frozen reference, its KL batch under no_grad.
    if (stage == "kto") {
        r.set("train.objective", "kto", "stage kto (unpaired completions, a frozen reference)");
        if (r.has("ref_model"))
            r.fail("ref_model", "a separate reference model is not modelled (the policy's own frozen copy is)");
        r.noEffect({"pref_beta", "pref_ftx", "kto_chosen_weight", "kto_rejected_weight", "ref_model_adapters",
                    "ref_model_quantization_bit"});
    }
    if (stage == "ppo")
        refuseKind(file, "PPO config (stage ppo: policy, reference, reward and value models are not modelled)");
    // Reward model (workflow/rm): the causal LM wrapped in TRL's AutoModelForCausalLMWithValueHead
    // (loader.py add_valuehead), chosen and rejected in one batch (PairwiseTrainer).
    if (stage == "rm") {
        r.set("train.objective", "reward", "stage rm (chosen and rejected in one batch, one value per token)");
        r.set("train.reward_head", "value_head", "stage rm (AutoModelForCausalLMWithValueHead keeps the lm_head)");
        if (r.text("finetuning_type").value_or("lora") == "full")
            r.fail("finetuning_type", "full with stage rm is not modelled: the kept lm_head gets no gradient from "
                                      "the pairwise loss, so what its optimizer holds depends on the run");
    }
    if (stage != "sft" && stage != "pt" && stage != "dpo" && stage != "kto" && stage != "rm")
        r.fail("stage", "must be pt, sft, rm, ppo, dpo or kto (got " + quotedText(stage) + ")");
    // DPO (workflow/dpo): chosen and rejected in one batch; a reference model unless the loss
    // is reference-free (hparams: use_ref_model = pref_loss not in orpo, simpo).
    if (stage == "dpo") {
        const std::string loss = r.text("pref_loss").value_or("sigmoid");
        if (loss == "orpo" || loss == "simpo")
            r.set("train.objective", "preference", "stage dpo, pref_loss " + loss + " (reference-free)");
        else if (loss == "sigmoid" || loss == "hinge" || loss == "ipo" || loss == "kto_pair")
            r.set("train.objective", "dpo", "stage dpo, pref_loss " + loss + " (a frozen reference)");
        else
            r.fail("pref_loss", "must be sigmoid, hinge, ipo, kto_pair, orpo or simpo (got " + quotedText(loss) + ")");
        if (r.has("ref_model"))
            r.fail("ref_model", "a separate reference model is not modelled (the policy's own frozen copy is)");
        r.noEffect({"pref_beta", "pref_ftx", "dpo_label_smoothing", "simpo_gamma", "ref_model_adapters",
                    "ref_model_quantization_bit"});
    }
    if (!r.has("stage"))
        r.defaulted("stage sft (LLaMA-Factory's default)");
    r.set("framework", json{{"name", "hf_transformers"}}, "(LLaMA-Factory trains with the Hugging Face Trainer)");
    if (const auto model = r.text("model_name_or_path"))
        out.model = *model;
    else
        r.fail("model_name_or_path", "is required by llamafactory-cli train");

    const std::string type = r.text("finetuning_type").value_or("lora");
    if (!r.has("finetuning_type"))
        r.defaulted("finetuning_type lora (LLaMA-Factory's default)");
    if (type == "freeze" || type == "oft")
        r.fail("finetuning_type", type == "freeze" ? "freeze (the last freeze_trainable_layers layers trained) is not modelled"
                                                   : "oft (orthogonal fine-tuning) is not modelled");
    if (type != "lora" && type != "full")
        r.fail("finetuning_type", "must be lora, oft, freeze or full (got " + quotedText(type) + ")");
    const bool lora = type == "lora";

    // Quantization (model_args.py: quantization_method bnb, type nf4, double quantization on).
    std::int64_t bits = 0;
    if (const auto quant = r.count("quantization_bit", 2, 8)) {
        bits = *quant;
        if (!lora)
            r.fail("quantization_bit", "a quantized model can only be trained with LoRA (adapter.py)");
        const std::string method = r.text("quantization_method").value_or("bnb");
        if (method != "bnb")
            r.fail("quantization_method", quotedText(method) + " on-the-fly quantization is not modelled (bnb is)");
        if (bits == 4) {
            const std::string qtype = r.text("quantization_type").value_or("nf4");
            if (qtype != "nf4" && qtype != "fp4")
                r.fail("quantization_type", "must be nf4 or fp4 (got " + quotedText(qtype) + ")");
            r.set("precision.weights", qtype, "quantization_bit 4, quantization_type (default nf4)");
            r.set("precision.double_quant", r.flag("double_quantization").value_or(true),
                  "double_quantization (default true)");
        } else if (bits == 8) {
            r.set("precision.weights", "int8", "quantization_bit 8");
        } else {
            r.fail("quantization_bit", "bitsandbytes quantizes to 4 or 8 bits (got " + std::to_string(bits) + ")");
        }
    } else {
        r.noEffect({"quantization_method", "quantization_type", "double_quantization"});
    }
    r.set("train.method", !lora ? "full" : bits == 4 ? "qlora" : "lora", "finetuning_type, quantization_bit");

    if (lora) {
        r.set("train.lora.rank", r.count("lora_rank", 1, 65536).value_or(8), "lora_rank (default 8)");
        r.set("train.lora.dropout", r.number("lora_dropout", 0, 0.999).value_or(0.0), "lora_dropout (default 0)");
        const std::string target = r.text("lora_target").value_or("all");
        std::vector<std::string> targets;
        for (const std::string &name : splitNames(target)) {
            if (name == "all") {
                targets = {"q", "k", "v", "o", "gate", "up", "down"};
                continue;
            }
            const auto mapped = loraTargetsFor(name);
            if (mapped.empty())
                r.warn("lora_target", "module " + quotedText(name) + " is not one the estimator knows; left out");
            for (const std::string &t : mapped)
                if (std::find(targets.begin(), targets.end(), t) == targets.end())
                    targets.push_back(t);
        }
        if (targets.empty())
            r.fail("lora_target", "names no module the estimator knows (all, q_proj, v_proj, ...)");
        r.set("train.lora.targets", targets, "lora_target (default all: every linear layer)");
        if (r.has("additional_target"))
            r.warn("additional_target", "modules trained fully beside the adapter (their gradients and optimizer state) are not modelled");
        if (r.flag("use_dora").value_or(false))
            r.warn("use_dora", "DoRA is estimated as LoRA");
        r.noEffect({"lora_alpha", "use_rslora", "pissa_init", "pissa_iter", "pissa_convert", "loraplus_lr_ratio",
                    "loraplus_lr_embedding", "create_new_adapter", "use_dora"});
    }

    // Precision: the model loads in the compute dtype; trainable parameters are upcast to fp32
    // unless pure_bf16 (or ZeRO-3 without quantization: the DeepSpeed file then holds them).
    const bool bf16 = r.flag("bf16").value_or(false);
    const bool fp16 = r.flag("fp16").value_or(false);
    const bool pure = r.flag("pure_bf16").value_or(false);
    if (bf16 && fp16)
        r.fail("bf16", "bf16 and fp16 cannot both be true");
    const std::string compute = (bf16 || pure) ? "bf16" : fp16 ? "fp16" : "fp32";
    r.set("precision.compute", compute, pure ? "pure_bf16" : bf16 ? "bf16" : fp16 ? "fp16" : "bf16 and fp16 false");
    if (!out.scenario.contains("precision") || !out.scenario["precision"].contains("weights")) {
        if (lora || pure)
            r.set("precision.weights", compute, lora ? "(the frozen base loads in the compute dtype)" : "pure_bf16");
        else
            r.set("precision.weights", "fp32", "finetuning_type full without pure_bf16 (adapter.py upcasts trainable parameters to float32)");
    }

    // Sequence and batch (data_args.py cutoff_len 2048; packing defaults to on for stage pt).
    r.set("train.seq_len", r.count("cutoff_len", 1, 16 * 1024 * 1024).value_or(2048), "cutoff_len (default 2048)");
    const bool packing = r.flag("packing").value_or(stage == "pt") || r.flag("neat_packing").value_or(false);
    if (packing)
        out.mapped.push_back("packing -> every sequence is cutoff_len tokens");
    else
        r.warn("packing", "off: batches are padded to their longest sample, up to cutoff_len; the estimate takes the maximum");
    if (const auto batch = r.count("per_device_train_batch_size", 1, 1 << 20))
        r.set("train.micro_batch", *batch, "per_device_train_batch_size");
    else
        r.set("train.micro_batch", 8, "per_device_train_batch_size absent: TrainingArguments' default 8");
    if (const auto accum = r.count("gradient_accumulation_steps", 1, 1'000'000))
        r.set("train.grad_accum", *accum, "gradient_accumulation_steps");

    // Activation checkpointing is on unless disabled (checkpointing.py); Unsloth's offloads.
    const bool noCheckpointing = r.flag("disable_gradient_checkpointing").value_or(false);
    r.set("train.gradient_checkpointing", noCheckpointing ? "none" : "full",
          "disable_gradient_checkpointing (default false: LLaMA-Factory checkpoints every layer)");
    if (!noCheckpointing && r.flag("use_unsloth_gc").value_or(false))
        r.set("train.offload_activations", true, "use_unsloth_gc (block inputs to CPU)");

    // Attention (attention.py): auto leaves Transformers' default (sdpa).
    const std::string attention = r.text("flash_attn").value_or("auto");
    static const std::pair<const char *, const char *> attentions[] = {
        {"auto", "sdpa"}, {"sdpa", "sdpa"}, {"disabled", "eager"}, {"fa2", "flash"}, {"fa3", "flash"}};
    const auto found = std::find_if(std::begin(attentions), std::end(attentions),
                                    [&](const auto &row) { return attention == row.first; });
    if (found == std::end(attentions))
        r.fail("flash_attn", "must be auto, disabled, sdpa, fa2 or fa3 (got " + quotedText(attention) + ")");
    r.set("kernels.attention", found->second, "flash_attn (auto: Transformers' default sdpa)");
    // Liger (liger_kernel.py): rope, RMSNorm, SwiGLU and the fused linear cross-entropy.
    if (r.flag("enable_liger_kernel").value_or(false)) {
        r.set("kernels.profile", "fused", "enable_liger_kernel (RMSNorm, SwiGLU)");
        if (stage == "sft" || stage == "pt")
            r.set("kernels.loss", "fused", "enable_liger_kernel (fused_linear_cross_entropy)");
        else
            out.mapped.push_back("enable_liger_kernel: stage " + stage + " needs the logits (no fused cross-entropy)");
    }
    if (r.flag("use_unsloth").value_or(false))
        r.warn("use_unsloth", "Unsloth's kernels and its own offloading are not modelled: the estimate is of the "
                              "Hugging Face run, an upper bound");

    // The optimizer: TrainingArguments.optim unless one of LLaMA-Factory's own.
    for (const char *own : {"use_galore", "use_apollo", "use_badam", "use_adam_mini", "use_muon"})
        if (r.flag(own).value_or(false))
            r.warn(own, "this optimizer's state is not modelled; AdamW's is counted (an upper bound)");
    if (const auto optim = r.text("optim")) {
        std::string optimizer, impl;
        if (!trainingArgsOptim(*optim, optimizer, impl)) {
            r.warn("optim", quotedText(*optim) + " is not modelled; AdamW assumed");
            optimizer = "adamw";
        }
        r.set("train.optimizer", optimizer, "optim");
        if (!impl.empty())
            r.set("train.optimizer_impl", impl, "optim");
    } else {
        r.defaulted("train.optimizer = adamw (optim adamw_torch, TrainingArguments' default)");
    }

    // Distribution: a DeepSpeed file it names, FSDP through Accelerate's config (another file),
    // Ray workers; otherwise llamafactory-cli starts torchrun on every visible GPU (DDP).
    if (const json *deepspeed = r.find("deepspeed")) {
        if (deepspeed->is_string())
            out.references.push_back({"deepspeed", deepspeed->get<std::string>()});
        else if (deepspeed->is_object())
            importDeepspeed(*deepspeed, out, &r, "deepspeed.");
        else
            r.fail("deepspeed", "must be the path of a DeepSpeed JSON");
    } else if (const auto workers = r.count("ray_num_workers", 1, 65536)) {
        r.set("parallel.gpus", *workers, "ray_num_workers");
        if (*workers > 1)
            r.set("parallel.strategy", "ddp", "ray_num_workers (DDP across Ray workers)");
    } else {
        r.defaulted("one GPU: the file names no DeepSpeed config; on several GPUs llamafactory-cli runs DDP, "
                    "which holds the same per-GPU state plus gradient buckets");
    }
    if (const auto compile = r.flag("torch_compile"))
        r.set("train.compile", *compile, "torch_compile");
    if (r.has("rope_scaling"))
        r.warn("rope_scaling", "a longer context than the model's own: cutoff_len is what is counted");
    if (r.flag("shift_attn").value_or(false))
        r.warn("shift_attn", "shifted short attention (LongLoRA) is not modelled");
    if (r.flag("upcast_layernorm").value_or(false))
        r.warn("upcast_layernorm", "fp32 norm weights are not modelled");
    r.noEffect({"do_train", "do_eval", "trust_remote_code", "dataset", "eval_dataset", "template", "max_samples",
                "preprocessing_num_workers", "dataloader_num_workers", "output_dir", "logging_steps", "save_steps",
                "plot_loss", "overwrite_output_dir", "save_only_model", "report_to", "learning_rate",
                "num_train_epochs", "lr_scheduler_type", "warmup_ratio", "warmup_steps", "ddp_timeout",
                "resume_from_checkpoint", "val_size", "per_device_eval_batch_size", "eval_strategy", "eval_steps",
                "overwrite_cache", "dataset_dir", "max_steps", "weight_decay", "max_grad_norm", "seed",
                "save_strategy", "save_total_limit", "run_name", "enable_thinking", "tokenized_path",
                "media_dir", "image_max_pixels", "video_max_pixels", "freeze_vision_tower",
                "freeze_multi_modal_projector", "freeze_language_model", "neat_packing", "packing",
                "adapter_name_or_path", "hub_model_id", "push_to_hub", "use_fast_tokenizer", "flash_attn",
                "ray_run_name", "ray_storage_path", "ray_init_kwargs", "resources_per_worker", "placement_strategy",
                "streaming", "buffer_size", "mix_strategy", "interleave_probs", "cache_dir", "pref_beta",
                "pref_loss"});
    r.finish();
}

} // namespace headroom::importers
