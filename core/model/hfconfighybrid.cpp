// SPDX-License-Identifier: GPL-3.0-or-later
// config.json readers for the hybrid families whose layers are not all softmax attention:
// Qwen3-Next (Gated DeltaNet and gated attention, a mixture of experts), Nemotron-H (Mamba-2,
// attention, MLP and MoE layers in one pattern), Granite 4.0 and Jamba (Mamba-1 and attention).
// Each takes the defaults of its transformers configuration class for absent optional keys, and
// reads the layer pattern from whatever the config gives (layer_types, layers_block_type, hybrid_override_pattern, an interval).
#include "model/hfconfigreader.h"

#include "model/architecture.h"
#include "scenario/units.h"

#include <algorithm>
#include <map>

namespace headroom::hf {

namespace {

/// The shortest period of a list that repeats it exactly (a pattern of 48 layers with one full
/// layer in four is stored as four entries).
template <typename T>
std::vector<T> shortestPeriod(const std::vector<T> &list)
{
    for (std::size_t period = 1; period < list.size(); ++period) {
        if (list.size() % period != 0)
            continue;
        bool repeats = true;
        for (std::size_t i = period; i < list.size() && repeats; ++i)
            repeats = list[i] == list[i % period];
        if (repeats)
            return {list.begin(), list.begin() + static_cast<std::ptrdiff_t>(period)};
    }
    return list;
}

/// A list of strings named `key`, each one of `names`, one per layer.
template <typename T>
std::vector<T> readNamedList(ConfigReader &r, const char *key, const std::map<std::string, T> &names, int layers)
{
    std::vector<T> out;
    const json *value = r.find({key});
    if (!value)
        return out;
    std::string known;
    for (const auto &[name, kind] : names)
        known += (known.empty() ? "" : ", ") + name;
    if (!value->is_array())
        r.invalid(key, "must be a list of strings (" + known + "), got " + quoteJson(*value));
    for (const json &item : *value) {
        const auto it = item.is_string() ? names.find(item.get<std::string>()) : names.end();
        if (it == names.end())
            r.invalid(key, "has " + quoteJson(item) + ": this model type's layers are " + known);
        out.push_back(it->second);
    }
    if (layers > 0 && static_cast<int>(out.size()) != layers)
        r.invalid(key, "must list " + std::to_string(layers) + " layers (got " + std::to_string(out.size()) + ")");
    return out;
}

/// The Gated DeltaNet shape and the layer pattern of Qwen3-Next and Qwen3.5 (layer_types, else
/// one full-attention layer every full_attention_interval), with gated, q/k-normed attention.
void readGatedDeltaNet(ConfigReader &r, ModelArch &arch)
{
    arch.qkNorm = QkNorm::Head;
    arch.gatedAttention = true; // q_proj yields the query and a sigmoid gate per head
    LinearShape &l = arch.linear;
    l.keyHeads = r.integerOr({"linear_num_key_heads"}, 16, 1, 65536);
    l.heads = r.integerOr({"linear_num_value_heads"}, 32, 1, 65536);
    l.keyDim = r.integerOr({"linear_key_head_dim"}, 128, 1, 65536);
    l.valueDim = r.integerOr({"linear_value_head_dim"}, 128, 1, 65536);
    l.convKernel = r.integerOr({"linear_conv_kernel_dim"}, 4, 2, 64);
    if (l.heads % l.keyHeads != 0)
        r.invalid("linear_num_value_heads", "must be a multiple of linear_num_key_heads (" +
                                                std::to_string(l.keyHeads) + ")");
    std::vector<LayerKind> kinds = readNamedList<LayerKind>(
        r, "layer_types", {{"linear_attention", LayerKind::GatedDeltaNet}, {"full_attention", LayerKind::Full}},
        arch.layers);
    if (kinds.empty()) {
        const int interval = r.integerOr({"full_attention_interval"}, 4, 1, 1024);
        for (int i = 0; i < arch.layers; ++i)
            kinds.push_back((i + 1) % interval ? LayerKind::GatedDeltaNet : LayerKind::Full);
    }
    arch.layerKinds = shortestPeriod(kinds);
}

/// Qwen3-Next / Qwen3.5-MoE sparse blocks: routed experts and one shared expert with a sigmoid
/// gate (hidden x 1 per sparse layer, returned as extra parameters).
std::int64_t readQwenNextExperts(ConfigReader &r, ModelArch &arch, int experts, int perToken, int width)
{
    arch.experts = r.integerOr({"num_experts"}, experts, 1, 4096);
    arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, perToken, 1, 4096);
    arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, width, 1, kMaxVocab);
    const int step = r.integerOr({"decoder_sparse_step"}, 1, 1, 1024);
    const std::vector<int> dense = [&] {
        std::vector<int> list;
        const json *value = r.find({"mlp_only_layers"});
        if (!value)
            return list;
        if (!value->is_array())
            r.invalid("mlp_only_layers", "must be a list of layer indices (got " + quoteJson(*value) + ")");
        for (const json &item : *value) {
            if (!item.is_number_integer() || item.get<long long>() < 0 || item.get<long long>() >= arch.layers)
                r.invalid("mlp_only_layers", "must list layer indices from 0 to " + std::to_string(arch.layers - 1));
            list.push_back(item.get<int>());
        }
        return list;
    }();
    std::vector<LayerMlp> mlps;
    for (int i = 0; i < arch.layers; ++i) {
        const bool sparse = arch.experts > 1 && (i + 1) % step == 0 &&
                            std::find(dense.begin(), dense.end(), i) == dense.end();
        mlps.push_back(sparse ? LayerMlp::Moe : LayerMlp::Dense);
    }
    arch.layerMlps = shortestPeriod(mlps);
    const int shared = r.integerOr({"shared_expert_intermediate_size"}, width, 0, kMaxVocab);
    if (shared > 0 && arch.experts > 1) {
        arch.sharedExperts = 1;
        arch.sharedExpertIntermediate = shared;
        return std::int64_t(arch.hidden) * arch.moeLayers(); // shared_expert_gate
    }
    return 0;
}

/// The checkpoint's multi-token-prediction module of Qwen3-Next and Qwen3.5 (mtp.*, which
/// Transformers skips on load): per layer mtp.fc (2 x hidden -> hidden), two pre-fc norms and
/// one full-attention decoder block with the model's MLP kind; then mtp.norm. It shares the
/// model's embeddings and head unless mtp_use_dedicated_embeddings.
void readQwenNextMtp(ConfigReader &r, Reading &out)
{
    ModelArch &arch = out.import.arch;
    const int mtp = r.integerOr({"mtp_num_hidden_layers", "num_nextn_predict_layers"}, 0, 0, 16);
    if (mtp == 0)
        return;
    if (r.flag({"mtp_use_dedicated_embeddings"}, false))
        r.invalid("mtp_use_dedicated_embeddings", "(the MTP module's own embedding table) is not modelled");
    ModelArch block = arch;
    block.layers = 1;
    block.layerKinds = {LayerKind::Full};
    const bool moe = arch.moeLayers() > 0;
    block.layerMlps = {moe ? LayerMlp::Moe : LayerMlp::Dense};
    block.tiedEmbeddings = true;
    block.visionParams = 0;
    block.mtpParams = 0;
    block.params.reset();
    const ParamCounts c = countParams(block);
    const std::uint64_t h = std::uint64_t(arch.hidden);
    // The block: all of the one-layer model but its embeddings and final norm; a shared gate.
    const std::uint64_t layer = c.derived - c.embeddings - h + (moe && arch.sharedExperts ? h : 0);
    arch.mtpLayers = mtp;
    arch.mtpParams = std::uint64_t(mtp) * (2 * h * h + 2 * h + layer) + h;
    out.import.notes.push_back("The checkpoint's " + std::to_string(mtp) + " multi-token-prediction layer(s) (" +
                               groupDigits(arch.mtpParams) +
                               " parameters) are counted apart: Transformers does not load them, vLLM and "
                               "SGLang only for speculative decoding.");
}

Reading readQwen3Next(ConfigReader &r)
{
    // Qwen3NextConfig (transformers configuration_qwen3_next.py): its defaults are the
    // Qwen3-Next-80B-A3B shape.
    Reading out = readLlamaLike(r, {false, 32768, 256, 2});
    ModelArch &arch = out.import.arch;
    readGatedDeltaNet(r, arch);
    out.extraParams += readQwenNextExperts(r, arch, 512, 10, 512);
    readQwenNextMtp(r, out);
    return out;
}

/// Qwen3.5 and Qwen3.6 (modeling_qwen3_5.py, modeling_qwen3_5_moe.py): Qwen3-Next's Gated
/// DeltaNet and gated attention layers with a dense MLP, or its mixture of experts.
Reading readQwen35(ConfigReader &r, bool moe)
{
    Reading out = readLlamaLike(r, {false, 262144, 256, 2});
    ModelArch &arch = out.import.arch;
    readGatedDeltaNet(r, arch);
    if (moe)
        out.extraParams += readQwenNextExperts(r, arch, 256, 8, 512);
    readQwenNextMtp(r, out);
    return out;
}

Reading readQwen35Dense(ConfigReader &r) { return readQwen35(r, false); }
Reading readQwen35Moe(ConfigReader &r) { return readQwen35(r, true); }

Reading readNemotronH(ConfigReader &r)
{
    // NemotronHConfig (transformers configuration_nemotron_h.py): every layer is one block of a
    // norm and one mixer: Mamba-2 ("M", linear_attention), attention ("*"), an MLP ("-") or a
    // mixture of experts ("E").
    Reading out;
    ModelArch &arch = out.import.arch;
    arch.hidden = r.integerOr({"hidden_size"}, 4096, 1, kMaxHidden);
    arch.vocab = r.integerOr({"vocab_size"}, 131072, 1, kMaxVocab);
    arch.heads = r.integerOr({"num_attention_heads"}, 32, 1, 65536);
    arch.kvHeads = r.integerOr({"num_key_value_heads"}, arch.heads, 1, 65536);
    arch.headDim = r.integerOr({"head_dim"}, 128, 1, 65536);
    arch.intermediate = r.integerOr({"intermediate_size"}, 21504, 1, kMaxVocab);
    arch.maxPositions = r.integerOr({"max_position_embeddings"}, 4096, 1, kMaxPositions);
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, false);
    arch.mlp = Mlp::Standard; // up_proj, relu2, down_proj
    arch.activation = Activation::Relu2;
    arch.norm = Norm::RmsNorm;
    arch.position = Position::Rope;
    arch.normsPerLayer = 2; // a block has one norm: 2 / 2 for a mixer-only or MLP-only layer
    arch.bias = Bias::None;
    if (r.flag({"attention_bias"}, false) || r.flag({"mlp_bias"}, false))
        r.invalid("attention_bias", "or mlp_bias: biased Nemotron-H blocks are not modelled");
    std::vector<std::string> letters;
    std::vector<LayerKind> kinds;
    std::vector<LayerMlp> mlps;
    const auto add = [&](char c) {
        switch (c) {
        case 'M': kinds.push_back(LayerKind::Mamba2); mlps.push_back(LayerMlp::None); return true;
        case '*': kinds.push_back(LayerKind::Full); mlps.push_back(LayerMlp::None); return true;
        case '-': kinds.push_back(LayerKind::None); mlps.push_back(LayerMlp::Dense); return true;
        case 'E': kinds.push_back(LayerKind::None); mlps.push_back(LayerMlp::Moe); return true;
        default: return false;
        }
    };
    if (const json *list = r.find({"layers_block_type"})) {
        static const std::map<std::string, char> kNames{
            {"mamba", 'M'}, {"linear_attention", 'M'}, {"attention", '*'}, {"full_attention", '*'},
            {"mlp", '-'}, {"moe", 'E'}};
        if (!list->is_array())
            r.invalid("layers_block_type", "must be a list of strings (got " + quoteJson(*list) + ")");
        for (const json &item : *list) {
            const auto it = item.is_string() ? kNames.find(item.get<std::string>()) : kNames.end();
            if (it == kNames.end())
                r.invalid("layers_block_type", "has " + quoteJson(item) +
                                                   ": layers are mamba/linear_attention, attention/full_attention, mlp, moe");
            add(it->second);
        }
    } else if (const json *pattern = r.find({"hybrid_override_pattern"})) {
        if (!pattern->is_string())
            r.invalid("hybrid_override_pattern", "must be a string of M, *, - and E (got " + quoteJson(*pattern) + ")");
        for (char c : pattern->get<std::string>())
            if (!add(c))
                r.invalid("hybrid_override_pattern", "has '" + std::string(1, c) + "': layers are M, *, - and E");
    } else {
        r.invalid("layers_block_type", "is needed (or hybrid_override_pattern): the layer pattern decides every count");
    }
    if (kinds.empty() || kinds.size() > 1024)
        r.invalid("layers_block_type", "must list 1 to 1024 layers");
    arch.layers = static_cast<int>(kinds.size());
    if (const json *declared = r.find({"num_hidden_layers"}); declared && declared->is_number_integer() &&
                                                             declared->get<long long>() != arch.layers)
        out.import.notes.push_back("num_hidden_layers (" + std::to_string(declared->get<long long>()) +
                                   ") differs from the layer pattern's " + std::to_string(arch.layers) +
                                   " layers; the pattern decides, as in Transformers.");
    arch.layerKinds = shortestPeriod(kinds);
    arch.layerMlps = shortestPeriod(mlps);

    LinearShape &l = arch.linear;
    l.heads = r.integerOr({"mamba_num_heads"}, 128, 1, 65536);
    l.valueDim = r.integerOr({"mamba_head_dim"}, 64, 1, 65536);
    l.keyDim = r.integerOr({"ssm_state_size"}, 128, 1, 65536);
    l.groups = r.integerOr({"n_groups", "mamba_n_groups"}, 8, 1, 65536);
    l.convKernel = r.integerOr({"conv_kernel", "mamba_d_conv"}, 4, 2, 64);
    l.convBias = r.flag({"use_conv_bias", "mamba_conv_bias"}, true);
    l.projBias = r.flag({"use_bias"}, false) || r.flag({"mamba_proj_bias"}, false);
    if (l.heads % l.groups != 0)
        r.invalid("n_groups", "must divide mamba_num_heads (" + std::to_string(l.heads) + ")");
    if (std::count(mlps.begin(), mlps.end(), LayerMlp::Moe) > 0) {
        arch.experts = r.integerOr({"n_routed_experts", "num_local_experts"}, 8, 2, 4096);
        arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 2, 1, 4096);
        arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, 7688, 1, kMaxVocab);
        arch.sharedExperts = r.integerOr({"n_shared_experts"}, 1, 0, 64);
        arch.sharedExpertIntermediate = r.integerOr({"moe_shared_expert_intermediate_size"}, 7688, 1, kMaxVocab);
        arch.routerBias = true; // NemotronHTopkRouter's e_score_correction_bias
        if (const json *latent = r.find({"moe_latent_size"}))
            r.invalid("moe_latent_size", "(" + quoteJson(*latent) + ") projects the experts through a latent: not modelled");
    }
    if (const int mtp = r.integerOr({"num_nextn_predict_layers"}, 0, 0, 16))
        out.import.notes.push_back("The checkpoint's " + std::to_string(mtp) +
                                   " multi-token-prediction layer(s) are not counted (loaded only for "
                                   "speculative decoding).");
    return out;
}

Reading readGraniteMoeHybrid(ConfigReader &r)
{
    // GraniteMoeHybridConfig / modeling_granitemoehybrid.py (Granite 4.0): every layer has a
    // mixer, Mamba-2 or attention (layer_types), and the MLP: routed experts (input_linear of
    // 2 x intermediate_size, output_linear, a bias-free router) beside a shared gated MLP of
    // shared_intermediate_size; with num_local_experts 0 only the shared MLP (Granite 4.0 Micro).
    // The muP multipliers change no tensor.
    Reading out;
    ModelArch &arch = out.import.arch;
    arch.layers = r.integer({"num_hidden_layers"}, 1, 1024);
    arch.hidden = r.integer({"hidden_size"}, 1, kMaxHidden);
    arch.heads = r.integer({"num_attention_heads"}, 1, 65536);
    arch.vocab = r.integer({"vocab_size"}, 1, kMaxVocab);
    const int experts = r.integer({"num_local_experts"}, 0, 4096);
    const int shared = r.integer({"shared_intermediate_size"}, 0, kMaxVocab);
    r.finish();
    arch.kvHeads = r.integerOr({"num_key_value_heads"}, arch.heads, 1, 65536);
    arch.headDim = readHeadDim(r, arch, 0);
    arch.maxPositions = r.integerOr({"max_position_embeddings"}, 2048, 1, kMaxPositions);
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, true);
    arch.mlp = Mlp::Gated;
    arch.norm = Norm::RmsNorm;
    arch.position = Position::Rope; // "nope" layers have no rotary tensor either
    arch.normsPerLayer = 2;
    arch.bias = Bias::None;
    std::vector<LayerKind> kinds = readNamedList<LayerKind>(
        r, "layer_types", {{"mamba", LayerKind::Mamba2}, {"attention", LayerKind::Full}}, arch.layers);
    if (kinds.empty())
        r.invalid("layer_types", "is needed: it says which layers are Mamba-2 and which attention");
    arch.layerKinds = shortestPeriod(kinds);
    if (arch.layerKinds == std::vector<LayerKind>{LayerKind::Full})
        arch.layerKinds.clear(); // every layer attention (Granite 4.0 Micro): the plain description
    if (r.flag({"attention_bias"}, false)) {
        arch.bias = Bias::Qkv; // q, k, v; the o bias is an extra
        out.extraParams += std::int64_t(arch.hidden) * arch.layersOfKind(LayerKind::Full);
    }
    if (experts == 1)
        r.invalid("num_local_experts", "must be 0 (a dense model) or at least 2");
    if (experts > 1) {
        arch.experts = experts;
        arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 2, 1, 4096);
        arch.intermediate = arch.expertIntermediate = r.integer({"intermediate_size"}, 1, kMaxVocab);
        r.finish();
        arch.layerMlps = {LayerMlp::Moe};
        if (shared > 0) {
            arch.sharedExperts = 1;
            arch.sharedExpertIntermediate = shared;
        }
    } else {
        if (shared == 0)
            r.invalid("shared_intermediate_size", "must be above 0 when num_local_experts is 0 (the only MLP)");
        arch.experts = arch.expertsPerToken = 1;
        arch.intermediate = shared;
    }
    if (arch.hasKind(LayerKind::Mamba2)) {
        LinearShape &l = arch.linear;
        const int expand = r.integerOr({"mamba_expand"}, 2, 1, 64);
        l.heads = r.integerOr({"mamba_n_heads"}, 128, 1, 65536);
        const json *headDim = r.find({"mamba_d_head"});
        const std::int64_t inner = std::int64_t(expand) * arch.hidden;
        if (headDim && headDim->is_string() && headDim->get<std::string>() == "auto")
            l.valueDim = static_cast<int>(inner / l.heads);
        else
            l.valueDim = r.integerOr({"mamba_d_head"}, static_cast<int>(inner / l.heads), 1, 65536);
        if (std::int64_t(l.heads) * l.valueDim != inner)
            r.invalid("mamba_d_head", "x mamba_n_heads must be mamba_expand x hidden_size (" + std::to_string(inner) + ")");
        l.keyDim = r.integerOr({"mamba_d_state"}, 256, 1, 65536);
        l.groups = r.integerOr({"mamba_n_groups"}, 1, 1, 65536);
        l.convKernel = r.integerOr({"mamba_d_conv"}, 4, 2, 64);
        l.convBias = r.flag({"mamba_conv_bias"}, true);
        l.projBias = r.flag({"mamba_proj_bias"}, false);
        if (l.heads % l.groups != 0)
            r.invalid("mamba_n_groups", "must divide mamba_n_heads (" + std::to_string(l.heads) + ")");
    }
    return out;
}


Reading readJamba(ConfigReader &r)
{
    // JambaConfig / modeling_jamba.py (Jamba v0.1, 1.5 Mini and Large, 1.6, 1.7): every layer a
    // norm, one mixer and a norm before its MLP. Layer i attends when i % attn_layer_period ==
    // attn_layer_offset (else a Mamba-1 mixer), and has a mixture of experts (a bias-free router,
    // experts of intermediate_size) when i % expert_layer_period == expert_layer_offset (else the
    // dense MLP). A layers_block_type list, where given, names the mixers itself.
    Reading out;
    ModelArch &arch = out.import.arch;
    arch.layers = r.integerOr({"num_hidden_layers"}, 32, 1, 1024);
    arch.hidden = r.integerOr({"hidden_size"}, 4096, 1, kMaxHidden);
    arch.intermediate = r.integerOr({"intermediate_size"}, 14336, 1, kMaxVocab);
    arch.heads = r.integerOr({"num_attention_heads"}, 32, 1, 65536);
    arch.kvHeads = r.integerOr({"num_key_value_heads"}, 8, 1, 65536);
    arch.vocab = r.integerOr({"vocab_size"}, 65536, 1, kMaxVocab);
    arch.headDim = readHeadDim(r, arch, 0);
    arch.maxPositions = r.integerOr({"max_position_embeddings"}, 262144, 1, kMaxPositions);
    arch.tiedEmbeddings = r.flag({"tie_word_embeddings"}, false);
    arch.mlp = Mlp::Gated;
    arch.norm = Norm::RmsNorm;
    arch.position = Position::Rope; // Jamba uses no positional encoding: no tensor either way
    arch.normsPerLayer = 2;
    arch.bias = Bias::None;
    if (const int window = readWindow(r, 0); window > 0)
        r.invalid("sliding_window", "(" + std::to_string(window) + " on Jamba's attention layers) is not modelled");

    const int attnPeriod = r.integerOr({"attn_layer_period"}, 8, 1, 1024);
    const int attnOffset = r.integerOr({"attn_layer_offset"}, 4, 0, 1023);
    std::vector<LayerKind> kinds = readNamedList<LayerKind>(
        r, "layers_block_type", {{"attention", LayerKind::Full}, {"mamba", LayerKind::Mamba1}}, arch.layers);
    if (kinds.empty())
        for (int i = 0; i < arch.layers; ++i)
            kinds.push_back(i % attnPeriod == attnOffset ? LayerKind::Full : LayerKind::Mamba1);
    arch.layerKinds = shortestPeriod(kinds);

    const int experts = r.integerOr({"num_experts"}, 16, 1, 4096);
    const int expertPeriod = r.integerOr({"expert_layer_period"}, 2, 1, 1024);
    const int expertOffset = r.integerOr({"expert_layer_offset"}, 1, 0, 1023);
    if (experts > 1) {
        arch.experts = experts;
        arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 2, 1, 4096);
        std::vector<LayerMlp> mlps;
        for (int i = 0; i < arch.layers; ++i)
            mlps.push_back(i % expertPeriod == expertOffset ? LayerMlp::Moe : LayerMlp::Dense);
        arch.layerMlps = shortestPeriod(mlps);
    }

    LinearShape &l = arch.linear;
    const int expand = r.integerOr({"mamba_expand"}, 2, 1, 64);
    const std::int64_t inner = std::int64_t(expand) * arch.hidden;
    if (inner > 65536)
        r.invalid("mamba_expand", "x hidden_size (" + std::to_string(inner) + ") must be at most 65,536");
    l.heads = static_cast<int>(inner); // one channel per "head": Mamba-1 has no heads
    l.valueDim = 1;
    l.keyDim = r.integerOr({"mamba_d_state"}, 16, 1, 65536);
    l.convKernel = r.integerOr({"mamba_d_conv"}, 4, 2, 64);
    // mamba_dt_rank "auto" (JambaConfig's default): ceil(hidden_size / 16).
    const json *rank = r.find({"mamba_dt_rank"});
    l.dtRank = rank && rank->is_string() && rank->get<std::string>() == "auto"
                   ? (arch.hidden + 15) / 16
                   : r.integerOr({"mamba_dt_rank"}, (arch.hidden + 15) / 16, 1, 65536);
    l.convBias = r.flag({"mamba_conv_bias"}, true);
    l.projBias = r.flag({"mamba_proj_bias"}, false);
    out.import.notes.push_back("Jamba: the Mamba-1 layers keep a conv state and a d_inner x d_state SSM state per "
                               "sequence; the attention layers use no positional encoding (counted as RoPE, which has no tensor).");
    return out;
}

} // namespace

const std::vector<Family> &hybridFamilies()
{
    static const std::vector<Family> families = {
        {"qwen3_next", readQwen3Next},
        {"nemotron_h", readNemotronH},
        {"qwen3_5_text", readQwen35Dense},
        {"qwen3_5_moe_text", readQwen35Moe},
        {"granitemoehybrid", readGraniteMoeHybrid},
        {"jamba", readJamba},
    };
    return families;
}

} // namespace headroom::hf
