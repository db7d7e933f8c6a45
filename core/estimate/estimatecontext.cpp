// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/estimatecontext.h"
#include "training/posttraining.h"

#include "scenario/checked.h"
#include "training/modelstate.h"
#include "scenario/names.h"
#include "scenario/units.h"

#include <algorithm>

namespace headroom {

const char *consumerKey(ConsumerId id)
{
    static const char *keys[kConsumerCount] = {
        "weights",     "quant_metadata",   "master_weights", "gradients",
        "optimizer_state", "activations",  "attention_scores", "logits",
        "kv_cache",    "kv_cache_free",    "workspace",      "cuda_context",
        "fragmentation", "nccl",     "generation_engine"};
    return keys[static_cast<int>(id)];
}

const char *phaseKey(PhaseId id)
{
    static const char *keys[] = {"load", "forward", "backward", "optimizer", "prefill", "decode"};
    return keys[static_cast<int>(id)];
}

std::string Consumer::formula(Unit unit) const
{
    if (expression.empty())
        return formatBytes(bytes, unit);
    return expression + " = " + formatBytes(bytes, unit);
}

const Consumer *Estimate::consumer(ConsumerId id) const
{
    for (const Consumer &c : consumers)
        if (c.id == id)
            return &c;
    return nullptr;
}

std::uint64_t Estimate::bytes(ConsumerId id) const
{
    const Consumer *c = consumer(id);
    return c ? c->bytes : 0;
}

namespace detail {

namespace {

/// A reward model is a sequence-classification model (its score head replaces the lm_head) or a
/// causal LM with a value head beside its lm_head.
ParamCounts objectiveParams(const Scenario &s, const ParamCounts &p, std::uint64_t tensor, bool holdsHead)
{
    if (s.task != Task::Train || s.train.objective != Objective::Reward)
        return p;
    if (s.train.rewardHead == RewardHead::ValueHead)
        return p; // the causal LM whole; its fp32 value head is counted as trainable (modelstate)
    return scoreModelParams(p, s.model, tensor, holdsHead);
}

} // namespace

EstimateContext::EstimateContext(const Scenario &scenario, Detail detail, const Catalog &catalog,
                                 RankRole role)
    : s(scenario), m(scenario.model), formulas(detail == Detail::Formulas), catalog(catalog),
      parallel(parallelLayout(scenario)), share(rankShare(scenario, parallel, role)),
      model(objectiveParams(scenario, countParams(scenario.model), 1, true)),
      params(objectiveParams(scenario, rankParams(countParams(scenario.model), scenario.model, parallel, share),
                             parallel.tensor, share.lmHead)),
      trainable(countTrainable(scenario, model, params, parallel, share)),
      compute(std::uint64_t(dtypeBits(scenario.precision.compute)) / 8)
{
}

std::uint64_t EstimateContext::shardedBytes(std::uint64_t count, std::uint64_t expertCount,
                                            std::uint64_t bits, bool sharded, const char *what) const
{
    const std::uint64_t experts = std::min(expertCount, count);
    const std::uint64_t others = count - experts;
    const std::uint64_t group = sharded ? parallel.shardGroup() : 1;
    const std::uint64_t expertGroup = sharded ? parallel.expertShardGroup() : 1;
    return addChecked(ceilDiv(bitsToBytes(others, bits, what), group),
                      ceilDiv(bitsToBytes(experts, bits, what), expertGroup), what);
}

std::string EstimateContext::paramsText(std::uint64_t count, const char *kind) const
{
    return n(count) + " " + kind + (split() ? " on this GPU" : "");
}

Term combine(const Term &first, const Term &second, bool formulas)
{
    Term sum = first;
    sum.bytes = addChecked(first.bytes, second.bytes, "activations");
    if (formulas && second.bytes) {
        sum.expression = first.expression.empty() ? second.expression
                                                  : first.expression + " + " + second.expression;
        sum.notes.insert(sum.notes.end(), second.notes.begin(), second.notes.end());
    }
    return sum;
}

std::string n(std::uint64_t value) { return groupDigits(value); }

std::string perValue(DType dtype)
{
    return formatDecimal(dtypeBits(dtype) / 8.0) + " B (" + enumName(dtype) + ")";
}

std::uint64_t byteSize(DType dtype) { return std::uint64_t(dtypeBits(dtype)) / 8; }

} // namespace detail

} // namespace headroom
