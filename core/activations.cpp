// SPDX-License-Identifier: GPL-3.0-or-later
#include "activations.h"

#include <algorithm>

namespace headroom {

namespace {

std::uint64_t computeBytes(const Scenario &s) { return std::uint64_t(dtypeBits(s.precision.compute)) / 8; }

bool isLoraTarget(const Scenario &s, LoraTarget target)
{
    if (s.train.method == Method::Full)
        return false;
    const auto &targets = s.train.lora.targets;
    return std::find(targets.begin(), targets.end(), target) != targets.end();
}

} // namespace

LayerInventory trainingInventory(const Scenario &s)
{
    const ModelArch &m = s.model;
    const Profile profile = s.kernels.profile;
    const bool eagerUpcast = profile != Profile::Fused; // Hugging Face, torchtune, LitGPT code
    const bool compiled = s.train.compile;
    const bool full = s.train.method == Method::Full;
    const std::uint64_t a = computeBytes(s);
    const std::uint64_t h = m.hidden;
    const std::uint64_t f = m.intermediate;
    const std::uint64_t qWidth = std::uint64_t(m.heads) * m.headDim;
    const std::uint64_t kvWidth = std::uint64_t(m.kvHeads) * m.headDim;
    const std::uint64_t active = m.expertsPerToken;
    const std::uint64_t loraBytes = std::uint64_t(dtypeBits(s.train.lora.dtype)) / 8;
    const bool autocast = dtypeBits(s.precision.weights) > dtypeBits(s.precision.compute);
    // bitsandbytes' MatMul4Bit / MatMul8bitLt keep their input for backward whatever is trainable.
    const bool bnb = isQuantized(s.precision.weights) && s.precision.quantizer == Quantizer::Bitsandbytes;

    // A linear layer keeps its input for backward only when its weight needs a gradient (full
    // fine-tuning), when a LoRA adapter reads that very tensor (dropout 0, adapter in the compute
    // dtype) or when bitsandbytes runs it. Under torch.compile the input is recomputed from the
    // block's saved tensors (bitsandbytes' custom function still keeps it).
    // Adopted for the down projection only (a frozen SwiGLU keeps gate, up and act(gate), not
    // their product: measured with saved_tensors_hooks, docs/estimator.md). The same autograd
    // rule would drop the frozen q/k/v, o and gate/up inputs too, but the LitGPT LoRA
    // measurements do not support that; until a GPU run settles it they stay counted.
    auto inputKept = [&](std::initializer_list<LoraTarget> consumers) {
        if (bnb)
            return true;
        if (full)
            return true;
        for (LoraTarget target : consumers)
            if (isLoraTarget(s, target) && s.train.lora.dropout == 0 && loraBytes == a)
                return true;
        return false;
    };

    LayerInventory inv;
    auto &t = inv.tensors;
    t.reserve(32); // every family's inventory fits: one allocation instead of six
    // Norms: the eager Hugging Face / torchtune / LitGPT RMSNorm keeps its fp32 upcast input;
    // nn.LayerNorm keeps its input as it comes (fp32 under autocast); fused kernels and compiled
    // blocks keep the input in the compute dtype and an fp32 statistic per row.
    // torch.compile fuses each elementwise chain into one kernel: what the chain computes inside
    // (a norm's fp32 upcast and normalised tensor, the gated MLP's activation, gelu_new's tanh
    // terms) is recomputed in backward; what the chains read and what the matmuls and attention
    // read (the norm outputs, q/k/v, the o_proj and down inputs) is kept as in eager mode.
    const bool rms = m.norm == Norm::RmsNorm;
    const bool upcastInput = !compiled && ((eagerUpcast && rms) || autocast);
    const std::uint64_t normInputBytes = upcastInput ? 4 : a;
    const char *normWhy = compiled          ? "compiled norm: input and a per-row rstd"
                          : upcastInput && rms ? "norm input upcast to fp32 (RMSNorm in fp32)"
                          : upcastInput     ? "layer_norm runs in fp32 under autocast"
                                            : "norm input in the compute dtype";
    // Full fine-tuning trains the norm weight: the eager RMSNorm keeps the normalised tensor for
    // its gradient (LitGPT multiplies the weight in fp32).
    const std::uint64_t normalizedBytes =
        full && rms && eagerUpcast && !compiled ? (profile == Profile::Litgpt ? 4 : a) : 0;
    auto addNorm = [&](const char *input, const char *normalized, const char *output) {
        t.push_back({input, h, normInputBytes, normWhy});
        if (compiled || !eagerUpcast)
            t.push_back({"norm rstd", 1, 4, "fp32 statistic per row"});
        if (normalizedBytes)
            t.push_back({normalized, h, normalizedBytes, "the norm weight's gradient needs it"});
        t.push_back({output, h, a, "input of the projections"});
    };

    addNorm("attention norm input", "attention norm normalised", "attention norm output (q/k/v input)");
    t.push_back({"q (after RoPE)", qWidth, a, "saved by the attention kernel"});
    // Eager code repeats grouped KV heads before attention (repeat_kv); attention keeps the copy.
    const bool repeated = eagerUpcast;
    const std::uint64_t savedKv = repeated ? qWidth : kvWidth;
    t.push_back({"k", savedKv, a, repeated ? "repeat_kv expands KV heads to all heads" : "saved by attention"});
    t.push_back({"v", savedKv, a, repeated ? "repeat_kv expands KV heads to all heads" : "saved by attention"});
    t.push_back({"attention output", qWidth, a, "saved by the attention kernel"});
    if (s.kernels.attention != Attention::Eager)
        t.push_back({"log-sum-exp", std::uint64_t(m.heads), 4, "fp32 per head and token (SDPA/flash)"});
    if (s.kernels.attention != Attention::Flash)
        t.push_back({"o_proj input (contiguous copy)", qWidth, a,
                     "transpose(1, 2).contiguous() before o_proj, kept by o_proj"});
    if (m.normsPerLayer != 1)
        addNorm("MLP norm input", "MLP norm normalised", "MLP norm output (MLP input)");
    const bool downKept = inputKept({LoraTarget::Down});
    if (m.mlp == Mlp::Gated) {
        t.push_back({"gate projection", f * active, a, "input of SiLU/GELU"});
        t.push_back({"up projection", f * active, a, "factor of the product"});
        if (eagerUpcast && !compiled)
            t.push_back({"activation(gate)", f * active, a, "factor of the product"});
        if (downKept)
            t.push_back({"gate x up (down input)", f * active, a, "input of the down projection"});
    } else {
        t.push_back({"up projection (activation input)", f * active, a, "input of GELU"});
        if (profile == Profile::HuggingFace && !compiled && m.activation == Activation::GeluNew) {
            // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in separate eager ops: tanh keeps
            // its output and the final product keeps (1 + tanh); the rest are scalar ops.
            t.push_back({"tanh output (gelu_new)", f * active, a, "saved by tanh for backward"});
            t.push_back({"1 + tanh (gelu_new)", f * active, a, "factor of x * (1 + tanh)"});
        }
        if (downKept)
            t.push_back({"activation output (down input)", f * active, a, "input of the down projection"});
    }
    if (m.experts > 1)
        t.push_back({"router logits", std::uint64_t(m.experts), 4, "fp32 softmax over experts"});

    // LoRA: a dropped copy of each target's input (LitGPT's fused q/k/v adapter shares one), or a
    // cast copy when the adapter dtype differs, and the rank-r intermediate.
    if (!full) {
        const std::uint64_t rank = s.train.lora.rank;
        struct Input { LoraTarget target; std::uint64_t width; std::uint64_t copies; };
        const Input inputs[] = {{LoraTarget::Q, h, 1},          {LoraTarget::K, h, 1},
                                {LoraTarget::V, h, 1},          {LoraTarget::O, qWidth, 1},
                                {LoraTarget::Gate, h, active},  {LoraTarget::Up, h, active},
                                {LoraTarget::Down, f, active}};
        const bool sharedQkv = profile == Profile::Litgpt;
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
                    dropped += input.width * input.copies;
                qkvDropped = qkvDropped || qkv;
            } else if (loraBytes != a) {
                castCopies += input.width * input.copies;
            }
            intermediates += rank * input.copies;
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

    for (const SavedTensor &tensor : t)
        inv.bytesPerToken += tensor.valuesPerToken * tensor.bytesPerValue;
    inv.layerInputBytesPerToken = h * a;
    // torchtitan's op-level selective checkpointing keeps the block input, the attention
    // kernel's outputs and every other matmul output (q, v, then the first and third MLP
    // projections); norms, RoPE and activations are recomputed.
    {
        std::vector<std::uint64_t> matmuls{qWidth, kvWidth, kvWidth, h};
        if (m.mlp == Mlp::Gated)
            matmuls.insert(matmuls.end(), {f * active, f * active, h});
        else
            matmuls.insert(matmuls.end(), {f * active, h});
        std::uint64_t kept = h + qWidth;
        for (std::size_t i = 0; i < matmuls.size(); i += 2)
            kept += matmuls[i];
        inv.opSelectiveBytesPerToken = kept * a;
        if (s.kernels.attention != Attention::Eager)
            inv.opSelectiveBytesPerToken += std::uint64_t(m.heads) * 4;
    }
    // The final norm runs outside the compiled blocks; the lm_head keeps its input when it trains
    // (full fine-tuning, LoRA on it) or when bitsandbytes runs it (LitGPT quantizes it too).
    {
        const std::uint64_t finalInput = (eagerUpcast && rms) || autocast ? 4 : a;
        inv.finalNormBytesPerToken = h * finalInput + (full && rms && eagerUpcast ? h * (profile == Profile::Litgpt ? 4 : a) : 0);
        const bool headTrains = full || isLoraTarget(s, LoraTarget::LmHead);
        const bool headQuantized = bnb && profile == Profile::Litgpt;
        if (headTrains || headQuantized)
            inv.finalNormBytesPerToken += h * a;
        if (isLoraTarget(s, LoraTarget::LmHead) && s.train.lora.dropout > 0)
            inv.finalNormBytesPerToken += h * (loraBytes + 1);
    }
    // Eager attention keeps the softmax output; HF computes it in fp32 and keeps a cast copy.
    inv.scoreBytesPerElement = eagerUpcast ? 4 + a : a;
    return inv;
}

std::uint64_t inferenceWorkingBytesPerToken(const Scenario &s)
{
    const ModelArch &m = s.model;
    const std::uint64_t a = computeBytes(s);
    const std::uint64_t h = m.hidden;
    const std::uint64_t qWidth = std::uint64_t(m.heads) * m.headDim;
    const std::uint64_t kvWidth = std::uint64_t(m.kvHeads) * m.headDim;
    const std::uint64_t normBytes = s.kernels.profile != Profile::Fused ? 4 : a;
    const std::uint64_t mlpTensors = m.mlp == Mlp::Gated ? 3 : 2;
    // residual + norm (fp32 in HF) + q, k, v + attention output + the MLP intermediates.
    return h * a + h * normBytes + (qWidth + 2 * kvWidth) * a + qWidth * a +
           mlpTensors * std::uint64_t(m.intermediate) * m.expertsPerToken * a;
}

} // namespace headroom
