// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtimeterms.h"

#include "checked.h"
#include "architecture.h"
#include "kvcache.h"
#include "modelstate.h"
#include "names.h"
#include "units.h"

#include <algorithm>
#include <cmath>

namespace headroom::detail {

namespace {
constexpr std::uint64_t kMiB = 1024ull * 1024ull;
} // namespace

Term workspaceTerm(const EstimateContext &c, bool withOptimizerTemporaries)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const bool formulas = c.formulas;
    const std::uint64_t compute = c.compute;
    Term term;
    term.bytes = roundedBytes(s.overhead.workspaceMiB * double(kMiB), "workspace");
    if (formulas)
        term.expression = formatDecimal(s.overhead.workspaceMiB) + " MiB (cuBLAS/cuDNN workspace)";
    if (isQuantized(s.precision.weights)) {
        // Dequantisation makes a transient 16-bit copy of one quantized matrix at a time: the
        // block matrices, and the lm_head only where it is quantized too (LitGPT's bitsandbytes
        // precision replaces every Linear; bitsandbytes through Transformers and torchtune's
        // QLoRA keep the output projection 16-bit).
        std::uint64_t largest = c.params.largestMatrix;
        if (s.kernels.profile != Profile::Litgpt && !m.rough) {
            largest = 0;
            for (const MatrixShape &shape : matrixShapes(m))
                if (shape.kind != LoraTarget::LmHead)
                    largest = std::max(largest, shape.inFeatures * shape.outFeatures);
        }
        const std::uint64_t copy = mulChecked(largest, 2, "workspace");
        term.bytes = addChecked(term.bytes, copy, "workspace");
        if (formulas)
            term.expression += " + " + n(largest) + " x 2 B (dequantised matrix)";
    }
    if (c.parallel.shards(ShardLevel::Parameters) || s.parallel.offloadParams) {
        // The layer being computed and the prefetched next one, gathered in the compute dtype,
        // or as stored (4/8-bit block matrices, 16-bit rest) when the weights are quantized.
        std::uint64_t gathered = 0;
        std::string perLayerText;
        if (isQuantized(s.precision.weights)) {
            const std::uint64_t layers = std::max<std::uint64_t>(1, m.layers);
            const std::uint64_t linear = c.params.blockLinear / layers;
            const std::uint64_t rest = c.params.perLayer > linear ? c.params.perLayer - linear : 0;
            gathered = addChecked(bitsToBytes(linear, dtypeBits(s.precision.weights), "workspace"),
                                  mulChecked(rest, 2, "workspace"), "workspace");
            gathered = mulChecked(gathered, 2, "workspace") / s.parallel.tensor;
            perLayerText = "(" + n(linear) + " x " + perValue(s.precision.weights) + " + " + n(rest) +
                           " x 2 B)";
        } else {
            gathered = mulChecked(c.params.perLayer, 2 * compute, "workspace") / s.parallel.tensor;
            perLayerText = n(c.params.perLayer) + " x " + n(compute) + " B";
        }
        term.bytes = addChecked(term.bytes, gathered, "workspace");
        if (formulas)
            term.expression += " + 2 gathered layers x " + perLayerText;
        if (s.parallel.strategy == Strategy::Fsdp && !s.parallel.offloadParams) {
            // FSDP's root unit (embeddings, final norm, lm_head) is gathered for the forward and
            // again for the whole backward, which starts at the lm_head.
            const std::uint64_t root = c.params.embeddings + c.params.lmHead;
            term.bytes = addChecked(term.bytes, mulChecked(root, compute, "workspace") / s.parallel.tensor,
                                    "workspace");
            if (formulas)
                term.expression += " + " + n(root) + " root-unit params (embeddings, lm_head) x " +
                                   n(compute) + " B gathered";
        }
    }
    if (withOptimizerTemporaries) {
        const Term temp = optimizerTemporariesTerm(c);
        term.bytes = addChecked(term.bytes, temp.bytes, "workspace");
        if (formulas && temp.bytes)
            term.expression += " + " + temp.expression;
    }
    return term;
}

Term kvCacheTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    Term term;
    const KvLayout layout = kvLayout(s);
    const std::uint64_t context = s.inference.context;
    term.bytes = kvCacheBytes(layout, s.inference.batch, context);
    if (c.formulas) {
        std::string groups;
        for (const KvLayerGroup &group : layout.groups) {
            const std::uint64_t kept = group.window ? std::min<std::uint64_t>(context, group.window) : context;
            if (!groups.empty())
                groups += " + ";
            groups += n(group.layers) + " layers x " + group.what + " x " + n(kept) + " tokens";
            if (group.window && context > group.window)
                term.notes.push_back("Sliding-window attention caps " + n(group.layers) +
                                     " layers' cache at " + n(group.window) + " tokens.");
        }
        term.expression = "(" + groups + ") x " + n(s.inference.batch) + " sequences x " +
                          perValue(s.inference.kvDType);
        term.notes.push_back("Sized for the whole context of every concurrent sequence.");
    }
    return term;
}

} // namespace headroom::detail
