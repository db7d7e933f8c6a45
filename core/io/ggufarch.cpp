// SPDX-License-Identifier: GPL-3.0-or-later
// Keys as llama.cpp's src/llama-arch.cpp names them (LLM_KV_BLOCK_COUNT "%s.block_count", ...)
// and llama_model::load_hparams (src/llama-model.cpp) reads them.
#include "io/ggufarch.h"

#include "io/inputpolicy.h"

#include <algorithm>
#include <climits>

namespace headroom {

namespace {

struct NotRead
{
    std::string why;
};

class Keys
{
public:
    Keys(const GgufModel &model) : m_model(model), m_prefix(model.architecture + ".") {}

    const GgufValue *find(const std::string &key) const
    {
        const auto it = m_model.metadata.find(m_prefix + key);
        return it == m_model.metadata.end() ? nullptr : &it->second;
    }

    /// A whole number in [0, INT_MAX]; an array (one per layer) whose values all agree counts as
    /// one, else the shape varies by layer and is not read.
    std::optional<int> get(const std::string &key) const
    {
        const GgufValue *v = find(key);
        if (!v)
            return std::nullopt;
        std::int64_t value = 0;
        if (v->type == GgufValueType::Array) {
            if (v->integers.empty() || v->integers.size() != v->count)
                throw NotRead{m_prefix + key + " is an array that is not read"};
            const auto [lo, hi] = std::minmax_element(v->integers.begin(), v->integers.end());
            if (*lo != *hi)
                throw NotRead{m_prefix + key + " varies by layer (" + std::to_string(*lo) + " to " +
                              std::to_string(*hi) + ")"};
            value = *lo;
        } else if (v->isInteger()) {
            value = v->integer;
        } else {
            throw NotRead{m_prefix + key + " is not a whole number"};
        }
        if (value < 0 || value > INT_MAX)
            throw NotRead{m_prefix + key + " = " + std::to_string(value) + " is out of range"};
        return int(value);
    }

    int required(const std::string &key) const
    {
        const auto v = get(key);
        if (!v || *v == 0)
            throw NotRead{m_prefix + key + " is missing"};
        return *v;
    }

    bool anyKeyStartingWith(const std::string &part) const
    {
        const std::string start = m_prefix + part;
        const auto it = m_model.metadata.lower_bound(start);
        return it != m_model.metadata.end() && it->first.rfind(start, 0) == 0;
    }

    const GgufTensor *tensor(const std::string &name) const
    {
        for (const GgufTensor &t : m_model.tensors)
            if (t.name == name)
                return &t;
        return nullptr;
    }

private:
    const GgufModel &m_model;
    std::string m_prefix;
};

ModelArch read(const GgufModel &model, std::vector<std::string> &notes)
{
    if (model.architecture.empty())
        throw NotRead{"general.architecture is missing"};
    const Keys k(model);
    for (const char *recurrent : {"ssm.", "wkv.", "shortconv.", "rwkv.", "time_mix"})
        if (k.anyKeyStartingWith(recurrent))
            throw NotRead{"recurrent or state-space layers (" + model.architecture + "." + recurrent +
                          "*) are not read from GGUF metadata"};
    ModelArch m;
    m.layers = k.required("block_count");
    m.hidden = k.required("embedding_length");
    m.heads = k.required("attention.head_count");
    m.kvHeads = k.get("attention.head_count_kv").value_or(m.heads);
    if (m.kvHeads == 0 || m.heads % m.kvHeads != 0)
        throw NotRead{"attention.head_count_kv " + std::to_string(m.kvHeads) + " does not divide the " +
                      std::to_string(m.heads) + " heads"};
    m.headDim = k.get("attention.key_length").value_or(m.hidden / m.heads);
    m.intermediate = k.get("feed_forward_length").value_or(0);
    m.maxPositions = k.get("context_length").value_or(m.maxPositions);

    const GgufTensor *embd = k.tensor("token_embd.weight");
    if (!embd || embd->dims != 2)
        throw NotRead{"no two-dimensional token_embd.weight tensor"};
    if (embd->shape[0] != std::uint64_t(m.hidden) || embd->shape[1] > std::uint64_t(INT_MAX))
        throw NotRead{"token_embd.weight is " + std::to_string(embd->shape[0]) + " wide, embedding_length says " +
                      std::to_string(m.hidden)};
    m.vocab = int(embd->shape[1]);
    m.tiedEmbeddings = k.tensor("output.weight") == nullptr;

    // Experts (llama_model::load_hparams: LLM_KV_EXPERT_COUNT, _USED_COUNT, ...).
    m.experts = std::max(1, k.get("expert_count").value_or(1));
    if (m.experts > 1) {
        m.expertsPerToken = k.required("expert_used_count");
        m.expertIntermediate = k.get("expert_feed_forward_length").value_or(0);
        m.sharedExperts = k.get("expert_shared_count").value_or(0);
        m.sharedExpertIntermediate = k.get("expert_shared_feed_forward_length").value_or(0);
        m.denseLayers = k.get("leading_dense_block_count").value_or(0);
        if (m.sharedExperts > 0 && m.sharedExpertIntermediate == 0 && k.tensor("blk." + std::to_string(m.denseLayers) + ".ffn_up_shexp.weight")) {
            const GgufTensor *sh = k.tensor("blk." + std::to_string(m.denseLayers) + ".ffn_up_shexp.weight");
            // One tensor for all shared experts: its rows are count x width.
            if (sh->shape[1] % std::uint64_t(m.sharedExperts) == 0)
                m.sharedExpertIntermediate = int(sh->shape[1] / std::uint64_t(m.sharedExperts));
        }
        if (m.expertIntermediate == 0)
            m.expertIntermediate = m.intermediate;
        if (m.intermediate == 0)
            m.intermediate = m.expertIntermediate;
    }
    if (m.intermediate == 0)
        throw NotRead{model.architecture + ".feed_forward_length is missing"};

    // Multi-head latent attention (deepseek2 and its kind).
    m.kvLoraRank = k.get("attention.kv_lora_rank").value_or(0);
    if (m.kvLoraRank > 0) {
        m.qLoraRank = k.get("attention.q_lora_rank").value_or(0);
        m.qkRopeHeadDim = k.required("rope.dimension_count");
        const int key = k.get("attention.key_length_mla").value_or(m.headDim);
        m.vHeadDim = k.get("attention.value_length_mla").value_or(k.get("attention.value_length").value_or(0));
        if (key <= m.qkRopeHeadDim || m.vHeadDim == 0)
            throw NotRead{"the MLA head widths (attention.key_length, value_length) are not read"};
        m.qkNopeHeadDim = key - m.qkRopeHeadDim;
        m.headDim = key;
    } else if (const auto v = k.get("attention.value_length"); v && *v != m.headDim) {
        throw NotRead{"attention.value_length " + std::to_string(*v) + " differs from key_length " +
                      std::to_string(m.headDim)};
    }

    // Sliding windows: the per-layer pattern when the file has one (true: a sliding layer, as
    // llama_hparams::swa_layers), else every layer.
    m.slidingWindow = k.get("attention.sliding_window").value_or(0);
    if (m.slidingWindow > 0) {
        if (const GgufValue *pattern = k.find("attention.sliding_window_pattern");
            pattern && pattern->type == GgufValueType::Array) {
            if (pattern->integers.size() != pattern->count || pattern->count == 0)
                throw NotRead{"attention.sliding_window_pattern is not read"};
            // One entry per layer, as llama_model_loader::get_key_or_arr requires ("wrong array
            // length"): a shorter or longer list would size other layers than the file has.
            if (pattern->count != std::uint64_t(m.layers))
                throw NotRead{"attention.sliding_window_pattern lists " + std::to_string(pattern->count) +
                              " layers, block_count says " + std::to_string(m.layers)};
            for (const std::int64_t swa : pattern->integers)
                m.layerKinds.push_back(swa ? LayerKind::Sliding : LayerKind::Full);
        } else if (pattern) {
            // A number n: every n-th layer is global (Gemma 3's 6), llama_hparams::set_swa_pattern.
            const auto n = k.get("attention.sliding_window_pattern").value_or(0);
            m.globalEvery = n > 1 ? n : 0;
        } else if (model.architecture == "gemma2" || model.architecture == "gpt-oss") {
            m.globalEvery = 2; // llama_model::load_hparams: set_swa_pattern(2)
        } else if (model.architecture == "gemma3") {
            m.globalEvery = 6;
        }
    }

    // What the block-0 tensors show.
    const std::string b0 = "blk." + std::to_string(m.denseLayers > 0 ? 0 : 0) + ".";
    if (k.tensor(b0 + "attn_norm.bias"))
        m.norm = Norm::LayerNorm;
    if (k.tensor(b0 + "attn_output.bias") || k.tensor(b0 + "ffn_down.bias"))
        m.bias = Bias::All;
    else if (k.tensor(b0 + "attn_q.bias") || k.tensor(b0 + "attn_qkv.bias"))
        m.bias = Bias::Qkv;
    if (m.experts == 1 || m.denseLayers > 0) {
        if (!k.tensor(b0 + "ffn_gate.weight") && k.tensor(b0 + "ffn_up.weight"))
            m.mlp = Mlp::Standard;
    }
    if (const GgufTensor *qn = k.tensor(b0 + "attn_q_norm.weight"))
        m.qkNorm = qn->shape[0] == std::uint64_t(m.headDim) ? QkNorm::Head : QkNorm::Full;
    m.params = model.weights.params;
    m.preset.clear();
    m.config.clear();
    notes.push_back("architecture " + quotedText(model.architecture) + " from the GGUF metadata: " +
                    std::to_string(m.layers) + " layers, hidden " + std::to_string(m.hidden) + ", " +
                    std::to_string(m.heads) + " heads (" + std::to_string(m.kvHeads) + " KV) of " +
                    std::to_string(m.headDim) + (m.experts > 1 ? ", " + std::to_string(m.experts) + " experts (" +
                                                                     std::to_string(m.expertsPerToken) + " per token)"
                                                               : std::string()));
    return m;
}

} // namespace

GgufArch ggufArchitecture(const GgufModel &model)
{
    GgufArch out;
    try {
        out.arch = read(model, out.notes);
    } catch (const NotRead &reason) {
        out.notes.push_back("the model's shape is not read from the GGUF metadata (" + reason.why +
                            "): the scenario's shape is used with the file's parameter total");
    }
    return out;
}

LlamaFileBytes ggufFileBytes(const GgufModel &model, int layers)
{
    LlamaFileBytes out;
    out.layers.assign(std::size_t(std::max(0, layers)), 0);
    out.experts.assign(std::size_t(std::max(0, layers)), 0);
    out.largest.assign(std::size_t(std::max(0, layers)), 0);
    out.largestName.assign(std::size_t(std::max(0, layers)), std::string());
    out.largestExpert.assign(std::size_t(std::max(0, layers)), 0);
    out.largestExpertName.assign(std::size_t(std::max(0, layers)), std::string());
    std::uint64_t embedding = 0;
    bool tied = true;
    for (const GgufTensor &t : model.tensors) {
        out.total += t.bytes; // the file's totals were checked against 2^64 when read
        out.byType[t.type.name] += t.bytes;
        int layer = -1;
        if (t.name.rfind("blk.", 0) == 0) {
            std::size_t i = 4;
            int value = 0;
            while (i < t.name.size() && i < 10 && t.name[i] >= '0' && t.name[i] <= '9')
                value = value * 10 + (t.name[i++] - '0');
            if (i > 4 && i < t.name.size() && t.name[i] == '.')
                layer = value;
        }
        if (layer >= 0 && layer < layers) {
            const std::size_t i = std::size_t(layer);
            out.layers[i] += t.bytes;
            const bool experts = t.name.find("_exps.") != std::string::npos;
            if (experts)
                out.experts[i] += t.bytes;
            std::uint64_t &largest = experts ? out.largestExpert[i] : out.largest[i];
            if (t.bytes > largest) {
                largest = t.bytes;
                (experts ? out.largestExpertName[i] : out.largestName[i]) = t.name;
            }
        } else if (t.name == "token_embd.weight") {
            out.embedding += t.bytes;
            embedding = t.bytes;
        } else if (t.name.rfind("output", 0) == 0) { // output.weight, output_norm.*
            out.output += t.bytes;
            if (t.name == "output.weight")
                out.outputWeight = t.bytes;
            tied = tied && t.name != "output.weight";
        } else if (layer < 0) {
            out.output += t.bytes; // other tensors outside the blocks (position embeddings, ...)
        }
    }
    if (tied) {
        out.output += out.embedding; // load_tensors duplicates token_embd into the output layer
        out.outputWeight = embedding;
    }
    return out;
}

} // namespace headroom
