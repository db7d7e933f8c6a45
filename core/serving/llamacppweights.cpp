// SPDX-License-Identifier: GPL-3.0-or-later
// docs/serving.md, "llama.cpp file types": each rule below cites the llama.cpp function it follows.
#include "serving/llamacppweights.h"

#include "scenario/checked.h"
#include "scenario/names.h"

#include <algorithm>
#include <array>
#include <optional>

namespace headroom {

namespace {

using R = LlamaTensorRole;
using G = GgufType;

GgmlType t(std::uint32_t id) { return *ggmlType(id); }

/// llama_ftype_get_default_type; `pure` for the ggml types that are no file type.
struct Recipe
{
    std::uint32_t base = ggml::Q4_K;
    bool pure = false;
    bool imatrix = false; ///< the file type needs an importance matrix (tensor_requires_imatrix)
};

Recipe recipe(G type)
{
    switch (type) {
    case G::F32: return {ggml::F32};
    case G::F16: return {ggml::F16};
    case G::Bf16: return {ggml::BF16};
    case G::Q8_0: return {ggml::Q8_0};
    case G::Q6_K: return {ggml::Q6_K};
    case G::Q5_K: return {ggml::Q5_K, true};
    case G::Q5_0: return {ggml::Q5_0};
    case G::Q4_K: return {ggml::Q4_K, true};
    case G::Q4_0: return {ggml::Q4_0};
    case G::Q3_K: return {ggml::Q3_K, true};
    case G::Q2_K: return {ggml::Q2_K};
    case G::Q4_1: return {ggml::Q4_1};
    case G::Q5_1: return {ggml::Q5_1};
    case G::Q2_K_S: return {ggml::Q2_K, false, true};
    case G::Q3_K_S: case G::Q3_K_M: case G::Q3_K_L: return {ggml::Q3_K};
    case G::Q4_K_S: case G::Q4_K_M: return {ggml::Q4_K};
    case G::Q5_K_S: case G::Q5_K_M: return {ggml::Q5_K};
    case G::Iq2_Xxs: return {ggml::IQ2_XXS, false, true};
    case G::Iq2_Xs: return {ggml::IQ2_XS, false, true};
    case G::Iq2_S: return {ggml::IQ2_XS, false, true};
    case G::Iq2_M: return {ggml::IQ2_S, false, true};
    case G::Iq3_Xxs: return {ggml::IQ3_XXS, false, true};
    case G::Iq3_Xs: case G::Iq3_S: case G::Iq3_M: return {ggml::IQ3_S};
    case G::Iq1_S: return {ggml::IQ1_S, false, true};
    case G::Iq1_M: return {ggml::IQ1_M, false, true};
    case G::Iq4_Nl: return {ggml::IQ4_NL};
    case G::Iq4_Xs: return {ggml::IQ4_XS};
    case G::Tq1_0: return {ggml::TQ1_0};
    case G::Tq2_0: return {ggml::TQ2_0};
    case G::Mxfp4_Moe: return {ggml::MXFP4};
    }
    return {};
}

bool quantized(std::uint32_t type)
{
    return type != ggml::F32 && type != ggml::F16 && type != ggml::BF16;
}

bool attnVLike(R role) { return role == R::AttnV || role == R::AttnQkv || role == R::AttnKvB; }

bool useMoreBits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

/// The quantizer's state over one pass (quantize_state_impl).
struct State
{
    G ftype;
    bool imatrix = false;
    int nExpert = 1;
    int nGqa = 1;
    bool is70B = false;
    bool tied = false;
    int nLayer = 0;
    int nAttentionWv = 0;
    int iAttentionWv = 0;
    int iFfnDown = 0, iFfnGate = 0, iFfnUp = 0;
};

bool any(G f, std::initializer_list<G> list) { return std::find(list.begin(), list.end(), f) != list.end(); }

/// llama_tensor_get_type_impl (src/llama-quant.cpp), Falcon's own rules left out.
std::uint32_t impl(State &qs, std::uint32_t newType, const LlamaTensor &tensor)
{
    const G f = qs.ftype;
    const R role = tensor.role;
    if (role == R::Output || (qs.tied && role == R::TokenEmbd)) {
        if (f == G::Mxfp4_Moe)
            return ggml::Q8_0;
        if (tensor.ne0 % t(newType).blockSize != 0)
            return ggml::Q8_0;
        if (any(f, {G::Iq2_Xxs, G::Iq2_Xs, G::Iq3_Xxs, G::Iq1_S, G::Iq2_S, G::Iq2_M, G::Iq1_M}))
            return ggml::Q5_K;
        return newType != ggml::Q8_0 ? ggml::Q6_K : newType;
    }
    if (f == G::Mxfp4_Moe)
        return tensor.experts ? ggml::MXFP4 : ggml::Q8_0; // ne[2] > 1: the expert tensors
    if (role == R::TokenEmbd) {
        if (any(f, {G::Iq2_Xxs, G::Iq2_Xs, G::Iq1_S, G::Iq1_M}))
            return ggml::Q2_K;
        if (any(f, {G::Iq2_S, G::Iq2_M, G::Iq3_Xxs}))
            return ggml::IQ3_S;
        if (any(f, {G::Tq1_0, G::Tq2_0}))
            return ggml::Q4_K;
        return newType;
    }
    const int layer = qs.nExpert > 1 ? tensor.layer : -1; // layer_info: from the name for MoE
    if (any(f, {G::Iq2_Xxs, G::Iq2_Xs, G::Iq1_S, G::Iq2_S, G::Iq2_M, G::Iq1_M})) {
        const bool s = f == G::Iq2_S || f == G::Iq2_M;
        if (attnVLike(role)) {
            newType = qs.nGqa >= 4 || qs.nExpert >= 4 ? ggml::Q4_K : s ? ggml::IQ3_S : ggml::Q2_K;
            ++qs.iAttentionWv;
        } else if (qs.nExpert == 8 && role == R::AttnK) {
            newType = ggml::Q4_K;
        } else if (role == R::FfnDown) {
            if (qs.iFfnDown < qs.nLayer / 8)
                newType = s ? ggml::IQ3_S : ggml::Q2_K;
            ++qs.iFfnDown;
        } else if (role == R::AttnOutput) {
            if (qs.nExpert == 8)
                newType = ggml::Q5_K;
            else if (f == G::Iq1_S || f == G::Iq1_M)
                newType = ggml::IQ2_XXS;
            else if (s)
                newType = ggml::IQ3_S;
        }
        return newType;
    }
    if (attnVLike(role)) {
        const int i = qs.iAttentionWv, n = qs.nAttentionWv;
        if (f == G::Q2_K)
            newType = qs.nGqa >= 4 ? ggml::Q4_K : ggml::Q3_K;
        else if (f == G::Q2_K_S && qs.nGqa >= 4)
            newType = ggml::Q4_K;
        else if (f == G::Iq3_Xxs)
            newType = qs.nGqa >= 4 ? ggml::Q4_K : !qs.imatrix ? ggml::IQ3_S : ggml::IQ3_XXS;
        else if ((f == G::Iq3_Xs || f == G::Iq3_S) && qs.nGqa >= 4)
            newType = ggml::Q4_K;
        else if (f == G::Iq3_M)
            newType = ggml::Q4_K;
        else if (f == G::Q3_K_M)
            newType = i < 2 ? ggml::Q5_K : ggml::Q4_K;
        else if (f == G::Q3_K_L)
            newType = ggml::Q5_K;
        else if ((f == G::Iq4_Nl || f == G::Iq4_Xs) && qs.nGqa >= 4)
            newType = ggml::Q5_K;
        else if ((f == G::Q4_K_M || f == G::Q5_K_M) && useMoreBits(i, n))
            newType = ggml::Q6_K;
        else if (f == G::Q4_K_S && i < 4)
            newType = ggml::Q5_K;
        if (qs.is70B && (newType == ggml::Q3_K || newType == ggml::Q4_K))
            newType = ggml::Q5_K;
        if (qs.nExpert == 8)
            newType = ggml::Q8_0;
        ++qs.iAttentionWv;
        return newType;
    }
    if (role == R::AttnK) {
        if (qs.nExpert == 8)
            return ggml::Q8_0;
        if (f == G::Iq3_Xs)
            return ggml::IQ3_XXS;
        if (f == G::Iq3_Xxs)
            return ggml::IQ2_S;
        return newType;
    }
    if (role == R::AttnQ) {
        if (f == G::Iq3_Xs)
            return ggml::IQ3_XXS;
        if (f == G::Iq3_Xxs)
            return ggml::IQ2_S;
        return newType;
    }
    if (role == R::FfnDown) {
        const int i = layer >= 0 ? layer : qs.iFfnDown, n = qs.nLayer;
        if (f == G::Q2_K)
            newType = ggml::Q3_K;
        else if (f == G::Q2_K_S) {
            if (i < n / 8)
                newType = ggml::Q4_K;
        } else if (f == G::Iq3_Xxs && !qs.imatrix)
            newType = i < n / 8 ? ggml::Q4_K : ggml::Q3_K;
        else if (f == G::Q3_K_M)
            newType = i < n / 16 ? ggml::Q5_K : ggml::Q4_K; // not Falcon: Q4_K from n/16 on
        else if (f == G::Iq3_M && (i < n / 8 || (qs.nExpert == 8 && useMoreBits(i, n))))
            newType = ggml::Q4_K;
        else if (f == G::Q3_K_L)
            newType = ggml::Q5_K;
        else if (f == G::Q4_K_M) {
            if (useMoreBits(i, n))
                newType = ggml::Q6_K;
        } else if (i < n / 8 && (f == G::Iq4_Nl || f == G::Iq4_Xs) && !qs.imatrix)
            newType = ggml::Q5_K;
        else if (f == G::Q5_K_M && useMoreBits(i, n))
            newType = ggml::Q6_K;
        else if (f == G::Q4_K_S && i < n / 8)
            newType = ggml::Q5_K;
        else if ((f == G::Q4_0 || f == G::Q5_0) && qs.imatrix && i < n / 8)
            newType = f == G::Q4_0 ? ggml::Q4_1 : ggml::Q5_1;
        ++qs.iFfnDown;
        return newType;
    }
    if (role == R::AttnOutput) {
        if (qs.nExpert == 8) {
            if (any(f, {G::Q2_K, G::Iq3_Xs, G::Iq3_Xxs, G::Q3_K_S, G::Q3_K_M, G::Iq4_Nl, G::Q4_K_S, G::Q4_K_M,
                        G::Iq3_S, G::Iq3_M, G::Iq4_Xs}))
                newType = ggml::Q5_K;
        } else if (f == G::Q2_K)
            newType = ggml::Q3_K;
        else if (f == G::Iq3_Xxs)
            newType = ggml::IQ3_S;
        else if (f == G::Q3_K_M)
            newType = ggml::Q4_K;
        else if (f == G::Q3_K_L)
            newType = ggml::Q5_K;
        else if (f == G::Iq3_M)
            newType = ggml::Q4_K;
        return newType;
    }
    if (role == R::AttnQkv) { // unreachable: attn_qkv is attention-V-like above (category_is_attn_v)
        return newType;
    }
    if (role == R::FfnGate || role == R::FfnUp) {
        int &counter = role == R::FfnGate ? qs.iFfnGate : qs.iFfnUp;
        const int i = layer >= 0 ? layer : counter, n = qs.nLayer;
        if (f == G::Iq3_Xs && i >= n / 8 && i < 7 * n / 8)
            newType = ggml::IQ3_XXS;
        ++counter;
        return newType;
    }
    return newType;
}

/// tensor_type_fallback: a row that is not whole blocks of the type.
std::uint32_t fallback(std::uint32_t type, std::uint64_t ne0, bool &toF16)
{
    if (ne0 % t(type).blockSize == 0)
        return type;
    std::uint32_t out = ggml::F16;
    switch (type) {
    case ggml::IQ1_S: case ggml::IQ1_M: case ggml::IQ2_XXS: case ggml::IQ2_XS: case ggml::IQ2_S:
    case ggml::IQ3_XXS: case ggml::IQ3_S: case ggml::IQ4_XS: out = ggml::IQ4_NL; break;
    case ggml::Q2_K: case ggml::Q3_K: case ggml::TQ1_0: case ggml::TQ2_0: out = ggml::Q4_0; break;
    case ggml::Q4_K: out = ggml::Q5_0; break;
    case ggml::Q5_K: out = ggml::Q5_1; break;
    case ggml::Q6_K: out = ggml::Q8_0; break;
    default: toF16 = true; break; // llama-quantize stops here ("no tensor type fallback")
    }
    return ne0 % t(out).blockSize == 0 ? out : ggml::F16;
}

void add(std::vector<LlamaTensor> &out, R role, int layer, const char *name, std::uint64_t ne0,
         std::uint64_t rows, bool experts = false)
{
    if (ne0 == 0 || rows == 0)
        return;
    LlamaTensor tensor;
    tensor.role = role;
    tensor.layer = layer;
    tensor.name = name;
    tensor.ne0 = ne0;
    tensor.rows = rows;
    tensor.experts = experts;
    out.push_back(tensor);
}

bool isAttention(LayerKind kind)
{
    return kind == LayerKind::Full || kind == LayerKind::Sliding || kind == LayerKind::Chunked || kind == LayerKind::Mla;
}

/// The tensors llama_model::load_tensors creates for the usual decoder layouts (LLM_TN names).
std::vector<LlamaTensor> tensorsOf(const ModelArch &m, const ParamCounts &p, std::vector<std::string> &notes)
{
    std::vector<LlamaTensor> out;
    out.reserve(std::size_t(std::max(0, m.layers)) * 20 + 4);
    const std::uint64_t h = std::uint64_t(m.hidden), v = std::uint64_t(m.vocab);
    const std::uint64_t heads = std::uint64_t(m.heads), kv = std::uint64_t(m.kvHeads), hd = std::uint64_t(m.headDim);
    add(out, R::TokenEmbd, -1, "token_embd.weight", h, v);
    add(out, R::Small, -1, "output_norm.weight", h, 1);
    if (!m.tiedEmbeddings)
        add(out, R::Output, -1, "output.weight", h, v);
    int linearLayers = 0;
    for (int i = 0; i < m.layers; ++i)
        linearLayers += !isAttention(m.layerKind(i)) && m.layerKind(i) != LayerKind::None;
    for (int i = 0; i < m.layers; ++i) {
        const LayerKind kind = m.layerKind(i);
        add(out, R::Small, i, "attn_norm.weight", h, std::uint64_t(std::max(1, m.normsPerLayer)));
        if (kind == LayerKind::Mla) {
            const std::uint64_t qk = std::uint64_t(m.qkNopeHeadDim + m.qkRopeHeadDim);
            if (m.qLoraRank > 0) {
                add(out, R::Other, i, "attn_q_a.weight", h, std::uint64_t(m.qLoraRank));
                add(out, R::Small, i, "attn_q_a_norm.weight", std::uint64_t(m.qLoraRank), 1);
                add(out, R::Other, i, "attn_q_b.weight", std::uint64_t(m.qLoraRank), heads * qk);
            } else {
                add(out, R::AttnQ, i, "attn_q.weight", h, heads * qk);
            }
            add(out, R::Other, i, "attn_kv_a_mqa.weight", h, std::uint64_t(m.kvLoraRank + m.qkRopeHeadDim));
            add(out, R::Small, i, "attn_kv_a_norm.weight", std::uint64_t(m.kvLoraRank), 1);
            add(out, R::AttnKvB, i, "attn_kv_b.weight", std::uint64_t(m.kvLoraRank),
                heads * std::uint64_t(m.qkNopeHeadDim + m.vHeadDim));
            add(out, R::AttnOutput, i, "attn_output.weight", heads * std::uint64_t(m.vHeadDim), h);
        } else if (isAttention(kind)) {
            add(out, R::AttnQ, i, "attn_q.weight", h, heads * hd * (m.gatedAttention ? 2 : 1));
            add(out, R::AttnK, i, "attn_k.weight", h, kv * hd);
            add(out, R::AttnV, i, "attn_v.weight", h, kv * hd);
            add(out, R::AttnOutput, i, "attn_output.weight", heads * hd, h);
            if (m.bias != Bias::None)
                add(out, R::Small, i, "attn_qkv.bias", (heads + 2 * kv) * hd + (m.bias == Bias::All ? h : 0), 1);
            if (m.qkNorm != QkNorm::None)
                add(out, R::Small, i, "attn_q_norm.weight", m.qkNorm == QkNorm::Head ? 2 * hd : (heads + kv) * hd, 1);
            if (m.attentionSinks)
                add(out, R::Small, i, "attn_sinks.weight", heads, 1);
        } else if (kind != LayerKind::None && linearLayers > 0) {
            // Linear attention and state-space mixers (ssm_in, ssm_out, ...): no quantizer
            // category, so the file type's base type; their widths from the parameter count.
            const std::uint64_t elements = p.linearMixer / std::uint64_t(linearLayers);
            add(out, R::Other, i, "ssm_in.weight", h, elements / std::max<std::uint64_t>(1, h));
        }
        const LayerMlp mlp = m.layerMlp(i);
        if (mlp == LayerMlp::Dense) {
            const std::uint64_t w = std::uint64_t(m.intermediate);
            if (m.mlp == Mlp::Gated)
                add(out, R::FfnGate, i, "ffn_gate.weight", h, w);
            add(out, R::FfnUp, i, "ffn_up.weight", h, w);
            add(out, R::FfnDown, i, "ffn_down.weight", w, h);
        } else if (mlp == LayerMlp::Moe) {
            const std::uint64_t w = std::uint64_t(m.routedWidth()), e = std::uint64_t(m.experts);
            add(out, R::Small, i, "ffn_gate_inp.weight", h, e + (m.routerBias ? 1 : 0));
            if (m.mlp == Mlp::Gated)
                add(out, R::FfnGate, i, "ffn_gate_exps.weight", h, w * e, true);
            add(out, R::FfnUp, i, "ffn_up_exps.weight", h, w * e, true);
            add(out, R::FfnDown, i, "ffn_down_exps.weight", w, h * e, true);
            if (m.sharedExperts > 0) {
                const std::uint64_t sw = std::uint64_t(m.sharedWidth()) * std::uint64_t(m.sharedExperts);
                if (m.mlp == Mlp::Gated)
                    add(out, R::FfnGate, i, "ffn_gate_shexp.weight", h, sw);
                add(out, R::FfnUp, i, "ffn_up_shexp.weight", h, sw);
                add(out, R::FfnDown, i, "ffn_down_shexp.weight", sw, h);
            }
        }
    }
    if (linearLayers > 0)
        notes.push_back("linear-attention and state-space layers' matrices are sized in the file type's base type "
                        "(llama-quantize gives them no category); their small convolution weights in f32 are not counted");
    // llama-quantize's counters follow the loader's order, by layer, then by name
    // (llama_model_loader::weight_name_comparer): the tensors above are made layer by layer, and
    // within a layer the tensors of one category in name order (ffn_down_exps before
    // ffn_down_shexp), which is all the counters see.
    return out;
}

} // namespace

namespace {
LlamaWeights llamaWeightsOnce(const ModelArch &m, const ParamCounts &params, GgufType type);
} // namespace

LlamaWeights llamaWeights(const ModelArch &m, const ParamCounts &params, GgufType type)
{
    // A fit or a search estimates one file many times: the last one is kept, per thread.
    struct Last
    {
        ModelArch arch;
        ParamCounts params;
        GgufType type;
        LlamaWeights weights;
    };
    thread_local std::optional<Last> last;
    if (last && last->type == type && last->params == params && last->arch == m)
        return last->weights;
    LlamaWeights w = llamaWeightsOnce(m, params, type);
    last = Last{m, params, type, w};
    return w;
}

namespace {

LlamaWeights llamaWeightsOnce(const ModelArch &m, const ParamCounts &params, GgufType type)
{
    LlamaWeights w;
    w.tensors = tensorsOf(m, params, w.notes);
    const Recipe r = recipe(type);
    State qs;
    qs.ftype = type;
    qs.imatrix = r.imatrix;
    qs.nExpert = std::max(1, m.experts);
    qs.nGqa = m.kvHeads > 0 ? m.heads / m.kvHeads : 1;
    qs.tied = m.tiedEmbeddings;
    qs.nLayer = m.layers;
    // LLM_TYPE_70B (llama_model::load_hparams: 80 layers of Llama 2/3 70B's width).
    qs.is70B = m.layers == 80 && m.hidden == 8192 && m.experts <= 1;
    for (const LlamaTensor &tensor : w.tensors)
        qs.nAttentionWv += attnVLike(tensor.role);
    bool toF16 = false;
    std::array<std::uint64_t, 64> byType{};
    w.layerBytes.assign(std::size_t(std::max(0, m.layers)), 0);
    w.expertBytes.assign(std::size_t(std::max(0, m.layers)), 0);
    for (LlamaTensor &tensor : w.tensors) {
        std::uint32_t id = r.base;
        if (tensor.role == R::Small) {
            id = ggml::F32;
        } else if (quantized(r.base)) { // llama_tensor_get_type: only a quantized default type changes
            if (!r.pure)
                id = impl(qs, id, tensor);
            id = fallback(id, tensor.ne0, toF16);
        }
        tensor.type = t(id);
        tensor.bytes = mulChecked(ceilDiv(tensor.ne0, tensor.type.blockSize), tensor.type.typeSize, "weights");
        tensor.bytes = mulChecked(tensor.bytes, tensor.rows, "weights");
        w.totalBytes = addChecked(w.totalBytes, tensor.bytes, "weights");
        byType[tensor.type.id] += tensor.bytes; // at most the total above
        if (tensor.layer >= 0) {
            auto &layer = w.layerBytes[std::size_t(tensor.layer)];
            layer = addChecked(layer, tensor.bytes, "weights");
            if (tensor.experts)
                w.expertBytes[std::size_t(tensor.layer)] += tensor.bytes;
        } else if (tensor.role == R::TokenEmbd) {
            w.embeddingBytes = tensor.bytes;
        } else {
            w.outputBytes = addChecked(w.outputBytes, tensor.bytes, "weights");
        }
    }
    for (std::uint32_t id = 0; id < byType.size(); ++id)
        if (byType[id])
            w.bytesByType[t(id).name] = byType[id];
    // Tied embeddings: the output layer holds a copy of token_embd (TENSOR_DUPLICATED in
    // load_tensors), not counted twice in the file.
    if (m.tiedEmbeddings)
        w.outputBytes = addChecked(w.outputBytes, w.embeddingBytes, "weights");
    if (toF16)
        w.notes.push_back("a row that is not whole blocks of its type is sized in f16 (llama-quantize refuses it)");
    if (qs.is70B && !r.pure && quantized(r.base))
        w.notes.push_back("80 layers of width 8,192: llama-quantize's 70B rule (attn_v in q5_K) applies");
    if (r.imatrix)
        w.notes.push_back(std::string(enumName(type)) + " is made with an importance matrix (llama-quantize needs one)");
    // In the file's order (llamacpphost.h sortLlamaFileOrder: outside the blocks first, then
    // block by block, by name), typed above in the order llama-quantize meets them; the load
    // mode's mapping walks them in this order for every estimate.
    std::stable_sort(w.tensors.begin(), w.tensors.end(), [](const LlamaTensor &a, const LlamaTensor &b) {
        return a.layer != b.layer ? a.layer < b.layer : std::string_view(a.name) < std::string_view(b.name);
    });
    return w;
}

} // namespace

} // namespace headroom
