// SPDX-License-Identifier: GPL-3.0-or-later
// DeepSpeed config JSON (deepspeed/runtime/zero/config.py) and Accelerate config YAML
// (accelerate config / examples/config_yaml_templates), as docs/frameworks.md describes.
#include "importers/configreader.h"

namespace headroom::importers {

namespace {

bool isAuto(const json *value) { return value && value->is_string() && value->get<std::string>() == "auto"; }

/// "cpu" / "nvme" / "none" of an offload_* section.
bool offloaded(ConfigReader &r, const std::string &section)
{
    const auto device = r.text(section + ".device");
    if (!device || *device == "none")
        return false;
    if (*device == "nvme")
        r.warn(section + ".device", "NVMe offload is modelled as CPU offload (host memory)");
    else if (*device != "cpu")
        r.fail(section + ".device", "must be cpu, nvme or none (got " + quotedText(*device) + ")");
    r.noEffect({section + ".pin_memory", section + ".nvme_path", section + ".buffer_count",
                section + ".buffer_size", section + ".max_in_cpu", section + ".fast_init", section + ".ratio"});
    return true;
}

} // namespace

void importDeepspeed(const json &tree, TrainImport &out, ConfigReader *within, const std::string &prefix)
{
    ConfigReader own(tree, out);
    ConfigReader &r = within ? *within : own;
    auto key = [&](const std::string &name) { return prefix + name; };
    if (!within)
        r.set("framework", json{{"name", "deepspeed"}}, "(DeepSpeed config)");
    else
        setPath(out.scenario, "framework", json{{"name", "deepspeed"}});
    const std::int64_t stage = r.count(key("zero_optimization.stage"), 0, 3).value_or(0);
    static const char *strategies[] = {"ddp", "zero1", "zero2", "zero3"};
    r.set("parallel.strategy", strategies[stage], key("zero_optimization.stage"));
    if (offloaded(r, key("zero_optimization.offload_optimizer")))
        r.set("parallel.offload_optimizer", true, key("zero_optimization.offload_optimizer.device"));
    if (offloaded(r, key("zero_optimization.offload_param"))) {
        if (stage != 3)
            r.fail(key("zero_optimization.offload_param"), "parameter offload needs ZeRO stage 3");
        r.set("parallel.offload_params", true, key("zero_optimization.offload_param.device"));
    }
    for (const char *bucket : {"zero_optimization.reduce_bucket_size", "zero_optimization.allgather_bucket_size",
                               "zero_optimization.stage3_prefetch_bucket_size",
                               "zero_optimization.stage3_max_live_parameters",
                               "zero_optimization.stage3_param_persistence_threshold",
                               "zero_optimization.stage3_max_reuse_distance", "zero_optimization.sub_group_size"})
        if (r.has(key(bucket)))
            r.warn(key(bucket), "communication buckets and prefetch sizes are not modelled (two gathered layers are counted)");
    if (r.flag(key("zero_optimization.overlap_comm")).value_or(false))
        r.warn(key("zero_optimization.overlap_comm"), "overlap_comm keeps about 4.5x the bucket sizes in flight; not modelled");
    if (r.flag(key("zero_optimization.zero_quantized_weights")).value_or(false) ||
        r.flag(key("zero_optimization.zero_quantized_nontrainable_weights")).value_or(false))
        r.warn(key("zero_optimization"), "ZeRO quantized weights are not modelled");
    auto enabled = [&](const std::string &path) {
        return isAuto(r.find(path)) || r.flag(path).value_or(false);
    };
    const bool bf16 = enabled(key("bf16.enabled"));
    const bool fp16 = !bf16 && enabled(key("fp16.enabled"));
    if (bf16 || fp16) {
        const std::string compute = bf16 ? "bf16" : "fp16";
        r.set("precision.compute", compute, key(bf16 ? "bf16.enabled" : "fp16.enabled"));
        r.set("precision.weights", compute, "(DeepSpeed keeps 16-bit model weights)");
        r.set("train.master_weights", true, "(DeepSpeed's optimizer keeps fp32 master weights)");
        if (isAuto(r.find(key(bf16 ? "bf16.enabled" : "fp16.enabled"))))
            r.defaulted(compute + ": \"auto\" follows the Trainer's bf16/fp16 flag");
    }
    if (const json *micro = r.find(key("train_micro_batch_size_per_gpu")); micro && !isAuto(micro))
        r.set("train.micro_batch", *r.count(key("train_micro_batch_size_per_gpu"), 1, 1 << 20),
              key("train_micro_batch_size_per_gpu"));
    if (const json *accum = r.find(key("gradient_accumulation_steps")); accum && !isAuto(accum))
        r.set("train.grad_accum", *r.count(key("gradient_accumulation_steps"), 1, 1'000'000),
              key("gradient_accumulation_steps"));
    // AutoTP (deepspeed/runtime/tensor_parallel): weights sharded over autotp_size ranks.
    if (const auto autotp = r.count(key("tensor_parallel.autotp_size"), 1, 65536); autotp && *autotp > 1)
        r.set("parallel.tensor", *autotp, key("tensor_parallel.autotp_size"));
    // The world size DeepSpeed checks: train_batch_size = micro x accumulation x GPUs.
    const json *total = r.find(key("train_batch_size"));
    if (total && !isAuto(total)) {
        const std::int64_t batch = *r.count(key("train_batch_size"), 1, 1 << 30);
        const json *micro = r.find(key("train_micro_batch_size_per_gpu"));
        const json *accum = r.find(key("gradient_accumulation_steps"));
        if (micro && !isAuto(micro) && accum && !isAuto(accum)) {
            const std::int64_t perStep = *r.count(key("train_micro_batch_size_per_gpu"), 1, 1 << 20) *
                                         *r.count(key("gradient_accumulation_steps"), 1, 1'000'000);
            if (batch % perStep != 0)
                r.fail(key("train_batch_size"), std::to_string(batch) + " is not micro-batch x accumulation (" +
                                                    std::to_string(perStep) + ") x a number of GPUs");
            r.set("parallel.gpus", batch / perStep,
                  key("train_batch_size") + " / (train_micro_batch_size_per_gpu x gradient_accumulation_steps)");
        }
    }
    if (const auto type = r.text(key("optimizer.type"))) {
        if (*type != "AdamW" && *type != "Adam" && *type != "adamw" && *type != "adam")
            r.warn(key("optimizer.type"), "optimizer " + quotedText(*type) + " is not modelled; AdamW assumed");
    }
    if (r.flag(key("activation_checkpointing.cpu_checkpointing")).value_or(false)) {
        r.set("train.offload_activations", true, key("activation_checkpointing.cpu_checkpointing"));
        r.warn(key("activation_checkpointing.cpu_checkpointing"),
               "applies only to models that checkpoint with deepspeed.checkpointing (Megatron-style); "
               "Hugging Face models use torch.utils.checkpoint");
    }
    if (r.flag(key("activation_checkpointing.partition_activations")).value_or(false))
        r.warn(key("activation_checkpointing.partition_activations"), "partitioned checkpoints across model-parallel ranks are not modelled");
    r.noEffect({key("optimizer.params"), key("scheduler"), key("gradient_clipping"), key("steps_per_print"),
                key("wall_clock_breakdown"), key("fp16.loss_scale"),
                key("fp16.loss_scale_window"), key("fp16.initial_scale_power"), key("fp16.hysteresis"),
                key("fp16.min_loss_scale"), key("fp16.auto_cast"), key("zero_optimization.contiguous_gradients"),
                key("zero_optimization.reduce_scatter"), key("zero_optimization.round_robin_gradients"),
                key("zero_optimization.allgather_partitions"),
                key("zero_optimization.stage3_gather_16bit_weights_on_model_save"),
                key("zero_optimization.stage3_gather_fp16_weights_on_model_save"), key("zero_allow_untested_optimizer"),
                key("activation_checkpointing.contiguous_memory_optimization"),
                key("activation_checkpointing.number_checkpoints"), key("activation_checkpointing.synchronize_checkpoint_boundary"),
                key("activation_checkpointing.profile"), key("communication_data_type"), key("prescale_gradients"),
                key("gradient_predivide_factor"), key("zero_force_ds_cpu_optimizer"), key("flops_profiler"),
                key("tensorboard"), key("wandb"), key("csv_monitor"), key("comms_logger"), key("_comment")});
    if (!within)
        r.finish();
}

void importAccelerate(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    r.set("framework", json{{"name", "accelerate"}}, "(Accelerate config)");
    const std::string type = r.text("distributed_type").value_or("NO");
    // num_processes is the count the file states; 1 with a distributed type is one GPU (FSDP or
    // DeepSpeed on one device), never "ask for the count".
    if (const auto processes = r.count("num_processes", 1, 65536); processes && (*processes > 1 || type != "NO"))
        r.set("parallel.gpus", *processes, "num_processes");
    if (const auto precision = r.text("mixed_precision")) {
        if (*precision == "bf16" || *precision == "fp16") {
            r.set("precision.compute", *precision, "mixed_precision");
            r.set("precision.weights", "fp32", "mixed_precision (Accelerate autocasts an fp32 model)");
        } else if (*precision == "no") {
            r.set("precision.compute", "fp32", "mixed_precision no");
            r.set("precision.weights", "fp32", "mixed_precision no");
        } else {
            r.warn("mixed_precision", quotedText(*precision) + " is not modelled (fp8 via Transformer Engine / MS-AMP)");
        }
    }
    if (type == "FSDP") {
        const std::int64_t version = r.count("fsdp_config.fsdp_version", 1, 2).value_or(1);
        std::string strategy = "fsdp";
        if (const auto sharding = r.text("fsdp_config.fsdp_sharding_strategy")) {
            if (*sharding == "SHARD_GRAD_OP" || *sharding == "2")
                strategy = "zero2";
            else if (*sharding == "NO_SHARD" || *sharding == "3")
                strategy = "ddp";
            else if (*sharding == "HYBRID_SHARD" || *sharding == "HYBRID_SHARD_ZERO2" || *sharding == "4")
                r.warn("fsdp_config.fsdp_sharding_strategy", "hybrid sharding shards within a node only; modelled as full sharding");
        }
        // FSDP2 takes a boolean; FSDP1 configs also write a sharding strategy's name here.
        if (const json *reshard = r.find("fsdp_config.fsdp_reshard_after_forward"); reshard && reshard->is_string()) {
            const std::string name = reshard->get<std::string>();
            if (name == "SHARD_GRAD_OP")
                strategy = "zero2";
            else if (name == "NO_SHARD")
                strategy = "ddp";
            else if (name == "false" || name == "False")
                strategy = "zero2";
            else if (name != "FULL_SHARD" && name != "HYBRID_SHARD" && name != "HYBRID_SHARD_ZERO2" && name != "true" &&
                     name != "True")
                r.fail("fsdp_config.fsdp_reshard_after_forward",
                       "must be true, false or a sharding strategy (FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, "
                       "HYBRID_SHARD; got " + quotedText(name) + ")");
        } else if (r.flag("fsdp_config.fsdp_reshard_after_forward") == false) {
            strategy = "zero2";
        }
        r.set("parallel.strategy", strategy, "distributed_type FSDP, fsdp_sharding_strategy");
        const bool origParams = r.flag("fsdp_config.fsdp_use_orig_params").value_or(false);
        r.set("parallel.flat_params", version == 1 && origParams,
              "fsdp_version " + std::to_string(version) + ", fsdp_use_orig_params");
        if (r.flag("fsdp_config.fsdp_offload_params").value_or(false)) {
            r.set("parallel.offload_params", true, "fsdp_config.fsdp_offload_params");
            r.set("parallel.offload_optimizer", true, "fsdp_config.fsdp_offload_params (FSDP's CPU offload steps on the CPU)");
        }
        if (const auto ac = r.flag("fsdp_config.fsdp_activation_checkpointing"))
            r.set("train.gradient_checkpointing", *ac ? "full" : "none", "fsdp_config.fsdp_activation_checkpointing");
        if (const auto policy = r.text("fsdp_config.fsdp_auto_wrap_policy"); policy && *policy != "TRANSFORMER_BASED_WRAP")
            r.warn("fsdp_config.fsdp_auto_wrap_policy", "only wrapping per transformer block is modelled");
        if (r.flag("fsdp_config.fsdp_forward_prefetch").value_or(false))
            r.warn("fsdp_config.fsdp_forward_prefetch", "an extra prefetched layer in forward is not modelled");
        r.noEffect({"fsdp_config.fsdp_backward_prefetch", "fsdp_config.fsdp_cpu_ram_efficient_loading",
                    "fsdp_config.fsdp_state_dict_type", "fsdp_config.fsdp_sync_module_states",
                    "fsdp_config.fsdp_transformer_layer_cls_to_wrap", "fsdp_config.fsdp_min_num_params"});
    } else if (type == "DEEPSPEED") {
        // With a deepspeed_config_file the stage is that file's (read as a further file); else
        // zero_stage (Accelerate's default 2).
        const auto configFile = r.text("deepspeed_config.deepspeed_config_file");
        if (configFile && !configFile->empty() && *configFile != "none") {
            out.references.push_back({"deepspeed_config.deepspeed_config_file", *configFile});
        } else {
            const std::int64_t stage = r.count("deepspeed_config.zero_stage", 0, 3).value_or(2);
            static const char *strategies[] = {"ddp", "zero1", "zero2", "zero3"};
            r.set("parallel.strategy", strategies[stage], r.has("deepspeed_config.zero_stage")
                                                             ? "deepspeed_config.zero_stage"
                                                             : "deepspeed_config.zero_stage absent: Accelerate's default 2");
        }
        r.set("framework", json{{"name", "deepspeed"}}, "distributed_type DEEPSPEED");
        if (const auto device = r.text("deepspeed_config.offload_optimizer_device"); device && *device != "none")
            r.set("parallel.offload_optimizer", true, "deepspeed_config.offload_optimizer_device");
        if (const auto device = r.text("deepspeed_config.offload_param_device"); device && *device != "none")
            r.set("parallel.offload_params", true, "deepspeed_config.offload_param_device");
        if (const auto accum = r.count("deepspeed_config.gradient_accumulation_steps", 1, 1'000'000))
            r.set("train.grad_accum", *accum, "deepspeed_config.gradient_accumulation_steps");
        r.noEffect({"deepspeed_config.zero3_init_flag", "deepspeed_config.zero3_save_16bit_model",
                    "deepspeed_config.deepspeed_multinode_launcher"});
    } else if (type == "MULTI_GPU") {
        r.set("parallel.strategy", "ddp", "distributed_type MULTI_GPU");
    } else if (type != "NO") {
        r.warn("distributed_type", quotedText(type) + " is not modelled");
    }
    // ParallelismConfig (accelerate/parallelism_config.py): dp_replicate x dp_shard x tp x cp
    // (x sp) processes.
    if (const json *pc = r.find("parallelism_config"); pc && pc->is_object()) {
        const auto size = [&](const char *name) {
            return r.count(std::string("parallelism_config.parallelism_config_") + name, 1, 65536).value_or(1);
        };
        const std::int64_t replicate = size("dp_replicate_size"), shard = size("dp_shard_size"), tp = size("tp_size"),
                           cp = size("cp_size"), sp = size("sp_size");
        if (tp > 1)
            r.set("parallel.tensor", tp, "parallelism_config_tp_size");
        if (cp > 1)
            r.set("parallel.context", cp, "parallelism_config_cp_size");
        if (replicate > 1)
            r.warn("parallelism_config.parallelism_config_dp_replicate_size",
                   "HSDP (replicas of shard groups) is modelled as sharding over every data-parallel rank");
        if (sp > 1)
            r.warn("parallelism_config.parallelism_config_sp_size",
                   "Ulysses sequence parallelism is not modelled (each GPU counted with the whole sequence)");
        const std::int64_t product = replicate * shard * tp * cp * sp;
        if (const auto processes = r.count("num_processes", 1, 65536); processes && *processes != product)
            r.fail("parallelism_config", "dp_replicate x dp_shard x tp x cp x sp = " + std::to_string(product) +
                                             ", not num_processes " + std::to_string(*processes));
        r.noEffect({"parallelism_config.parallelism_config_sp_backend", "parallelism_config.parallelism_config_sp_seq_length_is_variable",
                    "parallelism_config.parallelism_config_sp_attn_implementation",
                    "parallelism_config.parallelism_config_cp_comm_strategy", "parallelism_config.parallelism_config_cp_backend"});
    }
    r.noEffect({"compute_environment", "debug", "downcast_bf16", "enable_cpu_affinity", "gpu_ids", "machine_rank",
                "main_process_ip", "main_process_port", "main_training_function", "num_machines", "rdzv_backend",
                "same_network", "tpu_env", "tpu_use_cluster", "tpu_use_sudo", "use_cpu", "dynamo_config"});
    r.finish();
}

} // namespace headroom::importers
