// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/hfconfig.h"

#include "model/architecture.h"
#include "model/hfconfigreader.h"
#include "io/inputpolicy.h"
#include "scenario/units.h"

#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>

namespace headroom {

namespace hf {

/// head_dim: the explicit key, else hidden / heads (which must then divide evenly).
int readHeadDim(ConfigReader &r, const ModelArch &arch, int fallback)
{
    const int headDim = r.integerOr({"head_dim"}, fallback, 1, 65536);
    if (headDim)
        return headDim;
    if (arch.heads > 0 && arch.hidden % arch.heads != 0)
        r.invalid("head_dim", "is needed: hidden_size " + std::to_string(arch.hidden) +
                                  " is not a multiple of num_attention_heads " +
                                  std::to_string(arch.heads));
    return arch.heads > 0 ? arch.hidden / arch.heads : 1;
}

/// The required fields most families name the Hugging Face way (the intermediate size's name
/// varies: OPT says ffn_dim); reports every missing one at once.
void readStandardShape(ConfigReader &r, ModelArch &arch, const char *intermediate)
{
    arch.layers = r.integer({"num_hidden_layers"}, 1, 1024);
    arch.hidden = r.integer({"hidden_size"}, 1, kMaxHidden);
    arch.intermediate = r.integer({intermediate}, 1, kMaxVocab);
    arch.heads = r.integer({"num_attention_heads"}, 1, 65536);
    arch.vocab = r.integer({"vocab_size"}, 1, kMaxVocab);
    r.finish();
}

Reading readLlamaLike(ConfigReader &r, const LlamaLike &family)
{
    Reading out;
    ModelArch &arch = out.import.arch;
    readStandardShape(r, arch);
    arch.kvHeads = r.integerOr({"num_key_value_heads"}, arch.heads, 1, 65536);
    arch.headDim = readHeadDim(r, arch, family.headDimDefault);
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, family.tiedDefault);
    arch.mlp = Mlp::Gated;
    arch.norm = Norm::RmsNorm;
    arch.position = Position::Rope;
    arch.maxPositions =
        r.integerOr({"max_position_embeddings"}, family.maxPositionsDefault, 1, kMaxPositions);
    arch.normsPerLayer = family.normsPerLayer;
    arch.slidingWindow = 0;
    arch.experts = arch.expertsPerToken = 1;

    const bool attentionBias = !family.qkvBias && r.flag({"attention_bias"}, false);
    const bool mlpBias = !family.qkvBias && r.flag({"mlp_bias"}, false);
    const std::int64_t hidden = arch.hidden;
    const std::int64_t mlpBiasSize = 2 * std::int64_t(arch.intermediate) + hidden;
    if (family.qkvBias) {
        arch.bias = Bias::Qkv;
    } else if (attentionBias && mlpBias) {
        arch.bias = Bias::All;
    } else if (attentionBias) {
        arch.bias = Bias::Qkv;
        out.extraParams += hidden * arch.layers; // o_proj bias
        out.import.notes.push_back("attention_bias: q, k, v and o carry biases; the o bias is "
                                   "added to the parameter total.");
    } else if (mlpBias) {
        arch.bias = Bias::None;
        out.extraParams += mlpBiasSize * arch.layers;
        out.import.notes.push_back("mlp_bias: the MLP biases are added to the parameter total.");
    } else {
        arch.bias = Bias::None;
    }
    if (const json *scaling = r.find({"rope_scaling"}); scaling && scaling->is_object()) {
        std::string type;
        for (const char *key : {"type", "rope_type"})
            if (const auto it = scaling->find(key); it != scaling->end() && it->is_string())
                type = it->get<std::string>();
        out.import.notes.push_back("rope_scaling " +
                                   (type.empty() ? std::string("(untyped)") : quoteText(type)) +
                                   ": changes no tensor; the context limit is "
                                   "max_position_embeddings (" +
                                   std::to_string(arch.maxPositions) + ").");
    }
    return out;
}

/// sliding_window as the config gives it (null or absent: the fallback; 0 = none).
int readWindow(ConfigReader &r, int fallback)
{
    return r.integerOr({"sliding_window"}, fallback, 0, kMaxPositions);
}

Reading readLlama(ConfigReader &r)
{
    return readLlamaLike(r, {});
}

Reading readMistral(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 4096 * 32, 0, 2});
    // MistralConfig defaults to a 4096-token window; an explicit null (v0.2 on) means none.
    out.import.arch.slidingWindow = readWindow(r, r.hasKey("sliding_window") ? 0 : 4096);
    return out;
}

Reading readMixtral(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 4096 * 32, 0, 2});
    ModelArch &arch = out.import.arch;
    arch.experts = r.integerOr({"num_local_experts"}, 8, 1, 4096);
    arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 2, 1, 4096);
    arch.slidingWindow = readWindow(r, 0);
    return out;
}

Reading readQwen2(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 32768, 0, 2, true});
    ModelArch &arch = out.import.arch;
    if (r.flag({"use_sliding_window"}, false)) {
        arch.slidingWindow = readWindow(r, 4096);
        const int windowLayers = r.integerOr({"max_window_layers"}, 28, 0, 1024);
        out.import.notes.push_back("use_sliding_window: Qwen2 applies the window only from layer " +
                                   std::to_string(windowLayers) +
                                   " on; the KV cache is capped as if every layer used it.");
    }
    return out;
}

Reading readGemma(ConfigReader &r, bool gemma2)
{
    Reading out = readLlamaLike(r, {true, 8192, 256, gemma2 ? 4 : 2});
    if (gemma2) {
        // Gemma 2 alternates local (sliding_window) and global layers, the first one local.
        out.import.arch.slidingWindow = readWindow(r, 4096);
        if (out.import.arch.slidingWindow)
            out.import.arch.globalEvery = 2;
    }
    return out;
}

Reading readPhi3(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 4096, 0, 2});
    out.import.arch.slidingWindow = readWindow(r, 0);
    return out;
}

Reading readGpt2(ConfigReader &r)
{
    Reading out;
    ModelArch &arch = out.import.arch;
    arch.layers = r.integer({"n_layer", "num_hidden_layers"}, 1, 1024);
    arch.hidden = r.integer({"n_embd", "hidden_size"}, 1, kMaxHidden);
    arch.heads = r.integer({"n_head", "num_attention_heads"}, 1, 65536);
    arch.vocab = r.integer({"vocab_size"}, 1, kMaxVocab);
    r.finish();
    arch.kvHeads = arch.heads;
    arch.headDim = readHeadDim(r, arch, 0);
    arch.intermediate = r.integerOr({"n_inner"}, 4 * arch.hidden, 1, kMaxVocab);
    arch.maxPositions =
        r.integerOr({"n_positions", "max_position_embeddings"}, 1024, 1, kMaxPositions);
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, true);
    arch.mlp = Mlp::Standard;
    arch.norm = Norm::LayerNorm;
    arch.bias = Bias::All;
    arch.position = Position::Learned;
    arch.normsPerLayer = 2;
    arch.experts = arch.expertsPerToken = 1;
    arch.slidingWindow = 0;
    return out;
}

/// GPTBigCode (StarCoder, SantaCoder): GPT-2's blocks and names with multi-query attention,
/// c_attn projecting to hidden + 2 x head_dim (modeling_gpt_bigcode.py, GPTBigCodeAttention).
Reading readGptBigCode(ConfigReader &r)
{
    Reading out = readGpt2(r);
    if (r.flag({"multi_query"}, true))
        out.import.arch.kvHeads = 1;
    return out;
}

Reading readGptNeox(ConfigReader &r)
{
    Reading out;
    ModelArch &arch = out.import.arch;
    readStandardShape(r, arch);
    arch.kvHeads = arch.heads;
    arch.headDim = readHeadDim(r, arch, 0);
    arch.maxPositions = r.integerOr({"max_position_embeddings"}, 2048, 1, kMaxPositions);
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, false);
    arch.mlp = Mlp::Standard;
    arch.norm = Norm::LayerNorm;
    arch.position = Position::Rope;
    arch.normsPerLayer = 2;
    arch.experts = arch.expertsPerToken = 1;
    arch.slidingWindow = 0;
    // The MLP always has biases; attention_bias (default true) adds them to the attention.
    if (r.flag({"attention_bias"}, true)) {
        arch.bias = Bias::All;
    } else {
        arch.bias = Bias::None;
        out.extraParams += (std::int64_t(arch.intermediate) + arch.hidden) * arch.layers;
    }
    return out;
}

Reading readFalcon(ConfigReader &r, const std::string &type)
{
    Reading out;
    ModelArch &arch = out.import.arch;
    arch.layers = r.integer({"num_hidden_layers", "n_layer"}, 1, 1024);
    arch.hidden = r.integer({"hidden_size", "n_embed"}, 1, kMaxHidden);
    arch.heads = r.integer({"num_attention_heads", "n_head"}, 1, 65536);
    arch.vocab = r.integer({"vocab_size"}, 1, kMaxVocab);
    r.finish();
    // The original "RefinedWeb" code (Falcon-40B) always had the new decoder block.
    const bool newArchitecture = r.flag({"new_decoder_architecture"}, type == "RefinedWeb");
    const bool multiQuery = r.flag({"multi_query"}, true);
    const bool parallelAttention = r.flag({"parallel_attn"}, true);
    arch.headDim = readHeadDim(r, arch, 0);
    if (newArchitecture)
        arch.kvHeads = r.integerOr({"num_kv_heads", "n_head_kv"}, arch.heads, 1, 65536);
    else
        arch.kvHeads = multiQuery ? 1 : arch.heads;
    arch.intermediate = r.integerOr({"ffn_hidden_size"}, 4 * arch.hidden, 1, kMaxVocab);
    arch.maxPositions = r.integerOr({"max_position_embeddings"}, 2048, 1, kMaxPositions);
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, true);
    arch.bias = r.flag({"bias"}, false) ? Bias::All : Bias::None;
    arch.position = r.flag({"alibi"}, false) ? Position::Alibi : Position::Rope;
    arch.mlp = Mlp::Standard;
    arch.norm = Norm::LayerNorm;
    arch.experts = arch.expertsPerToken = 1;
    arch.slidingWindow = 0;
    const int parallelNorms = r.integerOr({"num_ln_in_parallel_attn"}, 2, 1, 2);
    if (newArchitecture && parallelNorms == 2)
        arch.normsPerLayer = 2; // ln_attn and ln_mlp
    else
        arch.normsPerLayer = parallelAttention ? 1 : 2;
    return out;
}

Reading readOpt(ConfigReader &r)
{
    Reading out;
    ModelArch &arch = out.import.arch;
    readStandardShape(r, arch, "ffn_dim");
    arch.kvHeads = arch.heads;
    arch.headDim = readHeadDim(r, arch, 0);
    // OPT's learned position table has two extra rows (positions are offset by 2).
    arch.maxPositions = r.integerOr({"max_position_embeddings"}, 2048, 1, kMaxPositions - 2) + 2;
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, true);
    arch.bias = r.flag({"enable_bias"}, true) ? Bias::All : Bias::None;
    arch.mlp = Mlp::Standard;
    arch.norm = Norm::LayerNorm;
    arch.position = Position::Learned;
    arch.normsPerLayer = 2;
    arch.experts = arch.expertsPerToken = 1;
    arch.slidingWindow = 0;

    const std::int64_t hidden = arch.hidden;
    const std::int64_t vocab = arch.vocab;
    const int projection = r.integerOr({"word_embed_proj_dim"}, arch.hidden, 1, kMaxHidden);
    if (projection != arch.hidden) {
        // Token embeddings (and the tied lm_head) are vocab x projection, with project_in and
        // project_out matrices between them and the blocks.
        const std::int64_t tables = arch.tiedEmbeddings ? 1 : 2;
        out.extraParams -= tables * vocab * (hidden - projection);
        out.extraParams += 2 * hidden * projection;
        out.import.notes.push_back("word_embed_proj_dim " + std::to_string(projection) +
                                   ": the token embeddings are narrower than hidden_size, with "
                                   "project_in/project_out matrices; the total is exact, the "
                                   "logits are counted at hidden_size.");
    }
    const bool finalNorm =
        r.flag({"do_layer_norm_before"}, true) && !r.flag({"_remove_final_layer_norm"}, false);
    if (!finalNorm)
        out.extraParams -= 2 * hidden;
    if (!r.flag({"layer_norm_elementwise_affine"}, true)) {
        arch.normsPerLayer = 0;
        if (finalNorm)
            out.extraParams -= 2 * hidden;
    }
    return out;
}

Reading readBert(ConfigReader &r)
{
    Reading out;
    ModelArch &arch = out.import.arch;
    readStandardShape(r, arch);
    arch.kvHeads = arch.heads;
    arch.headDim = readHeadDim(r, arch, 0);
    arch.maxPositions = r.integerOr({"max_position_embeddings"}, 512, 1, kMaxPositions);
    arch.tiedEmbeddings = true; // an encoder: no separate output matrix
    arch.mlp = Mlp::Standard;
    arch.norm = Norm::LayerNorm;
    arch.bias = Bias::All;
    arch.position = Position::Learned;
    arch.normsPerLayer = 2;
    arch.experts = arch.expertsPerToken = 1;
    arch.slidingWindow = 0;
    const std::int64_t hidden = arch.hidden;
    const int typeVocab = r.integerOr({"type_vocab_size"}, 2, 0, kMaxVocab);
    out.extraParams += std::int64_t(typeVocab) * hidden; // token type embeddings
    out.extraParams += hidden * hidden + hidden;         // pooler
    out.import.notes.push_back(
        "BERT is an encoder: counted as BertModel (embeddings with token types, encoder layers, "
        "pooler; the embedding LayerNorm stands in for the final norm); pretraining heads are "
        "not counted. Activations and the KV cache are estimated as for a decoder with the same "
        "shapes.");
    return out;
}

Reading readGemma1(ConfigReader &r)
{
    return readGemma(r, false);
}
Reading readGemma2(ConfigReader &r)
{
    return readGemma(r, true);
}
Reading readFalconNew(ConfigReader &r)
{
    return readFalcon(r, "falcon");
}
Reading readFalconRw(ConfigReader &r)
{
    return readFalcon(r, "RefinedWeb");
}
Reading readFalconRwModel(ConfigReader &r)
{
    return readFalcon(r, "RefinedWebModel");
}

/// The MLP activation from hidden_act / hidden_activation / activation_function; what
/// matters for memory is whether eager PyTorch composes it of several saved elementwise ops.
Activation readActivation(const json &config, Mlp mlp)
{
    static const std::pair<const char *, Activation> kNames[] = {
        {"silu", Activation::Silu},          {"swish", Activation::Silu},
        {"gelu", Activation::Gelu},          {"gelu_pytorch_tanh", Activation::GeluTanh},
        {"gelu_new", Activation::GeluNew},   {"gelu_fast", Activation::GeluNew},
        {"relu", Activation::Relu},          {"relu2", Activation::Relu2}};
    for (const char *key : {"hidden_activation", "hidden_act", "activation_function", "mlp_hidden_act"}) {
        const auto it = config.find(key);
        if (it == config.end() || !it->is_string())
            continue;
        for (const auto &[name, activation] : kNames)
            if (*it == name)
                return activation;
    }
    return defaultActivation(mlp);
}

const Family kFamilies[] = {
    {"llama", readLlama},      {"mistral", readMistral},     {"mixtral", readMixtral},
    {"qwen2", readQwen2},      {"gemma", readGemma1},        {"gemma2", readGemma2},
    {"phi3", readPhi3},        {"gpt2", readGpt2},           {"gpt_neox", readGptNeox},
    {"falcon", readFalconNew}, {"RefinedWeb", readFalconRw}, {"RefinedWebModel", readFalconRwModel},
    {"opt", readOpt},          {"bert", readBert},
    // LlamaConfig and GPT2Config under other names (CONFIG_MAPPING_NAMES maps them to those classes).
    {"code_llama", readLlama}, {"gpt-sw3", readGpt2},     {"gpt_bigcode", readGptBigCode},
    // Qwen2.5-VL's language model is Qwen2's (q, k, v biases); older configs keep it at the top.
    {"qwen2_5_vl", readQwen2}, {"qwen2_5_vl_text", readQwen2}, {"qwen2_vl", readQwen2}, {"qwen2_vl_text", readQwen2},
};

} // namespace hf

using namespace hf;

const std::vector<std::string> &supportedHfModelTypes()
{
    static const std::vector<std::string> types = [] {
        std::vector<std::string> list;
        for (const Family &family : kFamilies)
            list.emplace_back(family.modelType);
        for (const Family &family : modernFamilies())
            list.emplace_back(family.modelType);
        for (const Family &family : hybridFamilies())
            list.emplace_back(family.modelType);
        for (const Family &family : moreFamilies())
            list.emplace_back(family.modelType);
        return list;
    }();
    return types;
}

HfImport importHfConfig(const json &outer)
{
    if (!outer.is_object())
        throw HfConfigError("config.json is not a JSON object", "", {});
    // Multimodal checkpoints (Gemma 3, Llama 4, Mistral 3) nest the language model's config.
    const auto textConfig = outer.find("text_config");
    if (textConfig != outer.end() && !textConfig->is_null() && !textConfig->is_object())
        throw HfConfigError("config.json: text_config must be an object (got " + quoteJson(*textConfig) + ")", "", {});
    const bool nested = textConfig != outer.end() && textConfig->is_object();
    const json &config = nested ? *textConfig : outer;
    // model_type names the family: a value of another type (null included) is named, not read as
    // "no model_type" or left to a library error (a number beside text_config gave one).
    for (const auto &[where, path] : {std::pair{&outer, "model_type"}, std::pair{&config, "text_config.model_type"}})
        if (const auto it = where->find("model_type"); (where == &outer || nested) && it != where->end() && !it->is_string())
            throw HfConfigError(std::string("config.json: ") + path + " must be a string (got " + quoteJson(*it) + ")",
                                "", {});
    const auto typeIt = config.find("model_type");
    std::string type;
    if (typeIt != config.end() && typeIt->is_string())
        type = typeIt->get<std::string>();
    if (nested && type.empty()) {
        // Older text_configs leave model_type out: the outer one names the family.
        static const std::pair<const char *, const char *> kTextTypes[] = {
            {"gemma3", "gemma3_text"}, {"llama4", "llama4_text"}, {"mistral3", "mistral"},
            {"qwen2_vl", "qwen2_vl_text"}, {"qwen2_5_vl", "qwen2_5_vl_text"}, {"qwen3_vl", "qwen3_vl_text"},
            {"qwen3_vl_moe", "qwen3_vl_moe_text"},
            {"qwen3_5", "qwen3_5_text"}, {"qwen3_5_moe", "qwen3_5_moe_text"}};
        const std::string outerType = outer.value("model_type", std::string());
        for (const auto &[from, to] : kTextTypes)
            if (outerType == from)
                type = to;
    }
    const Family *family = nullptr;
    for (const Family &candidate : kFamilies)
        if (type == candidate.modelType)
            family = &candidate;
    for (const Family &candidate : modernFamilies())
        if (type == candidate.modelType)
            family = &candidate;
    for (const Family &candidate : hybridFamilies())
        if (type == candidate.modelType)
            family = &candidate;
    for (const Family &candidate : moreFamilies())
        if (type == candidate.modelType)
            family = &candidate;
    if (!family) {
        // Decoder families whose layers Headroom does not count yet are refused with what is
        // missing, never read as their nearest relative; other models are no decoder LM.
        if (const char *what = notModelledReason(type))
            throw HfConfigError("config.json: model_type \"" + type + "\" is known but not modelled: " + what +
                                    " (give the architecture keys in the scenario's model instead)",
                                type, {"model_type"});
        if (notDecoderLm(type))
            throw HfConfigError("config.json: model_type \"" + type +
                                    "\" is not a decoder LM (an encoder, encoder-decoder, vision, audio or "
                                    "time-series model): Headroom estimates decoder language models",
                                type, {"model_type"});
        std::string known;
        for (const auto &name : supportedHfModelTypes())
            known += (known.empty() ? "" : ", ") + name;
        throw HfConfigError((type.empty() ? std::string("config.json has no model_type")
                                          : "config.json: unknown model_type \"" + quoteText(type) + "\"") +
                                " (supported: " + known + ")",
                            type, {"model_type"});
    }

    // The configuration classes' own defaults for the keys a config.json may leave out:
    // Gemma3TextConfig (multimodal checkpoints omit them), Qwen3NextConfig (the 80B-A3B shape),
    // Ministral3Config (Ministral-3-8B's language model).
    json filled;
    const json *read = &config;
    static const std::pair<const char *, json> kGemma3[] = {
        {"vocab_size", 262208}, {"hidden_size", 2304}, {"intermediate_size", 9216},
        {"num_hidden_layers", 26}, {"num_attention_heads", 8}, {"num_key_value_heads", 4},
        {"head_dim", 256}, {"max_position_embeddings", 131072}, {"sliding_window", 4096},
        {"sliding_window_pattern", 6}, {"tie_word_embeddings", true},
        {"hidden_activation", "gelu_pytorch_tanh"}};
    static const std::pair<const char *, json> kQwen3Next[] = {
        {"vocab_size", 151936}, {"hidden_size", 2048}, {"intermediate_size", 5632},
        {"num_hidden_layers", 48}, {"num_attention_heads", 16}, {"num_key_value_heads", 2},
        {"head_dim", 256}, {"max_position_embeddings", 32768}};
    static const std::pair<const char *, json> kMinistral3[] = {
        {"vocab_size", 131072}, {"hidden_size", 4096}, {"intermediate_size", 14336},
        {"num_hidden_layers", 34}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
        {"head_dim", 128}, {"max_position_embeddings", 262144}};
    const auto fill = [&](const auto &defaults) {
        filled = config;
        for (const auto &[key, value] : defaults)
            if (!filled.contains(key))
                filled[key] = value;
        read = &filled;
    };
    if (type == "gemma3_text")
        fill(kGemma3);
    else if (type == "qwen3_next")
        fill(kQwen3Next);
    else if (type == "ministral3")
        fill(kMinistral3);
    const auto denseList = config.find("mlp_only_layers");
    const bool noDenseLayers = denseList == config.end() || (denseList->is_array() && denseList->empty());
    if (type == "qwen3_5_moe_text" && !config.contains("intermediate_size") && noDenseLayers &&
        config.contains("moe_intermediate_size")) {
        // Every layer of Qwen3.5-MoE is sparse: no dense width to read (the key is unused).
        if (read != &filled)
            filled = config;
        filled["intermediate_size"] = config["moe_intermediate_size"];
        read = &filled;
    }
    if (nested && !config.contains("tie_word_embeddings") && outer.contains("tie_word_embeddings")) {
        // The conditional-generation class ties (or not) by the outer config's key (Qwen3-VL).
        if (read != &filled)
            filled = config;
        filled["tie_word_embeddings"] = outer["tie_word_embeddings"];
        read = &filled;
    }
    ConfigReader reader(*read, type);
    Reading reading = family->read(reader);
    HfImport &import = reading.import;
    ModelArch &arch = import.arch;
    arch.activation = readActivation(*read, arch.mlp);
    import.modelType = type;
    const std::string outerType = outer.value("model_type", std::string());
    // A Llama 4 config stripped of its vision_config (a test copy) says nothing to count from.
    if (countsVisionTower(outerType) && !(outerType == "llama4" && !outer.contains("vision_config"))) {
        arch.visionParams = readVisionTower(outer, outerType, arch.hidden);
        import.notes.push_back("The vision tower (vision_config) is counted: " + groupDigits(arch.visionParams) +
                               " parameters, loaded with the model and kept 16-bit; what it computes on "
                               "images is not estimated.");
    } else if (nested) {
        import.notes.push_back("The language model of a multimodal checkpoint (text_config); the "
                               "vision encoder is not counted.");
    }
    readQuantization(outer, config, import);
    if (!import.unmodelledFormat.empty())
        import.notes.push_back("weights sized as bf16: " + import.unmodelledFormat + " is not modelled.");
    arch.preset.clear();
    arch.params.reset();
    arch.rough = false;
    if (arch.heads % arch.kvHeads != 0)
        reader.invalid("num_key_value_heads", "(" + std::to_string(arch.kvHeads) +
                                                  ") must divide num_attention_heads (" +
                                                  std::to_string(arch.heads) + ")");
    if (arch.expertsPerToken > arch.experts)
        reader.invalid("num_experts_per_tok", "must be at most the number of experts (" +
                                                  std::to_string(arch.experts) + ")");
    if (reading.extraParams != 0) {
        const auto derived = static_cast<std::int64_t>(countParams(arch).derived);
        const std::int64_t exact = derived + reading.extraParams;
        if (exact <= 0)
            reader.invalid("hidden_size", "gives no parameters");
        arch.params = static_cast<std::uint64_t>(exact);
    }
    return import;
}

/// Python's json module writes float('inf') and float('nan') as the bare words Infinity,
/// -Infinity and NaN (NemotronH's "time_step_limit": [0.0, Infinity]). Outside strings they become
/// the strings "Infinity", "-Infinity" and "NaN": a key Headroom sizes from then fails with its
/// name and the value, one it never reads is ignored. Only config.json is read this way.
std::string pythonJsonToJson(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 16);
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            out += c;
            continue;
        }
        const bool startsToken = out.empty() || std::string_view(",:[ \t\r\n").find(out.back()) != std::string_view::npos;
        bool replaced = false;
        for (std::string_view w : {std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN")}) {
            if (startsToken && !replaced && text.substr(i, w.size()) == w) {
                out += '"';
                out += w;
                out += '"';
                i += w.size() - 1;
                replaced = true;
            }
        }
        if (!replaced)
            out += c;
    }
    return out;
}

HfImport importHfConfig(std::string_view text)
{
    json config;
    try {
        const JsonLimits bounds{limits::kConfigBytes, limits::kJsonDepth};
        if (text.size() > limits::kConfigBytes)
            config = parseStrictJson(text, bounds); // refused as too large, in the policy's words
        // The quotes added around Infinity and NaN may pass the byte limit by a few bytes.
        config = parseStrictJson(pythonJsonToJson(text), {limits::kConfigBytes + text.size() / 4, limits::kJsonDepth});
    } catch (const JsonInputError &error) {
        throw HfConfigError(error.problem == JsonProblem::Syntax
                                ? "config.json is " + error.detail
                                : "config.json: " + std::string(error.what()),
                            "", {});
    }
    return importHfConfig(config);
}

} // namespace headroom
