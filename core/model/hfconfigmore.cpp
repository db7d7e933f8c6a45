// SPDX-License-Identifier: GPL-3.0-or-later
// config.json readers for the 2025-2026 families added after the first modern set: Tencent
// Hunyuan (hunyuan_v1_dense, hunyuan_v1_moe), Baidu ERNIE 4.5 MoE (ernie4_5_moe), Mistral's
// Ministral 3 / Devstral 2 language model (ministral3) and Moonshot's Kimi Linear (kimi_linear:
// Kimi Delta Attention beside MLA layers). Each takes the defaults of its transformers
// configuration class for absent optional keys and refuses, naming the key, what it does not model.
#include "model/hfconfigreader.h"

#include "model/architecture.h"

#include <algorithm>
#include <tuple>

namespace headroom::hf {

namespace {

/// A whole number given once or once per layer (Hunyuan's moe_topk: [8, 8, ...]): the lists must
/// hold one value for every layer, all the same; a value that varies by layer is not modelled.
int uniformInt(ConfigReader &r, const char *key, int fallback, int low, int high, int layers)
{
    const json *value = r.find({key});
    if (!value || !value->is_array())
        return r.integerOr({key}, fallback, low, high);
    if (static_cast<int>(value->size()) != layers)
        r.invalid(key, "must list " + std::to_string(layers) + " layers (got " + std::to_string(value->size()) + ")");
    int first = fallback;
    for (std::size_t i = 0; i < value->size(); ++i) {
        const json &item = (*value)[i];
        if (!item.is_number_integer() || item.get<long long>() < low || item.get<long long>() > high)
            r.invalid(key, "must list whole numbers from " + std::to_string(low) + " to " + std::to_string(high) +
                               " (got " + quoteJson(item) + ")");
        if (i == 0)
            first = item.get<int>();
        else if (item.get<int>() != first)
            r.invalid(key, "varies by layer (" + quoteJson(*value) + "): layers of different shapes are not modelled");
    }
    return first;
}

/// The Hunyuan attention both families share (modeling_hunyuan_v1_dense.py / _moe.py): Llama's
/// projections (biased on q, k, v and o with attention_bias) and, after RoPE, an RMSNorm of
/// head_dim on the queries and one on the keys. Cross-layer attention (use_cla: layers sharing
/// the K and V of the layer before) is refused.
Reading readHunyuan(ConfigReader &r)
{
    Reading out = readLlamaLike(r, {false, 2048, 0, 2});
    ModelArch &arch = out.import.arch;
    // The original remote code names the head width attention_head_dim.
    if (!r.find({"head_dim"}))
        arch.headDim = r.integerOr({"attention_head_dim"}, arch.headDim, 1, 65536);
    if (r.flag({"use_cla"}, false))
        r.invalid("use_cla", "(cross-layer attention: layers sharing the K and V of another layer) is not modelled");
    // Transformers always builds query_layernorm and key_layernorm; the original code only with
    // use_qk_norm, which every released checkpoint sets.
    if (r.flag({"use_qk_norm"}, true))
        arch.qkNorm = QkNorm::Head;
    else
        out.import.notes.push_back("use_qk_norm false: no q/k norms are counted (Transformers would build them).");
    return out;
}

Reading readHunyuanDense(ConfigReader &r)
{
    Reading out = readHunyuan(r);
    if (const json *experts = r.find({"num_experts"}); experts && !(experts->is_number_integer() && *experts == 1))
        r.invalid("num_experts", "must be 1 for hunyuan_v1_dense (got " + quoteJson(*experts) + ")");
    return out;
}

Reading readHunyuanMoe(ConfigReader &r)
{
    // HunYuanMoEV1Config / modeling_hunyuan_v1_moe.py (Hunyuan-A13B): every layer a mixture of
    // experts, a softmax router wg (hidden x experts, no bias) and a shared MLP of
    // intermediate_size beside the routed experts (moe_intermediate_size where the config gives
    // it, else intermediate_size). Per-layer lists must be uniform.
    Reading out = readHunyuan(r);
    ModelArch &arch = out.import.arch;
    if (r.flag({"mlp_bias"}, false))
        r.invalid("mlp_bias", "(biases on the experts' MLPs) is not modelled");
    arch.experts = uniformInt(r, "num_experts", 1, 1, 4096, arch.layers);
    if (arch.experts < 2)
        r.invalid("num_experts", "must be at least 2 for hunyuan_v1_moe (a dense Hunyuan is hunyuan_v1_dense)");
    arch.expertsPerToken = uniformInt(r, "moe_topk", 1, 1, 4096, arch.layers);
    arch.expertIntermediate = uniformInt(r, "moe_intermediate_size", arch.intermediate, 1, kMaxVocab, arch.layers);
    if (!r.flag({"use_mixed_mlp_moe"}, true))
        r.invalid("use_mixed_mlp_moe", "false (experts without the shared MLP, as the original code builds them; "
                                       "Transformers always adds it) is not modelled");
    if (r.integerOr({"moe_layer_num_skipped"}, 0, 0, 1024) > 0)
        r.invalid("moe_layer_num_skipped", "(leading layers without experts) is not modelled");
    // The original code widens the one shared MLP to intermediate_size x num_shared_expert: the
    // same parameters as that many shared experts of intermediate_size.
    arch.sharedExperts = uniformInt(r, "num_shared_expert", 1, 0, 64, arch.layers);
    arch.sharedExpertIntermediate = arch.intermediate;
    return out;
}

Reading readErnie45Moe(ConfigReader &r)
{
    // Ernie4_5_MoeConfig / modeling_ernie4_5_moe.py (ERNIE-4.5-21B-A3B, -300B-A47B): Llama
    // attention, then in the layers from moe_layer_start_index to moe_layer_end_index, every
    // moe_layer_interval-th, routed experts of moe_intermediate_size with a softmax router (no
    // bias) and its e_score_correction_bias (moe_statics), and one shared MLP of
    // moe_intermediate_size x moe_num_shared_experts; the other layers a dense MLP. The
    // checkpoint's MTP layers are not loaded by Transformers.
    Reading out = readLlamaLike(r, {true, 131072, 128, 2});
    ModelArch &arch = out.import.arch;
    if (r.flag({"use_bias"}, false))
        r.invalid("use_bias", "(biases on every projection, the experts and the lm_head) is not modelled for the MoE");
    for (const char *key : {"moe_num_experts", "moe_intermediate_size", "moe_k"})
        if (const json *value = r.find({key}); value && value->is_array())
            r.invalid(key, "is a list (" + quoteJson(*value) + "): the multimodal ERNIE-4.5-VL experts are not modelled");
    arch.experts = r.integerOr({"moe_num_experts"}, 64, 1, 4096);
    arch.expertsPerToken = r.integerOr({"moe_k"}, 6, 1, 4096);
    arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, 1536, 1, kMaxVocab);
    const int shared = r.integerOr({"moe_num_shared_experts"}, 2, 0, 64);
    const int start = r.integerOr({"moe_layer_start_index"}, 1, 0, arch.layers);
    int end = r.integerOr({"moe_layer_end_index"}, -1, -1, 1 << 20);
    if (end < 0 || end >= arch.layers)
        end = arch.layers - 1;
    const int interval = r.integerOr({"moe_layer_interval"}, 1, 1, 1024);
    if (arch.experts > 1) {
        arch.sharedExperts = shared;
        arch.routerBias = true; // moe_statics.e_score_correction_bias
        if (end == arch.layers - 1) {
            arch.denseLayers = start;
            arch.moeEvery = interval;
        } else {
            for (int i = 0; i < arch.layers; ++i)
                arch.layerMlps.push_back((i + 1) % interval == 0 && i >= start && i <= end ? LayerMlp::Moe
                                                                                           : LayerMlp::Dense);
        }
    }
    if (const int mtp = r.integerOr({"num_nextn_predict_layers"}, 0, 0, 16))
        out.import.notes.push_back("The checkpoint's " + std::to_string(mtp) +
                                   " multi-token-prediction layer(s) are not counted (Transformers skips them on "
                                   "load; vLLM loads them only for speculative decoding).");
    return out;
}

Reading readMinistral3(ConfigReader &r)
{
    // Ministral3Config / modular_ministral3.py (Ministral 3 3B/8B/14B inside mistral3, Devstral 2
    // alone): Mistral's blocks, no window unless sliding_window is set (then every layer), head_dim
    // 128. Its Llama-4 attention scaling (llama_4_scaling_beta) changes no tensor.
    Reading out = readLlamaLike(r, {false, 262144, 128, 2});
    out.import.arch.slidingWindow = readWindow(r, 0);
    if (r.find({"rope_parameters"}))
        out.import.notes.push_back("rope_parameters (YaRN with llama_4_scaling_beta) change no tensor; the context "
                                   "limit is max_position_embeddings (" +
                                   std::to_string(out.import.arch.maxPositions) + ").");
    return out;
}

/// Kimi Linear's layer kinds: linear_attn_config's 1-based full_attn_layers and kda_layers (the
/// checkpoint's form), else layer_types, else KimiLinearConfig's default (0-based layer i is MLA
/// when i > 0 and i % 4 == 0).
std::vector<LayerKind> kimiLayerKinds(ConfigReader &r, ConfigReader &linear, const json *config, int layers)
{
    std::vector<LayerKind> kinds;
    const json *full = config ? linear.find({"full_attn_layers"}) : nullptr;
    const json *kda = config ? linear.find({"kda_layers"}) : nullptr;
    if (full && kda) {
        std::vector<int> seen(static_cast<std::size_t>(layers), 0);
        kinds.assign(static_cast<std::size_t>(layers), LayerKind::Kda);
        for (const auto &[list, name, kind] : {std::tuple{full, "full_attn_layers", LayerKind::Mla},
                                                std::tuple{kda, "kda_layers", LayerKind::Kda}}) {
            if (!list->is_array())
                linear.invalid(name, "must be a list of 1-based layer numbers (got " + quoteJson(*list) + ")");
            for (const json &item : *list) {
                if (!item.is_number_integer() || item.get<long long>() < 1 || item.get<long long>() > layers)
                    linear.invalid(name, "must list layer numbers from 1 to " + std::to_string(layers) + " (got " +
                                             quoteJson(item) + ")");
                const auto index = static_cast<std::size_t>(item.get<int>() - 1);
                ++seen[index];
                kinds[index] = kind;
            }
        }
        if (std::any_of(seen.begin(), seen.end(), [](int n) { return n != 1; }))
            linear.invalid("full_attn_layers", "and kda_layers must name every layer exactly once");
        return kinds;
    }
    if (const json *types = r.find({"layer_types"})) {
        if (!types->is_array() || static_cast<int>(types->size()) != layers)
            r.invalid("layer_types", "must list " + std::to_string(layers) + " layers");
        for (const json &type : *types) {
            if (type == "full_attention")
                kinds.push_back(LayerKind::Mla);
            else if (type == "kda_attention" || type == "linear_attention")
                kinds.push_back(LayerKind::Kda);
            else
                r.invalid("layer_types", "has " + quoteJson(type) + ": layers are full_attention and kda_attention");
        }
        return kinds;
    }
    for (int i = 0; i < layers; ++i)
        kinds.push_back(i > 0 && i % 4 == 0 ? LayerKind::Mla : LayerKind::Kda);
    return kinds;
}

Reading readKimiLinear(ConfigReader &r)
{
    // KimiLinearConfig / the checkpoint's modeling_kimi.py (Kimi-Linear-48B-A3B): DeepSeek-V3's
    // latent attention (no RoPE applied, the rotary part of the key still cached) in the
    // full-attention layers, Kimi Delta Attention (fla's KimiDeltaAttention: q, k, v with short
    // convolutions, low-rank decay and output gates of rank head_dim, beta, a gated norm) in the
    // others; a dense MLP in the first first_k_dense_replace layers, then routed experts with a
    // sigmoid router and its e_score_correction_bias beside shared experts.
    Reading out;
    ModelArch &arch = out.import.arch;
    arch.layers = r.integerOr({"num_hidden_layers"}, 27, 1, 1024);
    arch.hidden = r.integerOr({"hidden_size"}, 2304, 1, kMaxHidden);
    arch.intermediate = r.integerOr({"intermediate_size"}, 9216, 1, kMaxVocab);
    arch.heads = r.integerOr({"num_attention_heads"}, 32, 1, 65536);
    arch.vocab = r.integerOr({"vocab_size"}, 163840, 1, kMaxVocab);
    arch.kvHeads = arch.heads;
    arch.kvLoraRank = r.integerOr({"kv_lora_rank"}, 512, 1, 1 << 20);
    arch.qkRopeHeadDim = r.integerOr({"qk_rope_head_dim"}, 64, 1, 65536);
    arch.qkNopeHeadDim = r.integerOr({"qk_nope_head_dim"}, 128, 1, 65536);
    arch.vHeadDim = r.integerOr({"v_head_dim"}, 128, 1, 65536);
    arch.qLoraRank = r.integerOr({"q_lora_rank"}, 0, 0, 1 << 20);
    arch.headDim = arch.qkNopeHeadDim + arch.qkRopeHeadDim;
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, false);
    arch.mlp = Mlp::Gated;
    arch.norm = Norm::RmsNorm;
    arch.position = Position::Rope;
    arch.maxPositions = r.integerOr({"max_position_embeddings", "model_max_length"}, 1048576, 1, kMaxPositions);
    arch.normsPerLayer = 2;
    arch.bias = Bias::None;
    // Kimi K3's additions (latent experts, attention residual blocks, gated MLA) change the counts.
    for (const char *key : {"routed_expert_hidden_size", "attn_res_block_size", "moe_latent_size"})
        if (const json *value = r.find({key}))
            r.invalid(key, "(" + quoteJson(*value) + ") is Kimi K3's layout: not modelled");
    if (r.flag({"mla_use_output_gate"}, false))
        r.invalid("mla_use_output_gate", "(a gate on the MLA output) is not modelled");

    arch.experts = r.integerOr({"num_experts", "n_routed_experts"}, 256, 1, 4096);
    if (arch.experts > 1) {
        arch.expertsPerToken = r.integerOr({"num_experts_per_token", "num_experts_per_tok"}, 8, 1, 4096);
        arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, 1024, 1, kMaxVocab);
        arch.sharedExperts = r.integerOr({"num_shared_experts", "n_shared_experts"}, 1, 0, 64);
        arch.denseLayers = r.integerOr({"first_k_dense_replace"}, 1, 0, arch.layers);
        arch.moeEvery = r.integerOr({"moe_layer_freq"}, 1, 1, 1024);
        arch.routerBias = true; // the router's e_score_correction_bias
    }

    const json *nested = r.find({"linear_attn_config"});
    if (nested && !nested->is_object())
        r.invalid("linear_attn_config", "must be an object (got " + quoteJson(*nested) + ")");
    static const json kEmpty = json::object();
    ConfigReader linear(nested ? *nested : kEmpty, r.type(), "linear_attn_config.");
    if (linear.flag({"use_full_rank_gate"}, false))
        linear.invalid("use_full_rank_gate", "(full-rank KDA gates, Kimi K3) is not modelled");
    LinearShape &l = arch.linear;
    l.heads = linear.integerOr({"num_heads"}, r.integerOr({"linear_num_key_heads"}, 32, 1, 65536), 1, 65536);
    l.keyHeads = l.heads; // KDA: as many key heads as value heads, of one width
    l.keyDim = l.valueDim = linear.integerOr({"head_dim"}, r.integerOr({"linear_key_head_dim"}, 128, 1, 65536), 1, 65536);
    l.convKernel = linear.integerOr({"short_conv_kernel_size"}, r.integerOr({"linear_conv_kernel_dim"}, 4, 2, 64), 2, 64);
    l.convBias = false;
    arch.layerKinds = kimiLayerKinds(r, linear, nested, arch.layers);
    if (const int mtp = r.integerOr({"num_nextn_predict_layers", "num_mtp_layers"}, 0, 0, 16))
        out.import.notes.push_back("The checkpoint's " + std::to_string(mtp) +
                                   " multi-token-prediction layer(s) are not counted (loaded only for "
                                   "speculative decoding).");
    out.import.notes.push_back("Kimi Linear: the MLA layers apply no RoPE but cache the shared rotary key part all "
                               "the same; the KDA layers keep a conv and a fp32 delta-rule state per sequence.");
    return out;
}

} // namespace

const std::vector<Family> &moreFamilies()
{
    static const std::vector<Family> families = {
        {"hunyuan_v1_dense", readHunyuanDense},
        {"hunyuan_v1_moe", readHunyuanMoe},
        {"ernie4_5_moe", readErnie45Moe},
        {"ministral3", readMinistral3},
        {"kimi_linear", readKimiLinear},
    };
    return families;
}

} // namespace headroom::hf
