// SPDX-License-Identifier: GPL-3.0-or-later
// Framework presets. Every setting names the framework's own code or shipped configuration;
// docs/frameworks.md lists them with repository, path and the version they were read at.
#include "training/framework.h"

#include "io/inputpolicy.h"
#include "scenario/catalog.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"

#include <cctype>

namespace headroom {

using nlohmann::json;

std::optional<Version> Version::parse(std::string_view text)
{
    if (!text.empty() && (text.front() == 'v' || text.front() == 'V'))
        text.remove_prefix(1);
    Version version;
    std::size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        long part = 0;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
            part = part * 10 + (text[i] - '0');
            if (part > 1'000'000)
                return std::nullopt;
            ++i;
        }
        version.parts.push_back(static_cast<int>(part));
        if (version.parts.size() > 6)
            return std::nullopt;
        if (i + 1 < text.size() && text[i] == '.' &&
            std::isdigit(static_cast<unsigned char>(text[i + 1])))
            ++i;
        else
            break;
    }
    if (version.parts.empty())
        return std::nullopt;
    return version;
}

int Version::compare(const Version &other) const
{
    const std::size_t count = std::max(parts.size(), other.parts.size());
    for (std::size_t i = 0; i < count; ++i) {
        const int mine = i < parts.size() ? parts[i] : 0;
        const int theirs = i < other.parts.size() ? other.parts[i] : 0;
        if (mine != theirs)
            return mine < theirs ? -1 : 1;
    }
    return 0;
}

bool versionBefore(const FrameworkChoice &framework, std::string_view release)
{
    const auto mine = Version::parse(framework.version);
    const auto theirs = Version::parse(release);
    return mine && theirs && mine->compare(*theirs) < 0;
}

bool isServingEngine(Framework framework)
{
    return framework == Framework::HfGenerate || framework == Framework::Vllm ||
           framework == Framework::Sglang || framework == Framework::LlamaCpp;
}

const char *frameworkDisplayName(Framework framework)
{
    switch (framework) {
    case Framework::None: return "no framework";
    case Framework::HfTransformers: return "Hugging Face Transformers";
    case Framework::Torchtune: return "torchtune";
    case Framework::Litgpt: return "LitGPT";
    case Framework::Torchtitan: return "torchtitan";
    case Framework::Axolotl: return "Axolotl";
    case Framework::Unsloth: return "Unsloth";
    case Framework::Deepspeed: return "DeepSpeed";
    case Framework::Accelerate: return "Accelerate";
    case Framework::HfGenerate: return "Transformers generate()";
    case Framework::Vllm: return "vLLM";
    case Framework::Sglang: return "SGLang";
    case Framework::LlamaCpp: return "llama.cpp";
    }
    return "?";
}

const char *currentRelease(Framework framework)
{
    switch (framework) {
    case Framework::HfTransformers:
    case Framework::HfGenerate:
    case Framework::Axolotl:
    case Framework::Deepspeed:
    case Framework::Accelerate: return "4.52"; // the Transformers the presets were read against
    case Framework::Torchtune: return "0.6.1";
    case Framework::Litgpt: return "0.5";
    case Framework::Torchtitan: return "0.1";
    case Framework::Unsloth: return "2025.6";
    case Framework::Vllm: return "0.9";
    case Framework::Sglang: return "0.4";
    case Framework::LlamaCpp: return "b5000";
    case Framework::None: return "";
    }
    return "";
}

namespace {

/// Collects the settings of one preset.
class Preset
{
public:
    explicit Preset(const Scenario &scenario) : s(scenario) {}

    void behaviour(const char *key, json value, std::string why)
    {
        out.push_back({key, std::move(value), true, std::move(why)});
    }
    void fallback(const char *key, json value, std::string why)
    {
        out.push_back({key, std::move(value), false, std::move(why)});
    }

    bool lora() const { return s.task == Task::Train && s.train.method != Method::Full; }
    bool quantized() const { return isQuantized(s.precision.weights); }
    bool sharded() const
    {
        return s.parallel.strategy == Strategy::Fsdp || s.parallel.strategy == Strategy::Zero3;
    }
    bool before(const char *release) const { return versionBefore(s.framework, release); }
    bool tensorParallel() const { return s.parallel.tensor > 1; }
    std::string compute() const { return enumName(s.precision.compute); }

    /// GPT-2-family modeling code (learned positions, gelu_new) kept tuple caches and computed
    /// every prompt position's logits until GPT2Model moved to Cache classes (PR #35761, 4.52).
    bool legacyGpt2() const
    {
        return s.model.position == Position::Learned && s.model.activation == Activation::GeluNew &&
               before("4.52");
    }

    /// GPT-NeoX's modeling code (Pythia) kept tuple caches until the decoder-only models moved to
    /// Cache classes (PR #31421, 2024; the 4.44 release is assumed to be the first with it).
    bool legacyGptNeox() const
    {
        const ModelPreset *preset = s.model.preset.empty() ? nullptr : builtinCatalog().findModel(s.model.preset);
        return preset && preset->family == "gpt_neox" && before("4.44");
    }

    /// What every framework running Transformers' modeling code shares (Trainer, Axolotl,
    /// DeepSpeed and Accelerate launches, generate()).
    void transformersModel()
    {
        behaviour("kernels.profile", "huggingface",
                  "LlamaRMSNorm upcasts its input to fp32 and repeat_kv copies the grouped K/V "
                  "heads before attention (transformers src/transformers/models/llama/"
                  "modeling_llama.py)");
        if (before("4.36"))
            behaviour("kernels.attention", "eager",
                      "before 4.36 the models ran eager attention unless told otherwise");
        else
            behaviour("kernels.attention", "sdpa",
                      "attn_implementation defaults to sdpa where PyTorch has it");
        behaviour("precision.quantizer", "bitsandbytes",
                  "BitsAndBytesConfig loads 4/8-bit weights as bitsandbytes Linear4bit / "
                  "Linear8bitLt, whose matmul keeps its input for backward");
        if (before("4.36") || legacyGpt2() || legacyGptNeox())
            behaviour("inference.kv_cache", "concat",
                      "tuple past_key_values grown with torch.cat while the previous step's "
                      "tuple is referenced (before DynamicCache, 4.36; GPT-2 until 4.52; GPT-NeoX "
                      "until the Cache-class port, PR #31421)");
        else
            behaviour("inference.kv_cache", "preallocated",
                      "DynamicCache.update replaces one layer's tensor at a time "
                      "(src/transformers/cache_utils.py)");
        if (before("4.45") || legacyGpt2())
            behaviour("inference.prompt_logits", "all",
                      "before num_logits_to_keep (PR #31292, 4.45) generate() ran the lm_head on "
                      "every prompt position");
        else
            behaviour("inference.prompt_logits", "last",
                      "generate() asks for the last position's logits only (logits_to_keep)");
    }

    /// Transformers training: the loss, PEFT's adapters, the optimizer step.
    void transformersTraining(bool kbitUpcast)
    {
        behaviour("kernels.loss", "standard",
                  "ForCausalLMLoss upcasts the logits to fp32 before cross_entropy "
                  "(src/transformers/loss/loss_utils.py)");
        if (!before("4.41"))
            behaviour("train.lora.dtype", "fp32",
                      "PEFT >= 0.11 (with Transformers 4.41 on) casts adapter weights to fp32 "
                      "(autocast_adapter_dtype=True, peft PR #1706)");
        else if (!quantized())
            behaviour("train.lora.dtype", std::string(enumName(s.precision.weights)),
                      "PEFT < 0.11 moved adapters to the base weight's dtype "
                      "(_move_adapter_to_device_of_base_layer)");
        else
            behaviour("train.lora.dtype", sharded() ? compute() : std::string("fp32"),
                      "PEFT < 0.11 kept adapters fp32 next to bitsandbytes' uint8 storage, or "
                      "took the bf16 quant_storage of a sharded QLoRA model");
        behaviour("train.optimizer_impl", "foreach",
                  "optim adamw_torch: torch.optim.AdamW's foreach path on CUDA");
        const Strategy zero = s.parallel.strategy;
        if (!lora() && (zero == Strategy::Zero1 || zero == Strategy::Zero2 || zero == Strategy::Zero3) &&
            dtypeBits(s.precision.weights) == 16)
            behaviour("train.master_weights", true,
                      "DeepSpeed's ZeRO optimizer keeps an fp32 master copy of 16-bit weights, partitioned, "
                      "and its optimizer states in fp32 (deepspeed/runtime/zero/stage_1_and_2.py "
                      "single_partition_of_fp32_groups, stage3.py fp32_partitioned_groups_flat)");
        if (lora() && quantized() && !sharded() && kbitUpcast)
            behaviour("precision.unquantized", "fp32",
                      "PEFT's prepare_model_for_kbit_training casts every non-quantized parameter "
                      "to fp32 (src/peft/utils/other.py); TRL's SFTTrainer calls it unless the "
                      "QLoRA model is sharded");
        if (lora() && s.parallel.strategy == Strategy::Fsdp)
            behaviour("parallel.flat_params", true,
                      "FSDP1 (the Trainer's and Accelerate's default) with use_orig_params=True "
                      "flattens frozen and LoRA weights of a block into one FlatParameter");
        fallback("train.lora.rank", 8, "peft LoraConfig r = 8");
        fallback("train.lora.dropout", 0.0, "peft LoraConfig lora_dropout = 0.0");
        fallback("train.lora.targets", json::array({"q", "v"}),
                 "target_modules None: PEFT's per-architecture default for Llama-style models "
                 "is q_proj and v_proj");
    }

    const Scenario &s;
    std::vector<PresetSetting> out;
};

void torchtune(Preset &p)
{
    p.behaviour("kernels.profile", "huggingface",
                "RMSNorm computes in fp32 (torchtune/modules/rms_norm.py) and grouped K/V are "
                "expanded to every head before SDPA (torchtune/modules/attention.py)");
    p.behaviour("kernels.attention", "sdpa", "MultiHeadAttention calls scaled_dot_product_attention");
    if (p.before("0.3"))
        p.behaviour("kernels.loss", "standard",
                    "configs before CEWithChunkedOutputLoss used torch.nn.CrossEntropyLoss on "
                    "the upcast logits");
    else
        p.behaviour("kernels.loss", "chunked",
                    "configs use CEWithChunkedOutputLoss: 8 chunks, each upcast to fp32 "
                    "(torchtune/modules/loss/ce_chunked_output_loss.py)");
    p.behaviour("train.lora.dtype", p.compute(),
                "the model and its adapters are built in the recipe's dtype "
                "(recipes/lora_finetune_single_device.py: set_default_dtype)");
    p.behaviour("precision.quantizer", "torchao",
                "QLoRA builders store NF4 weights as torchao NF4Tensor; linear_nf4 keeps only "
                "the weight for backward");
    p.behaviour("train.optimizer_impl", "foreach",
                "torch.optim.AdamW without fused=True (configs that set fused: True are read by "
                "the importer)");
    p.behaviour("parallel.flat_params", false,
                p.before("0.3") ? "the FSDP1 recipes wrapped every LoRA adapter in its own unit "
                                  "(lora_fsdp_wrap_policy), so no FlatParameter mixes frozen and "
                                  "trainable weights"
                                : "distributed recipes shard per parameter with FSDP2 "
                                  "(fully_shard) since 0.3");
    p.fallback("train.lora.dropout", 0.0, "lora_* builders default lora_dropout = 0.0");
    p.fallback("train.gradient_checkpointing", "none",
               "recipes read enable_activation_checkpointing with default False");
}

void litgpt(Preset &p)
{
    const Scenario &s = p.s;
    p.behaviour("kernels.profile", "litgpt",
                "RMSNorm upcasts to fp32 and multiplies the weight in fp32; LoRA on q/k/v is one "
                "LoRAQKVLinear with a single dropout (litgpt/model.py, litgpt/lora.py)");
    p.behaviour("kernels.attention", "sdpa", "CausalSelfAttention calls scaled_dot_product_attention");
    // A fallback, not a behaviour: the model blocks of older cases state it already.
    p.fallback("model.tied_embeddings", false,
                "GPT keeps its own lm_head nn.Linear beside the wte nn.Embedding, and "
                "convert_hf_checkpoint copies a tied table into lm_head.weight (litgpt/model.py, "
                "litgpt/scripts/convert_hf_checkpoint.py)");
    p.behaviour("kernels.loss", "chunked_no_upcast",
                "finetune scripts call model(..., lm_head_chunk_size=128) and "
                "chunked_cross_entropy in the compute dtype (litgpt/finetune/lora.py)");
    const bool wide = dtypeBits(s.precision.weights) >= 16;
    p.behaviour("train.lora.dtype", wide ? std::string(enumName(s.precision.weights)) : p.compute(),
                "adapters are created in the precision's dtype: bf16 under bf16-true, fp32 "
                "under bf16-mixed (litgpt/finetune/lora.py)");
    p.behaviour("precision.quantizer", "bitsandbytes",
                "--quantize bnb.* uses Lightning's BitsandbytesPrecision, which replaces every "
                "Linear, the lm_head too");
    p.behaviour("train.optimizer_impl", "foreach", "torch.optim.AdamW's default foreach path");
    if (p.lora() && p.quantized())
        p.behaviour("train.optimizer", "paged_adamw",
                    "with --quantize the script swaps in bitsandbytes.optim.PagedAdamW");
    if (s.parallel.strategy == Strategy::Fsdp) {
        p.behaviour("parallel.flat_params", true,
                    "Fabric's FSDPStrategy sets use_orig_params=True and wraps whole Blocks "
                    "(lightning/fabric/strategies/fsdp.py)");
        p.behaviour("train.gradient_checkpointing", "full",
                    "with devices > 1 the scripts pass activation_checkpointing_policy={Block}");
    } else {
        p.fallback("train.gradient_checkpointing", "none", "no checkpointing on one device");
    }
    p.fallback("train.lora.rank", 8, "finetune/lora.py lora_r = 8");
    p.fallback("train.lora.dropout", 0.05, "finetune/lora.py lora_dropout = 0.05");
    p.fallback("train.lora.targets", json::array({"q", "v"}),
               "lora_query and lora_value default True, the rest False");
}

void torchtitan(Preset &p)
{
    p.behaviour("kernels.profile", "huggingface",
                "RMSNorm computes in fp32 and K/V are repeated before SDPA (repeat_kv until "
                "PR #2259) (torchtitan/models/llama3/model.py)");
    p.behaviour("kernels.attention", "sdpa", "scaled_dot_product_attention (flash backend)");
    if (p.tensorParallel())
        p.behaviour("kernels.loss", "parallel",
                    "with tensor parallelism the output stays sharded on the vocabulary and "
                    "cross_entropy(pred.float()) runs under loss_parallel(), whose log-softmax is "
                    "decomposed into fp32 temporaries (torch/distributed/tensor/parallel/loss.py)");
    else
        p.behaviour("kernels.loss", "standard",
                    "cross_entropy(pred.flatten(0, 1).float(), ...) on the full logits "
                    "(torchtitan/components/loss.py)");
    p.behaviour("precision.weights", "fp32",
                "FSDP2 keeps fp32 sharded parameters and computes in bf16 "
                "(mixed_precision_param = bfloat16)");
    p.behaviour("parallel.strategy", "fsdp", "data parallelism is FSDP2 fully_shard");
    p.behaviour("parallel.flat_params", false, "FSDP2 shards per parameter");
    p.behaviour("train.optimizer_impl", "fused",
                "Optimizer.implementation defaults to \"fused\" (torchtitan job config)");
    p.fallback("train.gradient_checkpointing", "selective_op",
               "the shipped llama3 configs set activation_checkpoint mode selective, option op "
               "(torchtitan/distributed/activation_checkpoint.py)");
}

void unsloth(Preset &p)
{
    p.behaviour("kernels.profile", "fused",
                "Triton RMSNorm keeps its input in the compute dtype and a per-row rstd; fused "
                "SwiGLU and RoPE kernels (unsloth/kernels/rms_layernorm.py, swiglu.py)");
    p.behaviour("kernels.attention", "flash", "flash-attention or xformers kernels where present");
    if (p.before("2024.11"))
        p.behaviour("kernels.loss", "standard",
                    "Fast_CrossEntropyLoss keeps the bf16 logits and a per-row logsumexp "
                    "(unsloth/kernels/cross_entropy_loss.py)");
    else
        p.behaviour("kernels.loss", "fused",
                    "from 2024.11 training never materialises the logits (fused linear "
                    "cross-entropy; \"Logits are empty from 2024.11 onwards\")");
    p.behaviour("train.lora.dtype", p.compute(),
                "fast_lora kernels run adapters in the model's dtype (not re-read: see "
                "docs/frameworks.md)");
    p.behaviour("precision.quantizer", "bitsandbytes", "load_in_4bit loads bitsandbytes NF4");
    p.fallback("train.gradient_checkpointing", "full",
               "use_gradient_checkpointing=\"unsloth\" in the shipped notebooks");
    p.fallback("train.offload_activations", true,
               "\"unsloth\" checkpointing moves each layer's input to CPU RAM "
               "(Unsloth_Offloaded_Gradient_Checkpointer)");
    p.fallback("train.lora.dropout", 0.0, "the fast LoRA path needs lora_dropout = 0");
    p.fallback("train.optimizer", "adamw_8bit", "optim = \"adamw_8bit\" in the shipped notebooks");
}

void servingEngine(Preset &p, Framework engine)
{
    p.fallback("task", "inference", "a serving engine");
    if (engine == Framework::HfGenerate) {
        p.transformersModel();
        return;
    }
    p.behaviour("kernels.profile", "fused",
                "fused RMSNorm, activation and rotary kernels; nothing is kept for backward");
    p.behaviour("kernels.attention", "flash", "paged or flash attention kernels");
    p.behaviour("inference.kv_cache", "preallocated",
                engine == Framework::LlamaCpp ? "the KV cache is allocated for n_ctx up front"
                                              : "a preallocated paged KV pool");
    p.behaviour("inference.prompt_logits", "last",
                engine == Framework::LlamaCpp
                    ? "llama_batch.logits asks for the last token only by default (include/llama.h)"
                    : "the logits processor keeps only the sampled positions "
                      "(vllm/model_executor/layers/logits_processor.py)");
}

} // namespace

std::vector<PresetSetting> frameworkPreset(const Scenario &scenario)
{
    Preset p(scenario);
    switch (scenario.framework.name) {
    case Framework::None:
        break;
    case Framework::HfTransformers:
    case Framework::Deepspeed:
    case Framework::Accelerate:
        p.transformersModel();
        p.transformersTraining(true);
        p.fallback("train.gradient_checkpointing", "none",
                   "TrainingArguments.gradient_checkpointing = False");
        break;
    case Framework::Axolotl:
        p.transformersModel();
        // Axolotl casts norms and embeddings back to the compute dtype after
        // prepare_model_for_kbit_training unless the QLoRA model is sharded.
        p.transformersTraining(false);
        p.fallback("train.gradient_checkpointing", "none",
                   "schema default gradient_checkpointing: False (the shipped examples set true)");
        break;
    case Framework::Torchtune:
        torchtune(p);
        break;
    case Framework::Litgpt:
        litgpt(p);
        break;
    case Framework::Torchtitan:
        torchtitan(p);
        break;
    case Framework::Unsloth:
        unsloth(p);
        break;
    case Framework::HfGenerate:
    case Framework::Vllm:
    case Framework::Sglang:
    case Framework::LlamaCpp:
        servingEngine(p, scenario.framework.name);
        break;
    }
    return p.out;
}

namespace {

void collectKeys(const json &node, const std::string &prefix, std::set<std::string> &keys, int depth)
{
    if (!node.is_object() || depth > 3)
        return;
    for (const auto &item : node.items()) {
        const std::string path = prefix.empty() ? item.key() : prefix + "." + item.key();
        keys.insert(path);
        collectKeys(item.value(), path, keys, depth + 1);
    }
}

} // namespace

std::set<std::string> explicitKeys(const json &doc)
{
    std::set<std::string> keys;
    collectKeys(doc, "", keys, 0);
    return keys;
}

std::vector<PresetSetting> applyPresetToDocument(json &doc, const Scenario &parsed)
{
    std::vector<PresetSetting> applied;
    const std::set<std::string> given = explicitKeys(doc);
    for (PresetSetting &setting : frameworkPreset(parsed)) {
        if (given.count(setting.key))
            continue;
        // A model setting (LitGPT's untied lm_head) on a scenario that names its model only by
        // default: the default preset, written out, takes it.
        if (setting.key.rfind("model.", 0) == 0 && !(doc.contains("model") && doc["model"].is_object())) {
            if (parsed.model.preset.empty())
                continue;
            doc["model"] = json{{"preset", parsed.model.preset}};
        }
        json *node = &doc;
        std::size_t start = 0;
        while (true) {
            const auto dot = setting.key.find('.', start);
            const std::string part = setting.key.substr(start, dot == std::string::npos ? dot : dot - start);
            if (dot == std::string::npos) {
                (*node)[part] = setting.value;
                break;
            }
            json &next = (*node)[part];
            if (!next.is_object())
                next = json::object();
            node = &next;
            start = dot + 1;
        }
        applied.push_back(std::move(setting));
    }
    return applied;
}

Scenario withFrameworkBehaviours(const Scenario &scenario)
{
    json doc = scenarioToJson(scenario);
    for (const PresetSetting &setting : frameworkPreset(scenario)) {
        if (!setting.behaviour)
            continue;
        json *node = &doc;
        std::size_t start = 0;
        while (true) {
            const auto dot = setting.key.find('.', start);
            const std::string part = setting.key.substr(start, dot == std::string::npos ? dot : dot - start);
            if (dot == std::string::npos) {
                (*node)[part] = setting.value;
                break;
            }
            node = &(*node)[part];
            start = dot + 1;
        }
    }
    return scenarioFromJson(doc);
}

FrameworkChoice frameworkFromJson(const json &value)
{
    FrameworkChoice choice;
    const json *name = &value;
    if (value.is_object()) {
        for (const auto &item : value.items())
            if (item.key() != "name" && item.key() != "version")
                throw ScenarioError("framework." + item.key(), "unknown key (allowed here: name, version)");
        if (!value.contains("name"))
            throw ScenarioError("framework.name", "is required");
        name = &value.at("name");
        if (value.contains("version")) {
            const json &version = value.at("version");
            if (version.is_string())
                choice.version = version.get<std::string>();
            else if (version.is_number())
                choice.version = version.dump();
            else if (!version.is_null())
                throw ScenarioError("framework.version", "must be a release number such as \"0.5\"");
            if (!choice.version.empty() && !Version::parse(choice.version))
                throw ScenarioError("framework.version",
                                    "must be a release number such as \"4.46\" (got " +
                                        quoteJson(version) + ")");
        }
    }
    const std::string key = value.is_object() ? "framework.name" : "framework";
    const auto parsed = name->is_string() ? enumFromName<Framework>(name->get<std::string>())
                                          : std::nullopt;
    if (!parsed)
        throw ScenarioError(key, "must be one of " + enumChoices<Framework>() + " (got " +
                                     quoteJson(*name) + ")");
    choice.name = *parsed;
    return choice;
}

json frameworkToJson(const FrameworkChoice &framework)
{
    json out = {{"name", enumName(framework.name)}};
    if (!framework.version.empty())
        out["version"] = framework.version;
    return out;
}

std::string frameworkLossNote(const Scenario &s)
{
    if (s.framework.name == Framework::None || s.task != Task::Train)
        return {};
    const std::string who = frameworkDisplayName(s.framework.name);
    switch (s.kernels.loss) {
    case Loss::Standard:
        return who + " upcasts the whole logits to fp32 for the cross-entropy.";
    case Loss::StandardNoUpcast:
        return who + " takes the cross-entropy of the whole logits in the compute dtype.";
    case Loss::Chunked:
        return s.train.compile ? who + " compiles the upcast and cross-entropy of each of 8 chunks: "
                                       "it keeps the chunk logits and a log-sum-exp per row."
                               : who + " keeps the fp32 log-softmax of every one of 8 chunks until "
                                       "backward; only the upcast is one chunk at a time.";
    case Loss::ChunkedNoUpcast:
        return who + " keeps the logits of 128-token chunks and their log-softmax in the compute "
                     "dtype.";
    case Loss::LinearChunked:
        return who + " runs the lm_head and the loss one chunk at a time and keeps each chunk's "
                     "fp32 log-softmax.";
    case Loss::Fused:
        return who + " never materialises the whole logits (fused linear cross-entropy).";
    case Loss::Parallel:
        return who + " takes the cross-entropy of the vocabulary-sharded logits under "
                     "loss_parallel(): an fp32 copy, the shifted logits and their exponential in "
                     "forward; the log-softmax, a one-hot gradient and two temporaries in backward.";
    }
    return {};
}

} // namespace headroom
