// SPDX-License-Identifier: GPL-3.0-or-later
// LitGPT configs (config_hub/finetune/*/*.yaml, pretrain configs) and their CLI flags, as
// litgpt/finetune/lora.py, full.py and pretrain.py read them (see docs/frameworks.md).
#include "importers/configreader.h"

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

} // namespace

void importLitgpt(const json &tree, TrainImport &out)
{
    ConfigReader r(tree, out);
    r.set("framework", json{{"name", "litgpt"}}, "(LitGPT config)");
    if (const auto checkpoint = r.text("checkpoint_dir"))
        out.model = *checkpoint;
    else if (const auto name = r.text("model_name"))
        out.model = *name;

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
                "train.tie_embeddings", "train.learning_rate", "train.weight_decay", "train.beta1", "train.beta2",
                "train.max_norm", "train.min_lr", "eval", "logger_name", "seed", "access_token", "tokenizer_dir",
                "resume", "initial_checkpoint_dir", "model_config"});
    r.finish();
}

} // namespace headroom::importers
