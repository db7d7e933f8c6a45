// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate.h"

#include "activations.h"
#include "architecture.h"
#include "checked.h"
#include "errorband.h"
#include "names.h"

#include <algorithm>
#include <cmath>

namespace headroom {

const char *consumerKey(ConsumerId id)
{
    static const char *keys[kConsumerCount] = {
        "weights",     "quant_metadata",   "master_weights", "gradients",
        "optimizer_state", "activations",  "attention_scores", "logits",
        "kv_cache",    "workspace",        "cuda_context",   "fragmentation"};
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

namespace {

constexpr std::uint64_t kMiB = 1024ull * 1024ull;

/// Bytes with the expression that produced them (the expression only in Formulas mode).
struct Term
{
    std::uint64_t bytes = 0;
    std::string expression;
    std::vector<std::string> notes;
};

using Composition = std::array<Term, kConsumerCount>;

std::string n(std::uint64_t value) { return groupDigits(value); }

/// "2 B (bf16)", "0.5 B (nf4)".
std::string perValue(DType dtype)
{
    return formatDecimal(dtypeBits(dtype) / 8.0) + " B (" + enumName(dtype) + ")";
}

std::uint64_t byteSize(DType dtype) { return std::uint64_t(dtypeBits(dtype)) / 8; }

class Estimator
{
public:
    Estimator(const Scenario &scenario, Detail detail, const Catalog &catalog)
        : s(scenario), m(scenario.model), formulas(detail == Detail::Formulas), catalog(catalog)
    {
    }

    Estimate run();

private:
    // Per-GPU layout.
    std::uint64_t dataParallel() const
    {
        return s.parallel.gpus / (std::uint64_t(s.parallel.tensor) * s.parallel.pipeline);
    }
    bool shards(Strategy from) const
    {
        if (dataParallel() <= 1)
            return false;
        const auto level = [](Strategy st) {
            switch (st) {
            case Strategy::Zero1: return 1;
            case Strategy::Zero2: return 2;
            case Strategy::Zero3:
            case Strategy::Fsdp: return 3;
            default: return 0;
            }
        };
        return level(s.parallel.strategy) >= level(from);
    }
    std::string perGpuNote(bool sharded) const
    {
        std::string note;
        if (s.parallel.tensor > 1 || s.parallel.pipeline > 1)
            note += " / " + n(std::uint64_t(s.parallel.tensor) * s.parallel.pipeline) +
                    " (tensor x pipeline)";
        if (sharded)
            note += " / " + n(dataParallel()) + " GPUs (" + enumName(s.parallel.strategy) + ")";
        return note;
    }
    std::uint64_t modelSplit() const { return std::uint64_t(s.parallel.tensor) * s.parallel.pipeline; }
    bool flatParamGradients() const
    {
        return s.task == Task::Train && s.parallel.flatParams && s.train.method != Method::Full &&
               (s.parallel.strategy == Strategy::Fsdp || s.parallel.strategy == Strategy::Zero3) &&
               !isQuantized(s.precision.weights);
    }

    void countTrainable();
    Term weights();
    Term quantMetadata();
    Term masterWeights();
    Term gradients(bool firstOnly, bool optimizerInBackward);
    Term optimizerState();
    Term optimizerTemporaries();
    void buildActivations();
    Term logits();
    Term autocastCopies();
    Term lossBackward(const Term &forwardLogits);
    Term workspace(bool withOptimizerTemporaries);
    Term kvCache();
    void trainingPhases(Estimate &e);
    void inferencePhases(Estimate &e);
    Phase finishPhase(PhaseId id, const Composition &parts);

    const Scenario &s;
    const ModelArch &m;
    const bool formulas;
    const Catalog &catalog;

    ParamCounts params;
    std::uint64_t trainable = 0;
    std::uint64_t largestTrainable = 0;
    std::uint64_t lmHeadTrainable = 0; ///< lm_head (or tied embedding) params trained in full FT
    /// Trainable params in tensors a paged optimizer pages (full fine-tuning only: LoRA
    /// adapters are counted as resident, most are under the paging threshold).
    std::uint64_t pagedTrainable = 0;
    DType trainableDType = DType::BF16;
    DType gradDType = DType::BF16;
    DType stateDType = DType::FP32;
    std::uint64_t compute = 2;

    // Activation terms (training).
    Term savedActivations;   ///< alive at the end of forward
    Term recomputeLayer;     ///< one block recomputed in backward (checkpointing) or last block
    Term savedScores;        ///< eager scores kept for backward
    Term transientScores;    ///< eager scores of one layer recomputed in backward
    std::vector<std::string> globalNotes;
    std::vector<Composition> compositions;
};

void Estimator::countTrainable()
{
    params = countParams(m);
    compute = byteSize(s.precision.compute);
    if (s.task == Task::Inference)
        return;
    if (s.train.method == Method::Full) {
        trainable = params.total;
        largestTrainable = params.largestMatrix;
        trainableDType = s.precision.weights;
        lmHeadTrainable = m.rough ? 0 : std::uint64_t(m.vocab) * m.hidden;
        // Norms and biases are below bitsandbytes' paging threshold; every matrix is above it.
        pagedTrainable = trainable > params.smallTensors ? trainable - params.smallTensors : 0;
    } else {
        const std::uint64_t rank = s.train.lora.rank;
        for (const MatrixShape &shape : matrixShapes(m)) {
            const auto &targets = s.train.lora.targets;
            if (std::find(targets.begin(), targets.end(), shape.kind) == targets.end())
                continue;
            const std::uint64_t perMatrix =
                mulChecked(rank, shape.inFeatures + shape.outFeatures, "LoRA parameters");
            const std::uint64_t copies =
                shape.kind == LoraTarget::LmHead ? 1 : shape.perLayer * std::uint64_t(m.layers);
            trainable = addChecked(trainable, mulChecked(perMatrix, copies, "LoRA parameters"),
                                   "LoRA parameters");
            largestTrainable = std::max(largestTrainable, rank * std::max(shape.inFeatures, shape.outFeatures));
        }
        trainableDType = s.train.lora.dtype;
    }
    switch (s.train.gradDType) {
    case GradDType::Auto: gradDType = trainableDType; break;
    case GradDType::FP32: gradDType = DType::FP32; break;
    case GradDType::BF16: gradDType = DType::BF16; break;
    case GradDType::FP16: gradDType = DType::FP16; break;
    }
    stateDType = s.train.masterWeights ? DType::FP32 : trainableDType;
}

Term Estimator::weights()
{
    Term term;
    const bool quantized = isQuantized(s.precision.weights);
    const std::uint64_t split = modelSplit();
    const bool sharded = shards(Strategy::Zero3);
    const std::uint64_t dp = sharded ? dataParallel() : 1;
    if (!quantized) {
        const std::uint64_t bytes = bitsToBytes(params.total, dtypeBits(s.precision.weights), "weights");
        term.bytes = ceilDiv(ceilDiv(bytes, split), dp);
        if (formulas)
            term.expression = n(params.total) + " params x " + perValue(s.precision.weights) +
                              perGpuNote(sharded);
    } else {
        // Block matrices quantized; embeddings, lm_head, norms and biases stay 16-bit.
        const DType keep = dtypeBits(s.precision.compute) == 16 ? s.precision.compute : DType::BF16;
        const std::uint64_t kept = params.embeddings + params.lmHead + params.smallTensors;
        const std::uint64_t bytes =
            addChecked(bitsToBytes(params.blockLinear, dtypeBits(s.precision.weights), "weights"),
                       bitsToBytes(kept, dtypeBits(keep), "weights"), "weights");
        term.bytes = ceilDiv(ceilDiv(bytes, split), dp);
        if (formulas) {
            term.expression = n(params.blockLinear) + " block-matrix params x " +
                              perValue(s.precision.weights);
            if (kept)
                term.expression += " + " + n(kept) + " embedding, lm_head and norm params x " +
                                   perValue(keep);
            term.expression += perGpuNote(sharded);
            term.notes.push_back("Embeddings, lm_head, norms and biases are not quantized "
                                 "(bitsandbytes and GPTQ keep them 16-bit).");
        }
    }
    if (formulas && sharded)
        term.notes.push_back("ZeRO-3/FSDP shards the parameters; the gathered layers being "
                             "computed are counted under workspace.");
    if (s.task == Task::Train && s.train.method != Method::Full && trainable) {
        // The LoRA adapters are weights too, in their own dtype.
        // ZeRO-3/FSDP shard them with the rest of each wrapped block.
        const std::uint64_t adapters = ceilDiv(
            ceilDiv(mulChecked(trainable, byteSize(trainableDType), "weights"), modelSplit()), dp);
        term.bytes = addChecked(term.bytes, adapters, "weights");
        if (formulas)
            term.expression += " + " + n(trainable) + " adapter params x " + perValue(trainableDType) +
                               (sharded ? " / " + n(dp) + " GPUs" : std::string());
    }
    return term;
}

/// The loss buffers when backward starts. The fp32 path (Hugging Face: logits upcast, then
/// log-softmax in fp32) runs log_softmax's backward with three fp32 tensors alive: the saved
/// output, its incoming gradient (from nll_loss) and the gradient it produces.
Term Estimator::lossBackward(const Term &forwardLogits)
{
    if (s.kernels.loss != Loss::Standard || s.kernels.profile != Profile::HuggingFace)
        return forwardLogits;
    Term term;
    const std::uint64_t tokens = std::uint64_t(s.train.microBatch) * s.train.seqLen;
    term.bytes = productChecked("logits", tokens, std::uint64_t(m.vocab), 12) / s.parallel.tensor;
    if (formulas) {
        term.expression = n(tokens) + " tokens x " + n(m.vocab) + " vocab x 12 B";
        if (s.parallel.tensor > 1)
            term.expression += " / " + n(s.parallel.tensor) + " (tensor parallel)";
        term.notes.push_back("Backward through the fp32 log-softmax: its saved output, the incoming "
                             "gradient and the input gradient, 4 B each.");
    }
    return term;
}

/// Autocast (fp32 weights, 16-bit compute, weights not gathered by ZeRO-3/FSDP): each matmul
/// casts its weight on use, and backward needs the copy. Trainable weights' copies are cached
/// until the forward ends; frozen weights' copies are kept by the graph unless checkpointed.
Term Estimator::autocastCopies()
{
    Term term;
    if (s.task != Task::Train || isQuantized(s.precision.weights) ||
        dtypeBits(s.precision.weights) <= dtypeBits(s.precision.compute) || shards(Strategy::Zero3) ||
        s.parallel.offloadParams)
        return term;
    // The lm_head matmul casts its own weight, or the tied embedding matrix.
    const std::uint64_t head = params.lmHead ? params.lmHead
                                             : std::uint64_t(m.vocab) * std::uint64_t(m.hidden);
    const std::uint64_t matrices = addChecked(params.blockLinear, head, "weights");
    term.bytes = ceilDiv(mulChecked(matrices, compute, "weights"), modelSplit());
    if (formulas) {
        term.expression = n(matrices) + " matmul weights x " + n(compute) +
                          " B (autocast copies for backward)";
        if (modelSplit() > 1)
            term.expression += " / " + n(modelSplit()) + " (tensor x pipeline)";
        term.notes.push_back("Autocast casts each fp32 weight to the compute dtype on use; the copies "
                             "live until the backward pass has used them.");
    }
    return term;
}

Term Estimator::quantMetadata()
{
    Term term;
    const DType dtype = s.precision.weights;
    if (!isQuantized(dtype))
        return term;
    const std::uint64_t quantized = params.blockLinear;
    const std::uint64_t matricesPerLayer = matrixShapes(m).size() - 1;
    switch (dtype) {
    case DType::NF4:
    case DType::FP4: {
        const std::uint64_t blocks = ceilDiv(quantized, 64);
        if (s.precision.doubleQuant) {
            const std::uint64_t groups = ceilDiv(blocks, 256);
            term.bytes = blocks + groups * 4;
            if (formulas)
                term.expression = n(blocks) + " blocks of 64 x 1 B (8-bit absmax) + " + n(groups) +
                                  " groups of 256 blocks x 4 B (fp32 scale)";
        } else {
            term.bytes = blocks * 4;
            if (formulas)
                term.expression = n(blocks) + " blocks of 64 x 4 B (fp32 absmax)";
        }
        if (formulas)
            term.notes.push_back("bitsandbytes 4-bit: one absmax per 64 weights; double "
                                 "quantization stores it in 8 bits with an fp32 scale per 256 blocks.");
        break;
    }
    case DType::INT4: {
        const std::uint64_t groups = ceilDiv(quantized, 128);
        term.bytes = groups * 4;
        if (formulas) {
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
        if (formulas) {
            term.expression = n(rows) + " output rows x 4 B (fp32 scale)";
            term.notes.push_back("LLM.int8(): one fp32 scale per output row.");
        }
        break;
    }
    default: { // fp8: one fp32 scale per matrix
        const std::uint64_t matrices = matricesPerLayer * std::uint64_t(m.layers);
        term.bytes = matrices * 4;
        if (formulas)
            term.expression = n(matrices) + " matrices x 4 B (fp32 per-tensor scale)";
        break;
    }
    }
    term.bytes = ceilDiv(term.bytes, modelSplit());
    if (shards(Strategy::Zero3))
        term.bytes = ceilDiv(term.bytes, dataParallel());
    return term;
}

Term Estimator::masterWeights()
{
    Term term;
    if (!s.train.masterWeights || dtypeBits(trainableDType) == 32)
        return term;
    const bool sharded = shards(Strategy::Zero1);
    term.bytes = ceilDiv(ceilDiv(mulChecked(trainable, 4, "master weights"), modelSplit()),
                         sharded ? dataParallel() : 1);
    if (formulas) {
        term.expression = n(trainable) + " trainable params x 4 B (fp32 copy)" + perGpuNote(sharded);
        term.notes.push_back("Mixed precision keeps an fp32 master copy that the optimizer updates.");
    }
    return term;
}

Term Estimator::gradients(bool firstOnly, bool optimizerInBackward)
{
    Term term;
    const std::uint64_t bytesPer = byteSize(gradDType);
    if (optimizerInBackward) {
        term.bytes = mulChecked(largestTrainable, bytesPer, "gradients");
        if (formulas)
            term.expression = n(largestTrainable) + " params of the largest tensor x " +
                              perValue(gradDType) + " (optimizer in backward frees each gradient)";
        return term;
    }
    if (firstOnly) {
        term.bytes = ceilDiv(mulChecked(lmHeadTrainable, bytesPer, "gradients"), s.parallel.tensor);
        if (formulas && term.bytes)
            term.expression = n(lmHeadTrainable) + " lm_head params x " + perValue(gradDType) +
                              " (the first gradient when backward starts)";
        return term;
    }
    const bool sharded = shards(Strategy::Zero2);
    if (flatParamGradients()) {
        // FSDP1 flattens each wrapped block into one FlatParameter; when it mixes frozen and
        // trainable weights the gradient covers all of them. Under no_sync accumulation the
        // gradient stays unsharded until the last micro-batch.
        const std::uint64_t blocks = addChecked(addChecked(params.blockLinear, params.smallTensors, "gradients"),
                                                trainable, "gradients");
        const std::uint64_t bytesPerFlat = byteSize(dtypeBits(s.precision.weights) >= 16 ? s.precision.weights : DType::BF16);
        const bool unsharded = s.train.gradAccum > 1;
        term.bytes = ceilDiv(ceilDiv(mulChecked(blocks, bytesPerFlat, "gradients"), modelSplit()),
                             unsharded ? 1 : dataParallel());
        if (formulas) {
            term.expression = n(blocks) + " block params (frozen ones too) x " + n(bytesPerFlat) + " B" +
                              (unsharded ? " (unsharded under no_sync)" : perGpuNote(true));
            term.notes.push_back("FSDP flat parameters mix frozen and trainable weights, so every "
                                 "weight of a wrapped block gets a gradient (PyTorch FSDP notes; "
                                 "LitGPT issue #1417).");
        }
        return term;
    }
    term.bytes = ceilDiv(ceilDiv(mulChecked(trainable, bytesPer, "gradients"), modelSplit()),
                         sharded ? dataParallel() : 1);
    const bool ddpBuckets = !sharded && dataParallel() > 1;
    if (ddpBuckets)
        term.bytes = mulChecked(term.bytes, 2, "gradients");
    if (formulas) {
        term.expression = n(trainable) + " trainable params x " + perValue(gradDType) +
                          perGpuNote(sharded) + (ddpBuckets ? " x 2 (DDP buckets)" : "");
        if (ddpBuckets)
            term.notes.push_back("DDP copies gradients into all-reduce buckets unless "
                                 "gradient_as_bucket_view=True.");
        if (s.train.gradAccum > 1)
            term.notes.push_back("With gradient accumulation the gradients stay alive across "
                                 "micro-batches, so they are counted in the forward phase too.");
    }
    return term;
}

Term Estimator::optimizerState()
{
    Term term;
    const bool sharded = shards(Strategy::Zero1);
    const std::uint64_t stateBytes = byteSize(stateDType);
    std::string what;
    switch (s.train.optimizer) {
    case Optimizer::AdamW:
        term.bytes = mulChecked(trainable, 2 * stateBytes, "optimizer state");
        if (formulas)
            what = n(trainable) + " trainable params x 2 states x " + perValue(stateDType);
        break;
    case Optimizer::PagedAdamW:
        // bitsandbytes' 32-bit optimizers keep fp32 states whatever the parameter dtype.
        term.bytes = mulChecked(trainable, 8, "optimizer state");
        if (formulas)
            what = n(trainable) + " trainable params x 2 states x 4 B (fp32, bitsandbytes 32-bit)";
        break;
    case Optimizer::AdamW8bit:
    case Optimizer::PagedAdamW8bit: {
        const std::uint64_t blocks = ceilDiv(trainable, 2048);
        term.bytes = addChecked(mulChecked(trainable, 2, "optimizer state"), blocks * 8,
                                "optimizer state");
        if (formulas) {
            what = n(trainable) + " trainable params x 2 states x 1 B (8-bit) + " + n(blocks) +
                   " blocks of 2048 x 2 x 4 B (fp32 absmax)";
        }
        break;
    }
    case Optimizer::Sgd:
    case Optimizer::None:
        if (formulas)
            what = "no optimizer state";
        break;
    case Optimizer::SgdMomentum:
    case Optimizer::Lion:
        term.bytes = mulChecked(trainable, stateBytes, "optimizer state");
        if (formulas)
            what = n(trainable) + " trainable params x 1 state (momentum) x " + perValue(stateDType);
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
            factored += 2 * (std::uint64_t(m.vocab) + m.hidden) + params.smallTensors;
        } else {
            factored = trainable / std::max<std::uint64_t>(1, s.train.lora.rank) * 2;
        }
        term.bytes = mulChecked(factored, 4, "optimizer state");
        if (formulas)
            what = n(factored) + " row and column factors x 4 B (fp32)";
        break;
    }
    }
    term.bytes = ceilDiv(ceilDiv(term.bytes, modelSplit()), sharded ? dataParallel() : 1);
    if (formulas) {
        term.expression = what + (term.bytes ? perGpuNote(sharded) : "");
        if (s.train.optimizer == Optimizer::AdamW)
            term.notes.push_back("AdamW keeps two running statistics per trainable parameter, in "
                                 "the dtype of the parameters it updates (fp32 with master weights).");
        term.notes.push_back("Allocated at the first optimizer step and kept for the whole run.");
    }
    return term;
}

Term Estimator::optimizerTemporaries()
{
    Term term;
    // torch.optim's foreach path makes temporaries the size of one state; fused and
    // bitsandbytes kernels do not.
    if (s.kernels.profile != Profile::HuggingFace ||
        (s.train.optimizer != Optimizer::AdamW && s.train.optimizer != Optimizer::Lion))
        return term;
    term.bytes = ceilDiv(mulChecked(trainable, byteSize(stateDType), "optimizer temporaries"),
                         modelSplit());
    if (shards(Strategy::Zero1))
        term.bytes = ceilDiv(term.bytes, dataParallel());
    if (formulas)
        term.expression = n(trainable) + " params x " + perValue(stateDType) +
                          " (foreach AdamW temporary)";
    return term;
}

void Estimator::buildActivations()
{
    const LayerInventory inv = trainingInventory(s);
    const std::uint64_t tokens = std::uint64_t(s.train.microBatch) * s.train.seqLen;
    const std::uint64_t layers = ceilDiv(std::uint64_t(m.layers), s.parallel.pipeline);
    const std::uint64_t tensor = s.parallel.tensor;
    // 1F1B: the first pipeline stage keeps up to `pipeline` micro-batches in flight.
    const std::uint64_t inFlight =
        s.parallel.pipeline > 1 ? std::min<std::uint64_t>(s.parallel.pipeline, s.train.gradAccum) : 1;
    const char *what = "activations";
    const std::uint64_t finalNorm = mulChecked(tokens, inv.finalNormBytesPerToken, what);
    const double c = s.train.activationConstant;
    const Checkpointing ckpt = s.train.checkpointing;

    // Seed 000's rule of thumb replaces the inventory when the user sets c:
    // batch x seq x hidden x layers x bytes x c.
    const std::uint64_t perToken =
        c > 0 ? static_cast<std::uint64_t>(std::llround(double(m.hidden) * double(compute) * c))
              : inv.bytesPerToken;
    const std::uint64_t finalNormBytes = c > 0 ? 0 : finalNorm;
    const std::uint64_t layerBytes = mulChecked(tokens, perToken, what);
    const bool opSelective = ckpt == Checkpointing::SelectiveOp && c <= 0;
    const std::uint64_t keptPerToken = ckpt == Checkpointing::Full ? inv.layerInputBytesPerToken
                                       : opSelective               ? inv.opSelectiveBytesPerToken
                                                                   : perToken;
    const std::uint64_t stored = addChecked(
        mulChecked(mulChecked(tokens, keptPerToken, what), layers, what), finalNormBytes, what);
    savedActivations.bytes = ceilDiv(mulChecked(stored, inFlight, what), tensor);
    if (formulas) {
        if (c > 0 && ckpt != Checkpointing::Full) {
            savedActivations.expression = n(s.train.microBatch) + " batch x " + n(s.train.seqLen) +
                                          " seq x " + n(m.hidden) + " hidden x " + n(layers) +
                                          " layers x " + n(compute) + " B x c " + formatDecimal(c);
        } else {
            savedActivations.expression =
                n(layers) + " layers x " + n(tokens) + " tokens x " + n(keptPerToken) +
                " B per token-layer" +
                (ckpt == Checkpointing::Full ? " (checkpointed layer inputs)"
                 : opSelective               ? " (op-level selective checkpointing)"
                                             : "");
            if (finalNormBytes)
                savedActivations.expression +=
                    " + " + n(tokens) + " tokens x " + n(inv.finalNormBytesPerToken) + " B (final norm)";
        }
        if (inFlight > 1)
            savedActivations.expression =
                "(" + savedActivations.expression + ") x " + n(inFlight) + " micro-batches in flight";
        if (tensor > 1)
            savedActivations.expression += " / " + n(tensor) + " (tensor parallel)";
        if (c > 0) {
            savedActivations.notes.push_back("Seed 000's rule of thumb with c = " + formatDecimal(c) +
                                             " instead of the per-tensor inventory.");
        } else {
            const double equivalentC = static_cast<double>(inv.bytesPerToken) /
                                       static_cast<double>(std::uint64_t(m.hidden) * compute);
            savedActivations.notes.push_back(
                "Per-tensor inventory of one block (" + std::string(enumName(s.kernels.profile)) +
                " profile): " + n(inv.bytesPerToken) + " B per token, seed 000's c = " +
                formatDecimal(equivalentC, 1) + ".");
            for (const SavedTensor &t : inv.tensors)
                savedActivations.notes.push_back(std::string(t.name) + ": " + n(t.valuesPerToken) +
                                                 " values x " + n(t.bytesPerValue) + " B (" + t.why + ")");
        }
        if (ckpt == Checkpointing::Full)
            savedActivations.notes.push_back("Full checkpointing keeps each block's input and "
                                             "recomputes one block at a time in backward.");
        if (opSelective)
            savedActivations.notes.push_back(
                "Op-level selective checkpointing (torchtitan) keeps each block's input, the "
                "attention outputs and every other matmul output (" +
                n(inv.opSelectiveBytesPerToken) + " B per token-layer); the rest of a block is "
                "recomputed in backward.");
    }
    if (ckpt == Checkpointing::Full || opSelective) {
        recomputeLayer.bytes = ceilDiv(layerBytes, tensor);
        if (formulas)
            recomputeLayer.expression =
                "1 recomputed layer: " + n(tokens) + " tokens x " + n(perToken) + " B";
    }

    if (s.kernels.attention == Attention::Eager) {
        const std::uint64_t oneLayer =
            productChecked("attention scores", std::uint64_t(s.train.microBatch), std::uint64_t(m.heads),
                           std::uint64_t(s.train.seqLen), std::uint64_t(s.train.seqLen),
                           inv.scoreBytesPerElement) / tensor;
        const std::string oneLayerText = n(s.train.microBatch) + " batch x " + n(m.heads) +
                                         " heads x " + n(s.train.seqLen) + "^2 x " +
                                         n(inv.scoreBytesPerElement) + " B";
        if (ckpt == Checkpointing::None) {
            savedScores.bytes = mulChecked(mulChecked(oneLayer, layers, "attention scores"), inFlight,
                                           "attention scores");
            if (formulas)
                savedScores.expression = n(layers) + " layers x " + oneLayerText;
        }
        transientScores.bytes = oneLayer;
        if (formulas)
            transientScores.expression = "1 layer x " + oneLayerText + " (recomputed in backward)";
        if (formulas) {
            const char *note = s.kernels.profile == Profile::HuggingFace
                                   ? "Eager attention keeps the softmax in fp32 and a cast copy "
                                     "(4 + 2 B per score)."
                                   : "Eager attention keeps the softmax output (one score matrix).";
            savedScores.notes.push_back(note);
            transientScores.notes.push_back(note);
        }
    }
}

Term Estimator::logits()
{
    Term term;
    const bool training = s.task == Task::Train;
    const std::uint64_t tokens = training ? std::uint64_t(s.train.microBatch) * s.train.seqLen
                                          : std::uint64_t(s.inference.batch);
    const std::uint64_t vocab = m.vocab;
    const char *what = "logits";
    if (!training) {
        const std::uint64_t perValue = compute + 4;
        term.bytes = productChecked(what, tokens, vocab, perValue) / s.parallel.tensor;
        if (formulas)
            term.expression = n(tokens) + " last tokens x " + n(vocab) + " vocab x " + n(perValue) +
                              " B (logits + fp32 copy for sampling)";
        if (s.inference.promptLogits == PromptLogits::All) {
            // The prefill runs the lm_head on every prompt position (transformers before
            // logits_to_keep); generate() holds that output until the next step's forward returns.
            const std::uint64_t prompt = mulChecked(tokens, s.inference.context, what);
            term.bytes = addChecked(term.bytes,
                                    productChecked(what, prompt, vocab, compute) / s.parallel.tensor,
                                    what);
            if (formulas) {
                term.expression += " + " + n(prompt) + " prompt tokens x " + n(vocab) + " vocab x " +
                                   n(compute) + " B (prefill logits for every position)";
                term.notes.push_back("The prefill's logits for the whole prompt stay referenced "
                                     "through the first decode step.");
            }
        }
        return term;
    }
    if (s.kernels.loss == Loss::Fused) {
        // Liger-style fused linear cross-entropy: chunks of ~tokens / ceil(vocab / hidden)
        // rows, plus the precomputed fp32 gradient of the hidden states.
        const std::uint64_t chunks = std::max<std::uint64_t>(1, ceilDiv(vocab, m.hidden));
        const std::uint64_t chunkTokens = ceilDiv(tokens, chunks);
        term.bytes = addChecked(productChecked(what, chunkTokens, vocab, compute + 4),
                                productChecked(what, tokens, std::uint64_t(m.hidden), 4), what);
        if (formulas) {
            term.expression = n(chunkTokens) + " tokens per chunk x " + n(vocab) + " vocab x " +
                              n(compute + 4) + " B + " + n(tokens) + " tokens x " + n(m.hidden) +
                              " hidden x 4 B (fp32 input gradient)";
            term.notes.push_back("Fused linear cross-entropy never materialises the full logits.");
        }
        return term;
    }
    const std::uint64_t perValue = logitBytesPerValue(s);
    term.bytes = productChecked(what, tokens, vocab, perValue) / s.parallel.tensor;
    if (formulas) {
        term.expression = n(tokens) + " tokens x " + n(vocab) + " vocab x " + n(perValue) + " B";
        if (s.kernels.loss == Loss::Chunked)
            term.notes.push_back("Logits in the compute dtype; one of 8 chunks upcast to fp32 with "
                                 "its log-softmax at a time.");
        else if (s.kernels.profile == Profile::HuggingFace)
            term.notes.push_back("Logits in the compute dtype, an fp32 upcast and the fp32 "
                                 "log-softmax (or its gradient): often all at once.");
        else
            term.notes.push_back("Logits in the compute dtype and an fp32 log-softmax.");
    }
    return term;
}

Term Estimator::workspace(bool withOptimizerTemporaries)
{
    Term term;
    term.bytes = static_cast<std::uint64_t>(std::llround(s.overhead.workspaceMiB * kMiB));
    if (formulas)
        term.expression = formatDecimal(s.overhead.workspaceMiB) + " MiB (cuBLAS/cuDNN workspace)";
    if (isQuantized(s.precision.weights)) {
        // Dequantisation makes a transient 16-bit copy of one matrix at a time (the largest
        // may be the lm_head: LitGPT's bitsandbytes precision quantizes every Linear).
        const std::uint64_t largest = params.largestMatrix;
        const std::uint64_t copy = mulChecked(largest, 2, "workspace");
        term.bytes = addChecked(term.bytes, copy, "workspace");
        if (formulas)
            term.expression += " + " + n(largest) + " x 2 B (dequantised matrix)";
    }
    if (shards(Strategy::Zero3) || s.parallel.offloadParams) {
        // The layer being computed and the prefetched next one, gathered in the compute dtype,
        // or as stored (4/8-bit block matrices, 16-bit rest) when the weights are quantized.
        std::uint64_t gathered = 0;
        std::string perLayerText;
        if (isQuantized(s.precision.weights)) {
            const std::uint64_t layers = std::max<std::uint64_t>(1, m.layers);
            const std::uint64_t linear = params.blockLinear / layers;
            const std::uint64_t rest = params.perLayer > linear ? params.perLayer - linear : 0;
            gathered = addChecked(bitsToBytes(linear, dtypeBits(s.precision.weights), "workspace"),
                                  mulChecked(rest, 2, "workspace"), "workspace");
            gathered = mulChecked(gathered, 2, "workspace") / s.parallel.tensor;
            perLayerText = "(" + n(linear) + " x " + perValue(s.precision.weights) + " + " + n(rest) +
                           " x 2 B)";
        } else {
            gathered = mulChecked(params.perLayer, 2 * compute, "workspace") / s.parallel.tensor;
            perLayerText = n(params.perLayer) + " x " + n(compute) + " B";
        }
        term.bytes = addChecked(term.bytes, gathered, "workspace");
        if (formulas)
            term.expression += " + 2 gathered layers x " + perLayerText;
        if (s.parallel.strategy == Strategy::Fsdp && !s.parallel.offloadParams) {
            // FSDP's root unit (embeddings, final norm, lm_head) is gathered for the forward and
            // again for the whole backward, which starts at the lm_head.
            const std::uint64_t root = params.embeddings + params.lmHead;
            term.bytes = addChecked(term.bytes, mulChecked(root, compute, "workspace") / s.parallel.tensor,
                                    "workspace");
            if (formulas)
                term.expression += " + " + n(root) + " root-unit params (embeddings, lm_head) x " +
                                   n(compute) + " B gathered";
        }
    }
    if (withOptimizerTemporaries) {
        const Term temp = optimizerTemporaries();
        term.bytes = addChecked(term.bytes, temp.bytes, "workspace");
        if (formulas && temp.bytes)
            term.expression += " + " + temp.expression;
    }
    return term;
}

Term Estimator::kvCache()
{
    Term term;
    const std::uint64_t layers = ceilDiv(std::uint64_t(m.layers), s.parallel.pipeline);
    std::uint64_t context = s.inference.context;
    const bool windowed = m.slidingWindow > 0 && context > std::uint64_t(m.slidingWindow);
    if (windowed)
        context = m.slidingWindow;
    const std::uint64_t kvHeads = ceilDiv(std::uint64_t(m.kvHeads), s.parallel.tensor);
    term.bytes = bitsToBytes(productChecked("KV cache", 2, layers, kvHeads, std::uint64_t(m.headDim),
                                            std::uint64_t(s.inference.batch), context),
                             dtypeBits(s.inference.kvDType), "KV cache");
    if (formulas) {
        term.expression = "2 (K and V) x " + n(layers) + " layers x " + n(kvHeads) + " kv_heads x " +
                          n(m.headDim) + " head_dim x " + perValue(s.inference.kvDType) + " x " +
                          n(s.inference.batch) + " sequences x " + n(context) + " tokens";
        if (windowed)
            term.notes.push_back("Sliding-window attention caps each layer's cache at " +
                                 n(m.slidingWindow) + " tokens.");
        term.notes.push_back("Sized for the whole context of every concurrent sequence.");
    }
    return term;
}

Phase Estimator::finishPhase(PhaseId id, const Composition &parts)
{
    Phase phase;
    phase.id = id;
    for (int i = 0; i < kConsumerCount; ++i) {
        phase.bytes[static_cast<std::size_t>(i)] = parts[static_cast<std::size_t>(i)].bytes;
        phase.allocatedBytes = addChecked(phase.allocatedBytes,
                                          parts[static_cast<std::size_t>(i)].bytes, "peak");
    }
    compositions.push_back(parts);
    return phase;
}

/// Adds two terms into one (e.g. saved activations and a recomputed layer).
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

void Estimator::trainingPhases(Estimate &e)
{
    using C = ConsumerId;
    auto at = [](Composition &c, C id) -> Term & { return c[static_cast<std::size_t>(id)]; };

    Composition load;
    at(load, C::Weights) = weights();
    at(load, C::QuantMetadata) = quantMetadata();
    at(load, C::MasterWeights) = masterWeights();
    Term state = optimizerState();
    if (s.parallel.offloadOptimizer) {
        e.hostBytes = addChecked(e.hostBytes, addChecked(state.bytes, at(load, C::MasterWeights).bytes,
                                                         "host memory"), "host memory");
        if (formulas) {
            state.notes.push_back("Offloaded to CPU RAM (ZeRO-Offload): not on the GPU.");
            at(load, C::MasterWeights).notes.push_back("Offloaded to CPU RAM with the optimizer.");
        }
        state.bytes = 0;
        at(load, C::MasterWeights).bytes = 0;
    }
    if (s.parallel.offloadParams) {
        e.hostBytes = addChecked(e.hostBytes, at(load, C::Weights).bytes, "host memory");
        at(load, C::Weights).bytes = 0;
    }
    const bool paged =
        s.train.optimizer == Optimizer::PagedAdamW || s.train.optimizer == Optimizer::PagedAdamW8bit;
    if (paged && state.bytes && trainable) {
        // Paged state lives in CUDA managed memory (cudaMallocManaged), outside PyTorch's
        // caching allocator: max_memory_allocated/reserved never see it, and the driver moves
        // it to CPU RAM when the GPU is full. Counted as host memory.
        const std::uint64_t pagedBytes = static_cast<std::uint64_t>(
            static_cast<double>(state.bytes) * static_cast<double>(pagedTrainable) / static_cast<double>(trainable));
        state.bytes -= std::min(pagedBytes, state.bytes);
        e.hostBytes = addChecked(e.hostBytes, pagedBytes, "host memory");
        if (formulas)
            state.notes.push_back("Paged optimizer: the state of tensors of 100,000 elements or more (" +
                                  formatBytes(pagedBytes, Unit::GB) +
                                  ") is CUDA managed memory outside PyTorch's allocator, not in "
                                  "max_memory_allocated(); counted under CPU RAM.");
    }
    e.phases.push_back(finishPhase(PhaseId::Load, load));

    buildActivations();
    const bool accumulating = s.train.gradAccum > 1;
    const bool inBackward = s.train.optimizerInBackward;
    Term fullGrads = gradients(false, false);
    if (s.parallel.offloadOptimizer && shards(Strategy::Zero2) && !inBackward && fullGrads.bytes) {
        // ZeRO-Offload and FSDP's CPU offload copy each reduced gradient shard to CPU RAM for the
        // CPU optimizer step; the GPU holds the gradients of the layer being reduced.
        e.hostBytes = addChecked(e.hostBytes, fullGrads.bytes, "host memory");
        const std::uint64_t layers = std::max<std::uint64_t>(1, m.layers);
        const std::uint64_t perLayer = ceilDiv(trainable, layers);
        Term layer;
        layer.bytes = ceilDiv(mulChecked(perLayer, byteSize(gradDType), "gradients"), modelSplit());
        if (formulas) {
            layer.expression = n(perLayer) + " trainable params of one layer x " + perValue(gradDType) +
                               " (before its reduce-scatter)";
            layer.notes.push_back("Offloaded optimizer: the sharded gradients (" +
                                  formatBytes(fullGrads.bytes, Unit::GB) +
                                  ") are copied to CPU RAM as they are reduced.");
        }
        fullGrads = layer;
    }
    const Term logitTerm = logits();
    const Term work = workspace(false);

    Composition base = load;
    at(base, C::OptimizerState) = state;
    at(base, C::Workspace) = work;

    // Autocast weight copies: trainable ones stay cached through the forward even when the
    // blocks are checkpointed; every copy is alive when backward starts without checkpointing.
    const Term casts = autocastCopies();
    const bool checkpointed = s.train.checkpointing == Checkpointing::Full ||
                              s.train.checkpointing == Checkpointing::SelectiveOp;
    const bool castsInForward = !checkpointed || s.train.method == Method::Full;
    Composition forward = base;
    if (castsInForward)
        at(forward, C::Weights) = combine(at(base, C::Weights), casts, formulas);
    if (accumulating && !inBackward)
        at(forward, C::Gradients) = fullGrads;
    at(forward, C::Activations) = savedActivations;
    at(forward, C::AttentionScores) = savedScores;
    at(forward, C::Logits) = logitTerm;
    e.phases.push_back(finishPhase(PhaseId::Forward, forward));

    // Backward: at its start everything saved is alive (plus one recomputed layer); at its end
    // the gradients are complete and one layer's activations remain. The phase is the larger.
    Composition start = forward;
    if (!accumulating || inBackward)
        at(start, C::Gradients) = gradients(!inBackward, inBackward);
    at(start, C::Activations) = combine(savedActivations, recomputeLayer, formulas);
    at(start, C::Logits) = lossBackward(logitTerm);
    if (checkpointed)
        at(start, C::Weights) = at(base, C::Weights);
    if (s.train.checkpointing != Checkpointing::None)
        at(start, C::AttentionScores) = transientScores;
    Composition end = base;
    at(end, C::Gradients) = inBackward ? gradients(false, true) : fullGrads;
    Term lastLayer = recomputeLayer;
    if (lastLayer.bytes == 0) {
        // Without checkpointing the last block's saved tensors are the last to go.
        const std::uint64_t layers = ceilDiv(std::uint64_t(m.layers), s.parallel.pipeline);
        lastLayer.bytes = savedActivations.bytes / std::max<std::uint64_t>(1, layers);
        if (formulas)
            lastLayer.expression = "the last block's saved tensors: " + savedActivations.expression +
                                   " / " + n(layers) + " layers";
    }
    at(end, C::Activations) = lastLayer;
    // The block being finished keeps its attention scores too (recomputed or saved).
    at(end, C::AttentionScores) = transientScores;
    std::uint64_t startTotal = 0, endTotal = 0;
    for (int i = 0; i < kConsumerCount; ++i) {
        startTotal += start[static_cast<std::size_t>(i)].bytes;
        endTotal += end[static_cast<std::size_t>(i)].bytes;
    }
    e.phases.push_back(finishPhase(PhaseId::Backward, startTotal >= endTotal ? start : end));

    Composition step = base;
    if (!inBackward)
        at(step, C::Gradients) = fullGrads;
    at(step, C::Workspace) = workspace(!inBackward);
    e.phases.push_back(finishPhase(PhaseId::Optimizer, step));
}

void Estimator::inferencePhases(Estimate &e)
{
    using C = ConsumerId;
    auto at = [](Composition &c, C id) -> Term & { return c[static_cast<std::size_t>(id)]; };
    Composition load;
    at(load, C::Weights) = weights();
    at(load, C::QuantMetadata) = quantMetadata();
    if (s.parallel.offloadParams) {
        e.hostBytes = at(load, C::Weights).bytes;
        at(load, C::Weights).bytes = 0;
    }
    e.phases.push_back(finishPhase(PhaseId::Load, load));

    const std::uint64_t perToken = inferenceWorkingBytesPerToken(s);
    const std::uint64_t batch = s.inference.batch;
    const std::uint64_t context = s.inference.context;
    const std::uint64_t scoreBytes = s.kernels.profile == Profile::HuggingFace ? 4 + compute : compute;
    auto working = [&](std::uint64_t tokens, const char *label) {
        Term t;
        t.bytes = mulChecked(tokens, perToken, "activations") / s.parallel.tensor;
        if (formulas) {
            t.expression = n(tokens) + " " + label + " tokens x " + n(perToken) +
                           " B (one block's working set)";
            t.notes.push_back("Inference keeps nothing for backward: only the block being "
                              "computed holds intermediates.");
        }
        return t;
    };
    auto scores = [&](std::uint64_t queries) {
        Term t;
        if (s.kernels.attention != Attention::Eager)
            return t;
        t.bytes = productChecked("attention scores", batch, std::uint64_t(m.heads), queries, context,
                                 scoreBytes) / s.parallel.tensor;
        if (formulas)
            t.expression = n(batch) + " batch x " + n(m.heads) + " heads x " + n(queries) + " x " +
                           n(context) + " x " + n(scoreBytes) + " B (one layer, transient)";
        return t;
    };

    Composition prefill = load;
    at(prefill, C::KvCache) = kvCache();
    at(prefill, C::Activations) = working(mulChecked(batch, context, "activations"), "prompt");
    at(prefill, C::AttentionScores) = scores(context);
    at(prefill, C::Logits) = logits();
    at(prefill, C::Workspace) = workspace(false);
    e.phases.push_back(finishPhase(PhaseId::Prefill, prefill));

    Composition decode = prefill;
    at(decode, C::Activations) = working(batch, "new");
    at(decode, C::AttentionScores) = scores(1);
    if (s.inference.kvCache == KvCache::Concat) {
        // torch.cat builds each layer's next cache while generate() still holds the previous
        // step's tuple: at the last layer both caches are alive.
        Term &kv = at(decode, C::KvCache);
        kv.bytes = mulChecked(kv.bytes, 2, "KV cache");
        if (formulas) {
            kv.expression = "2 (previous and new cache) x " + kv.expression;
            kv.notes.push_back("Concatenating caches (legacy tuples): the previous step's cache "
                               "lives until the new one is complete.");
        }
    }
    e.phases.push_back(finishPhase(PhaseId::Decode, decode));
}

Estimate Estimator::run()
{
    Estimate e;
    countTrainable();
    e.totalParams = params.total;
    e.trainableParams = trainable;
    e.rough = m.rough;
    e.errorBandPercent = errorBandPercent(s);
    if (s.task == Task::Train)
        trainingPhases(e);
    else
        inferencePhases(e);

    std::size_t peakIndex = 0;
    for (std::size_t i = 1; i < e.phases.size(); ++i)
        if (e.phases[i].allocatedBytes > e.phases[peakIndex].allocatedBytes)
            peakIndex = i;
    const Phase &peakPhase = e.phases[peakIndex];
    e.peak.phase = peakPhase.id;
    e.peak.allocatedBytes = peakPhase.allocatedBytes;

    const double fragmentation = static_cast<double>(e.peak.allocatedBytes) * s.overhead.fragmentation;
    if (!(fragmentation < 1.8e19))
        throw OverflowError("fragmentation");
    const std::uint64_t fragmentationBytes = static_cast<std::uint64_t>(std::llround(fragmentation));
    const std::uint64_t contextBytes =
        static_cast<std::uint64_t>(std::llround(s.overhead.cudaContextMiB * kMiB));
    e.peak.reservedBytes = addChecked(e.peak.allocatedBytes, fragmentationBytes, "peak");
    e.peak.deviceBytes = addChecked(e.peak.reservedBytes, contextBytes, "peak");

    Composition &parts = compositions[peakIndex];
    using C = ConsumerId;
    parts[static_cast<std::size_t>(C::Fragmentation)].bytes = fragmentationBytes;
    parts[static_cast<std::size_t>(C::CudaContext)].bytes = contextBytes;
    if (formulas) {
        parts[static_cast<std::size_t>(C::Fragmentation)].expression =
            groupDigits(e.peak.allocatedBytes) + " B allocated x " +
            formatDecimal(s.overhead.fragmentation) + " (allocator caching)";
        parts[static_cast<std::size_t>(C::Fragmentation)].notes.push_back(
            "max_memory_reserved() is typically 5-15% above max_memory_allocated(); "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True narrows the gap.");
        parts[static_cast<std::size_t>(C::CudaContext)].expression =
            formatDecimal(s.overhead.cudaContextMiB) + " MiB (CUDA context and kernels)";
        parts[static_cast<std::size_t>(C::CudaContext)].notes.push_back(
            "Outside PyTorch's allocator: nvidia-smi shows it, max_memory_allocated() does not.");
    }
    for (int i = 0; i < kConsumerCount; ++i) {
        Term &term = parts[static_cast<std::size_t>(i)];
        if (term.bytes == 0)
            continue;
        Consumer consumer;
        consumer.id = static_cast<ConsumerId>(i);
        consumer.bytes = term.bytes;
        consumer.expression = std::move(term.expression);
        consumer.assumptions = std::move(term.notes);
        e.consumers.push_back(std::move(consumer));
    }

    for (const std::string &id : s.gpus) {
        const Gpu *gpu = catalog.findGpu(id);
        if (!gpu)
            continue;
        GpuFit fit;
        fit.id = gpu->id;
        fit.name = gpu->name;
        fit.capacityBytes = gpu->capacityBytes();
        fit.fits = e.peak.deviceBytes <= fit.capacityBytes;
        const auto clamp = [](std::uint64_t v) {
            return static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX));
        };
        fit.headroomBytes = fit.fits ? clamp(fit.capacityBytes - e.peak.deviceBytes)
                                     : -clamp(e.peak.deviceBytes - fit.capacityBytes);
        e.gpus.push_back(fit);
    }

    if (formulas) {
        if (m.rough)
            e.assumptions.push_back("Rough model: only parameters, hidden size and layers are "
                                    "known; every parameter is counted at the weight dtype and "
                                    "heads = hidden / 128.");
        if (s.task == Task::Train && s.train.gradAccum > 1)
            e.assumptions.push_back("Gradient accumulation (" + n(s.train.gradAccum) +
                                    " micro-batches) multiplies the effective batch, not the "
                                    "activations.");
        if (s.task == Task::Train && s.train.method != Method::Full &&
            s.train.checkpointing != Checkpointing::None)
            e.assumptions.push_back("LoRA with gradient checkpointing needs "
                                    "model.enable_input_require_grads(), or the loss never changes.");
        e.assumptions.push_back("Steady state: the optimizer state exists from the first step on.");
    }
    return e;
}

} // namespace

Estimate estimate(const Scenario &scenario, Detail detail, const Catalog &catalog)
{
    return Estimator(scenario, detail, catalog).run();
}

} // namespace headroom
