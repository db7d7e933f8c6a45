// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: the models and tensors that PPO, knowledge distillation and
// reward-model training add to a training run (docs/estimator.md, "Post-training").

#include "estimate/estimatecontext.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::detail {

/// Refuses the post-training combinations Headroom does not model, naming the field.
void checkPostTraining(const Scenario &s);

/// A sequence-classification model's parameters from the causal LM's: the lm_head (vocab x
/// hidden, or the tied embedding used as one) replaced by a one-label score (hidden x 1).
/// `holdsHead`: the rank holds the head (the last pipeline stage).
ParamCounts scoreModelParams(const ParamCounts &lm, const ModelArch &m, std::uint64_t tensor, bool holdsHead);

/// The value model's trainable parameters on this rank (PPO, every weight trained): the
/// policy's backbone and a score head.
std::uint64_t valueModelParams(const EstimateContext &c);

/// The frozen and extra models in the trainer's GPU: PPO's reference copy, reward model and
/// value model; distillation's teacher. Empty for the other objectives.
Term postTrainingWeights(const EstimateContext &c);

/// Distillation: the teacher's logits and the KD loss's fp32 copies beside the student's loss
/// (`backward`: when backward starts, the teacher's logits freed). Empty otherwise.
Term distillationLogits(const EstimateContext &c, bool backward);

/// Reward-model training: the score head's output, one value per token (no vocabulary).
Term rewardScores(const EstimateContext &c);

/// PPO's rollout (the "decode" phase): the policy's generate() cache for one rollout chunk and
/// the generation's fp32 scores for the whole local batch.
struct PpoRollout
{
    Term cache;
    Term logits;
};
PpoRollout ppoRollout(const EstimateContext &c);

} // namespace headroom::detail
