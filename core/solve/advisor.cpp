// SPDX-License-Identifier: GPL-3.0-or-later
#include "solve/advisor.h"

#include "scenario/checked.h"
#include "estimate/estimate.h"
#include "parallel/parallel.h"
#include "scenario/scenariojson.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <span>

namespace headroom {

const char *leverKey(Lever lever)
{
    static const char *keys[] = {
        "expandable_segments", "flash_attention", "gradient_checkpointing", "fused_loss",
        "smaller_micro_batch", "shorter_sequences", "mixed_precision", "lora", "qlora",
        "optimizer_8bit", "sharding", "offload_optimizer", "kv_cache_fp8", "fewer_sequences",
        "shorter_context", "int8_weights", "int4_weights"};
    return keys[static_cast<int>(lever)];
}

const Scenario &Advice::before(std::size_t index) const
{
    return index == 0 || index > steps.size() ? start : steps[index - 1].scenario;
}

const Scenario &Advice::final() const { return steps.empty() ? start : steps.back().scenario; }

std::uint64_t Advice::finalPeakDeviceBytes() const
{
    return steps.empty() ? startPeakDeviceBytes : steps.back().peakDeviceBytes;
}

namespace {

constexpr Lever kTrainingLevers[] = {
    Lever::ExpandableSegments, Lever::FlashAttention, Lever::GradientCheckpointing,
    Lever::FusedLoss,          Lever::SmallerMicroBatch, Lever::ShorterSequences,
    Lever::MixedPrecision,     Lever::Lora,           Lever::Qlora,
    Lever::Optimizer8bit,      Lever::Sharding,       Lever::OffloadOptimizer};
constexpr Lever kServingLevers[] = {Lever::ExpandableSegments, Lever::FlashAttention,
                                    Lever::KvCacheFp8,         Lever::FewerSequences,
                                    Lever::ShorterContext,     Lever::Int8Weights,
                                    Lever::Int4Weights};

/// Halvings of `value` down to `floor` (the last one clamped to it), mildest first.
std::vector<std::uint32_t> halvings(std::uint32_t value, std::uint32_t floor)
{
    std::vector<std::uint32_t> out;
    for (std::uint32_t v = value / 2; value > floor; v /= 2) {
        out.push_back(std::max(v, floor));
        if (v <= floor)
            break;
    }
    return out;
}

/// The configurations a lever proposes from `s`, mildest first; empty when it does not apply.
std::vector<Scenario> candidates(Lever lever, const Scenario &s)
{
    std::vector<Scenario> out;
    const bool train = s.task == Task::Train;
    Scenario c = s;
    switch (lever) {
    case Lever::ExpandableSegments:
        if (s.overhead.fragmentation > kExpandableSegmentsFragmentation) {
            c.overhead.fragmentation = kExpandableSegmentsFragmentation;
            out.push_back(c);
        }
        break;
    case Lever::FlashAttention:
        if (s.kernels.attention != Attention::Flash) {
            c.kernels.attention = Attention::Flash;
            out.push_back(c);
        }
        break;
    case Lever::GradientCheckpointing:
        if (train && s.train.checkpointing != Checkpointing::Full) {
            c.train.checkpointing = Checkpointing::Full;
            out.push_back(c);
        }
        break;
    case Lever::FusedLoss:
        if (train && s.kernels.loss != Loss::Fused) {
            c.kernels.loss = Loss::Fused;
            out.push_back(c);
        }
        break;
    case Lever::SmallerMicroBatch:
        // Divisors of the micro-batch keep micro-batch x accumulation exactly the same.
        if (train)
            for (std::uint32_t d = s.train.microBatch - 1; d >= 1; --d) {
                if (s.train.microBatch % d != 0)
                    continue;
                const std::uint64_t accum = std::uint64_t(s.train.gradAccum) * (s.train.microBatch / d);
                if (accum > 1'000'000)
                    break;
                c.train.microBatch = d;
                c.train.gradAccum = static_cast<std::uint32_t>(accum);
                out.push_back(c);
            }
        break;
    case Lever::ShorterSequences:
        if (train)
            for (std::uint32_t len : halvings(s.train.seqLen, kMinSequenceLength)) {
                c.train.seqLen = len;
                out.push_back(c);
            }
        break;
    case Lever::MixedPrecision:
        if (train && dtypeBits(s.precision.compute) == 32) {
            c.precision.compute = DType::BF16;
            out.push_back(c);
        }
        break;
    case Lever::Lora:
        if (train && s.train.method == Method::Full) {
            c.train.method = Method::Lora;
            if (dtypeBits(s.precision.weights) == 32) { // the frozen base loads in bf16 and computes in it
                c.precision.weights = DType::BF16;
                if (dtypeBits(s.precision.compute) == 32)
                    c.precision.compute = DType::BF16;
            }
            out.push_back(c);
        }
        break;
    case Lever::Qlora:
        if (train && s.train.method != Method::Qlora) {
            c.train.method = Method::Qlora;
            c.precision.weights = DType::NF4;
            c.precision.doubleQuant = true;
            out.push_back(c);
        }
        break;
    case Lever::Optimizer8bit:
        if (train && (s.train.optimizer == Optimizer::AdamW || s.train.optimizer == Optimizer::PagedAdamW)) {
            c.train.optimizer = s.train.optimizer == Optimizer::AdamW ? Optimizer::AdamW8bit
                                                                      : Optimizer::PagedAdamW8bit;
            out.push_back(c);
        }
        break;
    case Lever::Sharding: {
        const std::uint64_t dataParallel =
            s.parallel.gpus / (std::uint64_t(s.parallel.tensor) * s.parallel.pipeline);
        if (train && dataParallel > 1 && s.parallel.strategy != Strategy::Zero3 &&
            s.parallel.strategy != Strategy::Fsdp) {
            c.parallel.strategy = Strategy::Zero3;
            out.push_back(c);
        }
        break;
    }
    case Lever::OffloadOptimizer:
        if (train && !s.parallel.offloadOptimizer && s.train.optimizer != Optimizer::Sgd &&
            s.train.optimizer != Optimizer::None) {
            c.parallel.offloadOptimizer = true;
            out.push_back(c);
        }
        break;
    case Lever::KvCacheFp8:
        if (!train && dtypeBits(s.inference.kvDType) > 8) {
            c.inference.kvDType = DType::FP8;
            out.push_back(c);
        }
        break;
    case Lever::FewerSequences:
        if (!train)
            for (std::uint32_t batch : halvings(s.inference.batch, 1)) {
                c.inference.batch = batch;
                out.push_back(c);
            }
        break;
    case Lever::ShorterContext:
        if (!train)
            for (std::uint32_t context : halvings(s.inference.context, kMinSequenceLength)) {
                c.inference.context = context;
                out.push_back(c);
            }
        break;
    case Lever::Int8Weights:
    case Lever::Int4Weights: {
        const DType target = lever == Lever::Int8Weights ? DType::INT8 : DType::INT4;
        if (!train && dtypeBits(s.precision.weights) > dtypeBits(target)) {
            c.precision.weights = target;
            out.push_back(c);
        }
        break;
    }
    }
    return out;
}

/// Levers that change the data or the load: taken only when they are the last step needed.
bool onlyWhenItFits(Lever lever)
{
    return lever == Lever::ShorterSequences || lever == Lever::ShorterContext;
}

/// True when the scenario is a valid v1 document (its own JSON reads back) with a layout the
/// parallel rules accept (the estimator checks those, not the reader).
bool isValid(const Scenario &s)
{
    try {
        scenarioFromJson(scenarioToJson(s));
        checkParallel(s);
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

struct Evaluated
{
    Scenario scenario;
    Estimate estimate;
};

std::optional<Evaluated> evaluate(const Scenario &s, const Catalog &catalog)
{
    if (!isValid(s))
        return std::nullopt;
    try {
        return Evaluated{s, estimate(s, Detail::BytesOnly, catalog)};
    } catch (const OverflowError &) {
        return std::nullopt;
    }
}

} // namespace

Advice advise(const Scenario &scenario, const std::string &gpuId, const Catalog &catalog)
{
    const Gpu *gpu = catalog.findGpu(gpuId);
    if (!gpu)
        throw AdviceError("unknown GPU " + gpuId);
    Advice advice;
    advice.gpuId = gpu->id;
    advice.gpuName = gpu->name;
    advice.capacityBytes = gpu->capacityBytes();
    advice.start = scenario;
    std::uint64_t peak = estimate(scenario, Detail::BytesOnly, catalog).peak.deviceBytes;
    advice.startPeakDeviceBytes = peak;
    advice.fits = peak <= advice.capacityBytes;

    const bool train = scenario.task == Task::Train;
    const auto levers = train ? std::span<const Lever>(kTrainingLevers) : std::span<const Lever>(kServingLevers);
    // One lever: the mildest of its candidates that fits, else the one that saves the most. With
    // `record`, a lever that does not help is listed as skipped, with why.
    const auto tryLever = [&](Lever lever, bool record) {
        const Scenario &current = advice.final();
        std::optional<Evaluated> chosen;
        bool anyCandidate = false;
        for (const Scenario &candidate : candidates(lever, current)) {
            std::optional<Evaluated> e = evaluate(candidate, catalog);
            if (!e)
                continue;
            anyCandidate = true;
            const std::uint64_t device = e->estimate.peak.deviceBytes;
            if (device <= advice.capacityBytes) { // the mildest that fits
                chosen = std::move(e);
                break;
            }
            if (!onlyWhenItFits(lever) && (!chosen || device < chosen->estimate.peak.deviceBytes))
                chosen = std::move(e);
        }
        const auto skip = [&](SkipReason why) {
            if (record)
                advice.skipped.push_back({lever, why, advice.steps.size()});
            return false;
        };
        if (!anyCandidate)
            return skip(SkipReason::NotApplicable);
        if (!chosen)
            return skip(SkipReason::NotEnough);
        const std::uint64_t device = chosen->estimate.peak.deviceBytes;
        if (device >= peak)
            return skip(SkipReason::NoSaving);
        const bool fits = device <= advice.capacityBytes;
        if (!fits && double(peak - device) < kNegligibleSaving * double(peak))
            return skip(SkipReason::Negligible);
        advice.steps.push_back({lever, std::move(chosen->scenario), device, peak - device,
                                chosen->estimate.hostBytes, fits});
        peak = device;
        advice.fits = fits;
        return true;
    };
    for (const Lever lever : levers) {
        if (advice.fits)
            break;
        tryLever(lever, true);
    }
    // A lever passed over early can matter once later ones moved the peak: QLoRA turns a
    // full fine-tune's optimizer-phase peak into a backward peak of logits, which a fused
    // cross-entropy then removes. Offer the passed-over levers once more, in the same order.
    for (std::size_t i = 0; i < advice.skipped.size() && !advice.fits;) {
        const SkipReason why = advice.skipped[i].reason;
        if (why != SkipReason::NotApplicable && tryLever(advice.skipped[i].lever, false))
            advice.skipped.erase(advice.skipped.begin() + std::ptrdiff_t(i));
        else
            ++i;
    }
    if (advice.fits) {
        // "Then micro-batch 3 fits": the solver stretches the final configuration to the GPU.
        const SolveFor stretch = train ? SolveFor::MaxMicroBatch : SolveFor::MaxConcurrency;
        try {
            advice.then = solve(advice.final(), stretch, gpuId, {}, catalog);
        } catch (const SolveError &) {
        }
    }
    return advice;
}

} // namespace headroom
