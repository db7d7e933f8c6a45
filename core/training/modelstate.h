// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: the model state (weights, quantization metadata, master weights,
// gradients, optimizer state and its step temporaries) of one rank.

#include "estimate/estimatecontext.h"

namespace headroom::detail {

/// Counts the trainable parameters one rank holds (`rank`: its share of the `model`) and picks
/// their gradient and state dtypes.
TrainableParams countTrainable(const Scenario &scenario, const ParamCounts &model,
                               const ParamCounts &rank, const ParallelLayout &layout,
                               const RankShare &share);
/// The block matrices a quantized format applies to on this rank (all, or only the experts).
std::uint64_t quantizedParams(const EstimateContext &c);

Term weightsTerm(const EstimateContext &c);
Term quantMetadataTerm(const EstimateContext &c);
Term masterWeightsTerm(const EstimateContext &c);
/// Autocast's 16-bit copies of fp32 matmul weights, kept for backward.
Term autocastCopiesTerm(const EstimateContext &c);

/// Which gradients are alive.
enum class GradientsAlive {
    All,            ///< every trainable gradient (after backward, or accumulated)
    FirstOnly,      ///< the lm_head's, when backward starts
    LargestTensor,  ///< optimizer in backward: one tensor's at a time
    Reduced,        ///< at the optimizer step, after the last reduce-scatter
};
Term gradientsTerm(const EstimateContext &c, GradientsAlive alive);
Term optimizerStateTerm(const EstimateContext &c);
/// torch.optim's foreach temporaries during the step (workspace of the optimizer phase).
Term optimizerTemporariesTerm(const EstimateContext &c);

} // namespace headroom::detail
