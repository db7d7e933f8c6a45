// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimatecontext.h"

#include "checked.h"
#include "modelstate.h"
#include "names.h"
#include "units.h"

namespace headroom {

const char *consumerKey(ConsumerId id)
{
    static const char *keys[kConsumerCount] = {
        "weights",     "quant_metadata",   "master_weights", "gradients",
        "optimizer_state", "activations",  "attention_scores", "logits",
        "kv_cache",    "kv_cache_free",    "workspace",      "cuda_context",
        "fragmentation"};
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

EstimateContext::EstimateContext(const Scenario &scenario, Detail detail, const Catalog &catalog)
    : s(scenario), m(scenario.model), formulas(detail == Detail::Formulas), catalog(catalog),
      params(countParams(scenario.model)), trainable(countTrainable(scenario, params)),
      parallel(parallelLayout(scenario)),
      compute(std::uint64_t(dtypeBits(scenario.precision.compute)) / 8)
{
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
