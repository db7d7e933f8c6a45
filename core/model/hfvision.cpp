// SPDX-License-Identifier: GPL-3.0-or-later
// The vision tower of a vision-language checkpoint, counted from its config.json's vision_config
// the way the transformers modeling code builds it: Qwen2-VL (LayerNorm blocks, a plain MLP),
// Qwen2.5-VL (modeling_qwen2_5_vl.py: a
// Conv3d patch embedding, gated-MLP blocks with biases, a patch merger), Qwen3-VL and
// Qwen3-VL-MoE (modeling_qwen3_vl.py: a biased Conv3d, learned positions, LayerNorm blocks with a
// plain MLP, a merger and the DeepStack mergers), Gemma 3 (SiglipVisionModel without its pooling
// head, and Gemma3MultiModalProjector), Mistral 3 (PixtralVisionModel and
// Mistral3MultiModalProjector), Llama 4 (Llama4VisionModel and its projector). Absent keys take the vision configuration class's
// defaults; the tower is loaded with the model and kept 16-bit.
#include "model/hfconfigreader.h"

#include "scenario/checked.h"

#include <algorithm>

namespace headroom::hf {

namespace {

using u64 = std::uint64_t;

const char *kWhat = "vision tower parameter count";

u64 u(int value) { return static_cast<u64>(value); }

/// A linear layer's weight and, with `bias`, its bias.
u64 linear(u64 in, u64 out, bool bias = true)
{
    return addChecked(mulChecked(in, out, kWhat), bias ? out : 0, kWhat);
}

/// The merger's output must be the language model's width: the image tokens replace text tokens.
void checkOutput(ConfigReader &r, int out, int textHidden)
{
    if (out != textHidden)
        r.invalid("out_hidden_size", "(" + std::to_string(out) + ") must be the language model's hidden_size (" +
                                         std::to_string(textHidden) + ")");
}

/// Qwen2_5_VisionTransformerPretrainedModel (Qwen2_5_VLVisionConfig defaults).
u64 qwen25Vision(ConfigReader &r, int textHidden)
{
    const int depth = r.integerOr({"depth"}, 32, 1, 1024);
    const int hidden = r.integerOr({"hidden_size"}, 3584, 1, kMaxHidden);
    const int inner = r.integerOr({"intermediate_size"}, 3420, 1, kMaxVocab);
    const int channels = r.integerOr({"in_channels", "in_chans"}, 3, 1, 64);
    const int patch = r.integerOr({"patch_size", "spatial_patch_size"}, 14, 1, 1024);
    const int temporal = r.integerOr({"temporal_patch_size"}, 2, 1, 64);
    const int merge = r.integerOr({"spatial_merge_size"}, 2, 1, 16);
    const int out = r.integerOr({"out_hidden_size"}, 3584, 1, kMaxHidden);
    checkOutput(r, out, textHidden);
    const u64 h = u(hidden), merged = u(hidden) * u(merge) * u(merge);
    // patch_embed.proj: Conv3d(channels, hidden, (temporal, patch, patch)), no bias.
    u64 total = mulChecked(u(channels) * u(temporal) * u(patch) * u(patch), h, kWhat);
    // A block: norm1 and norm2 (RMSNorm), qkv and proj with biases, gate/up/down with biases.
    const u64 block = 2 * h + linear(h, 3 * h) + linear(h, h) + 2 * linear(h, u(inner)) + linear(u(inner), h);
    total = addChecked(total, mulChecked(block, u(depth), kWhat), kWhat);
    // merger: ln_q (RMSNorm over hidden), Linear(merged, merged), GELU, Linear(merged, out).
    return addChecked(total, h + linear(merged, merged) + linear(merged, u(out)), kWhat);
}

/// Qwen2VisionTransformerPretrainedModel (Qwen2VLVisionConfig defaults): LayerNorm blocks with a
/// plain MLP of embed_dim x mlp_ratio, the merger to hidden_size (the language model's width).
u64 qwen2Vision(ConfigReader &r, int textHidden)
{
    const int depth = r.integerOr({"depth"}, 32, 1, 1024);
    const int embed = r.integerOr({"embed_dim"}, 1280, 1, kMaxHidden);
    const int ratio = r.integerOr({"mlp_ratio"}, 4, 1, 64);
    const int channels = r.integerOr({"in_channels", "in_chans"}, 3, 1, 64);
    const int patch = r.integerOr({"patch_size", "spatial_patch_size"}, 14, 1, 1024);
    const int temporal = r.integerOr({"temporal_patch_size"}, 2, 1, 64);
    const int merge = r.integerOr({"spatial_merge_size"}, 2, 1, 16);
    const int out = r.integerOr({"hidden_size"}, 3584, 1, kMaxHidden);
    if (out != textHidden)
        r.invalid("hidden_size", "(" + std::to_string(out) + ") must be the language model's hidden_size (" +
                                     std::to_string(textHidden) + ")");
    const u64 h = u(embed), inner = u(embed) * u(ratio), merged = u(embed) * u(merge) * u(merge);
    u64 total = mulChecked(u(channels) * u(temporal) * u(patch) * u(patch), h, kWhat); // Conv3d, no bias
    const u64 block = 4 * h + linear(h, 3 * h) + linear(h, h) + linear(h, inner) + linear(inner, h);
    total = addChecked(total, mulChecked(block, u(depth), kWhat), kWhat);
    // merger: ln_q (LayerNorm over embed_dim), Linear(merged, merged), GELU, Linear(merged, out).
    return addChecked(total, 2 * h + linear(merged, merged) + linear(merged, u(out)), kWhat);
}

/// Qwen3VLVisionModel (Qwen3VLVisionConfig defaults); Qwen3-VL-MoE's tower is the same, and
/// Qwen3.5's with deepstack_visual_indexes empty.
u64 qwen3Vision(ConfigReader &r, const json &vision, int textHidden, bool qwen35)
{
    const int depth = r.integerOr({"depth"}, 27, 1, 1024);
    const int hidden = r.integerOr({"hidden_size"}, 1152, 1, kMaxHidden);
    const int inner = r.integerOr({"intermediate_size"}, 4304, 1, kMaxVocab);
    const int channels = r.integerOr({"in_channels"}, 3, 1, 64);
    const int patch = r.integerOr({"patch_size"}, 16, 1, 1024);
    const int temporal = r.integerOr({"temporal_patch_size"}, 2, 1, 64);
    const int merge = r.integerOr({"spatial_merge_size"}, 2, 1, 16);
    const int out = r.integerOr({"out_hidden_size"}, 3584, 1, kMaxHidden);
    const int positions = r.integerOr({"num_position_embeddings"}, 2304, 0, kMaxPositions);
    checkOutput(r, out, textHidden);
    u64 deepstack = 3; // deepstack_visual_indexes [8, 16, 24]
    if (qwen35 && !vision.contains("deepstack_visual_indexes"))
        r.invalid("deepstack_visual_indexes", "is needed: Qwen3.5 checkpoints state it (an empty list)");
    if (const auto it = vision.find("deepstack_visual_indexes"); it != vision.end() && !it->is_null()) {
        if (!it->is_array())
            r.invalid("deepstack_visual_indexes", "must be a list of block indices (got " + quoteJson(*it) + ")");
        for (const json &index : *it)
            if (!index.is_number_integer() || index.get<long long>() < 0 || index.get<long long>() >= depth)
                r.invalid("deepstack_visual_indexes", "must list block indices from 0 to " + std::to_string(depth - 1));
        deepstack = it->size();
    }
    const u64 h = u(hidden), merged = u(hidden) * u(merge) * u(merge);
    // patch_embed.proj: Conv3d with a bias; pos_embed: Embedding(num_position_embeddings, hidden).
    u64 total = linear(u(channels) * u(temporal) * u(patch) * u(patch), h) + mulChecked(u(positions), h, kWhat);
    // A block: two LayerNorms (weight and bias), qkv and proj with biases, linear_fc1/fc2 with biases.
    const u64 block = 4 * h + linear(h, 3 * h) + linear(h, h) + linear(h, u(inner)) + linear(u(inner), h);
    total = addChecked(total, mulChecked(block, u(depth), kWhat), kWhat);
    // merger: LayerNorm over hidden, Linear(merged, merged), GELU, Linear(merged, out); each
    // DeepStack merger normalises after the shuffle (LayerNorm over merged).
    const u64 mlp = linear(merged, merged) + linear(merged, u(out));
    total = addChecked(total, 2 * h + mlp, kWhat);
    return addChecked(total, mulChecked(deepstack, 2 * merged + mlp, kWhat), kWhat);
}

/// SiglipVisionModel (SiglipVisionConfig defaults) and Gemma3MultiModalProjector.
u64 gemma3Vision(ConfigReader &r, int textHidden)
{
    const int layers = r.integerOr({"num_hidden_layers"}, 12, 1, 1024);
    const int hidden = r.integerOr({"hidden_size"}, 768, 1, kMaxHidden);
    const int inner = r.integerOr({"intermediate_size"}, 3072, 1, kMaxVocab);
    const int channels = r.integerOr({"num_channels"}, 3, 1, 64);
    const int image = r.integerOr({"image_size"}, 224, 1, 1 << 16);
    const int patch = r.integerOr({"patch_size"}, 16, 1, 1 << 16);
    if (image % patch != 0)
        r.invalid("image_size", "(" + std::to_string(image) + ") must be a multiple of patch_size (" +
                                    std::to_string(patch) + ")");
    if (r.flag({"vision_use_head"}, true))
        r.invalid("vision_use_head", "must be false: SigLIP's attention-pooling head is not modelled "
                                     "(Gemma 3 checkpoints leave it out)");
    const u64 h = u(hidden), side = u(image / patch);
    // patch_embedding: Conv2d(channels, hidden, patch, patch) with a bias; learned positions.
    u64 total = linear(u(channels) * u(patch) * u(patch), h) + mulChecked(side * side, h, kWhat);
    // A layer: two LayerNorms, q, k, v, out_proj with biases, fc1 and fc2 with biases.
    const u64 layer = 4 * h + 4 * linear(h, h) + linear(h, u(inner)) + linear(u(inner), h);
    total = addChecked(total, mulChecked(layer, u(layers), kWhat), kWhat);
    total += 2 * h; // post_layernorm
    // mm_input_projection_weight (vision hidden x text hidden) and mm_soft_emb_norm (RMSNorm).
    return addChecked(total, mulChecked(h, u(textHidden), kWhat) + h, kWhat);
}

/// PixtralVisionModel (PixtralVisionConfig defaults) and Mistral3MultiModalProjector (Mistral
/// Small 3.1 / 3.2): bias-free patch convolution, RMSNorms, attention and gated MLP; the
/// projector's norm, patch merger and two linears (biased with multimodal_projector_bias).
u64 pixtralVision(ConfigReader &r, const json &outer, int textHidden)
{
    const int layers = r.integerOr({"num_hidden_layers"}, 24, 1, 1024);
    const int hidden = r.integerOr({"hidden_size"}, 1024, 1, kMaxHidden);
    const int inner = r.integerOr({"intermediate_size"}, 4096, 1, kMaxVocab);
    const int heads = r.integerOr({"num_attention_heads"}, 16, 1, 65536);
    const int headDim = r.integerOr({"head_dim"}, hidden / heads, 1, 65536);
    const int channels = r.integerOr({"num_channels"}, 3, 1, 64);
    const int patch = r.integerOr({"patch_size"}, 16, 1, 1 << 16);
    ConfigReader top(outer, "mistral3");
    const int merge = top.integerOr({"spatial_merge_size"}, 2, 1, 16);
    const bool bias = top.flag({"multimodal_projector_bias"}, false);
    u64 featureLayers = 1;
    if (const auto it = outer.find("vision_feature_layer"); it != outer.end() && it->is_array())
        featureLayers = std::max<u64>(1, it->size());
    const u64 h = u(hidden), width = u(heads) * u(headDim), t = u(textHidden);
    // patch_conv (no bias), ln_pre; a layer: attention_norm, ffn_norm, q, k, v, o, w1, w2, w3.
    u64 total = mulChecked(u(channels) * u(patch) * u(patch), h, kWhat) + h;
    const u64 layer = 2 * h + 3 * linear(h, width, false) + linear(width, h, false) + 2 * linear(h, u(inner), false) +
                      linear(u(inner), h, false);
    total = addChecked(total, mulChecked(layer, u(layers), kWhat), kWhat);
    // The projector: norm, patch_merger.merging_layer, linear_1, linear_2.
    return addChecked(total, h + linear(h * u(merge) * u(merge), h, false) + linear(h * featureLayers, t, bias) +
                                 linear(t, t, bias),
                      kWhat);
}

/// Llama4VisionModel (Llama4VisionConfig defaults) and Llama4MultiModalProjector: an unfolded
/// bias-free patch projection, a class embedding and learned positions, LayerNorms, biased
/// attention and MLP layers, the pixel-shuffle MLP (fc1 from intermediate_size, fc2), and the
/// projector's linear_1 to the language model's width.
u64 llama4Vision(ConfigReader &r, int textHidden)
{
    const int layers = r.integerOr({"num_hidden_layers"}, 34, 1, 1024);
    const int hidden = r.integerOr({"hidden_size"}, 768, 1, kMaxHidden);
    const int inner = r.integerOr({"intermediate_size"}, 5632, 1, kMaxVocab);
    const int channels = r.integerOr({"num_channels"}, 3, 1, 64);
    const int image = r.integerOr({"image_size"}, 448, 1, 1 << 16);
    const int patch = r.integerOr({"patch_size"}, 14, 1, 1 << 16);
    const int projectorIn = r.integerOr({"projector_input_dim"}, 4096, 1, kMaxHidden);
    const int projectorOut = r.integerOr({"projector_output_dim"}, 4096, 1, kMaxHidden);
    const int output = r.integerOr({"vision_output_dim"}, 7680, 1, kMaxHidden);
    if (r.flag({"multi_modal_projector_bias"}, false))
        r.invalid("multi_modal_projector_bias", "is not modelled (Llama 4 checkpoints leave it false)");
    const u64 h = u(hidden), side = u(image / patch);
    u64 total = mulChecked(u(channels) * u(patch) * u(patch), h, kWhat); // patch_embedding.linear
    total += h + mulChecked(side * side + 1, h, kWhat) + 4 * h;          // class, positions, two LayerNorms
    const u64 layer = 4 * linear(h, h) + linear(h, u(inner)) + linear(u(inner), h) + 4 * h;
    total = addChecked(total, mulChecked(layer, u(layers), kWhat), kWhat);
    total = addChecked(total, linear(u(inner), u(projectorIn), false) + linear(u(projectorOut), u(projectorOut), false),
                       kWhat);
    return addChecked(total, linear(u(output), u(textHidden), false), kWhat);
}

} // namespace

bool countsVisionTower(const std::string &outerType)
{
    return outerType == "qwen2_vl" || outerType == "qwen2_5_vl" || outerType == "qwen3_vl" || outerType == "qwen3_vl_moe" ||
           outerType == "qwen3_5" || outerType == "qwen3_5_moe" || outerType == "gemma3" || outerType == "mistral3" ||
           outerType == "llama4";
}

std::uint64_t readVisionTower(const json &outer, const std::string &outerType, int textHidden)
{
    if (!countsVisionTower(outerType))
        return 0;
    const auto it = outer.find("vision_config");
    ConfigReader top(outer, outerType);
    if (it == outer.end() || it->is_null())
        top.invalid("vision_config", "is needed: the vision tower's parameters are counted from it");
    if (!it->is_object())
        top.invalid("vision_config", "must be an object (got " + quoteJson(*it) + ")");
    ConfigReader r(*it, outerType, "vision_config.");
    try {
        if (outerType == "qwen2_5_vl")
            return qwen25Vision(r, textHidden);
        if (outerType == "qwen2_vl")
            return qwen2Vision(r, textHidden);
        if (outerType == "gemma3")
            return gemma3Vision(r, textHidden);
        if (outerType == "mistral3")
            return pixtralVision(r, outer, textHidden);
        if (outerType == "llama4")
            return llama4Vision(r, textHidden);
        return qwen3Vision(r, *it, textHidden, outerType.rfind("qwen3_5", 0) == 0);
    } catch (const OverflowError &) {
        r.invalid("hidden_size", "gives more vision parameters than Headroom can count");
    }
}

} // namespace headroom::hf
