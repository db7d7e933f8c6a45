// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicetext.h"

#include "lesson/articles.h"
#include "displaytext.h"
#include "scenario/names.h"
#include "scenario/scenariotitle.h"
#include "estimate/verdict.h"
#include "solve/solver.h"

#include <QCoreApplication>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("advice", text); }
QString num(std::uint64_t value) { return QString::fromStdString(groupDigits(value)); }
QString name(const char *text) { return QString::fromLatin1(text); }
/// An article's title in quotes, as users cite it.
QString article(std::string_view title)
{
    return QStringLiteral("\u201c%1\u201d").arg(QString::fromUtf8(title.data(), qsizetype(title.size())));
}

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
        return tr("quality risk from 4-bit base weights (%1: 1-2%); slower steps (dequantisation)")
            .arg(article(kArticleMemoryGame));
    case Lever::Optimizer8bit:
        return tr("8-bit optimizer state (bitsandbytes): small risk to convergence");
    case Lever::Sharding:
        return tr("more communication every step (parameters gathered layer by layer)");
    case Lever::OffloadOptimizer:
        return tr("steps 60-80% slower (%1); needs %2 of CPU RAM")
            .arg(article(kArticleMemoryGame), QString::fromStdString(formatBytes(step.hostBytes, unit)));
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

QString skippedLeverText(const Advice &advice, const SkippedLever &skipped)
{
    const Scenario &s = advice.before(skipped.afterSteps);
    const bool train = s.task == Task::Train;
    const QString lever = leverDisplayName(skipped.lever);
    const auto because = [&](const QString &why) { return tr("%1: %2").arg(lever, why); };
    if (skipped.reason == SkipReason::NotApplicable) {
        switch (skipped.lever) {
        case Lever::ExpandableSegments:
            return because(tr("fragmentation is already %1% or less").arg(s.overhead.fragmentation * 100));
        case Lever::FlashAttention: return because(tr("already flash attention"));
        case Lever::GradientCheckpointing:
            return because(train ? tr("already full checkpointing") : tr("serving keeps nothing for backward"));
        case Lever::FusedLoss: return because(tr("already a fused loss"));
        case Lever::SmallerMicroBatch:
            return because(s.train.microBatch == 1 ? tr("already 1") : tr("accumulation would pass a million steps"));
        case Lever::ShorterSequences:
            return because(tr("already %1 tokens or fewer").arg(num(kMinSequenceLength)));
        case Lever::MixedPrecision:
            return because(tr("already computes in %1").arg(name(enumName(s.precision.compute))));
        case Lever::Lora:
            return because(s.train.method == Method::Qlora ? tr("already QLoRA") : tr("already LoRA"));
        case Lever::Qlora: return because(tr("already QLoRA"));
        case Lever::Optimizer8bit:
            return because(s.train.optimizer == Optimizer::AdamW8bit || s.train.optimizer == Optimizer::PagedAdamW8bit
                               ? tr("already 8-bit")
                               : tr("the optimizer is %1, not AdamW").arg(name(enumName(s.train.optimizer))));
        case Lever::Sharding:
            return because(s.parallel.strategy == Strategy::Zero3 || s.parallel.strategy == Strategy::Fsdp
                               ? tr("already sharded (%1)").arg(name(enumName(s.parallel.strategy)))
                               : tr("one data-parallel GPU: nothing to shard across"));
        case Lever::OffloadOptimizer:
            return because(s.parallel.offloadOptimizer ? tr("already in CPU RAM")
                                                       : tr("%1 keeps no state").arg(name(enumName(s.train.optimizer))));
        case Lever::KvCacheFp8:
            return because(tr("the cache is already %1").arg(name(enumName(s.inference.kvDType))));
        case Lever::FewerSequences: return because(tr("already 1"));
        case Lever::ShorterContext:
            return because(tr("already %1 tokens or fewer").arg(num(kMinSequenceLength)));
        case Lever::Int8Weights:
        case Lever::Int4Weights:
            return because(tr("the weights are already %1").arg(name(enumName(s.precision.weights))));
        }
    }
    if (skipped.reason == SkipReason::NotEnough)
        return because(tr("even %1 tokens would not fit on its own, and it cuts the data")
                           .arg(num(kMinSequenceLength)));
    // No saving or a negligible one: say what the peak is made of where the lever targets one part.
    Estimate e;
    try {
        e = estimate(s, Detail::BytesOnly);
    } catch (const std::exception &) {
        return because(skipReasonText(skipped.reason));
    }
    const QString phase = QString::fromStdString(phaseKey(e.peak.phase));
    if (skipped.lever == Lever::FusedLoss && e.bytes(ConsumerId::Logits) == 0)
        return because(tr("logits are not the peak phase's consumer (the peak is the %1 phase)").arg(phase));
    if (skipped.lever == Lever::FlashAttention && e.bytes(ConsumerId::AttentionScores) == 0)
        return because(tr("no attention scores at the peak: %1 never materialises them")
                           .arg(name(enumName(s.kernels.attention))));
    if ((skipped.lever == Lever::GradientCheckpointing || skipped.lever == Lever::SmallerMicroBatch) &&
        e.bytes(ConsumerId::Activations) == 0)
        return because(tr("activations are not part of the peak (the %1 phase)").arg(phase));
    return because(skipReasonText(skipped.reason));
}

namespace {

/// The fewest GPUs of one kind that hold the scenario: the Solve panel's min-gpus answer (the
/// same function), training sharded with FSDP (or the scenario's own ZeRO), serving with tensor
/// parallelism, an engine within its own memory fraction. Empty when the scenario already fits
/// on the GPUs it has, when nothing fits, or when the estimator refuses the scenario.
std::optional<Solution> fewestGpus(const Scenario &scenario, const Gpu &gpu)
{
    SolveOptions options;
    options.strategies = {scenario.task == Task::Train ? "fsdp" : "tensor"};
    try {
        Solution answer = solve(scenario, SolveFor::MinGpus, gpu.id, options);
        if (!answer.value || answer.value <= scenario.parallel.gpus)
            return std::nullopt;
        return answer;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

QString strategyWords(const std::string &strategy)
{
    if (strategy == "tensor")
        return tr("tensor parallelism");
    if (strategy == "pipeline")
        return tr("pipeline parallelism");
    if (strategy == "zero3")
        return QStringLiteral("ZeRO-3");
    if (strategy == "zero1")
        return QStringLiteral("ZeRO-1");
    if (strategy == "zero2")
        return QStringLiteral("ZeRO-2");
    return QStringLiteral("FSDP");
}

} // namespace

QString whatWouldFitText(const Scenario &scenario, const std::string &gpuId, Unit unit)
{
    const Gpu *gpu = builtinCatalog().findGpu(gpuId);
    if (!gpu)
        return {};
    try {
        const Estimate e = estimate(scenario, Detail::BytesOnly);
        const auto fit = targetFit(scenario, e);
        if (fit && fit->id == gpu->id ? fit->fits : e.peak.deviceBytes <= gpu->capacityBytes())
            return {};
    } catch (const std::exception &) {
        return {};
    }
    const QString gpuName = QString::fromStdString(gpu->name);
    if (const std::optional<Solution> out = fewestGpus(scenario, *gpu))
        return tr("It would fit %1 x %2 with %3: %4 on each (the Solve panel's answer, each count "
                  "below it estimated and refused).")
            .arg(num(out->value), gpuName, strategyWords(out->strategy),
                 QString::fromStdString(formatBytes(out->peakBytes.value_or(0), unit)));
    return scenario.task == Task::Train
               ? tr("No number of %1 with FSDP would hold it: a smaller model, LoRA or QLoRA, or a "
                    "larger GPU.").arg(gpuName)
               : tr("No number of %1 with tensor parallelism would hold it: a smaller model, "
                    "quantized weights or cache, or a larger GPU.").arg(gpuName);
}

QString whatWouldFitMark(const Scenario &scenario, const std::string &gpuId)
{
    const Gpu *gpu = builtinCatalog().findGpu(gpuId);
    if (!gpu)
        return {};
    const std::optional<Solution> out = fewestGpus(scenario, *gpu);
    if (!out)
        return {};
    return tr("would fit %1 x %2 (%3)")
        .arg(num(out->value), shortGpuName(QString::fromStdString(gpu->name)), strategyWords(out->strategy));
}

QStringList keySettingsText(const Scenario &s)
{
    QStringList lines;
    lines << tr("model: %1").arg(QString::fromStdString(modelDisplayName(s)));
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
