// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "accuracy/errorband.h"
#include "parallel/parallel.h"
#include "scenario/scenario.h"
#include "serving/servingfigures.h"
#include "scenario/units.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// The memory consumers, in the fixed order of the v1 estimate format.
enum class ConsumerId {
    Weights,
    QuantMetadata,
    MasterWeights,
    Gradients,
    OptimizerState,
    Activations,
    AttentionScores,
    Logits,
    KvCache,
    KvCacheFree, ///< a serving engine's KV pool that the requests leave free
    Workspace,
    CudaContext,
    Fragmentation,
    Communication, ///< NCCL's communicator buffers: outside the allocator, like the CUDA context
    /// A GRPO run's generation engine in the trainer's GPU (vLLM colocated): its weights copy,
    /// KV pool, CUDA graphs and non-torch memory.
    GenerationEngine,
};
inline constexpr int kConsumerCount = 15;
/// Stable id in the format ("optimizer_state").
const char *consumerKey(ConsumerId id);

/// Training phases, then inference phases; ids as in the format.
enum class PhaseId { Load, Forward, Backward, Optimizer, Prefill, Decode };
const char *phaseKey(PhaseId id);

/// One consumer's bytes and how they were computed, with the user's numbers plugged in.
struct Consumer
{
    ConsumerId id = ConsumerId::Weights;
    std::uint64_t bytes = 0;
    /// The left-hand side, e.g. "6,738,415,616 params x 2 B (bf16)"; empty when formulas are off.
    std::string expression;
    /// What the number rests on, one sentence each.
    std::vector<std::string> assumptions;

    /// "6,738,415,616 params x 2 B (bf16) = 13.48 GB".
    std::string formula(Unit unit) const;
    bool operator==(const Consumer &) const = default;
};

/// What is alive at the busiest moment of one phase.
struct Phase
{
    PhaseId id = PhaseId::Load;
    std::uint64_t allocatedBytes = 0;
    std::array<std::uint64_t, kConsumerCount> bytes{}; ///< by ConsumerId; context/fragmentation 0
    bool operator==(const Phase &) const = default;
};

struct Peak
{
    std::uint64_t allocatedBytes = 0; ///< torch.cuda.max_memory_allocated()
    std::uint64_t reservedBytes = 0;  ///< max_memory_reserved(): + allocator fragmentation
    std::uint64_t deviceBytes = 0;    ///< nvidia-smi: + CUDA context
    PhaseId phase = PhaseId::Load;
    bool operator==(const Peak &) const = default;
};

struct GpuFit
{
    std::string id;
    std::string name;
    std::uint64_t capacityBytes = 0;
    bool fits = false;
    std::int64_t headroomBytes = 0; ///< capacity - device bytes; negative when it does not fit
    bool operator==(const GpuFit &) const = default;
};

/// The peak of one kind of rank (a pipeline stage), by consumer.
struct RankPeak
{
    RankRole role = RankRole::Only;
    Peak peak;
    std::array<std::uint64_t, kConsumerCount> bytes{}; ///< the peak composition, by ConsumerId
    std::uint64_t hostBytes = 0;
    bool operator==(const RankPeak &) const = default;
};

/// One machine's CPU RAM: what the ranks of its GPUs keep there, against the RAM the user gave.
struct HostMachine
{
    std::uint64_t gpus = 1;        ///< the run's GPUs in one machine (host.gpus_per_machine, else up to 8)
    std::uint64_t perGpuBytes = 0; ///< the rank that keeps the most in CPU RAM
    std::uint64_t bytes = 0;       ///< perGpuBytes x gpus
    std::uint64_t ramBytes = 0;    ///< host.ram_gib; 0 = not given
    bool fits = true;              ///< bytes <= ramBytes, or no RAM given
    bool operator==(const HostMachine &) const = default;
};

/// Unified memory (a catalog GPU with "unified": true): the GPU and the CPU side in one pool,
/// the machine's RAM (core/estimate/unifiedmemory.h).
struct UnifiedPool
{
    std::string gpuId;
    std::uint64_t totalBytes = 0;    ///< the machine's RAM
    std::uint64_t gpuLimitBytes = 0; ///< what the GPU may take: the wired limit, else the catalog capacity
    bool wiredLimit = false;         ///< gpuLimitBytes is host.wired_limit_mb
    std::uint64_t osBytes = 0;       ///< total - GPU limit: the operating system's and the CPU side's
    std::uint64_t gpuBytes = 0;      ///< the GPU's peak
    std::uint64_t hostBytes = 0;     ///< the CPU side (llama.cpp's CPU weights, cache, buffers)
    std::uint64_t pageCacheBytes = 0; ///< mmap'ed weights copied to the GPU, still in the page cache (reclaimable)
    bool zeroCopy = false;           ///< Metal with mmap: the GPU's weights are the mapped file's pages
    std::uint64_t poolBytes = 0;     ///< GPU + CPU side
    bool fits = true;                ///< GPU <= its limit and the pool <= the RAM
    bool operator==(const UnifiedPool &) const = default;
};

/// What the core computed for one scenario, per GPU (the busiest where they differ).
struct Estimate
{
    std::uint64_t totalParams = 0;     ///< the whole model
    std::uint64_t activeParams = 0;    ///< what one token uses (less than the total for MoE)
    std::uint64_t trainableParams = 0; ///< the whole model's
    std::vector<Consumer> consumers; ///< composition of the peak phase, fixed order, non-zero only
    std::vector<Phase> phases;
    Peak peak;
    std::vector<GpuFit> gpus;
    std::uint64_t hostBytes = 0; ///< offloaded to CPU RAM, per GPU
    std::vector<Consumer> host;  ///< what is in CPU RAM, by consumer (per GPU)
    HostMachine hostMachine;     ///< the same for one whole machine, against its RAM
    std::optional<UnifiedPool> unified; ///< a unified-memory GPU: the one pool
    RankRole rankRole = RankRole::Only; ///< the rank this estimate describes
    std::vector<RankPeak> ranks; ///< every kind of rank when they differ (pipeline stages)
    bool rough = false;
    std::vector<std::string> assumptions; ///< scenario-wide assumptions
    /// What the estimate could not model, shown with the verdict ("weights sized as bf16:
    /// hqq 3-bit is not modelled", the linear-attention layers' training activations).
    std::vector<std::string> warnings;
    /// False when part of the estimate has no measured case behind it (a layer kind or a weight
    /// format the error bands do not cover): the band says "not validated".
    bool validated = true;
    /// Expected error for runs like this: 80th percentile of |error| over the held-out measured
    /// cases of its method (docs/accuracy.md), for the first reading with enough cases; 0 when
    /// unknown. `errorBands` has every reading's band with its case count.
    int errorBandPercent = 0;
    std::vector<ErrorBand> errorBands;
    /// The serving engine's own start-up figures (scenarios with a `serving` section).
    std::optional<ServingFigures> serving;
    /// A GRPO run's colocated vLLM: its start-up figures on the target GPU (train.grpo).
    std::optional<ServingFigures> rollout;

    const Consumer *consumer(ConsumerId id) const;
    /// Bytes of one consumer in the peak composition (0 when absent).
    std::uint64_t bytes(ConsumerId id) const;
    bool operator==(const Estimate &) const = default;
};

/// Whether to build the formula strings (the window's slider path needs only bytes).
enum class Detail { Formulas, BytesOnly };

/// The estimator: pure and deterministic. Throws OverflowError when a size exceeds 2^64 bytes.
Estimate estimate(const Scenario &scenario, Detail detail = Detail::Formulas,
                  const Catalog &catalog = builtinCatalog());

} // namespace headroom
