// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicetext.h"

#include "names.h"

#include <QCoreApplication>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("advice", text); }
QString num(std::uint64_t value) { return QString::fromStdString(groupDigits(value)); }
QString name(const char *text) { return QString::fromLatin1(text); }

} // namespace

QString leverDisplayName(Lever lever)
{
    switch (lever) {
    case Lever::ExpandableSegments: return tr("Expandable segments");
    case Lever::FlashAttention: return tr("Flash attention");
    case Lever::GradientCheckpointing: return tr("Gradient checkpointing");
    case Lever::FusedLoss: return tr("Fused cross-entropy");
    case Lever::SmallerMicroBatch: return tr("Smaller micro-batch");
    case Lever::ShorterSequences: return tr("Shorter sequences");
    case Lever::MixedPrecision: return tr("Mixed precision (bf16)");
    case Lever::Lora: return tr("LoRA");
    case Lever::Qlora: return tr("QLoRA");
    case Lever::Optimizer8bit: return tr("8-bit optimizer");
    case Lever::Sharding: return tr("ZeRO-3 sharding");
    case Lever::OffloadOptimizer: return tr("Optimizer offload");
    case Lever::KvCacheFp8: return tr("fp8 KV cache");
    case Lever::FewerSequences: return tr("Fewer concurrent sequences");
    case Lever::ShorterContext: return tr("Shorter context");
    case Lever::Int8Weights: return tr("8-bit weights");
    case Lever::Int4Weights: return tr("4-bit weights");
    }
    return {};
}

QString adviceLeverText(const Advice &advice, std::size_t index)
{
    const Scenario &from = advice.before(index);
    const AdviceStep &step = advice.steps.at(index);
    const Scenario &to = step.scenario;
    switch (step.lever) {
    case Lever::ExpandableSegments:
        return tr("Expandable segments (fragmentation %1 -> %2)")
            .arg(QString::number(from.overhead.fragmentation), QString::number(to.overhead.fragmentation));
    case Lever::FlashAttention:
        return tr("Flash attention (was %1)").arg(name(enumName(from.kernels.attention)));
    case Lever::GradientCheckpointing: return tr("Gradient checkpointing (full)");
    case Lever::FusedLoss: return tr("Fused cross-entropy");
    case Lever::SmallerMicroBatch:
        return tr("Micro-batch %1 -> %2, accumulation %3 -> %4")
            .arg(num(from.train.microBatch), num(to.train.microBatch), num(from.train.gradAccum),
                 num(to.train.gradAccum));
    case Lever::ShorterSequences:
        return tr("Sequences %1 -> %2 tokens").arg(num(from.train.seqLen), num(to.train.seqLen));
    case Lever::MixedPrecision: return tr("Mixed precision (bf16 compute)");
    case Lever::Lora:
        return tr("LoRA (rank %1, %2 base)")
            .arg(num(std::uint64_t(to.train.lora.rank)), name(enumName(to.precision.weights)));
    case Lever::Qlora: return tr("QLoRA (NF4 base, double quantization)");
    case Lever::Optimizer8bit: return tr("8-bit AdamW");
    case Lever::Sharding: return tr("ZeRO-3 over %1 GPUs").arg(num(to.parallel.gpus));
    case Lever::OffloadOptimizer: return tr("Optimizer state to CPU RAM");
    case Lever::KvCacheFp8: return tr("fp8 KV cache (was %1)").arg(name(enumName(from.inference.kvDType)));
    case Lever::FewerSequences:
        return tr("Concurrent sequences %1 -> %2").arg(num(from.inference.batch), num(to.inference.batch));
    case Lever::ShorterContext:
        return tr("Context %1 -> %2 tokens").arg(num(from.inference.context), num(to.inference.context));
    case Lever::Int8Weights:
    case Lever::Int4Weights:
        return tr("%1 weights (was %2)")
            .arg(name(enumName(to.precision.weights)), name(enumName(from.precision.weights)));
    }
    return {};
}

QString adviceCostText(const Advice &advice, std::size_t index, Unit unit)
{
    const Scenario &from = advice.before(index);
    const AdviceStep &step = advice.steps.at(index);
    const Scenario &to = step.scenario;
    switch (step.lever) {
    case Lever::ExpandableSegments:
        return tr("none: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
    case Lever::FlashAttention:
        return tr("none on fp16/bf16 and recent GPUs: attn_implementation=\"flash_attention_2\" or SDPA");
    case Lever::GradientCheckpointing:
        return tr("about +33% compute (a second forward pass in backward)");
    case Lever::FusedLoss:
        return tr("none: a fused kernel (Liger Kernel, Cut Cross-Entropy)");
    case Lever::SmallerMicroBatch:
        return tr("effective batch unchanged (%1 x %2 = %3); smaller steps use the GPU less well")
            .arg(num(to.train.microBatch), num(to.train.gradAccum),
                 num(std::uint64_t(to.train.microBatch) * to.train.gradAccum));
    case Lever::ShorterSequences:
        return tr("truncation risk: examples over %1 tokens are cut (was %2); count them first")
            .arg(num(to.train.seqLen), num(from.train.seqLen));
    case Lever::MixedPrecision:
        return tr("bf16 needs an Ampere or newer GPU (fp16 needs loss scaling); usually faster");
    case Lever::Lora:
        return tr("trains adapters only (rank %1); quality usually close to full fine-tuning")
            .arg(num(std::uint64_t(to.train.lora.rank)));
    case Lever::Qlora:
        return tr("quality risk from 4-bit base weights (seed 003: 1-2%); slower steps (dequantisation)");
    case Lever::Optimizer8bit:
        return tr("8-bit optimizer state (bitsandbytes): small risk to convergence");
    case Lever::Sharding:
        return tr("more communication every step (parameters gathered layer by layer)");
    case Lever::OffloadOptimizer:
        return tr("steps 60-80% slower (seed 003); needs %1 of CPU RAM")
            .arg(QString::fromStdString(formatBytes(step.hostBytes, unit)));
    case Lever::KvCacheFp8: return tr("small quality risk from an 8-bit cache");
    case Lever::FewerSequences: return tr("fewer requests served at once: lower throughput");
    case Lever::ShorterContext:
        return tr("requests over %1 tokens are refused or cut").arg(num(to.inference.context));
    case Lever::Int8Weights:
    case Lever::Int4Weights: return tr("quality risk: check answers on your own task");
    }
    return {};
}

QString skipReasonText(SkipReason reason)
{
    switch (reason) {
    case SkipReason::NotApplicable: return tr("already on or does not apply");
    case SkipReason::NoSaving: return tr("saves nothing here");
    case SkipReason::Negligible: return tr("saves under 1% here");
    case SkipReason::NotEnough: return tr("a data change that would not make it fit on its own");
    }
    return {};
}

QStringList keySettingsText(const Scenario &s)
{
    QStringList lines;
    const QString model = QString::fromStdString(s.model.preset.empty() ? s.name : s.model.preset);
    if (!model.isEmpty())
        lines << tr("model: %1").arg(model);
    if (s.task == Task::Train) {
        lines << tr("method: %1, weights %2, compute %3")
                     .arg(name(enumName(s.train.method)), name(enumName(s.precision.weights)),
                          name(enumName(s.precision.compute)));
        if (s.train.method != Method::Full)
            lines << tr("LoRA: rank %1, %2 adapters").arg(num(std::uint64_t(s.train.lora.rank)),
                                                          name(enumName(s.train.lora.dtype)));
        lines << tr("micro-batch %1 x accumulation %2 (effective %3), sequence %4")
                     .arg(num(s.train.microBatch), num(s.train.gradAccum),
                          num(std::uint64_t(s.train.microBatch) * s.train.gradAccum), num(s.train.seqLen));
        lines << tr("gradient checkpointing: %1, optimizer: %2")
                     .arg(name(enumName(s.train.checkpointing)), name(enumName(s.train.optimizer)));
    } else {
        lines << tr("weights %1, KV cache %2, %3 sequences x %4 tokens")
                     .arg(name(enumName(s.precision.weights)), name(enumName(s.inference.kvDType)),
                          num(s.inference.batch), num(s.inference.context));
    }
    lines << tr("attention: %1, loss: %2, fragmentation %3")
                 .arg(name(enumName(s.kernels.attention)), name(enumName(s.kernels.loss)),
                      QString::number(s.overhead.fragmentation));
    lines << tr("parallel: %1 GPU(s), %2%3")
                 .arg(num(s.parallel.gpus), name(enumName(s.parallel.strategy)),
                      s.parallel.offloadOptimizer ? tr(", optimizer offloaded") : QString());
    return lines;
}

} // namespace headroom
