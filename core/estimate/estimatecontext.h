// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: what every consumer family reads, and the terms they return.

#include "model/architecture.h"
#include "scenario/catalog.h"
#include "estimate/estimate.h"
#include "parallel/parallel.h"
#include "scenario/scenario.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom::detail {

/// Bytes with the expression that produced them (the expression only in Formulas mode).
struct Term
{
    std::uint64_t bytes = 0;
    std::string expression;
    std::vector<std::string> notes;
};

/// What is alive at one moment, by consumer.
using Composition = std::array<Term, kConsumerCount>;

/// The term of one consumer in a composition.
inline Term &at(Composition &parts, ConsumerId id) { return parts[static_cast<std::size_t>(id)]; }

/// Adds two terms into one (e.g. saved activations and a recomputed layer).
Term combine(const Term &first, const Term &second, bool formulas);

/// The trainable parameters and the dtypes their gradients and optimizer state take.
struct TrainableParams
{
    std::uint64_t count = 0;        ///< on this rank, before ZeRO/FSDP sharding
    std::uint64_t experts = 0;      ///< of which in routed experts (sharded over fewer ranks)
    std::uint64_t largestTensor = 0; ///< elements of the largest trainable tensor
    std::uint64_t lmHead = 0;        ///< lm_head (or tied embedding) params trained in full FT
    /// Trainable params in tensors a paged optimizer pages (full fine-tuning only: LoRA
    /// adapters are counted as resident, most are under the paging threshold).
    std::uint64_t paged = 0;
    DType dtype = DType::BF16;
    DType gradDType = DType::BF16;
    DType stateDType = DType::FP32;
};

/// The scenario and what every consumer family derives from it once.
struct EstimateContext
{
    EstimateContext(const Scenario &scenario, Detail detail, const Catalog &catalog, RankRole role);

    const Scenario &s;
    const ModelArch &m;
    const bool formulas;
    const Catalog &catalog;
    ParallelLayout parallel;
    RankShare share;
    ParamCounts model;  ///< the whole model
    ParamCounts params; ///< what this rank holds before ZeRO/FSDP sharding
    TrainableParams trainable;
    std::uint64_t compute = 2; ///< bytes per value of the compute dtype

    /// True when this rank holds only part of the model (tensor, pipeline or expert split).
    bool split() const { return params.total != model.total; }
    /// Bytes of `params` parameters at `bits` each, `expertParams` of them in routed experts,
    /// divided among the ZeRO/FSDP shard groups when `sharded`. Rounds up.
    std::uint64_t shardedBytes(std::uint64_t params, std::uint64_t expertParams, std::uint64_t bits,
                               bool sharded, const char *what) const;
    /// "6,738,415,616 params" or "1,684,603,904 params on this GPU" when the rank holds a part.
    std::string paramsText(std::uint64_t count, const char *kind = "params") const;
};

/// 6738415616 -> "6,738,415,616".
std::string n(std::uint64_t value);
/// "2 B (bf16)", "0.5 B (nf4)".
std::string perValue(DType dtype);
/// Whole bytes per value of a dtype (0 for 4-bit types).
std::uint64_t byteSize(DType dtype);

} // namespace headroom::detail
