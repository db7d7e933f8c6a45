// SPDX-License-Identifier: GPL-3.0-or-later
// torchtitan's TOML job configs (torchtitan/models/*/train_configs/*.toml of the releases that
// shipped them; fields and defaults from torchtitan/config/job_config.py @ 238fa995). The
// framework preset (training/framework.cpp) supplies what torchtitan does; this reads what the
// file says.
#include "importers/configreader.h"

namespace headroom::importers {

namespace {

/// A flavor of a torchtitan model family as the catalog's hub id, or empty.
std::string flavorModel(const std::string &name, const std::string &flavor)
{
    struct Row { const char *name; const char *flavor; const char *hub; };
    static const Row rows[] = {
        {"llama3", "8B", "meta-llama/Llama-3.1-8B"},   {"llama3", "70B", "meta-llama/Llama-3.1-70B"},
        {"llama3", "405B", "meta-llama/Llama-3.1-405B"}, {"llama4", "17bx16e", "meta-llama/Llama-4-Scout-17B-16E"},
        {"llama4", "17bx128e", "meta-llama/Llama-4-Maverick-17B-128E"}, {"qwen3", "0.6B", "Qwen/Qwen3-0.6B"},
        {"qwen3", "8B", "Qwen/Qwen3-8B"},              {"qwen3", "32B", "Qwen/Qwen3-32B"},
        {"deepseek_v3", "671B", "deepseek-ai/DeepSeek-V3"}};
    for (const Row &row : rows)
        if (name == row.name && flavor == row.flavor)
            return row.hub;
    return {};
}

} // namespace

void importTorchtitan(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    r.set("framework", json{{"name", "torchtitan"}}, "(torchtitan job config)");
    const std::string name = r.text("model.name").value_or("llama3");
    const std::string flavor = r.text("model.flavor").value_or("debugmodel");
    // Not a language model: torchtitan's Flux (a diffusion transformer with T5 and CLIP encoders)
    // and its vision-language experiment; estimating either as a decoder LM would be a guess.
    if (name == "flux" || name == "vlm")
        throw TrainConfigError(out.file, "model.name",
                               "\"" + name + "\" is a torchtitan " +
                                   (name == "flux" ? "diffusion (Flux) job" : "vision-language experiment") +
                                   ", not a language model Headroom estimates");
    if (const auto assets = r.text("model.hf_assets_path"); assets && !assets->empty())
        out.model = *assets; // ./assets/hf/Llama-3.1-8B: the checkpoint's name
    else if (const std::string hub = flavorModel(name, flavor); !hub.empty())
        out.model = hub;
    else
        out.model = "torchtitan " + name + " " + flavor;
    r.noEffect({"model.tokenizer_path"});
    if (const auto converters = r.strings("model.converters"); converters && !converters->empty())
        r.warn("model.converters", "float8 / MX converters are not modelled (the estimate is of bf16 compute)");

    r.set("train.method", "full", "(torchtitan pre-trains and fine-tunes every parameter)");
    const std::int64_t local = r.count("training.local_batch_size", 1, 1 << 20).value_or(8);
    if (!r.has("training.local_batch_size"))
        r.defaulted("training.local_batch_size 8 (job_config.py)");
    r.set("train.micro_batch", local, "training.local_batch_size");
    r.set("train.seq_len", r.count("training.seq_len", 1, 16 * 1024 * 1024).value_or(2048),
          "training.seq_len (default 2048)");
    const std::string param = r.text("training.mixed_precision_param").value_or("bfloat16");
    if (param != "bfloat16" && param != "float32")
        r.fail("training.mixed_precision_param", "must be bfloat16 or float32 (got " + quotedText(param) + ")");
    r.set("precision.compute", param == "bfloat16" ? "bf16" : "fp32", "training.mixed_precision_param (default bfloat16)");
    const std::string dtype = r.text("training.dtype").value_or("float32");
    if (dtype != "bfloat16" && dtype != "float32")
        r.fail("training.dtype", "must be bfloat16 or float32 (got " + quotedText(dtype) + ")");
    r.set("precision.weights", dtype == "bfloat16" ? "bf16" : "fp32", "training.dtype (default float32: FSDP2 keeps fp32 shards)");
    if (r.flag("training.enable_cpu_offload").value_or(false)) {
        r.set("parallel.offload_params", true, "training.enable_cpu_offload");
        r.set("parallel.offload_optimizer", true, "training.enable_cpu_offload");
    }

    // Parallelism: data_parallel_shard_degree -1 takes the GPUs the others leave, a count only
    // the launcher (torchrun --nproc_per_node) knows.
    const std::int64_t replicate = r.count("parallelism.data_parallel_replicate_degree", 1, 65536).value_or(1);
    const json *shardNode = r.find("parallelism.data_parallel_shard_degree");
    const std::int64_t shard = shardNode && shardNode->is_number_integer() && shardNode->get<std::int64_t>() == -1
                                   ? -1
                                   : r.count("parallelism.data_parallel_shard_degree", 1, 65536).value_or(-1);
    const std::int64_t tp = r.count("parallelism.tensor_parallel_degree", 1, 65536).value_or(1);
    const std::int64_t pp = r.count("parallelism.pipeline_parallel_degree", 1, 65536).value_or(1);
    const std::int64_t cp = r.count("parallelism.context_parallel_degree", 1, 65536).value_or(1);
    const std::int64_t ep = r.count("parallelism.expert_parallel_degree", 1, 65536).value_or(1);
    if (tp > 1)
        r.set("parallel.tensor", tp, "parallelism.tensor_parallel_degree");
    if (pp > 1)
        r.set("parallel.pipeline", pp, "parallelism.pipeline_parallel_degree");
    if (cp > 1)
        r.set("parallel.context", cp, "parallelism.context_parallel_degree");
    if (ep > 1)
        r.set("parallel.expert", ep, "parallelism.expert_parallel_degree");
    if (replicate > 1)
        r.warn("parallelism.data_parallel_replicate_degree", "HSDP (replicas of shard groups) is modelled as sharding over every data-parallel rank");
    const std::string reshard = r.text("parallelism.fsdp_reshard_after_forward").value_or("default");
    r.set("parallel.strategy", reshard == "never" ? "zero2" : "fsdp",
          "parallelism (FSDP2 over the data-parallel ranks; fsdp_reshard_after_forward " + reshard + ")");
    if (shard > 0) {
        const std::int64_t world = replicate * shard * tp * pp * cp;
        r.set("parallel.gpus", world, "data_parallel_replicate x shard x tensor x pipeline x context degrees");
    }
    if (const auto global = r.count("training.global_batch_size", 1, 1 << 30)) {
        if (shard < 0)
            r.warn("training.global_batch_size", "the accumulation follows from the data-parallel degree, which the launcher sets; set train.grad_accum");
        else {
            const std::int64_t perStep = local * replicate * shard;
            if (*global % perStep != 0)
                r.fail("training.global_batch_size", "must be a multiple of local_batch_size x the data-parallel degree (" +
                                                         std::to_string(perStep) + ")");
            r.set("train.grad_accum", *global / perStep, "training.global_batch_size / (local_batch_size x data-parallel degree)");
        }
    }
    if (const auto schedule = r.text("parallelism.pipeline_parallel_schedule"); schedule && pp > 1) {
        if (*schedule == "1F1B")
            r.set("parallel.schedule", "1f1b", "parallelism.pipeline_parallel_schedule");
        else if (*schedule == "Interleaved1F1B")
            r.set("parallel.schedule", "interleaved", "parallelism.pipeline_parallel_schedule");
        else if (*schedule == "GPipe")
            r.set("parallel.schedule", "gpipe", "parallelism.pipeline_parallel_schedule");
        else
            r.warn("parallelism.pipeline_parallel_schedule", quotedText(*schedule) + " is not modelled");
    }

    // Activation checkpointing (distributed/activation_checkpoint.py).
    const std::string mode = r.text("activation_checkpoint.mode").value_or("selective");
    const std::string option = r.text("activation_checkpoint.selective_ac_option").value_or("2");
    if (mode == "none")
        r.set("train.gradient_checkpointing", "none", "activation_checkpoint.mode none");
    else if (mode == "full" || (mode == "selective" && option == "1"))
        r.set("train.gradient_checkpointing", "full", "activation_checkpoint.mode " + mode);
    else if (mode == "selective" && option == "op")
        r.set("train.gradient_checkpointing", "selective_op", "activation_checkpoint.mode selective, selective_ac_option op");
    else if (mode == "selective")
        r.fail("activation_checkpoint.selective_ac_option",
               quotedText(option) + " (checkpointing one layer in every " + quoteText(option) +
                   ") is not modelled (op, 1, or mode full / none are)");
    else
        r.fail("activation_checkpoint.mode", quotedText(mode) + " is not modelled (none, full, selective)");

    if (const auto compile = r.flag("compile.enable"))
        r.set("train.compile", *compile, "compile.enable");
    const std::string optimizer = r.text("optimizer.name").value_or("AdamW");
    if (optimizer != "AdamW" && optimizer != "Adam")
        r.warn("optimizer.name", quotedText(optimizer) + " is not modelled; AdamW assumed");
    r.set("train.optimizer", "adamw", "optimizer.name");
    const std::string impl = r.text("optimizer.implementation").value_or("fused");
    if (impl == "fused" || impl == "foreach")
        r.set("train.optimizer_impl", impl, "optimizer.implementation (default fused)");
    else if (impl != "for-loop")
        r.fail("optimizer.implementation", "must be fused, foreach or for-loop (got " + quotedText(impl) + ")");
    if (r.flag("optimizer.early_step_in_backward").value_or(false))
        r.set("train.optimizer_in_backward", true, "optimizer.early_step_in_backward");
    r.noEffect({"job", "profiling", "metrics", "lr_scheduler", "checkpoint", "validation", "comm", "dataloader",
                "fault_tolerance", "experimental", "debug", "memory_estimation", "float8", "mx", "quantize",
                "optimizer.lr", "optimizer.eps", "optimizer.beta1", "optimizer.beta2", "optimizer.weight_decay",
                "training.max_norm", "training.steps", "training.dataset", "training.dataset_path",
                "training.warmup_steps", "training.seed", "training.deterministic", "training.mixed_precision_reduce",
                "compile.components", "parallelism.enable_async_tensor_parallel",
                "parallelism.disable_loss_parallel", "parallelism.pipeline_parallel_microbatch_size",
                "parallelism.context_parallel_rotate_method", "activation_checkpoint.preserve_rng_state"});
    r.finish();
}

} // namespace headroom::importers
