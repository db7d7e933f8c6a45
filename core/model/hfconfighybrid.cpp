// SPDX-License-Identifier: GPL-3.0-or-later
// config.json readers for the hybrid families whose layers are not all softmax attention:
// Qwen3-Next (Gated DeltaNet and gated attention, a mixture of experts) and Nemotron-H
// (Mamba-2, attention, MLP and MoE layers in one pattern). Each takes the defaults of its
// transformers configuration class for absent optional keys, and reads the layer pattern from
// whatever the config gives (layer_types, layers_block_type, hybrid_override_pattern, an interval).
#include "model/hfconfigreader.h"

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

Reading readQwen3Next(ConfigReader &r)
{
    // Qwen3NextConfig (transformers configuration_qwen3_next.py): its defaults are the
    // Qwen3-Next-80B-A3B shape.
    Reading out = readLlamaLike(r, {false, 32768, 256, 2});
    ModelArch &arch = out.import.arch;
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

    // Qwen3NextSparseMoeBlock: routed experts, one shared expert with a sigmoid gate.
    arch.experts = r.integerOr({"num_experts"}, 512, 1, 4096);
    arch.expertsPerToken = r.integerOr({"num_experts_per_tok"}, 10, 1, 4096);
    arch.expertIntermediate = r.integerOr({"moe_intermediate_size"}, 512, 1, kMaxVocab);
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
    const int shared = r.integerOr({"shared_expert_intermediate_size"}, 512, 0, kMaxVocab);
    if (shared > 0 && arch.experts > 1) {
        arch.sharedExperts = 1;
        arch.sharedExpertIntermediate = shared;
        out.extraParams += std::int64_t(arch.hidden) * arch.moeLayers(); // shared_expert_gate
    }
    if (const int mtp = r.integerOr({"num_nextn_predict_layers", "mtp_num_hidden_layers"}, 0, 0, 16))
        out.import.notes.push_back("The checkpoint's " + std::to_string(mtp) +
                                   " multi-token-prediction layer(s) are not counted: Transformers does "
                                   "not load them, vLLM only for speculative decoding.");
    return out;
}

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
    arch.activation = Activation::Relu;
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

} // namespace

const std::vector<Family> &hybridFamilies()
{
    static const std::vector<Family> families = {
        {"qwen3_next", readQwen3Next},
        {"nemotron_h", readNemotronH},
    };
    return families;
}

} // namespace headroom::hf
