// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/explanations.h"

#include "chart/consumerstyle.h"
#include "scenario/names.h"

#include <QCoreApplication>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("explanations", text); }

QString what(ConsumerId id, const Scenario &s)
{
    if (id == ConsumerId::Weights && s.task == Task::Train && !isQuantized(s.precision.weights) &&
        dtypeBits(s.precision.weights) > dtypeBits(s.precision.compute))
        return tr("The parameters themselves, plus, under autocast, a %1 copy of every matmul weight "
                  "made on use and kept from the forward pass until backward has used it: the "
                  "forward and backward bars are taller than the stored weights.")
            .arg(QString::fromLatin1(enumName(s.precision.compute)));
    if (s.task == Task::Inference) {
        if (id == ConsumerId::Activations)
            return tr("In serving nothing is kept for a backward pass: only the block being computed "
                      "holds its intermediates, for every token of the prompt during prefill and one "
                      "token per sequence while decoding.");
        if (id == ConsumerId::Logits)
            return tr("The vocabulary scores of the last token of each sequence (and its fp32 copy for "
                      "sampling), or of every prompt position when the prefill computes them all.");
    }
    switch (id) {
    case ConsumerId::Weights:
        return tr("The parameters themselves: parameters times bytes per parameter. Fixed for the "
                  "whole run and rarely the surprise.");
    case ConsumerId::QuantMetadata:
        return tr("Scales that 4- and 8-bit formats store beside the packed weights. With the "
                  "embeddings, lm_head and norms kept in 16 bits, they are why a 7B model in NF4 takes "
                  "about a tenth more than half a byte per parameter.");
    case ConsumerId::MasterWeights:
        return tr("An fp32 copy of the trainable parameters that mixed-precision training updates, "
                  "so small updates are not lost to 16-bit rounding.");
    case ConsumerId::Gradients:
        return tr("One gradient per trainable parameter, in the gradient dtype. Parameter-efficient "
                  "methods exist because of this line.");
    case ConsumerId::OptimizerState:
        return tr("What the optimizer remembers between steps: AdamW keeps a running mean and a "
                  "running variance per trainable parameter. Gradient accumulation never shrinks it; "
                  "sharding, 8-bit states, offload or LoRA do.");
    case ConsumerId::Activations:
        return tr("Tensors the forward pass keeps so the backward pass can compute gradients. They "
                  "grow linearly with micro-batch and sequence length; doubling the context doubles them.");
    case ConsumerId::AttentionScores:
        return tr("Eager attention materialises the batch x heads x seq^2 score matrix. It is the "
                  "quadratic term: FlashAttention or PyTorch SDPA never write it.");
    case ConsumerId::Logits:
        return tr("batch x seq x vocab values, often in 16-bit and an fp32 copy at once, plus the "
                  "loss's log-softmax. On large vocabularies this can exceed the weights.");
    case ConsumerId::KvCache:
        return tr("Keys and values of every previous token, for every layer and concurrent "
                  "sequence. Longer contexts and more simultaneous requests make it the limit.");
    case ConsumerId::KvCacheFree:
        return tr("The part of a serving engine's KV pool that the requests leave free. vLLM and "
                  "SGLang allocate the whole pool at start-up, so nvidia-smi shows it as used; it is "
                  "what more or longer requests would fill.");
    case ConsumerId::Workspace:
        return tr("Scratch buffers inside PyTorch's allocator: cuBLAS workspaces, dequantised "
                  "weight copies, gathered shards, optimizer temporaries. In the optimizer step, "
                  "PyTorch's default AdamW (the foreach path) makes temporary tensors the size of one "
                  "optimizer state inside step(); AdamW(fused=True) and 8-bit optimizers avoid most of "
                  "them (the phases view, Ctrl+2, shows that step's bar).");
    case ConsumerId::CudaContext:
        return tr("The CUDA context and loaded kernels. nvidia-smi shows it; "
                  "torch.cuda.max_memory_allocated() does not.");
    case ConsumerId::Fragmentation:
        return tr("Memory the caching allocator holds but no tensor uses: max_memory_reserved() "
                  "minus max_memory_allocated().");
    case ConsumerId::Communication:
        return tr("NCCL's own buffers for each process group the GPU talks in (data, tensor, pipeline, "
                  "context, expert): ring buffers per channel and per-channel structures. nvidia-smi shows "
                  "them; PyTorch's memory counters do not.");
    case ConsumerId::GenerationEngine:
        return tr("A GRPO run's vLLM engine in the same GPU as the trainer (TRL vllm_mode=\"colocate\"): "
                  "its own copy of the weights, its KV pool sized from vllm_gpu_memory_utilization, its "
                  "CUDA graphs and non-torch memory. It is held through the training step unless sleep "
                  "mode releases the weights and the pool between generations.");
    }
    return {};
}

QString advice(ConsumerId id, const Scenario &s)
{
    const bool training = s.task == Task::Train;
    switch (id) {
    case ConsumerId::Activations:
        if (!training)
            return {};
        if (s.train.checkpointing == Checkpointing::None)
            return tr("Gradient checkpointing keeps only each block's input and recomputes the rest "
                      "(about +20-33% compute).") +
                   (s.train.method != Method::Full
                        ? tr(" With LoRA, call model.enable_input_require_grads() too, or the loss never changes.")
                        : QString());
        if (s.train.method != Method::Full)
            return tr("LoRA with gradient checkpointing needs model.enable_input_require_grads(), "
                      "or the checkpointed segments see no input requiring grad and the loss never changes.");
        return tr("Then: a smaller micro-batch with more accumulation (same effective batch), or "
                  "shorter sequences (count what gets truncated).");
    case ConsumerId::AttentionScores:
        return tr("Switch to attn_implementation=\"flash_attention_2\" or \"sdpa\" before anything else "
                  "at long context.");
    case ConsumerId::Logits:
        if (!training)
            return s.inference.promptLogits == PromptLogits::All
                       ? tr("Newer transformers run the lm_head on the last position only "
                            "(logits_to_keep); the prompt's logits disappear.")
                       : QString();
        return s.kernels.loss == Loss::Fused
                   ? QString()
                   : tr("A fused cross-entropy (Liger Kernel, Cut Cross-Entropy) never materialises the "
                        "logits: often the largest single saving on large vocabularies.");
    case ConsumerId::OptimizerState:
        return tr("Options: 8-bit AdamW (~2 B per parameter), ZeRO-1 sharding, CPU offload (60-80% "
                  "slower), or train adapters (LoRA) instead of all parameters.");
    case ConsumerId::Fragmentation:
        return tr("If max_memory_allocated() is far below the card, set "
                  "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True before buying hardware.");
    case ConsumerId::GenerationEngine:
        return training && s.train.grpo.vllmSleep
                   ? QString()
                   : tr("vllm_enable_sleep_mode=True releases vLLM's weights and KV pool while the trainer "
                        "steps (woken for each generation); `headroom solve --for max-vllm-utilization` "
                        "finds the largest vllm_gpu_memory_utilization that leaves room for training.");
    case ConsumerId::Communication:
        return tr("Fewer parallel dimensions mean fewer communicators. On NVSwitch nodes with NCCL "
                  "2.17-2.21, NCCL_NVLS_ENABLE=0 frees the NVLink SHARP buffers (1.5-2.3 GiB).");
    case ConsumerId::Weights:
        return training ? QString()
                        : tr("int8 or int4 weights shrink this line only, not the KV cache: check "
                             "answer quality on the real task.");
    case ConsumerId::KvCache:
        return (s.inference.kvCache == KvCache::Concat
                    ? tr("A cache grown by torch.cat holds the previous step's copy while decoding: a "
                         "preallocated (static) cache halves this line. ")
                    : QString()) +
               tr("Reduce concurrent sequences or context, or quantize the cache (fp8/int8): cache "
                  "precision is independent of weight precision.");
    default:
        return {};
    }
}

} // namespace

QString explainConsumer(ConsumerId id, const Scenario &scenario, const Estimate &estimate, Unit unit)
{
    QString html = QStringLiteral("<h3>%1</h3><p>%2</p>").arg(consumerDisplayName(id), what(id, scenario));
    if (const Consumer *consumer = estimate.consumer(id)) {
        html += QStringLiteral("<p><tt>%1</tt></p>")
                    .arg(QString::fromStdString(consumer->formula(unit)).toHtmlEscaped());
        if (!consumer->assumptions.empty()) {
            html += QStringLiteral("<ul>");
            for (const std::string &assumption : consumer->assumptions)
                html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(assumption).toHtmlEscaped());
            html += QStringLiteral("</ul>");
        }
    }
    const QString tip = advice(id, scenario);
    if (!tip.isEmpty())
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("What to do:"), tip.toHtmlEscaped());
    return html;
}

} // namespace headroom
