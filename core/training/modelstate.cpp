// SPDX-License-Identifier: GPL-3.0-or-later
#include "training/modelstate.h"
#include "training/posttraining.h"

#include "scenario/checked.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "scenario/units.h"

#include <algorithm>
#include <cmath>

namespace headroom::detail {

TrainableParams countTrainable(const Scenario &s, const ParamCounts &model, const ParamCounts &rank,
                               const ParallelLayout &layout, const RankShare &share)
{
    TrainableParams t;
    if (s.task == Task::Inference)
        return t;
    const ModelArch &m = s.model;
    if (s.train.method == Method::Full) {
        t.count = rank.total;
        t.experts = rank.routedExpertLinear;
        t.largestTensor = rank.largestMatrix;
        t.dtype = s.precision.weights;
        t.lmHead = m.rough || !share.lmHead ? 0 : ceilDiv(std::uint64_t(m.vocab) * m.hidden, layout.tensor);
        if (s.train.objective == Objective::Reward && share.lmHead)
            t.lmHead = rank.lmHead; // the score head (rank is the sequence-classification model's)
        // Norms and biases are below bitsandbytes' paging threshold; every matrix is above it.
        t.paged = t.count > rank.smallTensors ? t.count - rank.smallTensors : 0;
        if (s.train.objective == Objective::Ppo) {
            // PPO trains the value model with the policy (PolicyAndValueWrapper: one optimizer
            // over both): its backbone and score head, in the same dtype.
            const std::uint64_t value = scoreModelParams(rank, m, layout.tensor, share.lmHead).total;
            t.count = addChecked(t.count, value, "parameters");
            t.experts = addChecked(t.experts, rank.routedExpertLinear, "parameters");
            t.paged = addChecked(t.paged, value > rank.smallTensors ? value - rank.smallTensors : 0, "parameters");
        }
    } else {
        const std::uint64_t adapterRank = s.train.lora.rank;
        const auto &targets = s.train.lora.targets;
        const std::uint64_t layers = std::uint64_t(m.layers);
        for (const MatrixShape &shape : matrixShapes(m)) {
            if (std::find(targets.begin(), targets.end(), shape.kind) == targets.end())
                continue;
            const std::uint64_t perMatrix =
                mulChecked(adapterRank, shape.inFeatures + shape.outFeatures, "LoRA parameters");
            // Adapters sit with their matrices: the stage's share of the blocks, split like them.
            std::uint64_t copies = shape.copies;
            if (shape.group == MatrixGroup::LmHead) {
                if (!share.lmHead || (s.train.objective == Objective::Reward && s.train.rewardHead == RewardHead::Score))
                    continue; // a reward model has a score head, trained in full (below)
            } else {
                copies = ceilDiv(mulChecked(copies, share.layers, "LoRA parameters"), layers);
            }
            std::uint64_t split = layout.tensor;
            if (shape.group == MatrixGroup::RoutedExperts)
                split *= layout.expert;
            const std::uint64_t adapters =
                ceilDiv(mulChecked(perMatrix, copies, "LoRA parameters"), split);
            t.count = addChecked(t.count, adapters, "LoRA parameters");
            if (shape.group == MatrixGroup::RoutedExperts)
                t.experts = addChecked(t.experts, adapters, "LoRA parameters");
            t.largestTensor =
                std::max(t.largestTensor, adapterRank * std::max(shape.inFeatures, shape.outFeatures));
        }
        t.dtype = s.train.lora.dtype;
        // PEFT's SEQ_CLS task keeps the score head trainable (modules_to_save).
        // A value head (TRL's, outside the PEFT model) trains in full beside the adapters.
        if (s.train.objective == Objective::Reward && share.lmHead)
            t.count = addChecked(t.count,
                                 s.train.rewardHead == RewardHead::ValueHead ? valueHeadParams(m) : rank.lmHead,
                                 "LoRA parameters");
        (void)model;
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

std::uint64_t quantizedParams(const EstimateContext &c)
{
    return c.s.precision.quantized == QuantizedModules::Experts ? c.params.expertLinear : c.params.blockLinear;
}

namespace {

/// The 16-bit dtype that quantized models keep their unquantized tensors in.
DType keptDType(const Scenario &s)
{
    if (s.precision.unquantized) // fp32 after PEFT's prepare_model_for_kbit_training
        return *s.precision.unquantized;
    return dtypeBits(s.precision.compute) == 16 ? s.precision.compute : DType::BF16;
}

/// Whether a matrix group is stored in the quantized format.
bool quantizedGroup(const Scenario &s, MatrixGroup group)
{
    if (group == MatrixGroup::LmHead)
        return false;
    if (s.precision.quantized == QuantizedModules::Experts)
        return group == MatrixGroup::RoutedExperts || group == MatrixGroup::SharedExperts;
    return true;
}

} // namespace

Term weightsTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    const ParallelLayout &par = c.parallel;
    const ParamCounts &p = c.params;
    Term term;
    const DType dtype = s.precision.weights;
    const bool sharded = par.shards(ShardLevel::Parameters);
    if (!isQuantized(dtype)) {
        term.bytes = c.shardedBytes(p.total, p.routedExpertLinear, dtypeBits(dtype), sharded, "weights");
        if (c.formulas)
            term.expression = c.paramsText(p.total) + " x " + perValue(dtype) + par.shardNote(sharded);
    } else {
        // The quantized matrices in their format; embeddings, lm_head, norms and biases (and,
        // when only experts are quantized, the attention and dense MLPs) stay 16-bit.
        const DType keep = keptDType(s);
        const std::uint64_t quantized = quantizedParams(c);
        const std::uint64_t kept = p.total - std::min(quantized, p.total);
        term.bytes = addChecked(c.shardedBytes(quantized, p.routedExpertLinear, dtypeBits(dtype), sharded, "weights"),
                                c.shardedBytes(kept, 0, dtypeBits(keep), sharded, "weights"), "weights");
        if (c.formulas) {
            const bool experts = s.precision.quantized == QuantizedModules::Experts;
            term.expression = c.paramsText(quantized, experts ? "expert params" : "block-matrix params") +
                              " x " + perValue(dtype);
            if (kept)
                term.expression += " + " + n(kept) +
                                   (experts ? " other params x " : " embedding, lm_head and norm params x ") +
                                   perValue(keep);
            term.expression += par.shardNote(sharded);
            term.notes.push_back(experts ? "Only the experts' MLP matrices are quantized; attention, "
                                           "routers, embeddings and lm_head stay 16-bit (gpt-oss's "
                                           "modules_to_not_convert)."
                                 : dtypeBits(keep) == 32
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
        term.bytes = addChecked(term.bytes, c.shardedBytes(t.count, t.experts, dtypeBits(t.dtype), sharded, "weights"),
                                "weights");
        if (c.formulas)
            term.expression += " + " + n(t.count) + " adapter params x " + perValue(t.dtype) +
                               par.shardNote(sharded);
    }
    // DPO's reference model: a frozen copy in the load dtype when every weight trains (TRL
    // create_reference_model / ref_model, prepared with the same sharding); under LoRA the
    // reference is the base with the adapters disabled, no copy.
    // GRPO with beta > 0 keeps one the same way (TRL GRPOTrainer.__init__: ref_model from the
    // same checkpoint, None under PEFT, where the adapter is disabled; None when beta is 0).
    // KTO (TRL KTOTrainer) keeps the same reference as DPO (ref_model, None under PEFT).
    const bool reference = s.train.objective == Objective::Dpo || s.train.objective == Objective::Kto ||
                           (s.train.objective == Objective::Grpo && s.train.grpo.beta > 0);
    if (s.task == Task::Train && reference && s.train.method == Method::Full) {
        term.bytes = addChecked(term.bytes, c.shardedBytes(p.total, p.routedExpertLinear, dtypeBits(dtype), sharded, "weights"),
                                "weights");
        if (c.formulas) {
            const bool dpo = s.train.objective == Objective::Dpo || s.train.objective == Objective::Kto;
            term.expression += " + " + c.paramsText(p.total) + " x " + perValue(dtype) +
                               (s.train.objective == Objective::Kto ? " (KTO reference copy)"
                                : dpo                               ? " (DPO reference copy)"
                                                                    : " (GRPO reference copy, beta > 0)") +
                               par.shardNote(sharded);
            term.notes.push_back(dpo ? "DPO with every weight trained keeps a frozen reference copy of the model."
                                     : "GRPO with beta > 0 and every weight trained keeps a frozen reference "
                                       "copy of the model for the KL term.");
        }
    }
    if (c.formulas && c.split())
        term.notes.push_back("This GPU holds " + n(p.total) + " of the model's " + n(c.model.total) +
                             " parameters (" + c.parallel.describe() + "; " +
                             rankRoleName(c.share.role) + ").");
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
    std::uint64_t head = c.params.lmHead;
    if (!head && c.share.lmHead && !c.m.rough)
        head = ceilDiv(std::uint64_t(c.m.vocab) * std::uint64_t(c.m.hidden), c.parallel.tensor);
    const std::uint64_t matrices = addChecked(c.params.blockLinear, head, "weights");
    term.bytes = mulChecked(matrices, c.compute, "weights");
    if (c.formulas) {
        term.expression = c.paramsText(matrices, "matmul weights") + " x " + n(c.compute) +
                          " B (autocast copies for backward)";
        term.notes.push_back("Autocast casts each fp32 weight to the compute dtype on use; the copies "
                             "live until the backward pass has used them.");
    }
    return term;
}

Term quantMetadataTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    Term term;
    const DType dtype = s.precision.weights;
    if (!isQuantized(dtype))
        return term;
    // The metadata of the whole model's quantized matrices, then this rank's share of it.
    std::uint64_t values = 0, matrices = 0, rows = 0, blocks128 = 0;
    for (const MatrixShape &shape : matrixShapes(m)) {
        if (!quantizedGroup(s, shape.group))
            continue;
        const char *what = "quantization metadata";
        values = addChecked(values, productChecked(what, shape.inFeatures, shape.outFeatures, shape.copies), what);
        matrices = addChecked(matrices, shape.copies, what);
        rows = addChecked(rows, mulChecked(shape.outFeatures, shape.copies, what), what);
        blocks128 = addChecked(blocks128, productChecked(what, ceilDiv(shape.inFeatures, 128),
                                                         ceilDiv(shape.outFeatures, 128), shape.copies), what);
    }
    if (m.rough) {
        values = c.model.blockLinear;
        rows = ceilDiv(values, std::uint64_t(m.hidden));
        matrices = 7 * std::uint64_t(m.layers);
        blocks128 = ceilDiv(values, 128 * 128);
    }
    std::string expression;
    switch (dtype) {
    case DType::NF4:
    case DType::FP4: {
        const std::uint64_t blocks = ceilDiv(values, 64);
        if (s.precision.doubleQuant) {
            const std::uint64_t groups = ceilDiv(blocks, 256);
            term.bytes = blocks + groups * 4;
            expression = n(blocks) + " blocks of 64 x 1 B (8-bit absmax) + " + n(groups) +
                         " groups of 256 blocks x 4 B (fp32 scale)";
        } else {
            term.bytes = blocks * 4;
            expression = n(blocks) + " blocks of 64 x 4 B (fp32 absmax)";
        }
        term.notes.push_back("bitsandbytes 4-bit: one absmax per 64 weights; double "
                             "quantization stores it in 8 bits with an fp32 scale per 256 blocks.");
        break;
    }
    case DType::MXFP4: {
        const std::uint64_t blocks = ceilDiv(values, 32);
        term.bytes = blocks;
        expression = n(blocks) + " blocks of 32 x 1 B (E8M0 scale)";
        term.notes.push_back("MXFP4 (OCP microscaling): 32 fp4 values share one 8-bit power-of-two "
                             "scale, 4.25 bits per weight in all.");
        break;
    }
    case DType::NVFP4: {
        // compressed-tensors / ModelOpt NVFP4: an fp8 E4M3 scale per 16 values, an fp32 global
        // scale per tensor (weight_global_scale).
        const std::uint64_t blocks = ceilDiv(values, 16);
        term.bytes = addChecked(blocks, mulChecked(matrices, 4, "quantization metadata"), "quantization metadata");
        expression = n(blocks) + " blocks of 16 x 1 B (fp8 scale) + " + n(matrices) + " matrices x 4 B (global scale)";
        term.notes.push_back("NVFP4: 16 fp4 values share one fp8 scale, 4.5 bits per weight and a scale per tensor.");
        break;
    }
    case DType::INT2:
    case DType::INT3:
    case DType::INT4:
    case DType::INT8: {
        const std::int32_t group = s.precision.groupSize;
        const bool eight = dtype == DType::INT8;
        if (eight && group == 0) {
            term.bytes = mulChecked(rows, 4, "quantization metadata");
            expression = n(rows) + " output rows x 4 B (fp32 scale)";
            term.notes.push_back("LLM.int8(): one fp32 scale per output row.");
            break;
        }
        if (group == 0) {
            const std::uint64_t groups = ceilDiv(values, 128);
            term.bytes = groups * 4;
            expression = n(groups) + " groups of 128 x 4 B (fp16 scale + fp16 zero)";
            term.notes.push_back("GPTQ/AWQ-style " + std::string(enumName(dtype)) + " with group size 128.");
            break;
        }
        // A checkpoint's layout (GPTQ/AWQ qweight, scales, qzeros; compressed-tensors
        // weight_packed, weight_scale, weight_zero_point): an fp16 scale per group and output
        // column, and a zero point packed at the weights' width (2, 3, 4 or 8 bits: GPTQ's qzeros
        // are [groups, out x bits / 32] int32) where the format is asymmetric.
        const std::uint64_t groups = group < 0 ? rows : ceilDiv(values, std::uint64_t(group));
        const std::uint64_t zeroBits = s.precision.zeroPoints ? std::uint64_t(dtypeBits(dtype)) : 0;
        term.bytes = addChecked(mulChecked(groups, 2, "quantization metadata"),
                                bitsToBytes(groups, static_cast<std::uint32_t>(zeroBits), "quantization metadata"),
                                "quantization metadata");
        expression = n(groups) + (group < 0 ? " output channels" : " groups of " + n(std::uint64_t(group))) +
                     " x (2 B fp16 scale" + (zeroBits ? " + " + n(zeroBits) + "-bit zero point)" : ")");
        break;
    }
    default: // fp8
        if (s.precision.fp8Scales == WeightScales::Block) {
            term.bytes = mulChecked(blocks128, 4, "quantization metadata");
            expression = n(blocks128) + " blocks of 128 x 128 x 4 B (fp32 scale)";
            term.notes.push_back("Block-wise fp8 (DeepSeek-V3's weight_scale_inv): one fp32 scale per "
                                 "128 x 128 block of each matrix.");
        } else if (s.precision.groupSize < 0) {
            term.bytes = mulChecked(rows, 4, "quantization metadata");
            expression = n(rows) + " output rows x 4 B (fp32 per-channel scale)";
        } else {
            term.bytes = mulChecked(matrices, 4, "quantization metadata");
            expression = n(matrices) + " matrices x 4 B (fp32 per-tensor scale)";
        }
        break;
    }
    // This rank's share: the metadata follows its matrices.
    const std::uint64_t modelQuantized = s.precision.quantized == QuantizedModules::Experts
                                             ? c.model.expertLinear : c.model.blockLinear;
    const std::uint64_t rankQuantized = quantizedParams(c);
    if (modelQuantized && rankQuantized != modelQuantized) {
        term.bytes = roundedBytes(std::ceil(static_cast<long double>(term.bytes) * rankQuantized /
                                            static_cast<long double>(modelQuantized)),
                                  "quantization metadata");
        expression += " x " + n(rankQuantized) + " / " + n(modelQuantized) + " (this GPU's share)";
    }
    const bool sharded = c.parallel.shards(ShardLevel::Parameters);
    if (sharded)
        term.bytes = ceilDiv(term.bytes, c.parallel.shardGroup());
    if (c.formulas)
        term.expression = expression + c.parallel.shardNote(sharded);
    else
        term.notes.clear();
    return term;
}

Term masterWeightsTerm(const EstimateContext &c)
{
    const TrainableParams &t = c.trainable;
    Term term;
    if (!c.s.train.masterWeights || dtypeBits(t.dtype) == 32)
        return term;
    const bool sharded = c.parallel.shards(ShardLevel::OptimizerState);
    term.bytes = c.shardedBytes(t.count, t.experts, 32, sharded, "master weights");
    if (c.formulas) {
        term.expression = c.paramsText(t.count, "trainable params") + " x 4 B (fp32 copy)" +
                          c.parallel.shardNote(sharded);
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
        term.bytes = mulChecked(t.lmHead, bytesPer, "gradients");
        if (c.formulas && term.bytes)
            term.expression = n(t.lmHead) + " lm_head params x " + perValue(t.gradDType) +
                              " (the first gradient when backward starts)";
        return term;
    }
    const bool sharded = par.shards(ShardLevel::Gradients);
    if (par.stageStaysGathered() && alive == GradientsAlive::All) {
        // PyTorch's pipeline stages turn FSDP's gradient sync off until the last micro-batch:
        // the stage's gradients accumulate unsharded, upcast to the reduce dtype.
        term.bytes = mulChecked(t.count, bytesPer, "gradients");
        if (c.formulas) {
            term.expression = c.paramsText(t.count, "trainable params") + " x " + perValue(t.gradDType) +
                              " (unsharded until the last micro-batch)";
            term.notes.push_back("FSDP under pipeline parallelism accumulates each stage's gradients "
                                 "unsharded across the micro-batches and reduce-scatters them after "
                                 "the last backward (torch.distributed.pipelining stage.py, FSDP2's "
                                 "unsharded_accumulated_grad in the reduce dtype).");
        }
        return term;
    }
    if (flatParamGradients(c)) {
        // FSDP1 flattens each wrapped block into one FlatParameter; when it mixes frozen and
        // trainable weights the gradient covers all of them. Under no_sync accumulation the
        // gradient stays unsharded until the last micro-batch.
        const std::uint64_t blocks = addChecked(
            addChecked(c.params.blockLinear, c.params.smallTensors, "gradients"), t.count, "gradients");
        const DType flatDType = dtypeBits(s.precision.weights) >= 16 ? s.precision.weights : DType::BF16;
        const bool unsharded = s.train.gradAccum > 1;
        term.bytes = c.shardedBytes(blocks, c.params.routedExpertLinear, dtypeBits(flatDType), !unsharded, "gradients");
        if (c.formulas) {
            term.expression = c.paramsText(blocks, "block params (frozen ones too)") + " x " +
                              perValue(flatDType) +
                              (unsharded ? " (unsharded under no_sync)" : par.shardNote(true));
            term.notes.push_back("FSDP flat parameters mix frozen and trainable weights, so every "
                                 "weight of a wrapped block gets a gradient (PyTorch FSDP notes; "
                                 "LitGPT issue #1417).");
        }
        return term;
    }
    term.bytes = c.shardedBytes(t.count, t.experts, dtypeBits(t.gradDType), sharded, "gradients");
    const bool ddpBuckets = !sharded && par.shardGroup() > 1 &&
                            (s.parallel.strategy == Strategy::Ddp || s.parallel.strategy == Strategy::None);
    if (ddpBuckets)
        term.bytes = mulChecked(term.bytes, 2, "gradients");
    // DeepSpeed ZeRO-2/3 reduce gradients in the parameters' 16-bit dtype into a partition,
    // then keep an fp32 copy of that partition for the optimizer: both are alive at the step.
    const bool reducedPartition = sharded && t.gradDType == DType::FP32 && dtypeBits(t.dtype) == 16 &&
                                  (s.parallel.strategy == Strategy::Zero2 || s.parallel.strategy == Strategy::Zero3);
    if (reducedPartition)
        term.bytes = addChecked(term.bytes, c.shardedBytes(t.count, t.experts, 16, true, "gradients"), "gradients");
    if (c.formulas) {
        term.expression = c.paramsText(t.count, "trainable params") + " x " + perValue(t.gradDType) +
                          par.shardNote(sharded) + (ddpBuckets ? " x 2 (DDP buckets)" : "");
        if (reducedPartition)
            term.expression += " + " + n(t.count) + " x " + perValue(t.dtype) + par.shardNote(true) +
                               " (the reduced 16-bit partition)";
        if (ddpBuckets)
            term.notes.push_back("DDP copies gradients into all-reduce buckets unless "
                                 "gradient_as_bucket_view=True.");
        if (s.train.gradAccum > 1)
            term.notes.push_back("With gradient accumulation the gradients stay alive across "
                                 "micro-batches, so they are counted in the forward phase too.");
    }
    return term;
}

namespace {

/// Adam state of `count` values: 8-bit codes with an fp32 absmax per 2048 values (bitsandbytes), or two `dtype` values.
std::uint64_t adamStates(std::uint64_t count, bool eightBit, DType dtype)
{
    if (eightBit)
        return addChecked(mulChecked(count, 2, "optimizer state"), ceilDiv(count, 2048) * 8, "optimizer state");
    return mulChecked(count, 2 * byteSize(dtype), "optimizer state");
}

/// GaLore (jiaweizzhao/GaLore galore_torch/galore_projector.py, GaLoreProjector.project): each
/// attention and MLP matrix m x n keeps its Adam states on the projected gradient, rank x max(m, n)
/// (the shorter side is projected: `right` when m >= n), and its projection matrix, rank x
/// min(m, n), in the parameter's dtype (get_orthogonal_matrix casts the SVD factor back); every
/// other parameter (embeddings, lm_head, norms) keeps full Adam states (torchrun_main.py: the
/// `attn`/`mlp` modules are GaLore's, the rest the plain Adam8bit / AdamW).
std::uint64_t galoreStateBytes(const EstimateContext &c, std::uint64_t count, std::string *what)
{
    const ModelArch &m = c.m;
    const TrainableParams &t = c.trainable;
    const bool eightBit = c.s.train.optimizer == Optimizer::GaloreAdamW8bit;
    const std::uint64_t rank = c.s.train.galoreRank;
    std::uint64_t projected = 0, projections = 0, covered = 0;
    for (const MatrixShape &shape : matrixShapes(m)) {
        if (shape.group == MatrixGroup::LmHead)
            continue;
        const std::uint64_t shorter = std::min(shape.inFeatures, shape.outFeatures);
        const std::uint64_t longer = std::max(shape.inFeatures, shape.outFeatures);
        const std::uint64_t r = std::min(rank, shorter);
        projected = addChecked(projected, mulChecked(r * longer, shape.copies, "optimizer state"), "optimizer state");
        projections = addChecked(projections, mulChecked(r * shorter, shape.copies, "optimizer state"), "optimizer state");
        covered = addChecked(covered, mulChecked(shape.inFeatures * shape.outFeatures, shape.copies, "optimizer state"),
                             "optimizer state");
    }
    const std::uint64_t total = c.model.total ? c.model.total : count;
    const std::uint64_t rest = total > covered ? total - covered : 0;
    // This part's share of the model (a pipeline stage, a tensor shard).
    auto share = [&](std::uint64_t v) { return total && count != total ? ceilDiv(mulChecked(v, count, "optimizer state"), total) : v; };
    projected = share(projected);
    projections = share(projections);
    const std::uint64_t restHere = share(rest);
    const std::uint64_t bytes = addChecked(
        addChecked(adamStates(projected, eightBit, t.stateDType), adamStates(restHere, eightBit, t.stateDType),
                   "optimizer state"),
        mulChecked(projections, byteSize(t.dtype), "optimizer state"), "optimizer state");
    if (what) {
        const std::string per = eightBit ? " x 2 states x 1 B (8-bit, + absmax)" : " x 2 states x " + perValue(t.stateDType);
        *what = "GaLore rank " + n(rank) + ": " + n(projected) + " projected values" + per + " + " + n(projections) +
                " projection values x " + perValue(t.dtype) + " + " + n(restHere) +
                " embedding/head/norm params" + per;
    }
    return bytes;
}

/// Optimizer state of `count` trainable parameters, with its formula.
std::uint64_t stateBytes(const EstimateContext &c, std::uint64_t count, std::string *what)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const TrainableParams &t = c.trainable;
    const std::uint64_t perState = byteSize(t.stateDType);
    const std::string params = n(count) + " trainable params";
    switch (s.train.optimizer) {
    case Optimizer::AdamW:
        if (what)
            *what = params + " x 2 states x " + perValue(t.stateDType);
        return mulChecked(count, 2 * perState, "optimizer state");
    case Optimizer::PagedAdamW:
        // bitsandbytes' 32-bit optimizers keep fp32 states whatever the parameter dtype.
        if (what)
            *what = params + " x 2 states x 4 B (fp32, bitsandbytes 32-bit)";
        return mulChecked(count, 8, "optimizer state");
    case Optimizer::AdamW8bit:
    case Optimizer::PagedAdamW8bit: {
        const std::uint64_t blocks = ceilDiv(count, 2048);
        if (what)
            *what = params + " x 2 states x 1 B (8-bit) + " + n(blocks) +
                    " blocks of 2048 x 2 x 4 B (fp32 absmax)";
        return addChecked(mulChecked(count, 2, "optimizer state"), blocks * 8, "optimizer state");
    }
    case Optimizer::AdamW4bit: {
        // torchao AdamW4bit (torchao/optim/subclass_4bit.py, OptimState4bit.zeros): two 4-bit
        // codes per byte and one fp32 scale per block of 128 values, for each of the two states.
        const std::uint64_t blocks = ceilDiv(count, 128);
        if (what)
            *what = params + " x 2 states x 0.5 B (4-bit) + " + n(blocks) +
                    " blocks of 128 x 2 x 4 B (fp32 scale)";
        return addChecked(count, blocks * 8, "optimizer state");
    }
    case Optimizer::GaloreAdamW:
    case Optimizer::GaloreAdamW8bit:
        return galoreStateBytes(c, count, what);
    case Optimizer::Sgd:
    case Optimizer::None:
        if (what)
            *what = "no optimizer state";
        return 0;
    case Optimizer::SgdMomentum:
    case Optimizer::Lion:
        if (what)
            *what = params + " x 1 state (momentum) x " + perValue(t.stateDType);
        return mulChecked(count, perState, "optimizer state");
    case Optimizer::Adafactor: {
        // Factored second moment: one row and one column vector per matrix, fp32.
        std::uint64_t factored = 0;
        if (s.train.method == Method::Full) {
            for (const MatrixShape &shape : matrixShapes(m)) {
                if (shape.group == MatrixGroup::LmHead)
                    continue;
                factored = addChecked(factored, mulChecked(shape.inFeatures + shape.outFeatures, shape.copies,
                                                           "optimizer state"), "optimizer state");
            }
            factored += 2 * (std::uint64_t(m.vocab) + m.hidden) + c.model.smallTensors;
            // This part's share of the model's factors.
            if (c.model.total && count != c.model.total)
                factored = ceilDiv(mulChecked(factored, count, "optimizer state"), c.model.total);
        } else {
            factored = count / std::max<std::uint64_t>(1, s.train.lora.rank) * 2;
        }
        if (what)
            *what = n(factored) + " row and column factors x 4 B (fp32)";
        return mulChecked(factored, 4, "optimizer state");
    }
    }
    return 0;
}

} // namespace

Term optimizerStateTerm(const EstimateContext &c)
{
    const TrainableParams &t = c.trainable;
    Term term;
    if ((c.s.train.optimizer == Optimizer::GaloreAdamW || c.s.train.optimizer == Optimizer::GaloreAdamW8bit) &&
        c.s.train.method != Method::Full)
        throw ScenarioError("train.optimizer", "GaLore projects the gradients of full-rank weights: it applies to "
                                               "train.method full, not to LoRA adapters");
    const bool sharded = c.parallel.shards(ShardLevel::OptimizerState);
    std::string what;
    const std::uint64_t experts = std::min(t.experts, t.count);
    term.bytes = stateBytes(c, t.count, c.formulas ? &what : nullptr);
    if (sharded)
        term.bytes = addChecked(ceilDiv(stateBytes(c, t.count - experts, nullptr), c.parallel.shardGroup()),
                                ceilDiv(stateBytes(c, experts, nullptr), c.parallel.expertShardGroup()),
                                "optimizer state");
    if (c.formulas) {
        if (c.split() && t.count)
            what += " (on this GPU)";
        term.expression = what + (term.bytes ? c.parallel.shardNote(sharded) : "");
        if (c.s.train.optimizer == Optimizer::AdamW)
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
    if ((s.train.optimizer == Optimizer::GaloreAdamW || s.train.optimizer == Optimizer::GaloreAdamW8bit) &&
        !s.parallel.offloadOptimizer && t.count) {
        // GaLore steps one matrix at a time (galore_torch/adamw8bit.py, step): it clones the
        // weight (`p.saved_data = p.data.clone()`), projects the update back to m x n, and at the
        // first step (and every update_proj_gap) takes torch.linalg.svd(full_matrices=False) of
        // the fp32 gradient: an fp32 copy, U (m x k) and Vh (k x n), k = min(m, n).
        std::uint64_t worst = 0;
        std::string shapeText;
        for (const MatrixShape &shape : matrixShapes(c.m)) {
            if (shape.group == MatrixGroup::LmHead)
                continue;
            const std::uint64_t mn = shape.inFeatures * shape.outFeatures;
            const std::uint64_t k = std::min(shape.inFeatures, shape.outFeatures);
            const std::uint64_t bytes = addChecked(mulChecked(mn, 2 * byteSize(t.dtype), "optimizer temporaries"),
                                                   mulChecked(mn + k * (shape.inFeatures + shape.outFeatures), 4,
                                                              "optimizer temporaries"),
                                                   "optimizer temporaries");
            if (bytes > worst) {
                worst = bytes;
                shapeText = n(shape.outFeatures) + " x " + n(shape.inFeatures);
            }
        }
        term.bytes = worst;
        if (c.formulas && worst)
            term.expression = "the largest GaLore matrix (" + shapeText + "): weight clone + update in " +
                              perValue(t.dtype) + ", fp32 copy + SVD factors (GaLore step)";
        return term;
    }
    // torch.optim's foreach path makes temporaries the size of one state; fused and
    // bitsandbytes kernels do not.
    const bool foreach = s.train.optimizerImpl == OptimizerImpl::Auto
                             ? s.kernels.profile == Profile::HuggingFace
                             : s.train.optimizerImpl == OptimizerImpl::Foreach;
    // An offloaded optimizer steps on the CPU: no temporaries on the GPU.
    if (!foreach || s.parallel.offloadOptimizer ||
        (s.train.optimizer != Optimizer::AdamW && s.train.optimizer != Optimizer::Lion))
        return term;
    term.bytes = c.shardedBytes(t.count, t.experts, dtypeBits(t.stateDType),
                                c.parallel.shards(ShardLevel::OptimizerState), "optimizer temporaries");
    if (c.formulas)
        term.expression = n(t.count) + " params x " + perValue(t.stateDType) +
                          " (foreach AdamW temporary)";
    return term;
}

} // namespace headroom::detail
