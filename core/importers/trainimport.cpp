// SPDX-License-Identifier: GPL-3.0-or-later
// Reading configuration text (YAML as PyYAML reads it, JSON as Python's json module reads it,
// both under the input policy), recognising the format, applying command-line overrides, and
// merging several files into one scenario.
#include "importers/trainimport.h"

#include "importers/configreader.h"
#include "io/inputpolicy.h"
#include "io/tomltext.h"
#include "io/yamltext.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <new>

namespace headroom {

using nlohmann::json;
using namespace importers;

namespace {

struct FormatName { TrainConfigFormat format; const char *name; const char *display; };
constexpr FormatName kFormats[] = {
    {TrainConfigFormat::Auto, "auto", "auto"},
    {TrainConfigFormat::Torchtune, "torchtune", "torchtune recipe config"},
    {TrainConfigFormat::Litgpt, "litgpt", "LitGPT config"},
    {TrainConfigFormat::TrainingArgs, "training_args", "Hugging Face TrainingArguments"},
    {TrainConfigFormat::PeftAdapter, "peft", "PEFT adapter_config.json"},
    {TrainConfigFormat::BitsAndBytes, "bnb", "BitsAndBytesConfig"},
    {TrainConfigFormat::Deepspeed, "deepspeed", "DeepSpeed config"},
    {TrainConfigFormat::Accelerate, "accelerate", "Accelerate config"},
    {TrainConfigFormat::Axolotl, "axolotl", "Axolotl config"},
    {TrainConfigFormat::LlamaFactory, "llamafactory", "LLaMA-Factory config"},
    {TrainConfigFormat::Torchtitan, "torchtitan", "torchtitan job config (TOML)"},
    {TrainConfigFormat::Swift, "swift", "ms-swift arguments (YAML, JSON or a swift sft script)"},
    {TrainConfigFormat::Trl, "trl", "TRL trainer config (GRPOConfig, DPOConfig, RewardConfig, PPOConfig, SFTConfig)"},
};

/// torchtune's `key=value` overrides (`~key` removes a key; a component path on a component
/// sets its `_component_`), or LitGPT's `--key value` / `--key=value` flags.
void applyOverrides(json &tree, const std::vector<std::string> &arguments, TrainConfigFormat format,
                    const std::string &file)
{
    std::vector<std::pair<std::string, std::string>> pairs;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        std::string argument = arguments[i];
        const bool dashed = argument.starts_with("--");
        if (dashed)
            argument.erase(0, 2);
        if (argument.starts_with("~")) {
            pairs.emplace_back(argument, std::string());
            continue;
        }
        const std::size_t equals = argument.find('=');
        if (equals != std::string::npos) {
            pairs.emplace_back(argument.substr(0, equals), argument.substr(equals + 1));
        } else if (dashed && i + 1 < arguments.size() && !arguments[i + 1].starts_with("--")) {
            pairs.emplace_back(argument, arguments[i + 1]);
            ++i;
        } else if (dashed) {
            pairs.emplace_back(argument, "true");
        } else {
            throw TrainConfigError(file, "", "--train-arg: an override needs key=value (got \"" +
                                                 quoteText(arguments[i]) + "\")");
        }
    }
    for (auto &[key, text] : pairs) {
        if (key.empty() || key == "~")
            throw TrainConfigError(file, "", "--train-arg: an override needs a key (got \"" + quoteText(key + "=" + text) + "\")");
        // The rule of --set: a short dotted path with no empty part (a path 19,000 levels deep
        // would otherwise build as deep a tree).
        if (const std::string problem = keyPathProblem(key.starts_with("~") ? key.substr(1) : key); !problem.empty())
            throw TrainConfigError(file, "", "--train-arg " + problem + " (got " + quotedText(key) + ")");
        if (key.starts_with("~")) {
            json *node = &tree;
            const std::string path = key.substr(1);
            std::size_t start = 0;
            while (node && node->is_object()) {
                const std::size_t dot = path.find('.', start);
                const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
                if (dot == std::string::npos) {
                    node->erase(part);
                    break;
                }
                node = node->contains(part) ? &(*node)[part] : nullptr;
                start = dot + 1;
            }
            continue;
        }
        json value = parseConfigText(text, file + " (override " + key + ")");
        json *target = &tree;
        std::size_t start = 0;
        bool component = false;
        while (true) {
            const std::size_t dot = key.find('.', start);
            const std::string part = key.substr(start, dot == std::string::npos ? dot : dot - start);
            if (dot == std::string::npos) {
                json &slot = (*target)[part];
                component = format == TrainConfigFormat::Torchtune && slot.is_object() &&
                            slot.contains("_component_") && value.is_string();
                if (component)
                    slot["_component_"] = value;
                else
                    slot = value;
                break;
            }
            json &next = (*target)[part];
            if (!next.is_object())
                next = json::object();
            target = &next;
            start = dot + 1;
        }
    }
}

} // namespace

std::string importers::supportedFormatsText()
{
    std::string out;
    for (const FormatName &f : kFormats)
        if (f.format != TrainConfigFormat::Auto)
            out += std::string(out.empty() ? "" : ", ") + f.display;
    return out;
}

const char *formatName(TrainConfigFormat format)
{
    for (const FormatName &f : kFormats)
        if (f.format == format)
            return f.display;
    return "?";
}

TrainConfigFormat formatFromName(std::string_view name)
{
    std::string allowed;
    for (const FormatName &f : kFormats) {
        if (name == f.name)
            return f.format;
        allowed += std::string(allowed.empty() ? "" : ", ") + f.name;
    }
    throw TrainConfigError("--train-format", "", "must be one of " + allowed + " (got " + quotedText(name) + ")");
}

json parseConfigText(std::string_view text, const std::string &file)
{
    // A .json file is read as Python's json module reads it (DeepSpeed and Transformers do),
    // anything else as PyYAML's safe_load; where those readers would differ from ours (a key
    // given twice, trailing text, NaN), the file is refused.
    try {
        std::string lower = file;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (lower.ends_with(".json"))
            return parseStrictJson(text, {limits::kTrainConfigBytes, limits::kJsonDepth});
        if (lower.ends_with(".toml"))
            return parseToml(text);
        return parseYaml(text);
    } catch (const InputError &error) {
        throw TrainConfigError(file, error.key, error.detail);
    }
}

namespace {

TrainImport importText(std::string_view text, const std::string &file, TrainConfigFormat format,
                       const std::vector<std::string> &overrides)
{
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw TrainConfigError(file, "", "is not UTF-8 text (byte " + std::to_string(bad) + ")");
    // A launch script: its one training command's arguments are the configuration.
    std::optional<ShellCommand> script;
    json tree;
    if (file.ends_with(".sh")) {
        script = readShellCommand(text, file);
        if (!script)
            throw TrainConfigError(file, "", "runs no training command Headroom reads (swift sft, llamafactory-cli train)");
        tree = script->tree;
        const TrainConfigFormat own = script->command.starts_with("llamafactory-cli") ? TrainConfigFormat::LlamaFactory
                                                                                      : TrainConfigFormat::Swift;
        if (script->command.starts_with("llamafactory-cli") && script->command != "llamafactory-cli train")
            throw TrainConfigError(file, "", "runs " + script->command + ", which does not train");
        if (format == TrainConfigFormat::Auto)
            format = own;
    } else {
        tree = parseConfigText(text, file);
    }
    if (tree.is_null())
        throw TrainConfigError(file, "", "is empty");
    if (!tree.is_object())
        throw TrainConfigError(file, "", "must be a mapping of keys to values");
    if (format == TrainConfigFormat::Auto)
        format = detectFormat(tree, file);
    if (!overrides.empty()) {
        if (format != TrainConfigFormat::Torchtune && format != TrainConfigFormat::Litgpt &&
            format != TrainConfigFormat::Torchtitan && format != TrainConfigFormat::Swift &&
            format != TrainConfigFormat::Trl)
            throw TrainConfigError(file, "", "command-line overrides apply to torchtune, LitGPT, torchtitan, ms-swift "
                                             "and TRL configs only");
        applyOverrides(tree, overrides, format, file);
    }
    TrainImport out;
    out.format = format;
    out.file = file;
    switch (format) {
    case TrainConfigFormat::Torchtune: importTorchtune(tree, out, torchtuneLaunch(text)); break;
    case TrainConfigFormat::Litgpt: importLitgpt(tree, out); break;
    case TrainConfigFormat::TrainingArgs: importTrainingArgs(tree, out); break;
    case TrainConfigFormat::PeftAdapter: importPeftAdapter(tree, out); break;
    case TrainConfigFormat::BitsAndBytes: importBitsAndBytes(tree, out); break;
    case TrainConfigFormat::Deepspeed: importDeepspeed(tree, out); break;
    case TrainConfigFormat::Accelerate: importAccelerate(tree, out); break;
    case TrainConfigFormat::Axolotl: importAxolotl(tree, out); break;
    case TrainConfigFormat::LlamaFactory: importLlamaFactory(tree, out); break;
    case TrainConfigFormat::Torchtitan: importTorchtitan(tree, out); break;
    case TrainConfigFormat::Swift: importSwift(tree, out, script ? &*script : nullptr); break;
    case TrainConfigFormat::Trl: importTrl(tree, out); break;
    case TrainConfigFormat::Auto: break;
    }
    return out;
}

} // namespace

TrainImport importTrainConfig(std::string_view text, const std::string &file, TrainConfigFormat format,
                              const std::vector<std::string> &overrides)
{
    // An allocation failure (a file that builds too much) never escapes as std::bad_alloc.
    try {
        return importText(text, file, format, overrides);
    } catch (const std::bad_alloc &) {
        throw TrainConfigError(file, "", "not enough memory to read this file");
    }
}

namespace {

/// The string at `key` of an object, or empty: importers write the parts merged here, but a
/// value of another type must not throw nlohmann's type error out of the merge.
std::string textAt(const json &node, const char *key)
{
    if (!node.is_object())
        return {};
    const auto it = node.find(key);
    return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

json mergeImports(const std::vector<TrainImport> &imports)
{
    static const char *priority[] = {"axolotl", "deepspeed", "accelerate", "torchtune", "torchtitan", "litgpt",
                                     "hf_transformers"};
    // A framework reads one file of each kind: of two Axolotl configs (or two DeepSpeed
    // configs) that disagree, merging would keep the later one's values silently.
    for (std::size_t i = 0; i < imports.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (imports[i].format == imports[j].format && imports[i].format != TrainConfigFormat::Auto)
                throw TrainConfigError(imports[i].file, "",
                                       std::string("a second ") + formatName(imports[i].format) + " in one run (the first: " +
                                           quotedText(imports[j].file, 120) +
                                           "); the framework reads one such file, so give one");
    json doc = json::object();
    std::string framework;
    bool transformersPart = false;
    for (const TrainImport &import : imports) {
        json part = import.scenario;
        if (part.contains("framework")) {
            const std::string name = textAt(part["framework"], "name");
            auto rank = [&](const std::string &n) {
                return std::find(std::begin(priority), std::end(priority), n) - std::begin(priority);
            };
            if (framework.empty() || rank(name) < rank(framework))
                framework = name;
            part.erase("framework");
        }
        // DeepSpeed casts the model to its 16-bit dtype, but a quantized base (QLoRA, 8-bit)
        // stays quantized: the other file's weights win.
        if (import.format == TrainConfigFormat::Deepspeed && doc.contains("precision") && part.contains("precision") &&
            part["precision"].is_object()) {
            const std::string weights = textAt(doc["precision"], "weights");
            if (weights == "nf4" || weights == "fp4" || weights == "int4" || weights == "int8")
                part["precision"].erase("weights");
        }
        transformersPart = transformersPart || import.format == TrainConfigFormat::PeftAdapter ||
                           import.format == TrainConfigFormat::BitsAndBytes;
        doc.merge_patch(part);
    }
    if (framework.empty() && transformersPart)
        framework = "hf_transformers";
    if (!framework.empty())
        doc["framework"] = {{"name", framework}};
    // A LoRA adapter on a 4-bit base is QLoRA.
    if (doc.contains("train") && textAt(doc["train"], "method") == "lora" && doc.contains("precision")) {
        const std::string weights = textAt(doc["precision"], "weights");
        if (weights == "nf4" || weights == "fp4" || weights == "int4")
            doc["train"]["method"] = "qlora";
    }
    return doc;
}

const ModelPreset *findModelReference(const std::string &reference, const Catalog &catalog)
{
    if (reference.empty())
        return nullptr;
    auto lower = [](std::string text) {
        std::transform(text.begin(), text.end(), text.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        return text;
    };
    std::string ref = lower(reference);
    if (ref.starts_with("checkpoints/"))
        ref.erase(0, 12);
    while (!ref.empty() && ref.back() == '/')
        ref.pop_back();
    // torchtune builders: torchtune.models.llama3_1.lora_llama3_1_8b -> llama3_1_8b.
    if (ref.starts_with("torchtune.models.")) {
        ref = ref.substr(ref.rfind('.') + 1);
        for (const char *prefix : {"qlora_", "lora_"})
            if (ref.starts_with(prefix))
                ref.erase(0, std::string(prefix).size());
        // The instruct and base builders share the architecture (qwen2_5_7b_instruct).
        for (const char *suffix : {"_instruct", "_base"})
            if (ref.ends_with(suffix))
                ref.erase(ref.size() - std::string(suffix).size());
        static const std::pair<const char *, const char *> builders[] = {
            {"llama2_7b", "llama-2-7b"},     {"llama2_13b", "llama-2-13b"}, {"llama2_70b", "llama-2-70b"},
            {"llama3_8b", "llama-3-8b"},     {"llama3_70b", "llama-3-70b"}, {"llama3_1_8b", "llama-3.1-8b"},
            {"llama3_1_70b", "llama-3.1-70b"}, {"llama3_1_405b", "llama-3.1-405b"},
            {"llama3_3_70b", "llama-3.3-70b"}, {"llama3_2_1b", "llama-3.2-1b"}, {"llama3_2_3b", "llama-3.2-3b"},
            {"mistral_7b", "mistral-7b"},    {"gemma_2b", "gemma-2b"},      {"gemma_7b", "gemma-7b"},
            {"gemma2_2b", "gemma-2-2b"},     {"gemma2_9b", "gemma-2-9b"},   {"gemma2_27b", "gemma-2-27b"},
            {"qwen2_5_0_5b", "qwen2.5-0.5b"}, {"qwen2_5_1_5b", "qwen2.5-1.5b"}, {"qwen2_5_3b", "qwen2.5-3b"},
            {"qwen2_5_7b", "qwen2.5-7b"},    {"qwen2_5_14b", "qwen2.5-14b"}, {"qwen2_5_32b", "qwen2.5-32b"},
            {"qwen2_5_72b", "qwen2.5-72b"},  {"phi3_mini", "phi-3-mini"},   {"phi4_14b", "phi-4"},
            {"qwen3_0_6b", "qwen3-0.6b"},    {"qwen3_8b", "qwen3-8b"},      {"qwen3_32b", "qwen3-32b"},
            {"llama4_scout_17b_16e", "llama-4-scout"}, {"llama4_maverick_17b_128e", "llama-4-maverick"}};
        for (const auto &[builder, id] : builders)
            if (ref == builder)
                return catalog.findModel(id);
        return nullptr;
    }
    if (const ModelPreset *preset = catalog.findModel(ref))
        return preset;
    // A checkpoint's name without its owner and the words that do not change the architecture:
    // Meta-Llama-3.1-8B-Instruct and Llama-3.1-8B; Llama-4-Scout-17B-16E-Linearized-bnb-nf4-bf16
    // (a re-upload stored in another format) and Llama-4-Scout-17B-16E.
    auto stem = [&](std::string id) {
        id = lower(id);
        if (const auto slash = id.rfind('/'); slash != std::string::npos)
            id.erase(0, slash + 1);
        std::replace(id.begin(), id.end(), '_', '-');
        if (id.starts_with("meta-llama-"))
            id.erase(0, 5);
        bool changed = true;
        while (changed) {
            changed = false;
            for (const char *suffix : {"-instruct", "-chat", "-hf", "-base", "-it", "-bnb", "-nf4", "-bf16", "-fp16",
                                       "-4bit", "-8bit", "-linearized"})
                if (id.ends_with(suffix)) {
                    id.erase(id.size() - std::string(suffix).size());
                    changed = true;
                }
        }
        return id;
    };
    for (const ModelPreset &preset : catalog.models)
        if (!preset.hfId.empty() && lower(preset.hfId) == ref)
            return &preset;
    // Checkpoints whose config.json is a catalog entry's architecture under another name:
    // TinyLlama v1.1 and the 1.1B chat model are the 3T checkpoint's 22 x 2048 Llama (5632
    // intermediate, 32 heads, 4 KV heads, vocabulary 32000).
    static const std::pair<const char *, const char *> sameArchitecture[] = {
        {"tinyllama/tinyllama_v1.1", "tinyllama-1.1b"}, {"tinyllama/tinyllama-1.1b-chat-v1.0", "tinyllama-1.1b"}};
    for (const auto &[checkpoint, id] : sameArchitecture)
        if (ref == checkpoint)
            return catalog.findModel(id);
    const std::string wanted = stem(ref);
    for (const ModelPreset &preset : catalog.models)
        if (!preset.hfId.empty() && stem(preset.hfId) == wanted)
            return &preset;
    return nullptr;
}

} // namespace headroom
