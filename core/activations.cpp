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
    const bool hf = s.kernels.profile == Profile::HuggingFace;
    const std::uint64_t a = computeBytes(s);
    const std::uint64_t h = m.hidden;
    const std::uint64_t f = m.intermediate;
    const std::uint64_t qWidth = std::uint64_t(m.heads) * m.headDim;
    const std::uint64_t kvWidth = std::uint64_t(m.kvHeads) * m.headDim;
    const std::uint64_t active = m.expertsPerToken;

    LayerInventory inv;
    auto &t = inv.tensors;
    t.reserve(32); // every family's inventory fits: one allocation instead of six
    // Norm inputs: autocast and Hugging Face RMSNorm run norms in fp32 and keep the fp32 input.
    const std::uint64_t normInputBytes = hf ? 4 : a;
    const char *normWhy = hf ? "norm input upcast to fp32 (HF RMSNorm / autocast layer_norm)"
                             : "norm input in compute dtype (fused norm kernel)";
    t.push_back({"attention norm input", h, normInputBytes, normWhy});
    t.push_back({"attention norm output (q/k/v input)", h, a, "input of the q, k, v projections"});
    t.push_back({"q (after RoPE)", qWidth, a, "saved by the attention kernel"});
    // Hugging Face repeats grouped KV heads before SDPA/eager attention (repeat_kv).
    const std::uint64_t savedKv = hf ? qWidth : kvWidth;
    t.push_back({"k", savedKv, a, hf ? "repeat_kv expands KV heads to all heads" : "saved by attention"});
    t.push_back({"v", savedKv, a, hf ? "repeat_kv expands KV heads to all heads" : "saved by attention"});
    t.push_back({"attention output", qWidth, a, "saved by the attention kernel"});
    if (s.kernels.attention != Attention::Eager)
        t.push_back({"log-sum-exp", std::uint64_t(m.heads), 4, "fp32 per head and token (SDPA/flash)"});
    if (s.kernels.attention != Attention::Flash)
        t.push_back({"o_proj input (contiguous copy)", qWidth, a,
                     "transpose(1, 2).contiguous() before o_proj"});
    t.push_back({"MLP norm input", h, normInputBytes, normWhy});
    t.push_back({"MLP norm output (MLP input)", h, a, "input of the MLP projections"});
    if (m.mlp == Mlp::Gated) {
        if (hf) {
            t.push_back({"gate projection", f * active, a, "input of SiLU/GELU"});
            t.push_back({"up projection", f * active, a, "factor of the product"});
            t.push_back({"activation(gate)", f * active, a, "factor of the product"});
            t.push_back({"gate x up (down input)", f * active, a, "input of the down projection"});
        } else {
            t.push_back({"gate projection", f * active, a, "fused SwiGLU keeps its two inputs"});
            t.push_back({"up projection", f * active, a, "fused SwiGLU keeps its two inputs"});
            t.push_back({"gate x up (down input)", f * active, a, "input of the down projection"});
        }
    } else {
        t.push_back({"up projection (activation input)", f * active, a, "input of GELU"});
        if (hf && m.activation == Activation::GeluNew) {
            // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in separate eager ops: tanh keeps
            // its output and the final product keeps (1 + tanh); the rest are scalar ops.
            t.push_back({"tanh output (gelu_new)", f * active, a, "saved by tanh for backward"});
            t.push_back({"1 + tanh (gelu_new)", f * active, a, "factor of x * (1 + tanh)"});
        }
        t.push_back({"activation output (down input)", f * active, a, "input of the down projection"});
    }
    if (m.experts > 1)
        t.push_back({"router logits", std::uint64_t(m.experts), 4, "fp32 softmax over experts"});

    // LoRA: a dropped copy of each target's input, and the rank-r intermediate.
    if (s.train.method != Method::Full) {
        const std::uint64_t loraBytes = std::uint64_t(dtypeBits(s.train.lora.dtype)) / 8;
        const std::uint64_t rank = s.train.lora.rank;
        struct Input { LoraTarget target; std::uint64_t width; std::uint64_t copies; };
        const Input inputs[] = {{LoraTarget::Q, h, 1},          {LoraTarget::K, h, 1},
                                {LoraTarget::V, h, 1},          {LoraTarget::O, qWidth, 1},
                                {LoraTarget::Gate, h, active},  {LoraTarget::Up, h, active},
                                {LoraTarget::Down, f, active}};
        std::uint64_t dropped = 0;
        std::uint64_t castCopies = 0;
        std::uint64_t intermediates = 0;
        for (const Input &input : inputs) {
            if (!isLoraTarget(s, input.target))
                continue;
            if (s.train.lora.dropout > 0)
                dropped += input.width * input.copies;
            else if (loraBytes != a)
                castCopies += input.width * input.copies;
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
    inv.finalNormBytesPerToken = h * (normInputBytes + a);
    // Eager attention keeps the softmax output; HF computes it in fp32 and keeps a cast copy.
    inv.scoreBytesPerElement = hf ? 4 + a : a;
    return inv;
}

std::uint64_t inferenceWorkingBytesPerToken(const Scenario &s)
{
    const ModelArch &m = s.model;
    const std::uint64_t a = computeBytes(s);
    const std::uint64_t h = m.hidden;
    const std::uint64_t qWidth = std::uint64_t(m.heads) * m.headDim;
    const std::uint64_t kvWidth = std::uint64_t(m.kvHeads) * m.headDim;
    const std::uint64_t normBytes = s.kernels.profile == Profile::HuggingFace ? 4 : a;
    const std::uint64_t mlpTensors = m.mlp == Mlp::Gated ? 3 : 2;
    // residual + norm (fp32 in HF) + q, k, v + attention output + the MLP intermediates.
    return h * a + h * normBytes + (qWidth + 2 * kvWidth) * a + qWidth * a +
           mlpTensors * std::uint64_t(m.intermediate) * m.expertsPerToken * a;
}

std::uint64_t logitBytesPerValue(const Scenario &s)
{
    const std::uint64_t a = computeBytes(s);
    const bool hf = s.kernels.profile == Profile::HuggingFace;
    switch (s.kernels.loss) {
    case Loss::Standard:
        // logits in compute dtype + fp32 upcast (HF) + fp32 log-softmax / its gradient.
        return hf ? a + 8 : a + 4;
    case Loss::Chunked:
        // full logits in compute dtype; one of 8 chunks upcast with its log-softmax at a time.
        return a + 1;
    case Loss::Fused:
        return 0;
    }
    return a + 8;
}

} // namespace headroom
