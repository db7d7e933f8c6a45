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

/// A value head's parameters (TRL's ValueHead: hidden x 1 and its bias), beside the kept lm_head.
std::uint64_t valueHeadParams(const ModelArch &m);

/// Reward-model training: the score head's output, one value per token (no vocabulary); with a
/// value head, its saved tensors and (`backward` false) the forward's vocabulary logits.
Term rewardScores(const EstimateContext &c, bool backward);

/// PPO's rollout (the "decode" phase): the policy's generate() cache for one rollout chunk and
/// the generation's fp32 scores for the whole local batch.
struct PpoRollout
{
    Term cache;
    Term logits;
    Term gathered; ///< ZeRO-3: the policy and value model gathered whole while generating
};

/// ZeRO-3 generation in TRL (trl/models/utils.py _unwrap_model_for_generation): with
/// ds3_gather_for_generation (the default) deepspeed.zero.GatheredParameters(model.parameters())
/// materialises every parameter of the wrapped model on each GPU, beside its shard, for the
/// whole generate(). `policy` and `value` are the full models' weight bytes.
Term zero3GenerationGather(std::uint64_t policy, std::uint64_t value, bool formulas);
PpoRollout ppoRollout(const EstimateContext &c);

} // namespace headroom::detail
