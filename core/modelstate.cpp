// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelstate.h"

#include "checked.h"
#include "names.h"
#include "units.h"

#include <algorithm>

namespace headroom::detail {

TrainableParams countTrainable(const Scenario &s, const ParamCounts &params)
{
    TrainableParams t;
    if (s.task == Task::Inference)
        return t;
    const ModelArch &m = s.model;
    if (s.train.method == Method::Full) {
        t.count = params.total;
        t.largestTensor = params.largestMatrix;
        t.dtype = s.precision.weights;
        t.lmHead = m.rough ? 0 : std::uint64_t(m.vocab) * m.hidden;
        // Norms and biases are below bitsandbytes' paging threshold; every matrix is above it.
        t.paged = t.count > params.smallTensors ? t.count - params.smallTensors : 0;
    } else {
        const std::uint64_t rank = s.train.lora.rank;
        const auto &targets = s.train.lora.targets;
        for (const MatrixShape &shape : matrixShapes(m)) {
            if (std::find(targets.begin(), targets.end(), shape.kind) == targets.end())
                continue;
            const std::uint64_t perMatrix =
                mulChecked(rank, shape.inFeatures + shape.outFeatures, "LoRA parameters");
            const std::uint64_t copies =
                shape.kind == LoraTarget::LmHead ? 1 : shape.perLayer * std::uint64_t(m.layers);
            t.count = addChecked(t.count, mulChecked(perMatrix, copies, "LoRA parameters"),
                                 "LoRA parameters");
            t.largestTensor =
                std::max(t.largestTensor, rank * std::max(shape.inFeatures, shape.outFeatures));
        }
        t.dtype = s.train.lora.dtype;
    }
    switch (s.train.gradDType) {
    case GradDType::Auto: t.gradDType = t.dtype; break;
    case GradDType::FP32: t.gradDType = DType::FP32; break;
    case GradDType::BF16: t.gradDType = DType::BF16; break;
    case GradDType::FP16: t.gradDType = DType::FP16; break;
    }
    t.stateDType = s.train.masterWeights ? DType::FP32 : t.dtype;
    return t;
}

Term weightsTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    const ParallelLayout &par = c.parallel;
    Term term;
    const bool quantized = isQuantized(s.precision.weights);
    const bool sharded = par.shards(ShardLevel::Parameters);
    if (!quantized) {
        const std::uint64_t bytes = bitsToBytes(c.params.total, dtypeBits(s.precision.weights), "weights");
        term.bytes = par.perRank(bytes, sharded);
        if (c.formulas)
            term.expression = n(c.params.total) + " params x " + perValue(s.precision.weights) +
                              par.note(sharded);
    } else {
        // Block matrices quantized; embeddings, lm_head, norms and biases stay 16-bit.
        const DType keep = s.precision.unquantized ? *s.precision.unquantized
                           : dtypeBits(s.precision.compute) == 16 ? s.precision.compute
                                                                  : DType::BF16;
        const std::uint64_t kept = c.params.embeddings + c.params.lmHead + c.params.smallTensors;
        const std::uint64_t bytes =
            addChecked(bitsToBytes(c.params.blockLinear, dtypeBits(s.precision.weights), "weights"),
                       bitsToBytes(kept, dtypeBits(keep), "weights"), "weights");
        term.bytes = par.perRank(bytes, sharded);
        if (c.formulas) {
            term.expression = n(c.params.blockLinear) + " block-matrix params x " +
                              perValue(s.precision.weights);
            if (kept)
                term.expression += " + " + n(kept) + " embedding, lm_head and norm params x " +
                                   perValue(keep);
            term.expression += par.note(sharded);
            term.notes.push_back(dtypeBits(keep) == 32
                                     ? "Embeddings, lm_head, norms and biases are not quantized; "
                                       "PEFT's prepare_model_for_kbit_training upcast them to fp32."
                                     : "Embeddings, lm_head, norms and biases are not quantized "
                                       "(bitsandbytes and GPTQ keep them 16-bit).");
        }
    }
    if (c.formulas && sharded)
        term.notes.push_back("ZeRO-3/FSDP shards the parameters; the gathered layers being "
                             "computed are counted under workspace.");
    const TrainableParams &t = c.trainable;
    if (s.task == Task::Train && s.train.method != Method::Full && t.count) {
        // The LoRA adapters are weights too, in their own dtype.
        // ZeRO-3/FSDP shard them with the rest of each wrapped block.
        const std::uint64_t adapters = par.perRank(mulChecked(t.count, byteSize(t.dtype), "weights"), sharded);
        term.bytes = addChecked(term.bytes, adapters, "weights");
        if (c.formulas)
            term.expression += " + " + n(t.count) + " adapter params x " + perValue(t.dtype) +
                               (sharded ? " / " + n(par.dataParallel) + " GPUs" : std::string());
    }
    return term;
}

/// Autocast (fp32 weights, 16-bit compute, weights not gathered by ZeRO-3/FSDP): each matmul
/// casts its weight on use, and backward needs the copy. Trainable weights' copies are cached
/// until the forward ends; frozen weights' copies are kept by the graph unless checkpointed.
Term autocastCopiesTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    Term term;
    if (s.task != Task::Train || isQuantized(s.precision.weights) ||
        dtypeBits(s.precision.weights) <= dtypeBits(s.precision.compute) ||
        c.parallel.shards(ShardLevel::Parameters) || s.parallel.offloadParams)
        return term;
    // The lm_head matmul casts its own weight, or the tied embedding matrix.
    const std::uint64_t head = c.params.lmHead ? c.params.lmHead
                                               : std::uint64_t(c.m.vocab) * std::uint64_t(c.m.hidden);
    const std::uint64_t matrices = addChecked(c.params.blockLinear, head, "weights");
    const std::uint64_t split = c.parallel.modelSplit();
    term.bytes = ceilDiv(mulChecked(matrices, c.compute, "weights"), split);
    if (c.formulas) {
        term.expression = n(matrices) + " matmul weights x " + n(c.compute) +
                          " B (autocast copies for backward)";
        if (split > 1)
            term.expression += " / " + n(split) + " (tensor x pipeline)";
        term.notes.push_back("Autocast casts each fp32 weight to the compute dtype on use; the copies "
                             "live until the backward pass has used them.");
    }
    return term;
}

Term quantMetadataTerm(const EstimateContext &c)
{
    const ModelArch &m = c.m;
    Term term;
    const DType dtype = c.s.precision.weights;
    if (!isQuantized(dtype))
        return term;
    const std::uint64_t quantized = c.params.blockLinear;
    const std::uint64_t matricesPerLayer = matrixShapes(m).size() - 1;
    switch (dtype) {
    case DType::NF4:
    case DType::FP4: {
        const std::uint64_t blocks = ceilDiv(quantized, 64);
        if (c.s.precision.doubleQuant) {
            const std::uint64_t groups = ceilDiv(blocks, 256);
            term.bytes = blocks + groups * 4;
            if (c.formulas)
                term.expression = n(blocks) + " blocks of 64 x 1 B (8-bit absmax) + " + n(groups) +
                                  " groups of 256 blocks x 4 B (fp32 scale)";
        } else {
            term.bytes = blocks * 4;
            if (c.formulas)
                term.expression = n(blocks) + " blocks of 64 x 4 B (fp32 absmax)";
        }
        if (c.formulas)
            term.notes.push_back("bitsandbytes 4-bit: one absmax per 64 weights; double "
                                 "quantization stores it in 8 bits with an fp32 scale per 256 blocks.");
        break;
    }
    case DType::INT4: {
        const std::uint64_t groups = ceilDiv(quantized, 128);
        term.bytes = groups * 4;
        if (c.formulas) {
            term.expression = n(groups) + " groups of 128 x 4 B (fp16 scale + fp16 zero)";
            term.notes.push_back("GPTQ/AWQ-style int4 with group size 128.");
        }
        break;
    }
    case DType::INT8: {
        std::uint64_t rows = 0;
        for (const MatrixShape &shape : matrixShapes(m))
            if (shape.kind != LoraTarget::LmHead)
                rows += shape.outFeatures * shape.perLayer;
        rows = m.rough ? ceilDiv(quantized, std::uint64_t(m.hidden))
                       : mulChecked(rows, std::uint64_t(m.layers), "quantization metadata");
        term.bytes = rows * 4;
        if (c.formulas) {
            term.expression = n(rows) + " output rows x 4 B (fp32 scale)";
            term.notes.push_back("LLM.int8(): one fp32 scale per output row.");
        }
        break;
    }
    default: { // fp8: one fp32 scale per matrix
        const std::uint64_t matrices = matricesPerLayer * std::uint64_t(m.layers);
        term.bytes = matrices * 4;
        if (c.formulas)
            term.expression = n(matrices) + " matrices x 4 B (fp32 per-tensor scale)";
        break;
    }
    }
    term.bytes = c.parallel.perRank(term.bytes, c.parallel.shards(ShardLevel::Parameters));
    return term;
}

Term masterWeightsTerm(const EstimateContext &c)
{
    const TrainableParams &t = c.trainable;
    Term term;
    if (!c.s.train.masterWeights || dtypeBits(t.dtype) == 32)
        return term;
    const bool sharded = c.parallel.shards(ShardLevel::OptimizerState);
    term.bytes = c.parallel.perRank(mulChecked(t.count, 4, "master weights"), sharded);
    if (c.formulas) {
        term.expression = n(t.count) + " trainable params x 4 B (fp32 copy)" + c.parallel.note(sharded);
        term.notes.push_back("Mixed precision keeps an fp32 master copy that the optimizer updates.");
    }
    return term;
}

namespace {

/// FSDP1 flat parameters mixing frozen and trainable weights give every weight a gradient.
bool flatParamGradients(const EstimateContext &c)
{
    const Scenario &s = c.s;
    return s.task == Task::Train && s.parallel.flatParams && s.train.method != Method::Full &&
           (s.parallel.strategy == Strategy::Fsdp || s.parallel.strategy == Strategy::Zero3) &&
           !isQuantized(s.precision.weights);
}

} // namespace

Term gradientsTerm(const EstimateContext &c, GradientsAlive alive)
{
    const Scenario &s = c.s;
    const TrainableParams &t = c.trainable;
    const ParallelLayout &par = c.parallel;
    Term term;
    const std::uint64_t bytesPer = byteSize(t.gradDType);
    if (alive == GradientsAlive::LargestTensor) {
        term.bytes = mulChecked(t.largestTensor, bytesPer, "gradients");
        if (c.formulas)
            term.expression = n(t.largestTensor) + " params of the largest tensor x " +
                              perValue(t.gradDType) + " (optimizer in backward frees each gradient)";
        return term;
    }
    if (alive == GradientsAlive::FirstOnly) {
        term.bytes = ceilDiv(mulChecked(t.lmHead, bytesPer, "gradients"), par.tensor);
        if (c.formulas && term.bytes)
            term.expression = n(t.lmHead) + " lm_head params x " + perValue(t.gradDType) +
                              " (the first gradient when backward starts)";
        return term;
    }
    const bool sharded = par.shards(ShardLevel::Gradients);
    if (flatParamGradients(c)) {
        // FSDP1 flattens each wrapped block into one FlatParameter; when it mixes frozen and
        // trainable weights the gradient covers all of them. Under no_sync accumulation the
        // gradient stays unsharded until the last micro-batch.
        const std::uint64_t blocks = addChecked(
            addChecked(c.params.blockLinear, c.params.smallTensors, "gradients"), t.count, "gradients");
        const std::uint64_t bytesPerFlat =
            byteSize(dtypeBits(s.precision.weights) >= 16 ? s.precision.weights : DType::BF16);
        const bool unsharded = s.train.gradAccum > 1;
        term.bytes = par.perRank(mulChecked(blocks, bytesPerFlat, "gradients"), !unsharded);
        if (c.formulas) {
            term.expression = n(blocks) + " block params (frozen ones too) x " + n(bytesPerFlat) + " B" +
                              (unsharded ? " (unsharded under no_sync)" : par.note(true));
            term.notes.push_back("FSDP flat parameters mix frozen and trainable weights, so every "
                                 "weight of a wrapped block gets a gradient (PyTorch FSDP notes; "
                                 "LitGPT issue #1417).");
        }
        return term;
    }
    term.bytes = par.perRank(mulChecked(t.count, bytesPer, "gradients"), sharded);
    const bool ddpBuckets = !sharded && par.dataParallel > 1;
    if (ddpBuckets)
        term.bytes = mulChecked(term.bytes, 2, "gradients");
    if (c.formulas) {
        term.expression = n(t.count) + " trainable params x " + perValue(t.gradDType) +
                          par.note(sharded) + (ddpBuckets ? " x 2 (DDP buckets)" : "");
        if (ddpBuckets)
            term.notes.push_back("DDP copies gradients into all-reduce buckets unless "
                                 "gradient_as_bucket_view=True.");
        if (s.train.gradAccum > 1)
            term.notes.push_back("With gradient accumulation the gradients stay alive across "
                                 "micro-batches, so they are counted in the forward phase too.");
    }
    return term;
}

Term optimizerStateTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const TrainableParams &t = c.trainable;
    Term term;
    const bool sharded = c.parallel.shards(ShardLevel::OptimizerState);
    const std::uint64_t stateBytes = byteSize(t.stateDType);
    std::string what;
    switch (s.train.optimizer) {
    case Optimizer::AdamW:
        term.bytes = mulChecked(t.count, 2 * stateBytes, "optimizer state");
        if (c.formulas)
            what = n(t.count) + " trainable params x 2 states x " + perValue(t.stateDType);
        break;
    case Optimizer::PagedAdamW:
        // bitsandbytes' 32-bit optimizers keep fp32 states whatever the parameter dtype.
        term.bytes = mulChecked(t.count, 8, "optimizer state");
        if (c.formulas)
            what = n(t.count) + " trainable params x 2 states x 4 B (fp32, bitsandbytes 32-bit)";
        break;
    case Optimizer::AdamW8bit:
    case Optimizer::PagedAdamW8bit: {
        const std::uint64_t blocks = ceilDiv(t.count, 2048);
        term.bytes = addChecked(mulChecked(t.count, 2, "optimizer state"), blocks * 8, "optimizer state");
        if (c.formulas)
            what = n(t.count) + " trainable params x 2 states x 1 B (8-bit) + " + n(blocks) +
                   " blocks of 2048 x 2 x 4 B (fp32 absmax)";
        break;
    }
    case Optimizer::Sgd:
    case Optimizer::None:
        if (c.formulas)
            what = "no optimizer state";
        break;
    case Optimizer::SgdMomentum:
    case Optimizer::Lion:
        term.bytes = mulChecked(t.count, stateBytes, "optimizer state");
        if (c.formulas)
            what = n(t.count) + " trainable params x 1 state (momentum) x " + perValue(t.stateDType);
        break;
    case Optimizer::Adafactor: {
        // Factored second moment: one row and one column vector per matrix, fp32.
        std::uint64_t factored = 0;
        if (s.train.method == Method::Full) {
            for (const MatrixShape &shape : matrixShapes(m)) {
                if (shape.kind == LoraTarget::LmHead)
                    continue;
                factored += (shape.inFeatures + shape.outFeatures) * shape.perLayer;
            }
            factored = mulChecked(factored, std::uint64_t(m.layers), "optimizer state");
            factored += 2 * (std::uint64_t(m.vocab) + m.hidden) + c.params.smallTensors;
        } else {
            factored = t.count / std::max<std::uint64_t>(1, s.train.lora.rank) * 2;
        }
        term.bytes = mulChecked(factored, 4, "optimizer state");
        if (c.formulas)
            what = n(factored) + " row and column factors x 4 B (fp32)";
        break;
    }
    }
    term.bytes = c.parallel.perRank(term.bytes, sharded);
    if (c.formulas) {
        term.expression = what + (term.bytes ? c.parallel.note(sharded) : "");
        if (s.train.optimizer == Optimizer::AdamW)
            term.notes.push_back("AdamW keeps two running statistics per trainable parameter, in "
                                 "the dtype of the parameters it updates (fp32 with master weights).");
        term.notes.push_back("Allocated at the first optimizer step and kept for the whole run.");
    }
    return term;
}

Term optimizerTemporariesTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    const TrainableParams &t = c.trainable;
    Term term;
    // torch.optim's foreach path makes temporaries the size of one state; fused and
    // bitsandbytes kernels do not.
    const bool foreach = s.train.optimizerImpl == OptimizerImpl::Auto
                             ? s.kernels.profile == Profile::HuggingFace
                             : s.train.optimizerImpl == OptimizerImpl::Foreach;
    // An offloaded optimizer steps on the CPU: no temporaries on the GPU.
    if (!foreach || s.parallel.offloadOptimizer ||
        (s.train.optimizer != Optimizer::AdamW && s.train.optimizer != Optimizer::Lion))
        return term;
    term.bytes = c.parallel.perRank(mulChecked(t.count, byteSize(t.stateDType), "optimizer temporaries"),
                                    c.parallel.shards(ShardLevel::OptimizerState));
    if (c.formulas)
        term.expression = n(t.count) + " params x " + perValue(t.stateDType) +
                          " (foreach AdamW temporary)";
    return term;
}

} // namespace headroom::detail
