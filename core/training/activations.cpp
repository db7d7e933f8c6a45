// SPDX-License-Identifier: GPL-3.0-or-later
#include "training/activations.h"

#include "scenario/checked.h"

#include <algorithm>
#include <initializer_list>

namespace headroom {

namespace {

std::uint64_t computeBytes(const Scenario &s) { return std::uint64_t(dtypeBits(s.precision.compute)) / 8; }
std::uint64_t u(int value) { return static_cast<std::uint64_t>(value); }

bool isLoraTarget(const Scenario &s, LoraTarget target)
{
    if (s.train.method == Method::Full)
        return false;
    const auto &targets = s.train.lora.targets;
    return std::find(targets.begin(), targets.end(), target) != targets.end();
}

/// One MLP (dense, or the experts a token is routed to) as the block's saved tensors see it.
struct MlpShape
{
    std::uint64_t width = 0;  ///< intermediate size of one MLP
    std::uint64_t copies = 1; ///< MLPs per token (top-k routed experts)
};

/// How the framework's code runs a block (the framework presets: profile, compile, quantizer).
struct BlockCode
{
    std::uint64_t a = 2;      ///< bytes per value of the compute dtype
    std::uint64_t stream = 2; ///< bytes per value of the hidden states between matmuls (streamBytes)
    std::uint64_t attention = 2; ///< bytes per value of attention's tensors (autocastBytes)
    bool eagerUpcast = true;  ///< Hugging Face, torchtune, LitGPT code (not a fused kernel)
    bool compiled = false;    ///< torch.compile: elementwise chains recomputed in backward
    bool geluNewTerms = false; ///< Hugging Face's eager gelu_new keeps tanh and 1 + tanh
    bool downKept = true;     ///< the down projection keeps its input (see inputKept)
    std::uint64_t normInputBytes = 2;
    const char *normWhy = "";
};

void addMlp(std::vector<SavedTensor> &t, const Scenario &s, const MlpShape &mlp, const BlockCode &code,
            bool routed)
{
    const ModelArch &m = s.model;
    // The projections' outputs and the elementwise chain are in the stream's dtype; the down
    // projection keeps its input in the compute dtype (a bitsandbytes matmul keeps the cast copy).
    const std::uint64_t a = code.a;
    const std::uint64_t x = code.stream;
    const std::uint64_t f = mlp.width * mlp.copies;
    if (f == 0)
        return;
    const char *downWhy = x == a ? "input of the down projection" : "cast to the compute dtype, kept by the 4-bit down projection";
    if (m.mlp == Mlp::Gated) {
        t.push_back({routed ? "expert gate projections" : "gate projection", f, x, "input of SiLU/GELU"});
        t.push_back({routed ? "expert up projections" : "up projection", f, x, "factor of the product"});
        if (code.eagerUpcast && !code.compiled)
            t.push_back({routed ? "expert activations" : "activation(gate)", f, x, "factor of the product"});
        if (code.downKept)
            t.push_back({routed ? "expert gate x up" : "gate x up (down input)", f, a, downWhy});
        return;
    }
    if (m.activation == Activation::Relu) {
        // ReLU's backward reads its own output (threshold_backward(grad, result)), and that output
        // is the down projection's input: one intermediate-sized tensor; the up projection's
        // output is freed once ReLU has run (OPT's fc1 -> ReLU -> fc2).
        t.push_back({"ReLU output (down input)", f, x, "kept by ReLU's backward and the down projection"});
        if (x != a && code.downKept)
            t.push_back({"ReLU output cast (down input)", f, a, downWhy});
        return;
    }
    t.push_back({"up projection (activation input)", f, x, "input of GELU"});
    if (code.geluNewTerms && m.activation == Activation::GeluNew) {
        // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in separate eager ops: tanh keeps
        // its output and the final product keeps (1 + tanh); the rest are scalar ops.
        t.push_back({"tanh output (gelu_new)", f, x, "saved by tanh for backward"});
        t.push_back({"1 + tanh (gelu_new)", f, x, "factor of x * (1 + tanh)"});
    }
    if (code.downKept)
        t.push_back({"activation output (down input)", f, a, downWhy});
}

/// The attention part of a block: what its projections and kernel keep.
void addAttention(std::vector<SavedTensor> &t, const Scenario &s, const BlockCode &code)
{
    const ModelArch &m = s.model;
    const std::uint64_t a = code.attention;
    const std::uint64_t heads = u(m.heads);
    std::uint64_t qWidth = heads * u(m.headDim);
    std::uint64_t kWidth = u(m.kvHeads) * u(m.headDim);
    std::uint64_t vWidth = kWidth;
    std::uint64_t outWidth = qWidth;
    if (m.latentAttention()) {
        // Multi-head latent attention (Hugging Face DeepseekV3Attention): the low-rank query and
        // the compressed KV vector pass through their own RMSNorms before being expanded per head.
        if (m.qLoraRank > 0) {
            t.push_back({"q_a norm input", u(m.qLoraRank), code.normInputBytes, code.normWhy});
            t.push_back({"q_b input", u(m.qLoraRank), a, "input of q_b_proj"});
        }
        t.push_back({"kv_a norm input", u(m.kvLoraRank), code.normInputBytes, code.normWhy});
        t.push_back({"kv_b input", u(m.kvLoraRank), a, "input of kv_b_proj"});
        t.push_back({"rotary key (k_pe)", u(m.qkRopeHeadDim), a, "shared rotary key before expansion"});
        qWidth = heads * (u(m.qkNopeHeadDim) + u(m.qkRopeHeadDim));
        kWidth = qWidth;
        vWidth = heads * u(m.vHeadDim);
        outWidth = vWidth;
        t.push_back({"q (after RoPE)", qWidth, a, "saved by the attention kernel"});
        t.push_back({"k (nope + rope per head)", kWidth, a, "saved by the attention kernel"});
        t.push_back({"v", vWidth, a, "saved by the attention kernel"});
    } else {
        if (m.qkNorm != QkNorm::None)
            t.push_back({"q/k norm inputs", qWidth + kWidth, code.normInputBytes, code.normWhy});
        t.push_back({"q (after RoPE)", qWidth, a, "saved by the attention kernel"});
        // Eager code repeats grouped KV heads before attention (repeat_kv); attention keeps the copy.
        const bool repeated = code.eagerUpcast;
        const std::uint64_t savedKv = repeated ? qWidth : kWidth;
        t.push_back({"k", savedKv, a, repeated ? "repeat_kv expands KV heads to all heads" : "saved by attention"});
        t.push_back({"v", savedKv, a, repeated ? "repeat_kv expands KV heads to all heads" : "saved by attention"});
    }
    t.push_back({"attention output", outWidth, a, "saved by the attention kernel"});
    if (s.kernels.attention != Attention::Eager)
        t.push_back({"log-sum-exp", heads, 4, "fp32 per head and token (SDPA/flash)"});
    if (s.kernels.attention != Attention::Flash)
        t.push_back({"o_proj input (contiguous copy)", outWidth, code.a,
                     "transpose(1, 2).contiguous() before o_proj, kept by o_proj"});
}

/// LoRA: a dropped copy of each target's input (LitGPT's fused q/k/v adapter shares one), or a
/// cast copy when the adapter dtype differs, and the rank-r intermediate.
void addLora(std::vector<SavedTensor> &t, const Scenario &s, const MlpShape &dense, const MlpShape &routed,
             const MlpShape &shared)
{
    if (s.train.method == Method::Full)
        return;
    const ModelArch &m = s.model;
    const std::uint64_t a = streamBytes(s); // what the adapters read
    const std::uint64_t h = u(m.hidden);
    const std::uint64_t loraBytes = std::uint64_t(dtypeBits(s.train.lora.dtype)) / 8;
    const std::uint64_t adapterRank = s.train.lora.rank;
    // MLPs a token passes through (a shape of width 0 is absent: a dense block has no experts).
    const auto present = [](const MlpShape &mlp) { return mlp.width ? mlp.copies : 0; };
    const std::uint64_t mlps = present(dense) + present(routed) + present(shared);
    const std::uint64_t downInputs = dense.width * dense.copies + routed.width * routed.copies +
                                     shared.width * shared.copies;
    const std::uint64_t oInput = m.latentAttention() ? u(m.heads) * u(m.vHeadDim) : u(m.heads) * u(m.headDim);
    const std::uint64_t vInput = m.latentAttention() ? u(m.kvLoraRank) : h;
    struct Input { LoraTarget target; std::uint64_t values; std::uint64_t adapters; };
    const Input inputs[] = {{LoraTarget::Q, h, 1},          {LoraTarget::K, h, 1},
                            {LoraTarget::V, vInput, 1},     {LoraTarget::O, oInput, 1},
                            {LoraTarget::Gate, h * mlps, mlps}, {LoraTarget::Up, h * mlps, mlps},
                            {LoraTarget::Down, downInputs, mlps}};
    const bool sharedQkv = s.kernels.profile == Profile::Litgpt;
    bool qkvDropped = false;
    std::uint64_t dropped = 0;
    std::uint64_t castCopies = 0;
    std::uint64_t intermediates = 0;
    for (const Input &input : inputs) {
        if (!isLoraTarget(s, input.target))
            continue;
        const bool qkv = input.target == LoraTarget::Q || input.target == LoraTarget::K ||
                         input.target == LoraTarget::V;
        if (s.train.lora.dropout > 0) {
            if (!(sharedQkv && qkv && qkvDropped))
                dropped += input.values;
            qkvDropped = qkvDropped || qkv;
        } else if (loraBytes != a) {
            castCopies += input.values;
        }
        intermediates += adapterRank * input.adapters;
    }
    if (dropped) {
        t.push_back({"LoRA dropout outputs", dropped, loraBytes, "dropout(x) feeds lora_A"});
        t.push_back({"LoRA dropout masks", dropped, 1, "bool mask per dropped value"});
    }
    if (castCopies)
        t.push_back({"LoRA input casts", castCopies, loraBytes, "x cast to the adapter dtype"});
    if (intermediates)
        t.push_back({"LoRA rank-r intermediates", intermediates, loraBytes, "lora_A output"});
}

/// Whether the scenario's weights are in a format bitsandbytes runs (its MatMul4Bit /
/// MatMul8bitLt keep their input for backward whatever is trainable).
bool bitsandbytesRuns(const Scenario &s)
{
    return isQuantized(s.precision.weights) && s.precision.quantizer == Quantizer::Bitsandbytes;
}

/// True under autocast: fp32 weights, 16-bit compute.
bool autocasts(const Scenario &s) { return dtypeBits(s.precision.weights) > dtypeBits(s.precision.compute); }

} // namespace

std::uint64_t streamBytes(const Scenario &s)
{
    const std::uint64_t a = computeBytes(s);
    if (s.task != Task::Train || !bitsandbytesRuns(s) || !s.precision.unquantized)
        return a;
    return std::max<std::uint64_t>(a, std::uint64_t(dtypeBits(*s.precision.unquantized)) / 8);
}

std::uint64_t autocastBytes(const Scenario &s)
{
    return s.precision.autocast ? computeBytes(s) : streamBytes(s);
}

namespace {

LayerInventory blockInventory(const Scenario &s, bool moeBlock)
{
    const ModelArch &m = s.model;
    const Profile profile = s.kernels.profile;
    const bool full = s.train.method == Method::Full;
    const std::uint64_t loraBytes = std::uint64_t(dtypeBits(s.train.lora.dtype)) / 8;
    const bool bnb = bitsandbytesRuns(s);
    const bool autocast = autocasts(s);
    BlockCode code;
    code.a = computeBytes(s);
    code.stream = streamBytes(s);
    code.attention = autocastBytes(s);
    code.eagerUpcast = profile != Profile::Fused;
    code.compiled = s.train.compile;
    code.geluNewTerms = profile == Profile::HuggingFace && !code.compiled;
    const std::uint64_t a = code.a;
    const std::uint64_t h = u(m.hidden);

    // A linear layer keeps its input for backward only when its weight needs a gradient (full
    // fine-tuning), when a LoRA adapter reads that very tensor (dropout 0, adapter in the compute
    // dtype) or when bitsandbytes runs it. Under torch.compile the input is recomputed from the
    // block's saved tensors (bitsandbytes' custom function still keeps it).
    // Adopted for the down projection only (a frozen SwiGLU keeps gate, up and act(gate), not
    // their product: measured with saved_tensors_hooks, docs/estimator.md). The same autograd
    // rule would drop the frozen q/k/v, o and gate/up inputs too, but the LitGPT LoRA
    // measurements do not support that; until a GPU run settles it they stay counted.
    auto inputKept = [&](std::initializer_list<LoraTarget> consumers) {
        if (bnb || full)
            return true;
        for (LoraTarget target : consumers)
            if (isLoraTarget(s, target) && s.train.lora.dropout == 0 && loraBytes == code.stream)
                return true;
        return false;
    };
    code.downKept = inputKept({LoraTarget::Down});

    LayerInventory inv;
    auto &t = inv.tensors;
    t.reserve(40); // every family's inventory fits: one allocation instead of six
    // Norms: the eager Hugging Face / torchtune / LitGPT RMSNorm keeps its fp32 upcast input;
    // nn.LayerNorm keeps its input as it comes (fp32 under autocast); fused kernels and compiled
    // blocks keep the input in the compute dtype and an fp32 statistic per row.
    // torch.compile fuses each elementwise chain into one kernel: what the chain computes inside
    // (a norm's fp32 upcast and normalised tensor, the gated MLP's activation, gelu_new's tanh
    // terms) is recomputed in backward; what the chains read and what the matmuls and attention
    // read (the norm outputs, q/k/v, the o_proj and down inputs) is kept as in eager mode.
    // Norm tensors sit outside the tensor-parallel region: replicated unless sequence parallel.
    const bool rms = m.norm == Norm::RmsNorm;
    const bool upcastInput = !code.compiled && ((code.eagerUpcast && rms) || autocast);
    code.normInputBytes = upcastInput ? 4 : a;
    code.normWhy = code.compiled          ? "compiled norm: input and a per-row rstd"
                   : upcastInput && rms ? "norm input upcast to fp32 (RMSNorm in fp32)"
                   : upcastInput        ? "layer_norm runs in fp32 under autocast"
                                        : "norm input in the compute dtype";
    // Full fine-tuning trains the norm weight: the eager RMSNorm keeps the normalised tensor for
    // its gradient (LitGPT multiplies the weight in fp32).
    const std::uint64_t normalizedBytes =
        full && rms && code.eagerUpcast && !code.compiled ? (profile == Profile::Litgpt ? 4 : a) : 0;
    // An fp32 stream reaches each 4-bit projection as its own compute-dtype copy (Linear4bit's
    // x.to(compute_dtype)), which the bitsandbytes matmul keeps: one copy per projection reading
    // the norm's output (LitGPT's fused q/k/v: one).
    const bool castCopies = code.stream != a && bnb;
    auto addNorm = [&](const char *input, const char *normalized, const char *output, std::uint64_t readers) {
        t.push_back({input, h, code.normInputBytes, code.normWhy, false});
        if (code.compiled || !code.eagerUpcast)
            t.push_back({"norm rstd", 1, 4, "fp32 statistic per row", false});
        if (normalizedBytes)
            t.push_back({normalized, h, normalizedBytes, "the norm weight's gradient needs it", false});
        if (castCopies)
            t.push_back({output, h * readers, a, "one compute-dtype copy per 4-bit projection reading it", false});
        else
            t.push_back({output, h, a, "input of the projections", false});
    };

    const std::uint64_t attentionReaders = m.latentAttention() ? 2 : profile == Profile::Litgpt ? 1 : 3;
    const std::uint64_t mlpReaders = moeBlock ? 1 + (m.sharedExperts > 0 ? 2 : 0) : m.mlp == Mlp::Gated ? 2 : 1;
    addNorm("attention norm input", "attention norm normalised", "attention norm output (q/k/v input)",
            attentionReaders);
    addAttention(t, s, code);
    if (m.normsPerLayer != 1)
        addNorm("MLP norm input", "MLP norm normalised", "MLP norm output (MLP input)", mlpReaders);

    MlpShape dense, routed, shared;
    if (!moeBlock) {
        dense = {u(m.intermediate), 1};
        addMlp(t, s, dense, code, false);
    } else {
        const std::uint64_t k = u(m.expertsPerToken);
        routed = {u(m.routedWidth()), k};
        shared = {u(m.sharedWidth()), u(m.sharedExperts)};
        t.push_back({"router logits", u(m.experts), 4, "fp32 softmax over experts"});
        t.push_back({"routed token copies", k * h, code.stream, "tokens gathered per expert: input of its projections"});
        addMlp(t, s, routed, code, true);
        t.push_back({"expert outputs", k * h, code.stream, "multiplied by the routing weights in backward"});
        addMlp(t, s, shared, code, false);
    }
    addLora(t, s, dense, routed, shared);

    for (const SavedTensor &tensor : t) {
        const std::uint64_t bytes = tensor.valuesPerToken * tensor.bytesPerValue;
        inv.bytesPerToken += bytes;
        if (!tensor.tensorParallel)
            inv.replicatedBytesPerToken += bytes;
    }
    inv.layerInputBytesPerToken = h * code.stream;
    // torchtitan's op-level selective checkpointing keeps the block input, the attention
    // kernel's outputs and every other matmul output (q, v, then the first and third MLP
    // projections); norms, RoPE and activations are recomputed.
    {
        const std::uint64_t qWidth = u(m.heads) * u(m.headDim);
        const std::uint64_t kvWidth = u(m.kvHeads) * u(m.headDim);
        const std::uint64_t f = moeBlock ? routed.width * routed.copies + shared.width * shared.copies
                                         : dense.width * dense.copies;
        std::vector<std::uint64_t> matmuls{qWidth, kvWidth, kvWidth, h};
        if (m.mlp == Mlp::Gated)
            matmuls.insert(matmuls.end(), {f, f, h});
        else
            matmuls.insert(matmuls.end(), {f, h});
        std::uint64_t kept = h + qWidth;
        for (std::size_t i = 0; i < matmuls.size(); i += 2)
            kept += matmuls[i];
        inv.opSelectiveBytesPerToken = kept * a;
        if (s.kernels.attention != Attention::Eager)
            inv.opSelectiveBytesPerToken += u(m.heads) * 4;
    }
    // Eager attention keeps the softmax output; eager code computes it in fp32 and keeps a cast copy.
    inv.scoreBytesPerElement = code.eagerUpcast ? 4 + a : a;
    return inv;
}

/// The final norm and the lm_head's input. The final norm runs outside the compiled blocks;
/// the lm_head keeps its input when it trains (full fine-tuning, LoRA on it) or when
/// bitsandbytes runs it (LitGPT quantizes it too).
std::uint64_t finalNormBytesPerToken(const Scenario &s)
{
    const ModelArch &m = s.model;
    const Profile profile = s.kernels.profile;
    const bool eagerUpcast = profile != Profile::Fused;
    const bool full = s.train.method == Method::Full;
    const bool rms = m.norm == Norm::RmsNorm;
    const std::uint64_t a = computeBytes(s);
    const std::uint64_t h = u(m.hidden);
    const std::uint64_t loraBytes = std::uint64_t(dtypeBits(s.train.lora.dtype)) / 8;
    const std::uint64_t finalInput = (eagerUpcast && rms) || autocasts(s) ? 4 : a;
    std::uint64_t bytes = h * finalInput + (full && rms && eagerUpcast ? h * (profile == Profile::Litgpt ? 4 : a) : 0);
    const bool headTrains = full || isLoraTarget(s, LoraTarget::LmHead);
    const bool headQuantized = bitsandbytesRuns(s) && profile == Profile::Litgpt;
    if (headTrains || headQuantized)
        bytes += h * a;
    if (isLoraTarget(s, LoraTarget::LmHead) && s.train.lora.dropout > 0)
        bytes += h * (loraBytes + 1);
    return bytes;
}

} // namespace

std::uint64_t LayerInventory::perRank(std::uint64_t tensor, bool sequenceParallel) const
{
    if (tensor <= 1 || sequenceParallel)
        return ceilDiv(bytesPerToken, std::max<std::uint64_t>(1, tensor));
    return replicatedBytesPerToken + ceilDiv(bytesPerToken - replicatedBytesPerToken, tensor);
}

std::pair<std::uint64_t, std::uint64_t> ModelInventory::split(std::uint64_t layers) const
{
    const std::uint64_t all = denseLayers + moeLayers;
    if (all == 0)
        return {layers, 0};
    const std::uint64_t moe = std::min(layers, ceilDiv(moeLayers * layers, all));
    return {layers - moe, moe};
}

ModelInventory trainingInventory(const Scenario &s)
{
    const ModelArch &m = s.model;
    ModelInventory model;
    model.moeLayers = u(m.moeLayers());
    model.denseLayers = u(m.layers) - model.moeLayers;
    if (model.denseLayers)
        model.dense = blockInventory(s, false);
    if (model.moeLayers)
        model.moe = blockInventory(s, true);
    model.finalNormBytesPerToken = finalNormBytesPerToken(s);
    return model;
}

std::uint64_t inferenceWorkingBytesPerToken(const Scenario &s)
{
    const ModelArch &m = s.model;
    const std::uint64_t a = computeBytes(s);
    const std::uint64_t h = u(m.hidden);
    std::uint64_t qWidth = u(m.heads) * u(m.headDim);
    std::uint64_t kvWidth = u(m.kvHeads) * u(m.headDim);
    if (m.latentAttention()) {
        qWidth = u(m.heads) * (u(m.qkNopeHeadDim) + u(m.qkRopeHeadDim));
        kvWidth = qWidth; // keys and values expanded per head for attention
    }
    const std::uint64_t normBytes = s.kernels.profile != Profile::Fused ? 4 : a;
    const std::uint64_t mlpTensors = m.mlp == Mlp::Gated ? 3 : 2;
    // The widest MLP a token passes through: a dense one, or its routed and shared experts.
    std::uint64_t mlpWidth = m.moeLayers() < m.layers ? u(m.intermediate) : 0;
    if (m.moeLayers() > 0)
        mlpWidth = std::max(mlpWidth, u(m.routedWidth()) * u(m.expertsPerToken) +
                                          u(m.sharedWidth()) * u(m.sharedExperts));
    // residual + norm (fp32 in eager code) + q, k, v + attention output + the MLP intermediates.
    return h * a + h * normBytes + (qWidth + 2 * kvWidth) * a + qWidth * a + mlpTensors * mlpWidth * a;
}

} // namespace headroom
