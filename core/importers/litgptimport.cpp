// SPDX-License-Identifier: GPL-3.0-or-later
// LitGPT configs (config_hub/finetune/*/*.yaml, pretrain configs) and their CLI flags, as
// litgpt/finetune/lora.py, full.py and pretrain.py read them (see docs/frameworks.md).
#include "importers/configreader.h"

#include <set>

namespace headroom::importers {

namespace {

/// precision string -> (weights, compute).
bool precisionDtypes(const std::string &precision, std::string &weights, std::string &compute)
{
    struct Row { const char *name; const char *weights; const char *compute; };
    static const Row rows[] = {{"bf16-true", "bf16", "bf16"}, {"bf16-mixed", "fp32", "bf16"},
                               {"16-true", "fp16", "fp16"},   {"16-mixed", "fp32", "fp16"},
                               {"32-true", "fp32", "fp32"},   {"32", "fp32", "fp32"},
                               {"bf16", "fp32", "bf16"},      {"16", "fp32", "fp16"}};
    for (const Row &row : rows)
        if (precision == row.name) {
            weights = row.weights;
            compute = row.compute;
            return true;
        }
    return false;
}

/// model_config: a litgpt.Config written out (litgpt/config.py; pretrain.py uses it instead of
/// model_name), mapped onto the scenario's model keys with Config's own defaults. A key that
/// changes the architecture beyond what is mapped is refused, naming it.
void readModelConfig(ConfigReader &r, const json &config)
{
    // Keys that shape no parameter and no saved tensor Headroom counts differently.
    static const std::set<std::string> inert = {
        "name", "hf_config", "norm_eps", "parallel_residual", "rope_base", "rotary_percentage",
        "rope_condense_ratio", "rope_adjustments", "rope_interleave", "scale_embeddings", "gelu_approximate",
        "routed_scaling_factor", "norm_topk_prob", "attention_scores_scalar"};
    static const std::set<std::string> mapped = {
        "block_size", "n_layer", "n_embd", "vocab_size", "padding_multiple", "padded_vocab_size",
        "norm_class_name", "n_head", "head_size", "n_query_groups", "attn_bias", "bias", "intermediate_size",
        "moe_intermediate_size", "mlp_class_name", "n_expert", "n_expert_per_token", "shared_attention_norm",
        "post_attention_norm", "post_mlp_norm", "norm_1", "norm_2"};
    for (const auto &[key, value] : config.items()) {
        if (inert.count(key) || mapped.count(key))
            continue;
        // Features at their Config defaults (off) are fine; anything else is not modelled.
        const bool off = value.is_null() || (value.is_boolean() && !value.get<bool>());
        if (!off)
            r.fail("model_config." + key, "is not modelled in a LitGPT model_config (the mapped keys are the "
                                          "sizes, norms, biases and MLP classes)");
        r.find("model_config." + key);
    }
    for (const std::string &key : inert)
        r.find("model_config." + key);
    auto count = [&](const char *key, std::int64_t fallback) {
        return r.count(std::string("model_config.") + key, 1, 1 << 24).value_or(fallback);
    };
    auto flag = [&](const char *key, bool fallback) {
        return r.flag(std::string("model_config.") + key).value_or(fallback);
    };
    const std::int64_t layers = count("n_layer", 16), hidden = count("n_embd", 4096), heads = count("n_head", 32);
    const std::int64_t headSize = count("head_size", hidden / heads);
    if (!r.has("model_config.head_size") && hidden % heads != 0)
        r.fail("model_config.n_head", "must divide n_embd when head_size is not given (Config.__post_init__)");
    const std::int64_t groups = count("n_query_groups", heads);
    if (heads % groups != 0)
        r.fail("model_config.n_query_groups", "must divide n_head (Config.__post_init__)");
    // Config.__post_init__: padded_vocab_size = find_multiple(vocab_size, padding_multiple).
    const std::int64_t multiple = count("padding_multiple", 512);
    const std::int64_t vocab = count("padded_vocab_size", (count("vocab_size", 50254) + multiple - 1) / multiple * multiple);
    const std::string mlp = r.text("model_config.mlp_class_name").value_or("GptNeoxMLP");
    if (mlp != "GptNeoxMLP" && mlp != "LLaMAMLP" && mlp != "GemmaMLP" && mlp != "LLaMAMoE")
        r.fail("model_config.mlp_class_name", "must be GptNeoxMLP, LLaMAMLP, GemmaMLP or LLaMAMoE (got " + quotedText(mlp) + ")");
    if (mlp != "GptNeoxMLP" && !r.has("model_config.intermediate_size"))
        r.fail("model_config.intermediate_size", "is required with " + mlp + " (Config.__post_init__)");
    const std::int64_t intermediate = count("intermediate_size", 4 * hidden);
    const std::string norm = r.text("model_config.norm_class_name").value_or("LayerNorm");
    if (norm != "LayerNorm" && norm != "RMSNorm")
        r.fail("model_config.norm_class_name", "must be LayerNorm or RMSNorm (got " + quotedText(norm) + ")");
    // Block: norm_1, norm_2 (absent when shared_attention_norm), post-attention and post-MLP norms.
    const int norms = int(flag("norm_1", true)) + int(flag("norm_2", true) && !flag("shared_attention_norm", false)) +
                      int(flag("post_attention_norm", false)) + int(flag("post_mlp_norm", false));
    json model = {{"layers", layers}, {"hidden", hidden}, {"heads", heads}, {"kv_heads", groups},
                  {"head_dim", headSize}, {"intermediate", intermediate}, {"vocab", vocab},
                  {"max_positions", count("block_size", 4096)}, {"position", "rope"},
                  {"norm", norm == "RMSNorm" ? "rmsnorm" : "layernorm"}, {"norms_per_layer", norms},
                  {"mlp", mlp == "GptNeoxMLP" ? "standard" : "gated"},
                  {"bias", flag("bias", true) ? "all" : flag("attn_bias", false) ? "qkv" : "none"},
                  {"tied_embeddings", r.flag("train.tie_embeddings").value_or(false)}};
    const std::string approximate = config.value("gelu_approximate", std::string("none"));
    model["activation"] = mlp == "LLaMAMLP" || mlp == "LLaMAMoE" ? "silu" : approximate == "tanh" || mlp == "GemmaMLP" ? "gelu_tanh" : "gelu";
    if (mlp == "LLaMAMoE") {
        model["experts"] = count("n_expert", 1);
        model["experts_per_token"] = count("n_expert_per_token", 1);
        model["expert_intermediate"] = count("moe_intermediate_size", intermediate);
    } else {
        for (const char *key : {"n_expert", "n_expert_per_token", "moe_intermediate_size"})
            r.find(std::string("model_config.") + key); // only LLaMAMoE builds experts
    }
    r.set("model", model, "model_config (a litgpt.Config: the model pretrain.py builds)");
}

} // namespace

void importLitgpt(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    r.set("framework", json{{"name", "litgpt"}}, "(LitGPT config)");
    if (const json *config = r.find("model_config"); config && config->is_object() && !config->empty()) {
        readModelConfig(r, *config);
        r.find("model_name"); // pretrain.py: model_config, when given, instead of model_name
    } else if (const auto checkpoint = r.text("checkpoint_dir")) {
        out.model = *checkpoint;
    } else if (const auto name = r.text("model_name")) {
        out.model = *name;
    }

    std::string weights = "fp32", compute = "bf16";
    if (const auto precision = r.text("precision")) {
        if (!precisionDtypes(*precision, weights, compute))
            r.fail("precision", "must be one of bf16-true, bf16-mixed, 16-true, 16-mixed, 32-true (got " + quotedText(*precision) + ")");
    } else {
        r.defaulted("precision = bf16-mixed (LitGPT's default where bf16 is supported: fp32 weights, bf16 autocast)");
    }
    const bool lora = tree.contains("lora_r") || tree.contains("lora_query") || tree.contains("lora_mlp");
    std::string method = lora ? "lora" : "full";
    if (const auto quantize = r.text("quantize")) {
        struct Row { const char *name; const char *weights; bool dq; };
        static const Row rows[] = {{"bnb.nf4", "nf4", false}, {"bnb.nf4-dq", "nf4", true},
                                   {"bnb.fp4", "fp4", false}, {"bnb.fp4-dq", "fp4", true},
                                   {"bnb.int8-training", "int8", false}, {"bnb.int8", "int8", false}};
        const Row *row = nullptr;
        for (const Row &candidate : rows)
            if (*quantize == candidate.name)
                row = &candidate;
        if (!row)
            r.fail("quantize", "must be one of bnb.nf4, bnb.nf4-dq, bnb.fp4, bnb.fp4-dq, bnb.int8-training (got " + quotedText(*quantize) + ")");
        if (!lora)
            r.fail("quantize", "LitGPT quantizes only for LoRA fine-tuning");
        if (weights == "fp32")
            r.fail("quantize", "LitGPT refuses quantization with mixed precision (\"Quantization and mixed precision is not supported\"); use a -true precision");
        weights = row->weights;
        method = std::string(row->weights) == "int8" ? "lora" : "qlora";
        r.set("precision.double_quant", row->dq, "quantize");
    }
    r.set("train.method", method, lora ? "lora_* keys" : "(no lora_* keys: full fine-tuning)");
    r.set("precision.weights", weights, "precision / quantize");
    r.set("precision.compute", compute, "precision");

    if (lora) {
        if (const auto rank = r.count("lora_r", 1, 65536))
            r.set("train.lora.rank", *rank, "lora_r");
        if (const auto dropout = r.number("lora_dropout", 0, 0.999))
            r.set("train.lora.dropout", *dropout, "lora_dropout");
        struct Flag { const char *key; std::vector<std::string> targets; bool fallback; };
        const Flag flags[] = {{"lora_query", {"q"}, true},          {"lora_key", {"k"}, false},
                              {"lora_value", {"v"}, true},          {"lora_projection", {"o"}, false},
                              {"lora_mlp", {"gate", "up", "down"}, false}, {"lora_head", {"lm_head"}, false}};
        std::vector<std::string> targets;
        for (const Flag &flag : flags)
            if (r.flag(flag.key).value_or(flag.fallback))
                targets.insert(targets.end(), flag.targets.begin(), flag.targets.end());
        if (targets.empty())
            r.fail("lora_query", "no LoRA target is enabled (lora_query, lora_key, lora_value, lora_projection, lora_mlp, lora_head)");
        r.set("train.lora.targets", targets, "lora_query ... lora_head");
        r.noEffect({"lora_alpha"});
    }

    std::int64_t devices = 1;
    if (const json *value = r.find("devices")) {
        if (value->is_number_integer() && value->get<std::int64_t>() >= 1 && value->get<std::int64_t>() <= 65536)
            devices = value->get<std::int64_t>();
        else if (value->is_string() && (value->get<std::string>() == "auto" || value->get<std::string>() == "-1"))
            r.fail("devices", "\"auto\" uses every GPU of the machine, a count the file does not say: give it "
                              "(--train-arg --devices=N)");
        else
            r.fail("devices", "must be a number of GPUs or \"auto\"");
    }
    const std::int64_t nodes = r.count("num_nodes", 1, 65536).value_or(1);
    const std::int64_t gpus = devices * nodes;
    if (gpus > 1) {
        r.set("parallel.gpus", gpus, "devices x num_nodes");
        const std::string strategy = r.text("strategy").value_or("fsdp");
        if (strategy == "ddp")
            r.set("parallel.strategy", "ddp", "strategy");
        else
            r.set("parallel.strategy", "fsdp", "devices > 1 (LitGPT's scripts use FSDPStrategy)");
    }
    const std::int64_t micro = r.count("train.micro_batch_size", 1, 1 << 20).value_or(4);
    if (!tree.contains("train") || !tree["train"].contains("micro_batch_size"))
        r.defaulted("train.micro_batch = 4 (litgpt TrainArgs.micro_batch_size)");
    r.set("train.micro_batch", micro, "train.micro_batch_size");
    if (const auto global = r.count("train.global_batch_size", 1, 1 << 30)) {
        // litgpt/args.py TrainArgs: batch_size = global_batch_size // (devices * num_nodes) and
        // gradient_accumulation_iters = batch_size // micro_batch_size, each asserted above 0:
        // a smaller global batch stops LitGPT, it is not one accumulation step.
        const std::int64_t perRank = *global / gpus;
        const std::int64_t accumulation = perRank / micro;
        if (accumulation < 1)
            r.fail("train.global_batch_size",
                   std::to_string(*global) + " is smaller than micro_batch_size x devices x num_nodes (" +
                       std::to_string(micro * gpus) + "): LitGPT stops with gradient_accumulation_iters 0");
        r.set("train.grad_accum", accumulation, "train.global_batch_size // (devices x num_nodes) // micro_batch_size");
    }
    if (const auto seq = r.count("train.max_seq_length", 1, 16 * 1024 * 1024)) {
        r.set("train.seq_len", *seq, "train.max_seq_length (batches are padded to their longest sample, up to it)");
    } else {
        r.warn("train.max_seq_length", "null: the sequence length is the longest sample of the data; set train.seq_len");
    }
    if (const auto optimizer = r.find("optimizer")) {
        std::string name = optimizer->is_string() ? optimizer->get<std::string>()
                           : optimizer->is_object() ? r.text("optimizer.class_path").value_or("") : "";
        if (name.find("AdamW") == std::string::npos && name.find("Adam") == std::string::npos)
            r.warn("optimizer", "optimizer " + quotedText(name) + " is not modelled; the framework's AdamW is assumed");
    }
    r.noEffect({"out_dir", "data", "train.save_interval", "train.log_interval", "train.lr_warmup_steps",
                "train.lr_warmup_fraction", "train.epochs", "train.max_tokens", "train.max_steps",
                "train.learning_rate", "train.weight_decay", "train.beta1", "train.beta2",
                "train.max_norm", "train.min_lr", "eval", "logger_name", "seed", "access_token", "tokenizer_dir",
                "resume", "initial_checkpoint_dir", "model_config"});
    if (r.flag("train.tie_embeddings").value_or(false) && !out.scenario.contains("model"))
        r.warn("train.tie_embeddings", "true ties wte to lm_head; the named model is counted as its preset ties it");
    r.finish();
}

} // namespace headroom::importers
