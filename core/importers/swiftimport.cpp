// SPDX-License-Identifier: GPL-3.0-or-later
// ms-swift's `swift sft` / `swift pt` / `swift rlhf` arguments, from a --config YAML/JSON or a launch script's
// command line (fields and defaults from swift/arguments/{base_args,tuner_args,sft_args}.py and
// swift/trainers/arguments.py @ 3602360a). ms-swift trains with the Hugging Face Trainer.
#include "importers/configreader.h"

#include <algorithm>

namespace headroom::importers {

namespace {

[[noreturn]] void refuseSwift(const std::string &file, const std::string &what)
{
    throw TrainConfigError(file, "", "this is an ms-swift " + what + ", which Headroom does not estimate");
}

std::int64_t deviceCount(const std::string &ids)
{
    if (ids.empty())
        return 0;
    return std::int64_t(std::count(ids.begin(), ids.end(), ',')) + 1;
}

} // namespace

void importSwift(const json &tree, TrainImport &out, const ShellCommand *script)
{
    ConfigReader r(tree, out);
    const std::string &file = out.file;
    if (script) {
        if (script->command.starts_with("megatron"))
            refuseSwift(file, "Megatron-Core command (" + script->command + ")");
        if (script->command != "swift sft" && script->command != "swift pt" && script->command != "swift rlhf")
            refuseSwift(file, "command that does not train (" + script->command + ")");
    }
    if (r.has("colocate_groups") || r.has("tensor_model_parallel_size"))
        refuseSwift(file, "Ray / Megatron-Core config (colocate_groups, tensor_model_parallel_size)");
    // `swift rlhf` (or a config with rlhf_type): its objective is read at the end (swiftrlhf.cpp).
    const bool rlhf = (script && script->command == "swift rlhf") || tree.contains("rlhf_type");
    const std::string rlhfType = tree.contains("rlhf_type") && tree["rlhf_type"].is_string()
                                     ? tree["rlhf_type"].get<std::string>() : std::string("dpo");
    const bool generates = rlhf && (rlhfType == "grpo" || rlhfType == "ppo");
    if (r.has("sampler_engine") || r.has("num_return_sequences"))
        refuseSwift(file, "sampling config");
    r.set("framework", json{{"name", "hf_transformers"}}, "(ms-swift trains with the Hugging Face Trainer)");
    if (const auto model = r.text("model"))
        out.model = *model;
    else
        r.fail("model", rlhf ? "is required by swift rlhf" : "is required by swift sft");

    const std::string tuner = r.text("tuner_type").value_or(r.text("train_type").value_or("lora"));
    if (!r.has("tuner_type") && !r.has("train_type"))
        r.defaulted("tuner_type lora (ms-swift's default)");
    if (tuner != "lora" && tuner != "full")
        r.fail(r.has("tuner_type") ? "tuner_type" : "train_type", "only lora and full are modelled (got " + quotedText(tuner) + ")");
    const bool lora = tuner == "lora";

    std::int64_t bits = 0;
    if (const json *quant = r.find("quant_bits"); quant && quant->is_number_integer()) {
        bits = quant->get<std::int64_t>();
        const std::string method = r.text("quant_method").value_or("bnb");
        if (method != "bnb")
            r.fail("quant_method", quotedText(method) + " quantization is not modelled (bnb is)");
        if (!lora)
            r.fail("quant_bits", "a quantized model is trained with LoRA");
        if (bits == 4) {
            const std::string type = r.text("bnb_4bit_quant_type").value_or("nf4");
            if (type != "nf4" && type != "fp4")
                r.fail("bnb_4bit_quant_type", "must be nf4 or fp4 (got " + quotedText(type) + ")");
            r.set("precision.weights", type, "quant_bits 4, bnb_4bit_quant_type (default nf4)");
            r.set("precision.double_quant", r.flag("bnb_4bit_use_double_quant").value_or(true),
                  "bnb_4bit_use_double_quant (default true)");
        } else if (bits == 8) {
            r.set("precision.weights", "int8", "quant_bits 8");
        } else {
            r.fail("quant_bits", "bitsandbytes quantizes to 4 or 8 bits (got " + std::to_string(bits) + ")");
        }
    } else if (quant) {
        r.fail("quant_bits", "must be 4 or 8 (got " + quoteJson(*quant) + ")");
    }
    r.set("train.method", !lora ? "full" : bits == 4 ? "qlora" : "lora", "tuner_type, quant_bits");
    if (lora) {
        r.set("train.lora.rank", r.count("lora_rank", 1, 65536).value_or(8), "lora_rank (default 8)");
        r.set("train.lora.dropout", r.number("lora_dropout", 0, 0.999).value_or(0.05), "lora_dropout (default 0.05)");
        const std::vector<std::string> modules = r.strings("target_modules").value_or(std::vector<std::string>{"all-linear"});
        std::vector<std::string> targets;
        for (const std::string &name : modules) {
            if (name == "all-linear") {
                targets = {"q", "k", "v", "o", "gate", "up", "down"};
                continue;
            }
            const auto mapped = loraTargetsFor(name);
            if (mapped.empty())
                r.warn("target_modules", "module " + quotedText(name) + " is not one the estimator knows; left out");
            for (const std::string &t : mapped)
                if (std::find(targets.begin(), targets.end(), t) == targets.end())
                    targets.push_back(t);
        }
        if (targets.empty())
            r.fail("target_modules", "names no module the estimator knows (all-linear, q_proj, ...)");
        r.set("train.lora.targets", targets, "target_modules (default all-linear)");
        if (r.has("modules_to_save"))
            r.warn("modules_to_save", "fully trained copies are not modelled");
        r.noEffect({"lora_alpha", "lora_bias", "use_rslora", "use_dora", "init_weights", "lora_dtype"});
    }

    // The load dtype: torch_dtype, else the checkpoint's; mixed precision follows it
    // (model_args.py _init_mixed_precision: bfloat16 -> bf16, float16/float32 -> fp16).
    std::string weights = "bf16";
    if (const auto dtype = r.text("torch_dtype")) {
        weights = dtypeName(*dtype);
        if (weights.empty())
            r.fail("torch_dtype", "must be bfloat16, float16 or float32 (got " + quotedText(*dtype) + ")");
    } else {
        r.defaulted("torch_dtype: the checkpoint's config.json dtype, bf16 assumed (set precision.weights otherwise)");
    }
    if (bits == 0)
        r.set("precision.weights", weights, "torch_dtype");
    r.set("precision.compute", weights == "bf16" ? "bf16" : "fp16", "torch_dtype (ms-swift's mixed precision follows it)");

    // (GRPO and PPO: max_length is the prompt's, read with the completion's in swiftrlhf.cpp.)
    if (!generates) {
        if (const auto seq = r.count("max_length", 1, 16 * 1024 * 1024))
            r.set("train.seq_len", *seq, "max_length");
        else
            r.warn("max_length", "absent: ms-swift takes the model's max_model_len; set train.seq_len (the scenario's "
                                 "default applies)");
    }
    if (r.flag("packing").value_or(false) || r.flag("padding_free").value_or(false))
        out.mapped.push_back("packing / padding_free -> every sequence is max_length tokens");
    r.set("train.micro_batch", r.count("per_device_train_batch_size", 1, 1 << 20).value_or(1),
          "per_device_train_batch_size (ms-swift's default 1)");
    if (const auto accum = r.count("gradient_accumulation_steps", 1, 1'000'000))
        r.set("train.grad_accum", *accum, "gradient_accumulation_steps");
    r.set("train.gradient_checkpointing", r.flag("gradient_checkpointing").value_or(true) ? "full" : "none",
          "gradient_checkpointing (ms-swift's default true)");
    if (const auto attn = r.text("attn_impl")) {
        std::string kind;
        if (attn->find("flash") != std::string::npos)
            kind = "flash";
        else if (*attn == "sdpa")
            kind = "sdpa";
        else if (*attn == "eager")
            kind = "eager";
        else
            r.fail("attn_impl", "must be flash_attn, flash_attention_2, sdpa or eager (got " + quotedText(*attn) + ")");
        r.set("kernels.attention", kind, "attn_impl");
    }
    if (r.flag("use_liger_kernel").value_or(false)) {
        r.set("kernels.profile", "fused", "use_liger_kernel");
        r.set("kernels.loss", "fused", "use_liger_kernel (fused linear cross-entropy)");
    }
    if (const auto optim = r.text("optim")) {
        std::string optimizer, impl;
        if (!trainingArgsOptim(*optim, optimizer, impl)) {
            r.warn("optim", quotedText(*optim) + " is not modelled; AdamW assumed");
            optimizer = "adamw";
        }
        r.set("train.optimizer", optimizer, "optim");
        if (!impl.empty())
            r.set("train.optimizer_impl", impl, "optim");
    }
    if (const auto sp = r.count("sequence_parallel_size", 1, 65536); sp && *sp > 1)
        r.warn("sequence_parallel_size", "Ulysses sequence parallelism is not modelled (each GPU counted with the whole sequence)");

    // DeepSpeed: ms-swift's own names (swift/config/zero*.json) or a file.
    if (const auto deepspeed = r.text("deepspeed")) {
        static const std::pair<const char *, const char *> names[] = {
            {"zero0", "ddp"}, {"zero1", "zero1"}, {"zero2", "zero2"}, {"zero3", "zero3"},
            {"zero2_offload", "zero2"}, {"zero3_offload", "zero3"}};
        const auto it = std::find_if(std::begin(names), std::end(names), [&](const auto &n) { return *deepspeed == n.first; });
        if (it != std::end(names)) {
            r.set("parallel.strategy", it->second, "deepspeed " + *deepspeed + " (swift/config/" + *deepspeed + ".json)");
            if (deepspeed->ends_with("_offload")) {
                r.set("parallel.offload_optimizer", true, "deepspeed " + *deepspeed);
                if (*deepspeed == "zero3_offload")
                    r.set("parallel.offload_params", true, "deepspeed zero3_offload");
            }
            r.set("train.master_weights", true, "(DeepSpeed's optimizer keeps fp32 master weights)");
        } else {
            out.references.push_back({"deepspeed", *deepspeed});
        }
    }
    // The world size from the script's environment: torchrun with NPROC_PER_NODE processes;
    // without it, several visible GPUs split the model (device_map), which is not modelled.
    if (script) {
        const auto env = [&](const char *name) {
            const auto it = script->env.find(name);
            return it == script->env.end() ? std::string() : it->second;
        };
        const std::string nproc = env("NPROC_PER_NODE");
        const std::string visible = env("CUDA_VISIBLE_DEVICES");
        if (!nproc.empty()) {
            const json n = nproc.find_first_not_of("0123456789") == std::string::npos && nproc.size() < 6
                               ? json(std::stoll(nproc)) : json(nullptr);
            if (n.is_null() || n.get<std::int64_t>() < 1)
                r.fail("NPROC_PER_NODE", "must be a number of processes the script sets (got " + quotedText(nproc) + ")");
            std::int64_t nodes = 1;
            if (const std::string nn = env("NNODES"); !nn.empty() && nn.find_first_not_of("0123456789") == std::string::npos &&
                                                         nn.size() < 6)
                nodes = std::stoll(nn);
            r.set("parallel.gpus", n.get<std::int64_t>() * nodes, "NPROC_PER_NODE" + std::string(nodes > 1 ? " x NNODES" : "") +
                                                                     " of the script");
            if (!out.scenario.contains("parallel") || !out.scenario["parallel"].contains("strategy"))
                r.set("parallel.strategy", "ddp", "NPROC_PER_NODE without DeepSpeed: DDP");
        } else if (deviceCount(visible) > 1) {
            r.fail("CUDA_VISIBLE_DEVICES", "several GPUs without NPROC_PER_NODE: ms-swift splits the model over them "
                                           "(device_map), which is not modelled");
        }
        for (const std::string &key : script->unresolved)
            r.warn(key, "its value is computed by the shell ($(...) or a variable the script does not set): left out");
    }
    if (rlhf)
        readSwiftRlhf(r, out.model);
    r.noEffect({"model_type", "dataset", "val_dataset", "split_dataset_ratio", "system", "model_author", "model_name",
                "num_train_epochs", "per_device_eval_batch_size", "learning_rate", "eval_steps", "save_steps",
                "save_total_limit", "logging_steps", "output_dir", "warmup_ratio", "dataloader_num_workers",
                "dataset_num_proc", "seed", "report_to", "max_steps", "weight_decay", "lr_scheduler_type",
                "gradient_checkpointing_kwargs", "save_only_model", "load_from_cache_file", "streaming",
                "max_grad_norm", "add_version", "check_model", "loss_scale", "use_hf", "template", "lazy_tokenize",
                "eval_strategy", "save_strategy", "attn_impl", "packing", "padding_free", "freeze_vit", "freeze_aligner",
                "freeze_llm", "vit_lr", "aligner_lr", "truncation_strategy", "quant_method", "create_checkpoint_symlink"});
    r.finish();
}

} // namespace headroom::importers
