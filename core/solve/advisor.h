// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "scenario/scenario.h"
#include "solve/solver.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom {

/// One change the advisor can make, in the order it tries them: the diagnostic sequence of
/// "Where the memory actually goes", then the ladder of "The Memory Game" (docs/domain-notes.md,
/// "The order of levers"). Inference scenarios use the serving levers ("Make room on your GPU")
/// after the first two.
enum class Lever {
    ExpandableSegments,    ///< PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (less fragmentation)
    FlashAttention,        ///< kernels.attention flash: the scores are never materialised
    GradientCheckpointing, ///< full checkpointing: keep each block's input, recompute the rest
    FusedLoss,             ///< Liger / Cut Cross-Entropy: no full logits
    SmallerMicroBatch,     ///< fewer sequences per micro-batch, more accumulation (same effective batch)
    ShorterSequences,      ///< a lower max length (truncates long examples)
    MixedPrecision,        ///< bf16 compute (autocast) instead of fp32
    Lora,                  ///< freeze a 16-bit base, train rank-16 adapters on q, k, v, o
    Qlora,                 ///< the frozen base in NF4 with double quantization
    Optimizer8bit,         ///< bitsandbytes 8-bit AdamW
    Sharding,              ///< ZeRO-3 across the data-parallel GPUs the scenario already has
    OffloadOptimizer,      ///< optimizer state (and master weights) in CPU RAM
    KvCacheFp8,            ///< serving: an fp8 KV cache
    FewerSequences,        ///< serving: fewer concurrent sequences
    ShorterContext,        ///< serving: a shorter context limit
    Int8Weights,           ///< serving: 8-bit weights
    Int4Weights,           ///< serving: 4-bit weights
};
/// Stable id of a lever ("gradient_checkpointing"), used in the advice JSON.
const char *leverKey(Lever lever);

/// Fragmentation assumed with expandable segments (reserved minus allocated, over allocated).
inline constexpr double kExpandableSegmentsFragmentation = 0.02;
/// The shortest max length the advisor proposes when it shortens sequences or the context.
inline constexpr std::uint32_t kMinSequenceLength = 512;
/// A lever that saves less than this share of the peak is skipped unless it is what makes the
/// configuration fit.
inline constexpr double kNegligibleSaving = 0.01;

/// Why a lever was not taken.
enum class SkipReason {
    NotApplicable, ///< already on, or meaningless for this scenario (e.g. no fp32 to lower)
    NoSaving,      ///< applying it would not lower the peak
    Negligible,    ///< it saves under 1% of the peak and does not make the run fit
    NotEnough,     ///< a data change (shorter sequences) that alone would not make it fit
};

/// One step of the advice: the configuration after a lever, applied on top of the previous one.
struct AdviceStep
{
    Lever lever = Lever::ExpandableSegments;
    Scenario scenario;                ///< the whole configuration after this step
    std::uint64_t peakDeviceBytes = 0; ///< nvidia-smi peak after this step
    std::uint64_t savedBytes = 0;     ///< how much lower than the previous configuration's peak
    std::uint64_t hostBytes = 0;      ///< CPU RAM after this step (offload)
    bool fits = false;                ///< fits the chosen GPU
    bool operator==(const AdviceStep &) const = default;
};

/// A lever the advisor looked at and did not take.
struct SkippedLever
{
    Lever lever = Lever::ExpandableSegments;
    SkipReason reason = SkipReason::NotApplicable;
    /// Steps taken before it was considered: it was tried on advice.before(afterSteps).
    std::size_t afterSteps = 0;
    bool operator==(const SkippedLever &) const = default;
};

/// What to change so that a scenario fits one GPU, step by step.
struct Advice
{
    std::string gpuId;
    std::string gpuName;
    std::uint64_t capacityBytes = 0;
    Scenario start;
    std::uint64_t startPeakDeviceBytes = 0;
    std::vector<AdviceStep> steps;    ///< in order; each lowers the peak; empty when it already fits
    std::vector<SkippedLever> skipped; ///< in the order they were considered
    bool fits = false;                ///< the last configuration (or the start) fits
    /// The last step, from the solver: how far the final configuration stretches on this GPU
    /// (the largest micro-batch in training, the most concurrent sequences in serving), when
    /// it fits.
    std::optional<Solution> then;

    /// The configuration before step `index` (the start for step 0).
    const Scenario &before(std::size_t index) const;
    /// The configuration the advice ends with (the start when there are no steps).
    const Scenario &final() const;
    /// The peak of the last configuration.
    std::uint64_t finalPeakDeviceBytes() const;
    bool operator==(const Advice &) const = default;
};

/// Thrown when the GPU id is not in the catalog.
class AdviceError : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

/// The levers in order, applied cumulatively; stops at the first configuration that fits the GPU.
/// Every step lowers the device peak. Throws AdviceError for an unknown GPU, OverflowError from
/// the estimator.
Advice advise(const Scenario &scenario, const std::string &gpuId,
              const Catalog &catalog = builtinCatalog());

} // namespace headroom
