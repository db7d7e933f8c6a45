// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: what the forward pass keeps for backward (saved activations,
// eager attention scores) and the logits and loss buffers.

#include "estimate/estimatecontext.h"

namespace headroom::detail {

/// The training activation terms of one rank.
struct ActivationTerms
{
    Term saved;           ///< alive at the end of forward
    Term recomputeLayer;  ///< one block recomputed in backward (checkpointing)
    Term savedScores;     ///< eager scores kept for backward
    Term transientScores; ///< eager scores of one layer recomputed in backward
    std::uint64_t hostBytes = 0; ///< saved activations offloaded to pinned CPU memory
};

ActivationTerms activationTerms(const EstimateContext &c);
/// The logits and loss buffers in forward (training) or of the sampled tokens (inference).
Term logitsTerm(const EstimateContext &c);
/// The loss buffers when backward starts (the fp32 log-softmax backward, Hugging Face path).
Term lossBackwardTerm(const EstimateContext &c, const Term &forwardLogits);

} // namespace headroom::detail
