// SPDX-License-Identifier: GPL-3.0-or-later
#include "training/runtimeterms.h"

#include "scenario/checked.h"
#include "model/architecture.h"
#include "serving/kvcache.h"
#include "training/modelstate.h"
#include "scenario/names.h"
#include "scenario/units.h"

#include <algorithm>
#include <cmath>

namespace headroom::detail {

namespace {
constexpr std::uint64_t kMiB = 1024ull * 1024ull;
} // namespace

Term workspaceTerm(const EstimateContext &c, WorkspacePhase phase)
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
        // block matrices (this rank's slice under tensor parallelism), and the lm_head only where
        // it is quantized too (LitGPT's bitsandbytes precision replaces every Linear; its tp.py
        // shards the blocks only, so the lm_head stays whole). bitsandbytes through Transformers
        // and torchtune's QLoRA keep the output projection 16-bit.
        std::uint64_t largest = c.params.largestMatrix;
        if (!m.rough) {
            const bool quantizedHead = s.kernels.profile == Profile::Litgpt;
            largest = 0;
            for (const MatrixShape &shape : matrixShapes(m)) {
                const std::uint64_t values = shape.inFeatures * shape.outFeatures;
                if (shape.kind != LoraTarget::LmHead)
                    largest = std::max(largest, ceilDiv(values, c.parallel.tensor));
                else if (quantizedHead && c.share.lmHead)
                    largest = std::max(largest, values);
            }
        }
        const std::uint64_t copy = mulChecked(largest, 2, "workspace");
        term.bytes = addChecked(term.bytes, copy, "workspace");
        if (formulas)
            term.expression += " + " + n(largest) + " x 2 B (dequantised matrix)";
    }
    const std::uint64_t stageLayers = std::max<std::uint64_t>(1, c.share.layers);
    // FSDP under pipeline parallelism keeps the whole stage gathered through forward and
    // backward, and reshards it after the last backward (not at the optimizer step).
    const bool wholeStage = c.parallel.stageStaysGathered() && !s.parallel.offloadParams;
    const std::uint64_t gatheredLayers = wholeStage ? stageLayers : 2;
    if ((c.parallel.shards(ShardLevel::Parameters) || s.parallel.offloadParams) &&
        !(wholeStage && phase == WorkspacePhase::Optimizer)) {
        // The layer being computed and the prefetched next one (or the whole stage), gathered
        // in the compute dtype, or as stored (4/8-bit block matrices, 16-bit rest) when the
        // weights are quantized; torchao's float8 all-gather moves the block matrices in fp8.
        std::uint64_t gathered = 0;
        std::string perLayerText;
        const bool fp8Gather = s.precision.fp8Training == Fp8Training::Torchao;
        if (isQuantized(s.precision.weights) || fp8Gather) {
            const DType stored = fp8Gather ? DType::FP8 : s.precision.weights;
            const std::uint64_t linear = (fp8Gather ? c.params.blockLinear : quantizedParams(c)) / stageLayers;
            const std::uint64_t rest = c.params.perLayer > linear ? c.params.perLayer - linear : 0;
            gathered = addChecked(bitsToBytes(linear, dtypeBits(stored), "workspace"),
                                  mulChecked(rest, 2, "workspace"), "workspace");
            gathered = mulChecked(gathered, gatheredLayers, "workspace");
            perLayerText = "(" + n(linear) + " x " + perValue(stored) + " + " + n(rest) + " x 2 B)";
        } else {
            gathered = productChecked("workspace", c.params.perLayer, gatheredLayers, compute);
            perLayerText = n(c.params.perLayer) + " x " + n(compute) + " B";
        }
        term.bytes = addChecked(term.bytes, gathered, "workspace");
        if (formulas)
            term.expression += " + " + n(gatheredLayers) +
                               (wholeStage ? " layers of the stage gathered across its micro-batches x "
                                           : " gathered layers x ") +
                               perLayerText;
        if (s.parallel.strategy == Strategy::Fsdp && !s.parallel.offloadParams) {
            // FSDP's root unit (embeddings, final norm, lm_head) is gathered for the forward and
            // again for the whole backward, which starts at the lm_head.
            const std::uint64_t root = c.params.embeddings + c.params.lmHead;
            term.bytes = addChecked(term.bytes, mulChecked(root, compute, "workspace"), "workspace");
            if (formulas)
                term.expression += " + " + n(root) + " root-unit params (embeddings, lm_head) x " +
                                   n(compute) + " B gathered";
        }
    }
    if (phase == WorkspacePhase::Backward && c.parallel.shards(ShardLevel::Gradients) && !s.parallel.offloadOptimizer &&
        !s.train.optimizerInBackward && c.trainable.count && !wholeStage) {
        // Backward produces each wrapped unit's whole gradient before it is reduce-scattered to
        // its shard (FSDP's reduce-scatter input, ZeRO-2/3's reduce bucket). In full fine-tuning
        // the largest unit is a block or the embeddings / lm_head (torchtitan wraps each on its
        // own; elsewhere they are the root unit, reduced last); adapters sit in the blocks.
        const bool full = s.train.method == Method::Full && !m.rough;
        const std::uint64_t unitParams =
            full ? std::max({c.params.perLayer, c.params.embeddings, c.params.lmHead})
                 : ceilDiv(c.trainable.count, stageLayers);
        const std::uint64_t unitGradient =
            mulChecked(unitParams, byteSize(c.trainable.gradDType), "workspace");
        term.bytes = addChecked(term.bytes, unitGradient, "workspace");
        if (formulas)
            term.expression += " + " + n(unitParams) + " params x " + perValue(c.trainable.gradDType) +
                               (full ? " (the largest wrapped unit's gradient before its reduce-scatter)"
                                     : " (one layer's gradient before its reduce-scatter)");
    }
    if (phase == WorkspacePhase::Optimizer) {
        const Term temp = optimizerTemporariesTerm(c);
        term.bytes = addChecked(term.bytes, temp.bytes, "workspace");
        if (formulas && temp.bytes)
            term.expression += " + " + temp.expression;
    }
    return term;
}

Term kvCacheTerm(const EstimateContext &c, const KvLayout *given)
{
    const Scenario &s = c.s;
    Term term;
    const KvLayout layout = given ? *given : kvLayout(s);
    const std::uint64_t context = s.inference.context;
    term.bytes = kvCacheBytes(layout, s.inference.batch, context);
    if (c.formulas) {
        std::string groups;
        for (const KvLayerGroup &group : layout.groups) {
            const std::uint64_t kept = group.window ? std::min<std::uint64_t>(context, group.window) : context;
            if (!groups.empty())
                groups += " + ";
            if (isStateKind(group.kind)) {
                groups += n(group.layers) + " layers x " + n(stateBytesPerLayer(layout, group)) + " B of state";
                continue;
            }
            groups += n(group.layers) + " layers x " + group.what + " x " + n(kept) + " tokens";
            if (group.window && context > group.window)
                term.notes.push_back("Sliding-window attention caps " + n(group.layers) +
                                     " layers' cache at " + n(group.window) + " tokens.");
        }
        term.expression = "(" + groups + ") x " + n(s.inference.batch) + " sequences x " +
                          perValue(s.inference.kvDType);
        term.notes.push_back("Sized for the whole context of every concurrent sequence.");
        if (const std::uint64_t states = stateBytesPerSequence(layout))
            term.notes.push_back("Linear-attention and Mamba layers keep a fixed state of " + n(states) +
                                 " B per sequence, whatever its length.");
    }
    return term;
}

} // namespace headroom::detail
