// SPDX-License-Identifier: GPL-3.0-or-later
// Which framework wrote a configuration file, told by its keys (never by its name or by a guess):
// the formats Headroom reads, the formats it recognises and refuses by name (TRL's GKD
// configs, LLaMA-Factory's v1 configs), and everything
// else refused with the list of formats it reads.
#include "importers/configreader.h"

namespace headroom::importers {

namespace {

bool hasAny(const json &tree, std::initializer_list<const char *> keys)
{
    for (const char *key : keys)
        if (tree.contains(key))
            return true;
    return false;
}

bool isObject(const json &tree, const char *key) { return tree.contains(key) && tree[key].is_object(); }

bool objectHasAny(const json &tree, const char *key, std::initializer_list<const char *> keys)
{
    return isObject(tree, key) && hasAny(tree[key], keys);
}

/// A top-level value that is a torchtune component ({"_component_": "torchtune.models..."}).
bool hasComponent(const json &tree)
{
    for (const auto &item : tree.items())
        if (item.value().is_object() && item.value().contains("_component_"))
            return true;
    return false;
}

std::string text(const json &tree, const char *key)
{
    return tree.contains(key) && tree[key].is_string() ? tree[key].get<std::string>() : std::string();
}

[[noreturn]] void refuse(const std::string &file, const std::string &what, const std::string &why)
{
    throw TrainConfigError(file, "", "this is " + what + (why.empty() ? "" : " (" + why + ")") +
                                         ", which Headroom does not read; supported formats: " +
                                         supportedFormatsText());
}

} // namespace

/// TRL's PPOConfig, by the fields only it has among TRL's configs.
bool isTrlPpoConfig(const json &tree)
{
    return hasAny(tree, {"kl_coef", "vf_coef", "num_ppo_epochs", "reward_model_path", "cliprange_value",
                         "sft_model_path", "local_rollout_forward_batch_size", "whiten_rewards"});
}

bool hasTrlDpoFields(const json &tree)
{
    return hasAny(tree, {"precompute_ref_log_probs", "ref_model_init_kwargs", "rpo_alpha", "reference_free",
                         "sync_ref_model", "label_smoothing", "simpo_gamma", "cpo_alpha"});
}

bool hasTrlKtoFields(const json &tree) { return hasAny(tree, {"desirable_weight", "undesirable_weight"}); }

namespace {

/// TRL's trainer configs Headroom reads (trl/trainer/grpo_config.py, dpo_config.py,
/// reward_config.py, and an SFTConfig with TrlParser's ModelConfig fields), by the fields only
/// they have.
bool isTrlConfig(const json &tree)
{
    // GKD fields: refused below, never read as GRPO or DPO.
    if (hasAny(tree, {"lmbda", "teacher_model_name_or_path"}))
        return false;
    if (hasTrlKtoFields(tree))
        return true; // KTOConfig
    if (isTrlPpoConfig(tree))
        return true; // PPOConfig (trl/experimental/ppo/ppo_config.py)
    if (tree.contains("center_rewards_coefficient"))
        return true; // RewardConfig
    if (hasAny(tree, {"num_generations", "use_vllm", "vllm_mode", "vllm_gpu_memory_utilization",
                      "max_completion_length"}))
        return true; // GRPOConfig
    if (tree.contains("beta") && (hasAny(tree, {"max_prompt_length", "loss_type"}) || hasTrlDpoFields(tree)))
        return true; // DPOConfig (CPO/ORPO: reference-free)
    // An SFTConfig with ModelConfig's PEFT fields (lora_r is LitGPT's too: use_peft or a
    // TrainingArguments field says TRL).
    return tree.contains("use_peft") ||
           (tree.contains("lora_r") && hasAny(tree, {"per_device_train_batch_size", "gradient_accumulation_steps",
                                                     "model_name_or_path", "lora_target_modules"}));
}

/// TRL's post-training configs Headroom does not read, by the fields only they have.
void refuseTrlPostTraining(const json &tree, const std::string &file)
{
    if (hasAny(tree, {"lmbda", "teacher_model_name_or_path"}))
        refuse(file, "a TRL GKDConfig (on-policy distillation: the student generates, the teacher scores)",
               "its generation by the student is not modelled; torchtune's knowledge-distillation configs are read");
}

} // namespace

} // namespace headroom::importers

namespace headroom {

using namespace importers;

TrainConfigFormat detectFormat(const json &tree, const std::string &file)
{
    if (!tree.is_object())
        throw TrainConfigError(file, "", "must be a mapping of keys to values");
    // torchtitan: [job], [training], [parallelism] tables (its TOML job configs, and the same
    // sections as a dump of its config registry).
    if (objectHasAny(tree, "job", {"dump_folder", "description", "config_file"}) ||
        (isObject(tree, "training") && isObject(tree, "parallelism")) ||
        (objectHasAny(tree, "model", {"flavor"}) && isObject(tree, "training")))
        return TrainConfigFormat::Torchtitan;
    // ms-swift: `swift sft/rlhf/pt` arguments (swift/llm/argument/*.py).
    if (hasAny(tree, {"train_type", "tuner_type", "rlhf_type", "sft_type", "sampler_engine", "external_plugins"}) ||
        (tree.contains("model") && tree["model"].is_string() && tree.contains("dataset")))
        return TrainConfigFormat::Swift;
    // LLaMA-Factory v1 (examples/v1) and its Megatron-Core / KTransformers configs.
    if (hasAny(tree, {"model_class", "dist_config", "kernel_config"}) ||
        (isObject(tree, "peft_config") && tree.contains("micro_batch_size")))
        refuse(file, "a LLaMA-Factory v1 config", "");
    if (hasComponent(tree))
        return TrainConfigFormat::Torchtune;
    const std::string stage = text(tree, "stage");
    const bool llamaFactory =
        hasAny(tree, {"finetuning_type", "cutoff_len", "lora_target", "quantization_bit", "infer_backend",
                      "export_dir", "template"}) ||
        ((stage == "pt" || stage == "sft" || stage == "rm" || stage == "ppo" || stage == "dpo" || stage == "kto") &&
         tree.contains("model_name_or_path"));
    // Axolotl first: its configs have no LLaMA-Factory keys but share some TRL ones (rl: dpo).
    if (!llamaFactory && hasAny(tree, {"base_model", "sequence_len", "sample_packing", "adapter"}))
        return TrainConfigFormat::Axolotl;
    if (llamaFactory)
        return TrainConfigFormat::LlamaFactory;
    if (hasAny(tree, {"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size"}))
        return TrainConfigFormat::Deepspeed;
    if (hasAny(tree, {"peft_type", "target_modules"}) || (tree.contains("r") && tree.contains("lora_alpha")))
        return TrainConfigFormat::PeftAdapter;
    if (hasAny(tree, {"distributed_type", "compute_environment"}))
        return TrainConfigFormat::Accelerate;
    refuseTrlPostTraining(tree, file);
    if (isTrlConfig(tree))
        return TrainConfigFormat::Trl;
    if (hasAny(tree, {"checkpoint_dir", "lora_r", "quantize"}) ||
        (tree.contains("train") && tree["train"].is_object() && tree["train"].contains("micro_batch_size")) ||
        objectHasAny(tree, "model_config", {"n_layer", "n_embd", "n_query_groups", "padded_vocab_size"}))
        return TrainConfigFormat::Litgpt;
    // A TrlParser script config (trl/scripts/*.py: ModelConfig, ScriptArguments) with no
    // trainer fields: which trainer runs it is on the command line, not in the file.
    if (tree.contains("model_name_or_path") && tree.contains("dataset_name") &&
        !hasAny(tree, {"per_device_train_batch_size", "gradient_accumulation_steps", "max_length", "max_seq_length",
                       "gradient_checkpointing", "bf16"}))
        throw TrainConfigError(file, "", "this is a TRL script config (model and dataset only): the trainer it runs "
                                         "and its batch are not in the file; add them, or give --train-format "
                                         "training_args for TRL's SFT defaults");
    if (hasAny(tree, {"per_device_train_batch_size", "optim", "gradient_accumulation_steps",
                      "gradient_checkpointing", "output_dir", "deepspeed", "fsdp"}))
        return TrainConfigFormat::TrainingArgs;
    if (hasAny(tree, {"load_in_4bit", "load_in_8bit", "bnb_4bit_quant_type", "bnb_4bit_compute_dtype"}))
        return TrainConfigFormat::BitsAndBytes;
    throw TrainConfigError(file, "", "cannot tell which framework wrote this file; supported formats: " +
                                         supportedFormatsText() + " (or give --train-format)");
}

} // namespace headroom
