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
    // The preference losses of the DPO recipes (torchtune/rlhf/loss): pairs, with the
    // reference the recipe keeps (LoRA: adapters disabled; full: a frozen copy).
    if (component->find("rlhf") != std::string::npos || name == "DPOLoss" || name == "RSOLoss" || name == "SimPOLoss") {
        if (name == "SimPOLoss")
            r.set("train.objective", "preference", "loss._component_ SimPOLoss (reference-free)");
        else if (name == "DPOLoss" || name == "RSOLoss" || name == "IPOLoss")
            r.set("train.objective", "dpo", "loss._component_ " + name + " (a frozen reference)");
        else
            r.fail("loss._component_", "preference loss " + quotedText(name) + " is not modelled (DPOLoss, RSOLoss, SimPOLoss are)");
        r.noEffect({"loss.beta", "loss.label_smoothing", "loss.gamma"});
        return;
    }
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

/// knowledge_distillation_{single_device,distributed}: teacher_model (a builder of the catalog),
/// kd_loss (the forward KL of kd_losses.py) and kd_ratio; the teacher's dtype is the recipe's.
void readDistillation(ConfigReader &r)
{
    const auto component = r.text("teacher_model._component_");
    if (!component)
        r.fail("teacher_model._component_", "is required by the knowledge-distillation recipes (the teacher's builder)");
    const ModelPreset *teacher = findModelReference(*component);
    if (!teacher)
        r.fail("teacher_model._component_", quotedText(*component) + " is not a model of the catalog");
    r.set("train.objective", "distillation", "teacher_model, kd_loss (knowledge_distillation recipe)");
    r.set("train.distillation.teacher", json{{"preset", teacher->id}}, "teacher_model._component_");
    const std::string loss = r.text("kd_loss._component_").value_or("");
    if (loss.empty())
        r.fail("kd_loss._component_", "is required by the knowledge-distillation recipes");
    const std::string name = lastPart(loss);
    if (name != "ForwardKLWithChunkedOutputLoss" && name != "ForwardKLLoss")
        r.fail("kd_loss._component_", quotedText(name) + " is not modelled (ForwardKLWithChunkedOutputLoss is: "
                                                          "the reverse and symmetric KL keep more fp32 copies)");
    if (const auto chunks = r.count("kd_loss.num_output_chunks", 1, 1024))
        r.set("train.distillation.chunks", *chunks, "kd_loss.num_output_chunks");
    else
        r.set("train.distillation.chunks", name == "ForwardKLLoss" ? 1 : 8,
              name == "ForwardKLLoss" ? "kd_loss ForwardKLLoss (the whole logits at once)"
                                      : "kd_loss.num_output_chunks absent: the loss's default 8");
    r.set("train.distillation.kd_ratio", r.number("kd_ratio", 0, 1).value_or(0.5),
          r.has("kd_ratio") ? "kd_ratio" : "kd_ratio absent: the recipe's default 0.5");
    r.noEffect({"teacher_checkpointer", "kd_loss.ignore_index"});
}

/// Configs of torchtune recipes that are not the fine-tuning recipes read here: refused naming
/// what they are (a generation config estimated as a full fine-tune with AdamW would be four
/// times its real need).
void refuseOtherRecipes(const json &tree, const TorchtuneLaunch &launch, const std::string &file)
{
    auto has = [&](const char *key) { return tree.contains(key) && !tree[key].is_null(); };
    auto refuse = [&](const std::string &what, const std::string &advice) {
        throw TrainConfigError(file, "", "this is a torchtune " + what +
                                             (launch.recipe.empty() ? "" : " (recipe " + launch.recipe + ")") +
                                             ", not a fine-tuning recipe Headroom reads" +
                                             (advice.empty() ? "" : ": " + advice));
    };
    const std::string recipe = launch.recipe;
    auto recipeHas = [&](const char *part) { return recipe.find(part) != std::string::npos; };
    if (has("policy_model") || has("reward_and_value_model") || has("ref_policy_model") || recipeHas("ppo"))
        refuse("PPO config (policy, reference, reward and value models)", "");
    if (recipeHas("grpo") || has("num_generations") || has("grpo_samples"))
        refuse("GRPO config (online RL with generation)", "");
    const bool trains = has("optimizer") || has("loss");
    if (!trains && (has("max_new_tokens") || has("prompt") || recipeHas("generate")))
        refuse("generation config", "estimate inference with a scenario of task inference");
    if (!trains && (has("tasks") || recipeHas("eval")))
        refuse("evaluation config", "estimate inference with a scenario of task inference");
    if (!trains && has("quantizer"))
        refuse("quantization config (post-training quantization of a checkpoint)", "");
    if (recipeHas("qat") || (trains && has("quantizer") && tree["quantizer"].is_object()))
        refuse("quantization-aware training config (fake-quantized weights and activations are not modelled)", "");
}

} // namespace

TorchtuneLaunch torchtuneLaunch(std::string_view text)
{
    // The first comment line of the header that runs `tune run`.
    TorchtuneLaunch launch;
    std::size_t start = 0;
    for (int lines = 0; start < text.size() && lines < 200; ++lines) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        const std::size_t hash = line.find_first_not_of(" \t");
        if (hash == std::string_view::npos || line[hash] != '#')
            continue;
        const std::size_t run = line.find("tune run ");
        if (run == std::string_view::npos)
            continue;
        std::vector<std::string> words;
        std::size_t at = run + 9;
        while (at < line.size() && words.size() < 16) {
            const std::size_t begin = line.find_first_not_of(" \t", at);
            if (begin == std::string_view::npos)
                break;
            std::size_t stop = line.find_first_of(" \t", begin);
            if (stop == std::string_view::npos)
                stop = line.size();
            words.emplace_back(line.substr(begin, stop - begin));
            at = stop;
        }
        for (std::size_t i = 0; i < words.size(); ++i) {
            std::string word = words[i];
            std::string value;
            if (const auto eq = word.find('='); word.starts_with("--") && eq != std::string::npos) {
                value = word.substr(eq + 1);
                word.erase(eq);
            } else if (word.starts_with("--") && i + 1 < words.size()) {
                value = words[++i];
            }
            if (word.starts_with("--")) {
                std::int64_t number = 0;
                for (char c : value)
                    number = (c >= '0' && c <= '9' && number < 100000) ? number * 10 + (c - '0') : -1;
                if (value.empty() || number <= 0)
                    continue;
                if (word == "--nproc_per_node" || word == "--nproc-per-node")
                    launch.processes = number;
                else if (word == "--nnodes")
                    launch.nodes = number;
                continue;
            }
            launch.recipe = word.substr(0, 80);
            break;
        }
        launch.line = std::string(line.substr(run, 120));
        return launch;
    }
    return launch;
}

void importTorchtune(const json &tree, TrainImport &out, const TorchtuneLaunch &launch)
{
    refuseOtherRecipes(tree, launch, out.file);
    ConfigReader r(tree, out);
    r.set("framework", json{{"name", "torchtune"}}, "(torchtune recipe config)");
    readModel(r);
    if (tree.contains("teacher_model") || tree.contains("kd_loss"))
        readDistillation(r);
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
        // KDRecipe*._setup_teacher_model builds the teacher under training.set_default_dtype(self._dtype).
        if (out.scenario.contains("train") && out.scenario["train"].contains("distillation"))
            r.set("train.distillation.teacher_dtype", name, "dtype (the teacher is loaded in the recipe's dtype)");
    } else {
        r.defaulted("precision: dtype is not in the config; torchtune recipes default to bf16");
    }
    // Distributed recipes: FSDP2 over the GPUs `tune run --nproc_per_node` starts.
    const bool cpuOffload = r.flag("fsdp_cpu_offload").value_or(false);
    const bool distributed = cpuOffload || r.has("custom_sharded_layers") || r.has("fsdp_reshard_after_forward") ||
                             r.has("memory_efficient_fsdp_wrap") || r.has("fsdp_sharding_strategy");
    // The recipe the file's own launch line runs: a *_distributed recipe shards with FSDP2 over
    // the processes that line starts (--nproc_per_node x --nnodes).
    const bool distributedRecipe = launch.recipe.find("distributed") != std::string::npos;
    const bool singleRecipe = launch.recipe.find("single_device") != std::string::npos;
    if (singleRecipe && (r.has("tensor_parallel_dim") || r.has("data_parallel_shard_dim")))
        r.fail("tensor_parallel_dim", "a parallelism key in a config for the single-device recipe " + launch.recipe);
    if (distributed || distributedRecipe) {
        r.set("parallel.strategy", "fsdp",
              distributedRecipe ? "the file's launch line (" + launch.line + ")" : "fsdp_* keys (a distributed recipe)");
        if (distributedRecipe && launch.processes > 0) {
            const std::int64_t nodes = launch.nodes > 0 ? launch.nodes : 1;
            r.set("parallel.gpus", launch.processes * nodes,
                  "--nproc_per_node" + std::string(nodes > 1 ? " x --nnodes" : "") + " of the file's launch line");
        }
    } else if (launch.recipe.empty()) {
        r.warn("(recipe)", "the file names no recipe (no `tune run` line): read as a single-device recipe; "
                           "give the GPU count for a distributed one");
    }
    if (const auto tp = r.count("tensor_parallel_dim", 1, 65536); tp && *tp > 1)
        r.set("parallel.tensor", *tp, "tensor_parallel_dim");
    if (const auto replicate = r.count("data_parallel_replicate_dim", 1, 65536); replicate && *replicate > 1)
        r.warn("data_parallel_replicate_dim", "hybrid sharding (replicas of shard groups) is modelled as sharding over every data-parallel rank");
    if (const json *shard = r.find("data_parallel_shard_dim"); shard && !(shard->is_number_integer() && shard->get<std::int64_t>() == -1))
        r.count("data_parallel_shard_dim", 1, 65536);
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
