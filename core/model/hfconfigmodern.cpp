// SPDX-License-Identifier: GPL-3.0-or-later
// config.json readers for the families of 2025-2026: Qwen3 (dense and MoE), Gemma 3, Llama 4,
// DeepSeek-V3 / R1 / Kimi K2 (latent attention), gpt-oss, OLMo 2, Granite. Each takes the
// defaults of its transformers configuration class for absent optional keys.
#include "model/hfconfigreader.h"

#include "model/architecture.h"

#include <algorithm>

namespace headroom::hf {

namespace {

/// A list of layer indices (mlp_only_layers, no_rope_layers), or empty.
std::vector<int> readIndexList(ConfigReader &r, const char *name, int layers)
{
    std::vector<int> out;
    const json *value = r.find({name});
    if (!value)
        return out;
    if (!value->is_array())
        r.invalid(name, "must be a list of layer indices (got " + quoteJson(*value) + ")");
    for (const json &item : *value) {
        if (!item.is_number_integer() || item.get<long long>() < 0 || item.get<long long>() >= layers)
            r.invalid(name, "must list layer indices from 0 to " + std::to_string(layers - 1));
        out.push_back(item.get<int>());
    }
    return out;
}

/// The hybrid attention pattern from `layer_types` ("sliding_attention" / "full_attention"),
/// else from `sliding_window_pattern` (every k-th layer global), else the fallback.
void readLayerPattern(ConfigReader &r, Reading &out, int fallbackEvery)
{
    ModelArch &arch = out.import.arch;
    if (arch.slidingWindow == 0)
        return;
    const json *types = r.find({"layer_types"});
    if (types && types->is_array() && !types->empty()) {
        std::vector<bool> full;
        for (const json &type : *types) {
            if (!type.is_string())
                r.invalid("layer_types", "must be a list of strings");
            full.push_back(type.get<std::string>() == "full_attention");
        }
        if (static_cast<int>(full.size()) != arch.layers)
            r.invalid("layer_types", "must list " + std::to_string(arch.layers) + " layers (got " +
                                         std::to_string(full.size()) + ")");
        const auto first = std::find(full.begin(), full.end(), true);
        if (first == full.end()) {
            arch.globalEvery = 0; // every layer local
            return;
        }
        arch.globalEvery = static_cast<int>(first - full.begin()) + 1;
        for (int i = 0; i < arch.layers; ++i)
            if (full[static_cast<std::size_t>(i)] != !arch.isSlidingLayer(i)) {
                // Not one global layer in every k: the list itself, layer by layer.
                arch.globalEvery = 0;
                arch.layerKinds.clear();
                for (const bool global : full)
                    arch.layerKinds.push_back(global ? LayerKind::Full : LayerKind::Sliding);
                break;
            }
        return;
    }
    arch.globalEvery = r.integerOr({"sliding_window_pattern"}, fallbackEvery, 0, 1024);
}

Reading readQwen3(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 40960, 128, 2});
    ModelArch &arch = out.import.arch;
    arch.qkNorm = QkNorm::Head;
    if (r.flag({"use_sliding_window"}, false)) {
        arch.slidingWindow = readWindow(r, 4096);
        out.import.notes.push_back("use_sliding_window: the window is applied to every layer.");
    }
    return out;
}

/// Qwen2/Qwen3 mixtures of experts: which layers are sparse (decoder_sparse_step,
/// mlp_only_layers) and the experts' width.
void readQwenExperts(ConfigReader &r, Reading &out)
{
    ModelArch &arch = out.import.arch;
    arch.experts = r.integerOr({"num_experts"}, 128, 1, 4096);
    arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 8, 1, 4096);
    arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, 768, 1, kMaxVocab);
    arch.moeEvery = r.integerOr({"decoder_sparse_step"}, 1, 1, 1024);
    const std::vector<int> dense = readIndexList(r, "mlp_only_layers", arch.layers);
    arch.denseLayers = static_cast<int>(dense.size());
    for (std::size_t i = 0; i < dense.size(); ++i)
        if (dense[i] != static_cast<int>(i)) {
            out.import.notes.push_back("mlp_only_layers are not the first layers: counted as if they were.");
            break;
        }
}

Reading readQwen3Moe(ConfigReader &r)
{
    Reading out = readQwen3(r);
    readQwenExperts(r, out);
    return out;
}

Reading readQwen2Moe(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 32768, 0, 2, true});
    readQwenExperts(r, out);
    ModelArch &arch = out.import.arch;
    arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, 1408, 1, kMaxVocab);
    const int shared = r.integerOr({"shared_expert_intermediate_size"}, 5632, 0, kMaxVocab);
    if (shared > 0) {
        arch.sharedExperts = 1;
        arch.sharedExpertIntermediate = shared;
        // The shared expert's sigmoid gate: hidden x 1 per sparse layer.
        out.extraParams += std::int64_t(arch.hidden) * arch.moeLayers();
    }
    return out;
}

Reading readGemma3(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {true, 131072, 256, 4});
    ModelArch &arch = out.import.arch;
    arch.qkNorm = QkNorm::Head;
    arch.slidingWindow = readWindow(r, 4096);
    readLayerPattern(r, out, 6);
    return out;
}

Reading readLlama4(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 1048576, 128, 2});
    ModelArch &arch = out.import.arch;
    // intermediate_size is an expert's width; intermediate_size_mlp the dense layers'.
    arch.expertIntermediate = arch.intermediate;
    arch.intermediate = r.integerOr({"intermediate_size_mlp"}, 16384, 1, kMaxVocab);
    arch.experts = r.integerOr({"num_local_experts"}, 16, 1, 4096);
    arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 1, 1, 4096);
    arch.sharedExperts = 1; // Llama4TextMoe always has one shared expert of the expert width
    arch.moeEvery = r.integerOr({"interleave_moe_layer_step"}, 1, 1, 1024);
    const int chunk = r.integerOr({"attention_chunk_size"}, 8192, 0, kMaxPositions);
    if (chunk > 0) {
        // RoPE layers attend within chunks; every fourth layer (no RoPE) attends globally.
        arch.slidingWindow = chunk;
        arch.globalEvery = 4;
        out.import.notes.push_back("attention_chunk_size " + std::to_string(chunk) +
                                   ": chunked layers cache at most one chunk per sequence; "
                                   "every fourth layer (no RoPE) attends to the whole context.");
    }
    return out;
}

/// DeepSeek-V3's MTP module (the checkpoint's model.layers.<n>): one more decoder block of the
/// last layer's kind, enorm and hnorm, eh_proj (2 x hidden -> hidden), and its own copies of
/// embed_tokens and shared_head (norm and head); counted once the block's shape is complete.
void countDeepseekMtp(Reading &out)
{
    ModelArch &arch = out.import.arch;
    if (arch.mtpLayers == 0)
        return;
    const std::uint64_t h = std::uint64_t(arch.hidden);
    const std::uint64_t block = countParams(arch).perLayer;
    arch.mtpParams = std::uint64_t(arch.mtpLayers) * (block + 2 * h * h + 3 * h + 2 * std::uint64_t(arch.vocab) * h);
    out.import.notes.push_back("num_nextn_predict_layers " + std::to_string(arch.mtpLayers) +
                               ": the checkpoint's multi-token-prediction module (" + std::to_string(arch.mtpParams) +
                               " parameters) is counted apart: Transformers does not load it, vLLM "
                               "and SGLang only for speculative decoding.");
}

/// DeepSeek-V2/V3's shape, its MTP layers named but not yet counted.
Reading readDeepseekShape(ConfigReader &r)
{
    Reading out;
    ModelArch &arch = out.import.arch;
    readStandardShape(r, arch);
    arch.kvHeads = arch.heads;
    arch.kvLoraRank = r.integer({"kv_lora_rank"}, 1, 1 << 20);
    arch.qkRopeHeadDim = r.integer({"qk_rope_head_dim"}, 1, 65536);
    arch.qkNopeHeadDim = r.integer({"qk_nope_head_dim"}, 1, 65536);
    arch.vHeadDim = r.integer({"v_head_dim"}, 1, 65536);
    r.finish();
    arch.qLoraRank = r.integerOr({"q_lora_rank"}, 0, 0, 1 << 20); // null in V2-Lite
    arch.headDim = arch.qkNopeHeadDim + arch.qkRopeHeadDim;
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, false);
    arch.mlp = Mlp::Gated;
    arch.norm = Norm::RmsNorm;
    arch.position = Position::Rope;
    arch.maxPositions = r.integerOr({"max_position_embeddings"}, 163840, 1, kMaxPositions);
    arch.normsPerLayer = 2;
    arch.bias = Bias::None;
    arch.experts = r.integerOr({"n_routed_experts"}, 1, 1, 4096);
    if (arch.experts > 1) {
        arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 8, 1, 4096);
        arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, 2048, 1, kMaxVocab);
        arch.sharedExperts = r.integerOr({"n_shared_experts"}, 1, 0, 64);
        arch.denseLayers = r.integerOr({"first_k_dense_replace"}, 0, 0, arch.layers);
        arch.moeEvery = r.integerOr({"moe_layer_freq"}, 1, 1, 1024);
        // DeepSeek-V3's sigmoid router keeps a bias per expert for load balancing.
        const json *method = r.find({"topk_method"});
        arch.routerBias = method && method->is_string() && method->get<std::string>() == "noaux_tc";
    }
    arch.mtpLayers = r.integerOr({"num_nextn_predict_layers"}, 0, 0, 16);
    return out;
}

Reading readDeepseek(ConfigReader &r)
{
    Reading out = readDeepseekShape(r);
    countDeepseekMtp(out);
    return out;
}

Reading readDeepseekV32(ConfigReader &r)
{
    // DeepSeek-V3.2: V3's shape with the lightning indexer of DeepSeek sparse attention in every
    // layer (index_n_heads x index_head_dim queries from the q latent, one shared key), the MTP
    // layer's included.
    Reading out = readDeepseekShape(r);
    ModelArch &arch = out.import.arch;
    arch.indexerHeads = r.integer({"index_n_heads"}, 1, 65536);
    arch.indexerHeadDim = r.integer({"index_head_dim"}, 1, 65536);
    r.finish();
    if (arch.qLoraRank == 0)
        r.invalid("q_lora_rank", "is needed: the indexer's queries come from the q latent");
    countDeepseekMtp(out);
    return out;
}

Reading readGptOss(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 131072, 64, 2});
    ModelArch &arch = out.import.arch;
    arch.experts = r.integerOr({"num_local_experts"}, 32, 1, 4096);
    arch.expertsPerToken = r.integerOr({"num_experts_per_tok", "experts_per_token"}, 4, 1, 4096);
    arch.expertIntermediate = arch.intermediate;
    arch.attentionSinks = true;
    // Biases on every projection, the experts' MLPs and the router. Bias::All counts the o_proj
    // bias, which the Llama reader added as an extra for attention_bias without mlp_bias.
    const bool biased = r.flag({"attention_bias"}, true);
    arch.bias = biased ? Bias::All : Bias::None;
    if (biased && !r.flag({"mlp_bias"}, false)) {
        out.extraParams -= std::int64_t(arch.hidden) * arch.layers;
        auto &notes = out.import.notes;
        notes.erase(std::remove_if(notes.begin(), notes.end(),
                                   [](const std::string &note) { return note.rfind("attention_bias:", 0) == 0; }),
                    notes.end());
    }
    arch.slidingWindow = readWindow(r, 128);
    readLayerPattern(r, out, 2);
    return out;
}

Reading readOlmo2(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 4096, 0, 2});
    out.import.arch.qkNorm = QkNorm::Full;
    return out;
}

Reading readOlmo3(ConfigReader &r)
{
    // Olmo3Config: OLMo 2's blocks (post-norms, q/k norms over the whole projection) with three
    // sliding-window layers to one full layer (layer_types; sliding_window 4096).
    Reading out = readLlamaLike(r, {false, 65536, 0, 2});
    ModelArch &arch = out.import.arch;
    arch.qkNorm = QkNorm::Full;
    arch.slidingWindow = readWindow(r, 4096);
    readLayerPattern(r, out, 4);
    return out;
}

Reading readSmolLm3(ConfigReader &r)
{
    // SmolLM3Config: Llama blocks, tied embeddings, some layers without RoPE (no tensor of their
    // own); a sliding window only with use_sliding_window.
    Reading out = readLlamaLike(r, {true, 32768, 0, 2});
    ModelArch &arch = out.import.arch;
    if (r.flag({"use_sliding_window"}, false)) {
        arch.slidingWindow = readWindow(r, 0);
        readLayerPattern(r, out, 0);
    }
    return out;
}

Reading readSeedOss(ConfigReader &r)
{
    // SeedOssConfig: Llama blocks with biases on q, k and v (attention_bias, default true), on
    // o only with attention_out_bias, on the MLP with mlp_bias.
    Reading out = readLlamaLike(r, {false, 524288, 128, 2, true});
    ModelArch &arch = out.import.arch;
    if (!r.flag({"attention_bias"}, true))
        arch.bias = Bias::None;
    if (r.flag({"attention_out_bias"}, false))
        out.extraParams += std::int64_t(arch.hidden) * arch.layers;
    if (r.flag({"mlp_bias"}, false))
        out.extraParams += (2 * std::int64_t(arch.intermediate) + arch.hidden) * arch.layers;
    return out;
}

Reading readGlm4Moe(ConfigReader &r)
{
    // Glm4MoeConfig / modeling_glm4_moe.py (GLM-4.5, 4.5-Air, 4.6, 4.7): biases on q, k and v
    // with attention_bias (never on o), per-head q/k norms with use_qk_norm, first_k_dense_replace
    // dense layers, then routed experts, shared experts of moe_intermediate_size x
    // n_shared_experts and a sigmoid router with its e_score_correction_bias.
    Reading out = readLlamaLike(r, {false, 131072, 0, 2, true});
    ModelArch &arch = out.import.arch;
    if (!r.flag({"attention_bias"}, false))
        arch.bias = Bias::None;
    if (r.flag({"use_qk_norm"}, false))
        arch.qkNorm = QkNorm::Head;
    arch.experts = r.integerOr({"n_routed_experts", "num_experts"}, 128, 1, 4096);
    if (arch.experts > 1) {
        arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 8, 1, 4096);
        arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, 1408, 1, kMaxVocab);
        arch.sharedExperts = r.integerOr({"n_shared_experts"}, 1, 0, 64);
        arch.denseLayers = r.integerOr({"first_k_dense_replace"}, 1, 0, arch.layers);
        arch.routerBias = true;
    }
    if (const int mtp = r.integerOr({"num_nextn_predict_layers"}, 0, 0, 16))
        out.import.notes.push_back("The checkpoint's " + std::to_string(mtp) +
                                   " multi-token-prediction layer(s) are not counted (Transformers does not "
                                   "load them; vLLM and SGLang only for speculative decoding).");
    return out;
}

Reading readErnie45(ConfigReader &r)
{
    // Ernie4_5Config / modeling_ernie4_5.py: Llama blocks whose every linear carries a bias with
    // use_bias; the small checkpoints tie their embeddings.
    Reading out = readLlamaLike(r, {true, 131072, 128, 2});
    ModelArch &arch = out.import.arch;
    arch.bias = r.flag({"use_bias"}, false) ? Bias::All : Bias::None;
    return out;
}

Reading readCohere2(ConfigReader &r)
{
    // Cohere2Config (Command R7B, Command A): one weight-only LayerNorm per block feeding attention
    // and the MLP in parallel, tied embeddings, three sliding-window layers to one full layer.
    Reading out = readLlamaLike(r, {true, 8192, 0, 1});
    ModelArch &arch = out.import.arch;
    if (r.flag({"use_qk_norm"}, false))
        r.invalid("use_qk_norm", "(Cohere's per-head LayerNorms on q and k) is not modelled");
    arch.slidingWindow = readWindow(r, 4096);
    readLayerPattern(r, out, 4);
    return out;
}

Reading readMimo(ConfigReader &r)
{
    // Xiaomi MiMo (remote code on Qwen2's blocks: q, k, v biases) with multi-token-prediction
    // layers the engines load only for speculative decoding.
    Reading out = readLlamaLike(r, {false, 32768, 0, 2, true});
    if (const int mtp = r.integerOr({"num_nextn_predict_layers"}, 0, 0, 16))
        out.import.notes.push_back("The checkpoint's " + std::to_string(mtp) +
                                   " multi-token-prediction layer(s) are not counted (loaded only for "
                                   "speculative decoding).");
    return out;
}

Reading readMinimaxM2(ConfigReader &r)
{
    // MiniMaxM2Config / modeling_minimax_m2.py (MiniMax-M2, M2.1): every layer softmax attention
    // (attn_type_list all 1) with q/k RMSNorms over the whole projection ("per_layer") or per head,
    // partial RoPE (no tensor), then routed experts of intermediate_size with a sigmoid router and
    // its e_score_correction_bias; a shared expert only with shared_intermediate_size.
    Reading out = readLlamaLike(r, {false, 196608, 0, 2});
    ModelArch &arch = out.import.arch;
    if (r.flag({"use_qk_norm"}, true)) {
        const json *type = r.find({"qk_norm_type"});
        const std::string kind = type && type->is_string() ? type->get<std::string>() : "per_layer";
        if (kind != "per_layer" && kind != "per_head")
            r.invalid("qk_norm_type", "must be \"per_layer\" or \"per_head\" (got " + quoteJson(*type) + ")");
        arch.qkNorm = kind == "per_layer" ? QkNorm::Full : QkNorm::Head;
    }
    if (const json *types = r.find({"attn_type_list"})) {
        if (!types->is_array())
            r.invalid("attn_type_list", "must be a list of 0 and 1 (got " + quoteJson(*types) + ")");
        for (const json &type : *types)
            if (!type.is_number_integer() || type.get<long long>() != 1)
                r.invalid("attn_type_list", "has " + quoteJson(type) +
                                                ": lightning-attention layers (0) are MiniMax-01/M1's, not modelled");
    }
    arch.experts = r.integerOr({"num_local_experts"}, 256, 2, 4096);
    arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 8, 1, 4096);
    arch.expertIntermediate = arch.intermediate;
    arch.routerBias = r.flag({"use_routing_bias"}, true);
    if (const int shared = r.integerOr({"shared_intermediate_size"}, 0, 0, kMaxVocab); shared > 0) {
        arch.sharedExperts = 1;
        arch.sharedExpertIntermediate = shared;
    }
    if (r.flag({"use_mtp"}, false))
        out.import.notes.push_back("use_mtp: the multi-token-prediction modules are not counted (the published "
                                   "MiniMax-M2 checkpoint's total holds none).");
    return out;
}

Reading readGranite(ConfigReader &r)
{
    return readLlamaLike(r, {true, 4096, 0, 2});
}

Reading readMinistral(ConfigReader &r)
{
    // MinistralConfig (configuration_ministral.py; Ministral-8B-Instruct-2410): Mistral's blocks,
    // sliding_window 4096 unless given as null, layer_types (absent: every layer sliding).
    Reading out = readLlamaLike(r, {false, 4096 * 32, 0, 2});
    out.import.arch.slidingWindow = readWindow(r, r.hasKey("sliding_window") ? 0 : 4096);
    readLayerPattern(r, out, 0);
    return out;
}

Reading readStarcoder2(ConfigReader &r)
{
    // Starcoder2Config / modeling_starcoder2.py: Mistral's attention with biases on q, k, v and o
    // and an MLP c_fc / c_proj (both biased with use_bias, default true), LayerNorms with bias,
    // tied embeddings by default, sliding_window (default none) on every layer.
    Reading out = readLlamaLike(r, {true, 4096, 0, 2});
    ModelArch &arch = out.import.arch;
    arch.mlp = Mlp::Standard;
    arch.norm = Norm::LayerNorm;
    arch.bias = r.flag({"use_bias"}, true) ? Bias::All : Bias::None;
    arch.slidingWindow = readWindow(r, 0);
    return out;
}

} // namespace

const std::vector<Family> &modernFamilies()
{
    static const std::vector<Family> families = {
        {"qwen3", readQwen3},         {"qwen3_moe", readQwen3Moe},   {"qwen2_moe", readQwen2Moe},
        {"gemma3_text", readGemma3},  {"llama4_text", readLlama4},   {"deepseek_v3", readDeepseek},
        {"deepseek_v2", readDeepseek}, {"kimi_k2", readDeepseek},    {"gpt_oss", readGptOss},
        {"deepseek_v32", readDeepseekV32}, {"olmo3", readOlmo3}, {"smollm3", readSmolLm3},
        {"seed_oss", readSeedOss},     {"glm4_moe", readGlm4Moe},     {"ernie4_5", readErnie45},
        {"cohere2", readCohere2},      {"mimo", readMimo},
        {"olmo2", readOlmo2},         {"granite", readGranite},
        {"ministral", readMinistral}, {"starcoder2", readStarcoder2},
        // Qwen3-VL's language models: Qwen3 and Qwen3-MoE blocks (the vision tower: hfvision.cpp).
        {"qwen3_vl_text", readQwen3}, {"qwen3_vl_moe_text", readQwen3Moe},
        {"minimax_m2", readMinimaxM2},
    };
    return families;
}

} // namespace headroom::hf
