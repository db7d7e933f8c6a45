// SPDX-License-Identifier: GPL-3.0-or-later
// torchtune recipe configs (recipes/configs/*.yaml): what each memory-relevant key maps to.
// Recipe defaults from recipes/*_finetune_*.py (cfg.get(...)); see docs/frameworks.md.
#include "importers/configreader.h"

namespace headroom::importers {

namespace {

std::string lastPart(const std::string &component)
{
    const auto dot = component.rfind('.');
    return dot == std::string::npos ? component : component.substr(dot + 1);
}

void readModel(ConfigReader &r)
{
    const auto component = r.text("model._component_");
    if (!component)
        r.fail("model._component_", "is required (the model builder, e.g. torchtune.models.llama3_1.lora_llama3_1_8b)");
    r.out().model = *component;
    const std::string builder = lastPart(*component);
    const bool qlora = builder.starts_with("qlora_") || r.flag("model.quantize_base").value_or(false);
    const bool lora = qlora || builder.starts_with("lora_");
    r.set("train.method", qlora ? "qlora" : lora ? "lora" : "full", "model._component_");
    if (qlora) {
        r.set("precision.weights", "nf4", "model._component_ (torchao NF4Tensor base weights)");
        r.set("precision.double_quant", true, "model._component_ (NF4Tensor quantizes its scalers)");
    }
    if (!lora)
        return;
    std::vector<std::string> targets;
    if (const auto modules = r.strings("model.lora_attn_modules")) {
        for (const std::string &module : *modules) {
            const auto mapped = loraTargetsFor(module);
            if (mapped.empty())
                r.fail("model.lora_attn_modules", "unknown module " + quotedText(module) + " (q_proj, k_proj, v_proj, output_proj)");
            targets.insert(targets.end(), mapped.begin(), mapped.end());
        }
    } else {
        r.fail("model.lora_attn_modules", "is required by torchtune's LoRA builders");
    }
    if (r.flag("model.apply_lora_to_mlp").value_or(false))
        targets.insert(targets.end(), {"gate", "up", "down"});
    if (r.flag("model.apply_lora_to_output").value_or(false))
        targets.push_back("lm_head");
    r.set("train.lora.targets", targets, "model.lora_attn_modules, apply_lora_to_mlp, apply_lora_to_output");
    if (const auto rank = r.count("model.lora_rank", 1, 65536))
        r.set("train.lora.rank", *rank, "model.lora_rank");
    if (const auto dropout = r.number("model.lora_dropout", 0, 0.999))
        r.set("train.lora.dropout", *dropout, "model.lora_dropout");
    else
        r.defaulted("train.lora.dropout = 0.0 (lora builders' default lora_dropout)");
    r.noEffect({"model.lora_alpha", "model.use_dora"});
    if (r.flag("model.use_dora").value_or(false))
        r.warn("model.use_dora", "DoRA adds a weight-norm computation per adapted layer; estimated as LoRA");
}

void readOptimizer(ConfigReader &r)
{
    const auto component = r.text("optimizer._component_");
    if (!component) {
        r.defaulted("train.optimizer = adamw (no optimizer in the config)");
        return;
    }
    const std::string name = lastPart(*component);
    std::string optimizer;
    if (name == "AdamW" || name == "Adam")
        optimizer = "adamw";
    else if (name == "PagedAdamW8bit")
        optimizer = "paged_adamw_8bit";
    else if (name == "PagedAdamW" || name == "PagedAdamW32bit")
        optimizer = "paged_adamw";
    else if (name == "AdamW8bit" || name == "Adam8bit")
        optimizer = "adamw_8bit";
    else if (name == "SGD")
        optimizer = r.number("optimizer.momentum", 0, 1).value_or(0) > 0 ? "sgd_momentum" : "sgd";
    else if (name == "Adafactor")
        optimizer = "adafactor";
    if (optimizer.empty()) {
        r.warn("optimizer._component_", "optimizer " + quotedText(*component) + " is not modelled; estimated as AdamW");
        optimizer = "adamw";
    }
    r.set("train.optimizer", optimizer, "optimizer._component_");
    if (optimizer == "adamw" && component->starts_with("torch.optim.")) {
        if (r.flag("optimizer.fused").value_or(false) || r.flag("optimizer.foreach") == false)
            r.set("train.optimizer_impl", "fused", r.flag("optimizer.fused").value_or(false) ? "optimizer.fused" : "optimizer.foreach");
    }
    r.noEffect({"optimizer.lr", "optimizer.weight_decay", "optimizer.betas", "optimizer.eps",
                "optimizer.momentum"});
}

void readLoss(ConfigReader &r)
{
    const auto component = r.text("loss._component_");
    if (!component)
        return;
    const std::string name = lastPart(*component);
    if (name == "CEWithChunkedOutputLoss")
        r.set("kernels.loss", "chunked", "loss._component_");
    else if (name == "LinearCrossEntropyLoss")
        r.set("kernels.loss", "linear_chunked", "loss._component_");
    else if (name == "CrossEntropyLoss")
        r.set("kernels.loss", "standard", "loss._component_");
    else
        r.warn("loss._component_", "loss " + quotedText(*component) + " is not modelled; the framework's loss is assumed");
    if (const auto chunks = r.count("loss.num_output_chunks", 1, 1 << 20); chunks && *chunks != 8)
        r.warn("loss.num_output_chunks", "the chunked losses are modelled with 8 chunks");
    r.noEffect({"loss.ignore_index"});
}

} // namespace

void importTorchtune(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    r.set("framework", json{{"name", "torchtune"}}, "(torchtune recipe config)");
    readModel(r);
    if (const auto batch = r.count("batch_size", 1, 1 << 20))
        r.set("train.micro_batch", *batch, "batch_size");
    else
        r.defaulted("train.micro_batch: batch_size is not in the config; the scenario's default applies");
    if (const auto accum = r.count("gradient_accumulation_steps", 1, 1'000'000))
        r.set("train.grad_accum", *accum, "gradient_accumulation_steps");
    const bool packed = r.flag("dataset.packed").value_or(false);
    if (const auto seq = r.count("tokenizer.max_seq_len", 1, 16 * 1024 * 1024)) {
        r.set("train.seq_len", *seq, packed ? "tokenizer.max_seq_len (dataset.packed: every pack is this long)"
                                            : "tokenizer.max_seq_len (the longest a sample can be)");
        if (!packed)
            r.warn("dataset.packed", "not packed: batches are padded to their longest sample, up to "
                                     "tokenizer.max_seq_len; the estimate takes the maximum");
    } else {
        r.warn("tokenizer.max_seq_len", "null: the sequence length depends on the data; set train.seq_len "
                                        "(the scenario's default applies)");
    }
    if (const auto ac = r.flag("enable_activation_checkpointing"))
        r.set("train.gradient_checkpointing", *ac ? "full" : "none", "enable_activation_checkpointing");
    if (const auto offload = r.flag("enable_activation_offloading"))
        r.set("train.offload_activations", *offload, "enable_activation_offloading");
    if (const auto inBackward = r.flag("optimizer_in_bwd"))
        r.set("train.optimizer_in_backward", *inBackward, "optimizer_in_bwd");
    if (const json *compile = r.find("compile")) {
        const bool on = compile->is_boolean() ? compile->get<bool>() : compile->is_object();
        r.set("train.compile", on, "compile");
    }
    readOptimizer(r);
    readLoss(r);
    if (const auto dtype = r.text("dtype")) {
        const std::string name = dtypeName(*dtype);
        if (name.empty() || name == "fp16")
            r.fail("dtype", "must be bf16 or fp32 (torchtune refuses fp16; got " + quotedText(*dtype) + ")");
        if (!out.scenario.contains("precision") || !out.scenario["precision"].contains("weights"))
            r.set("precision.weights", name, "dtype");
        r.set("precision.compute", name, "dtype");
    } else {
        r.defaulted("precision: dtype is not in the config; torchtune recipes default to bf16");
    }
    // Distributed recipes: FSDP2 over the GPUs `tune run --nproc_per_node` starts.
    const bool cpuOffload = r.flag("fsdp_cpu_offload").value_or(false);
    const bool distributed = cpuOffload || r.has("custom_sharded_layers") || r.has("fsdp_reshard_after_forward") ||
                             r.has("memory_efficient_fsdp_wrap") || r.has("fsdp_sharding_strategy");
    if (distributed) {
        r.set("parallel.strategy", "fsdp", "fsdp_* keys (a distributed recipe)");
        r.warn("(distributed recipe)", "the number of GPUs comes from tune run --nproc_per_node; set parallel.gpus");
    }
    if (cpuOffload) {
        r.set("parallel.offload_params", true, "fsdp_cpu_offload");
        r.set("parallel.offload_optimizer", true, "fsdp_cpu_offload");
    }
    if (r.has("custom_sharded_layers"))
        r.warn("custom_sharded_layers", "extra FSDP units (embeddings, output) change what is gathered at once; not modelled");
    if (r.flag("fsdp_reshard_after_forward") == false)
        r.warn("fsdp_reshard_after_forward", "false keeps gathered parameters between forward and backward (like ZeRO-2); not modelled");
    if (r.has("memory_efficient_fsdp_wrap"))
        r.set("framework", json{{"name", "torchtune"}, {"version", "0.2"}},
              "memory_efficient_fsdp_wrap (an FSDP1-era config, before 0.3)");
    if (r.has("fsdp_sharding_strategy"))
        r.warn("fsdp_sharding_strategy", "only FULL_SHARD is modelled");
    r.noEffect({"output_dir", "checkpointer", "tokenizer._component_", "tokenizer.path", "tokenizer.prompt_template",
                "dataset._component_", "dataset.source", "dataset.split", "dataset.train_on_input", "seed",
                "shuffle", "epochs", "max_steps_per_epoch", "lr_scheduler", "metric_logger", "log_every_n_steps",
                "log_peak_memory_stats", "log_level", "profiler", "resume_from_checkpoint", "save_adapter_weights_only",
                "save_last_epoch_only", "epochs_to_save", "device", "clip_grad_norm", "run_val_every_n_steps",
                "dataset_val", "ignore_index", "quantizer", "low_cpu_ram"});
    r.finish();
}

} // namespace headroom::importers
