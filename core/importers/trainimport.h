// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Training configuration files as users have them (torchtune recipes, LitGPT configs, Hugging
// Face TrainingArguments with a PEFT adapter config and a BitsAndBytesConfig, DeepSpeed and
// Accelerate configs, Axolotl configs) read into a partial scenario document. The core parses
// text; the caller reads the files (and routes them through its input policy).

#include "io/inputpolicy.h"
#include "scenario/catalog.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom {

/// The configuration formats Headroom reads.
enum class TrainConfigFormat {
    Auto,
    Torchtune,       ///< torchtune recipe YAML (+ key=value overrides)
    Litgpt,          ///< LitGPT finetune/pretrain YAML (+ CLI flags)
    TrainingArgs,    ///< Hugging Face TrainingArguments (or TRL SFTConfig) as JSON
    PeftAdapter,     ///< PEFT adapter_config.json
    BitsAndBytes,    ///< BitsAndBytesConfig fields as JSON
    Deepspeed,       ///< DeepSpeed config JSON
    Accelerate,      ///< Accelerate config YAML
    Axolotl,         ///< Axolotl config YAML
    LlamaFactory,    ///< LLaMA-Factory (llamafactory-cli train) YAML
    Torchtitan,      ///< torchtitan job config TOML
    Swift,           ///< ms-swift `swift sft` arguments (YAML/JSON, or a launch script)
    Trl,             ///< a TRL trainer config as TrlParser reads it (GRPOConfig, DPOConfig, SFTConfig)
};

/// A configuration file that cannot be read: names the file and the key.
class TrainConfigError : public std::runtime_error
{
public:
    TrainConfigError(const std::string &file, const std::string &keyPath, const std::string &message)
        : std::runtime_error(printable(file) + ": " +
                             (keyPath.empty() ? message : keyPathText(keyPath) + ": " + message)),
          key(keyPath)
    {
    }
    std::string key;
};

/// What one configuration file said, as a partial v1 scenario document, and what could not be
/// said.
struct TrainImport
{
    TrainConfigFormat format = TrainConfigFormat::Auto;
    std::string file;          ///< as given, for messages
    nlohmann::json scenario = nlohmann::json::object();
    std::string model;         ///< the model the file names (hub id, builder), or empty
    std::vector<std::string> mapped;   ///< "batch_size -> train.micro_batch = 2"
    std::vector<std::string> defaults; ///< framework defaults taken for keys the file leaves out
    std::vector<std::string> warnings; ///< memory-relevant keys that cannot be expressed
    std::vector<std::string> ignored;  ///< keys with no memory effect, and unknown keys
    /// Other files this one names ({"deepspeed", "examples/deepspeed/ds_z3_config.json"}): the
    /// caller reads them (or refuses) as if given as further files.
    std::vector<std::pair<std::string, std::string>> references;
};

/// "torchtune", "TrainingArguments", ...
const char *formatName(TrainConfigFormat format);
/// Parses a --train-format value ("torchtune", "litgpt", "training_args", "peft", "bnb",
/// "deepspeed", "accelerate", "axolotl", "llamafactory", "torchtitan", "swift", "trl", "auto"); throws TrainConfigError naming it otherwise.
TrainConfigFormat formatFromName(std::string_view name);

/// Reads a configuration file's text into a JSON value: a `.json` file as Python's json module
/// reads it (strictly: a key given twice, trailing text, NaN or a number too large is refused),
/// anything else as PyYAML's safe_load reads YAML (io/yamltext.h: YAML 1.1 scalars, merge keys,
/// one document, the alias budget). Throws TrainConfigError naming the file, key and line.
nlohmann::json parseConfigText(std::string_view text, const std::string &file);

/// Recognises the format by the keys of the parsed tree. A format Headroom recognises but does
/// not read (TRL post-training configs, LLaMA-Factory v1) is refused naming
/// it; an unrecognised one is refused listing the formats read. Throws TrainConfigError.
TrainConfigFormat detectFormat(const nlohmann::json &tree, const std::string &file);

/// Reads one configuration file. `overrides` are torchtune's `key=value` arguments or LitGPT's
/// CLI flags (`--key value`, `--key=value` or `key=value`). Throws TrainConfigError.
TrainImport importTrainConfig(std::string_view text, const std::string &file,
                              TrainConfigFormat format = TrainConfigFormat::Auto,
                              const std::vector<std::string> &overrides = {});

/// Merges several files' documents into one scenario document (later files win; the framework
/// of the most specific tool: Axolotl, then DeepSpeed/Accelerate, then Transformers).
nlohmann::json mergeImports(const std::vector<TrainImport> &imports);

/// The catalog model a file's model reference names (hub id such as "meta-llama/Llama-2-7b-hf"
/// or a torchtune builder such as "llama3_1_8b"), or nullptr.
const ModelPreset *findModelReference(const std::string &reference,
                                      const Catalog &catalog = builtinCatalog());

} // namespace headroom
