// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the importers: reads keys of one configuration tree by dotted path, writes the
// scenario keys they map to, and reports every key it did not read as ignored.

#include "importers/trainimport.h"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace headroom::importers {

using nlohmann::json;

class ConfigReader
{
public:
    ConfigReader(const json &root, TrainImport &out) : m_root(root), m_out(out) {}

    /// The value at a dotted path ("train.micro_batch_size"), marked as read; nullptr if absent
    /// or null.
    const json *find(std::string_view path);
    bool has(std::string_view path) { return find(path) != nullptr; }
    std::optional<bool> flag(std::string_view path);
    std::optional<std::int64_t> count(std::string_view path, std::int64_t low, std::int64_t high);
    std::optional<double> number(std::string_view path, double low, double high);
    std::optional<std::string> text(std::string_view path);
    /// A list of strings (or one string).
    std::optional<std::vector<std::string>> strings(std::string_view path);

    /// Keys the format has that do not change memory: listed as ignored with that reason.
    void noEffect(std::initializer_list<std::string_view> paths);
    /// Writes `scenarioKey` (dotted) into the scenario document and notes where it came from.
    void set(const std::string &scenarioKey, const json &value, std::string_view from);
    /// A memory-relevant key the scenario cannot express.
    void warn(std::string_view path, const std::string &why);
    /// A default of the framework taken for a key the file leaves out.
    void defaulted(const std::string &what);
    [[noreturn]] void fail(std::string_view path, const std::string &message) const;
    /// Reports every key that was not read as ignored (unknown).
    void finish();

    TrainImport &out() { return m_out; }

private:
    const json *lookup(std::string_view path) const;
    void collectUnread(const json &node, const std::string &prefix);

    const json &m_root;
    TrainImport &m_out;
    std::set<std::string> m_read;
};

/// Sets `doc[dotted.path] = value`, creating objects on the way.
void setPath(json &doc, const std::string &dottedPath, const json &value);

/// "torchtune recipe config, LitGPT config, ...": the formats Headroom reads, for messages.
std::string supportedFormatsText();

/// What a torchtune config's own launch line says (`# tune run --nproc_per_node 8
/// lora_finetune_distributed --config ...`, in its header comment): the recipe and the count of
/// processes, or empty / 0.
struct TorchtuneLaunch
{
    std::string recipe;
    std::int64_t processes = 0;
    std::int64_t nodes = 0;
    std::string line; ///< the command as written, shortened, for messages
};
TorchtuneLaunch torchtuneLaunch(std::string_view text);

/// The training command of a launch script (`CUDA_VISIBLE_DEVICES=0,1 NPROC_PER_NODE=2 swift sft
/// --model ... --lora_rank 8`): "swift sft", its arguments as a tree (`--flag` alone is true,
/// several values a list), the variables set before it; `unresolved` names the arguments whose
/// value the shell would compute. nullopt when the script runs no training command it knows.
struct ShellCommand
{
    std::string command;
    json tree;
    std::map<std::string, std::string> env;
    std::vector<std::string> unresolved;
};
std::optional<ShellCommand> readShellCommand(std::string_view text, const std::string &file);

/// One importer per format; each fills `out` from `tree` (overrides already applied).
void importTorchtune(const json &tree, TrainImport &out, const TorchtuneLaunch &launch = {});
void importLlamaFactory(const json &tree, TrainImport &out);
void importTorchtitan(const json &tree, TrainImport &out);
/// ms-swift's `swift sft` arguments (a YAML/JSON --config file, or a script's command line with
/// its environment).
void importSwift(const json &tree, TrainImport &out, const ShellCommand *script = nullptr);
/// `swift rlhf`'s objective (rlhf_type) and, for GRPO and PPO, its generation; `model` is the
/// policy's name (a ref_model naming another model is refused).
void readSwiftRlhf(ConfigReader &r, const std::string &model);
void importLitgpt(const json &tree, TrainImport &out);
/// A TRL trainer config class read on top of TrainingArguments: its name for messages and the
/// defaults it changes (bf16 and gradient_checkpointing True, max_length 1024).
struct TrlClass
{
    const char *name = "SFTConfig";
    bool sequenceElsewhere = false; ///< GRPOConfig: the prompt and completion lengths, not max_length
};
/// TrainingArguments keys; `within` reads them for a larger format (TRL's configs, `trl` its
/// class) and leaves finish() to it.
void importTrainingArgs(const json &tree, TrainImport &out, ConfigReader *within = nullptr,
                        const TrlClass *trl = nullptr);
/// A TRL trainer config as TrlParser reads it (GRPOConfig, DPOConfig, SFTConfig, with
/// ModelConfig's PEFT and quantization fields).
void importTrl(const json &tree, TrainImport &out);
/// TRL's PPOConfig (trl/experimental/ppo/ppo_config.py), told by the fields only it has.
bool isTrlPpoConfig(const json &tree);
/// TRL's DPOConfig (trl/trainer/dpo_config.py), by the fields only it has among TRL's configs
/// (max_completion_length and loss_type are GRPOConfig's too).
bool hasTrlDpoFields(const json &tree);
/// TRL's KTOConfig, by its desirable and undesirable weights.
bool hasTrlKtoFields(const json &tree);
void importPeftAdapter(const json &tree, TrainImport &out);
void importBitsAndBytes(const json &tree, TrainImport &out, ConfigReader *within = nullptr,
                        const std::string &prefix = {});
void importDeepspeed(const json &tree, TrainImport &out, ConfigReader *within = nullptr,
                     const std::string &prefix = {});
void importAccelerate(const json &tree, TrainImport &out);
void importAxolotl(const json &tree, TrainImport &out);

/// Maps a module name as frameworks write it (q_proj, output_proj, w1, c_attn, ...) to the
/// scenario's LoRA targets; empty when unknown.
std::vector<std::string> loraTargetsFor(std::string_view moduleName);
/// The scenario's LoRA targets a PEFT target_modules pattern (a regular expression matched
/// against whole module names) selects among a decoder layer's linear modules, under the names
/// Transformers models use (model.layers.N.self_attn.q_proj, model.language_model.layers.N...);
/// `someLayers` when it selects them in some layers only; `error` for a pattern that is not one.
struct RegexTargets
{
    std::vector<std::string> targets;
    bool someLayers = false;
    std::string error;
};
RegexTargets regexLoraTargets(const std::string &pattern);

/// TrainingArguments.optim -> the scenario's optimizer and step implementation; false if unknown.
bool trainingArgsOptim(const std::string &optim, std::string &optimizer, std::string &impl);
/// "bf16", "fp16", "fp32" from "bfloat16", "torch.float16", "float32", ... or empty.
std::string dtypeName(std::string_view text);

} // namespace headroom::importers
