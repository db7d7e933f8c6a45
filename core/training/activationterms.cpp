// SPDX-License-Identifier: GPL-3.0-or-later
#include "training/activationterms.h"
#include "training/posttraining.h"

#include "training/activations.h"
#include "training/framework.h"
#include "scenario/checked.h"
#include "scenario/names.h"
#include "scenario/units.h"

#include <algorithm>
#include <cmath>

namespace headroom::detail {

ActivationTerms activationTerms(const EstimateContext &ctx)
{
    const Scenario &s = ctx.s;
    const ModelArch &m = ctx.m;
    const bool formulas = ctx.formulas;
    const std::uint64_t compute = ctx.compute;
    const ParallelLayout &par = ctx.parallel;
    const RankShare &share = ctx.share;
    ActivationTerms out;
    Term &savedActivations = out.saved;
    const ModelInventory model = trainingInventory(s);
    const auto [denseLayers, moeLayers] = model.split(share.layers);
    const LayerInventory &inv = model.denseLayers ? model.dense : model.moe;
    const std::uint64_t tokens = share.tokens;
    const std::uint64_t layers = share.layers;
    const std::uint64_t tensor = par.tensor;
    const bool sp = par.sequenceParallel;
    const char *what = "activations";
    const double c = s.train.activationConstant;
    const Checkpointing ckpt = s.train.checkpointing;
    const bool opSelective = ckpt == Checkpointing::SelectiveOp && c <= 0;

    // Bytes per token of one dense and one mixture-of-experts block on this rank, as kept.
    const auto kept = [&](const LayerInventory &layer) -> std::uint64_t {
        if (ckpt == Checkpointing::Full)
            return ceilDiv(layer.layerInputBytesPerToken, sp ? tensor : 1);
        if (opSelective)
            return ceilDiv(layer.opSelectiveBytesPerToken, tensor);
        return layer.perRank(tensor, sp);
    };
    // The rule of thumb of "Where the memory actually goes" replaces the inventory when the
    // user sets c: batch x seq x hidden x layers x bytes x c.
    const std::uint64_t ruleBytes = c > 0 ? ceilDiv(roundedBytes(double(m.hidden) * double(compute) * c, what), tensor) : 0;
    const std::uint64_t densePerToken = c > 0 ? ruleBytes : model.dense.perRank(tensor, sp);
    const std::uint64_t moePerToken = c > 0 ? ruleBytes : model.moe.perRank(tensor, sp);
    const std::uint64_t denseKept = c > 0 && ckpt != Checkpointing::Full ? ruleBytes : kept(model.dense);
    const std::uint64_t moeKept = c > 0 && ckpt != Checkpointing::Full ? ruleBytes : kept(model.moe);
    const std::uint64_t widestKept = std::max(denseLayers ? denseKept : 0, moeLayers ? moeKept : 0);
    const std::uint64_t finalNormBytes =
        c > 0 || !share.lmHead ? 0 : mulChecked(tokens, ceilDiv(model.finalNormBytesPerToken, sp ? tensor : 1), what);
    const std::uint64_t perMicroBatch = addChecked(
        mulChecked(tokens, addChecked(mulChecked(denseLayers, denseKept, what), mulChecked(moeLayers, moeKept, what), what), what),
        finalNormBytes, what);
    savedActivations.bytes =
        ceilDiv(mulChecked(perMicroBatch, share.inFlightNumerator, what), share.inFlightDenominator);
    // Activation offloading moves each block's saved tensors (with checkpointing: its input) to
    // pinned CPU memory as the forward goes on; the GPU keeps the block in flight, and in
    // backward the block brought back (torchtune OffloadActivations, Unsloth's and DeepSpeed's
    // CPU checkpoints).
    const bool offload = s.train.offloadActivations && layers > 1;
    std::uint64_t oneBlock = 0;
    if (offload) {
        oneBlock = mulChecked(tokens, widestKept, what);
        const std::uint64_t onGpu = addChecked(oneBlock, finalNormBytes, what);
        out.hostBytes = savedActivations.bytes > onGpu ? savedActivations.bytes - onGpu : 0;
        savedActivations.bytes = std::min(savedActivations.bytes, onGpu);
    }
    if (formulas) {
        std::string perLayer;
        if (c > 0 && ckpt != Checkpointing::Full) {
            perLayer = n(layers) + " layers x " + n(tokens) + " tokens x " + n(m.hidden) + " hidden x " +
                       n(compute) + " B x c " + formatDecimal(c) + (tensor > 1 ? " / " + n(tensor) + " (tensor parallel)" : "");
        } else {
            const char *kind = ckpt == Checkpointing::Full ? " (checkpointed layer inputs)"
                               : opSelective               ? " (op-level selective checkpointing)"
                                                           : "";
            if (denseLayers && moeLayers)
                perLayer = "(" + n(denseLayers) + " dense layers x " + n(denseKept) + " B + " + n(moeLayers) +
                           " mixture-of-experts layers x " + n(moeKept) + " B per token-layer" + kind + ") x " +
                           n(tokens) + " tokens";
            else
                perLayer = n(layers) + " layers x " + n(tokens) + " tokens x " + n(denseLayers ? denseKept : moeKept) +
                           " B per token-layer" + kind;
            if (finalNormBytes)
                perLayer += " + " + n(tokens) + " tokens x " + n(finalNormBytes / std::max<std::uint64_t>(1, tokens)) +
                            " B (final norm)";
        }
        savedActivations.expression = perLayer;
        if (share.inFlightNumerator != share.inFlightDenominator) {
            const std::string inFlight =
                share.inFlightDenominator == 1
                    ? n(share.inFlightNumerator)
                    : n(share.inFlightNumerator) + "/" + n(share.inFlightDenominator);
            savedActivations.expression = "(" + savedActivations.expression + ") x " + inFlight +
                                          " micro-batches in flight (" + enumName(par.schedule) + ")";
        }
        if (offload) {
            savedActivations.expression = "1 block in flight: " + n(tokens) + " tokens x " +
                                          n(widestKept) + " B" +
                                          (finalNormBytes ? " + final norm" : std::string()) +
                                          " (the other blocks' " + formatBytes(out.hostBytes, Unit::GB) +
                                          " are in CPU RAM)";
            savedActivations.notes.push_back(
                "Activation offloading copies each block's saved tensors to pinned CPU memory "
                "during the forward and brings them back one block at a time in backward "
                "(torchtune OffloadActivations keeps up to 5 tensors in flight and everything the "
                "output layer saves on the GPU).");
        }
        if (c > 0) {
            savedActivations.notes.push_back("The rule of thumb of \"Where the memory actually goes\" "
                                             "with c = " + formatDecimal(c) +
                                             " instead of the per-tensor inventory.");
        } else {
            const double equivalentC = static_cast<double>(inv.bytesPerToken) /
                                       static_cast<double>(std::uint64_t(m.hidden) * compute);
            savedActivations.notes.push_back(
                "Per-tensor inventory of one block (" + std::string(enumName(s.kernels.profile)) +
                " profile): " + n(inv.bytesPerToken) +
                " B per token, so c = " +
                formatDecimal(equivalentC, 1) + " in the rule of thumb of \"Where the memory actually goes\".");
            for (const SavedTensor &t : inv.tensors)
                savedActivations.notes.push_back(std::string(t.name) + ": " + n(t.valuesPerToken) +
                                                 " values x " + n(t.bytesPerValue) + " B (" + t.why + ")");
            if (denseLayers && moeLayers)
                savedActivations.notes.push_back("Mixture-of-experts blocks keep " + n(model.moe.bytesPerToken) +
                                                 " B per token (their routed experts' tensors for " +
                                                 n(m.expertsPerToken) + " experts per token).");
        }
        if (tensor > 1)
            savedActivations.notes.push_back(
                sp ? "Tensor parallelism with sequence parallelism splits every saved tensor (Korthikanti et al. 2022)."
                   : "Tensor parallelism without sequence parallelism splits the attention and MLP tensors; "
                     "norm inputs and outputs are replicated on every rank (Korthikanti et al. 2022).");
        if (par.context > 1)
            savedActivations.notes.push_back("Context parallelism: each rank keeps " + n(tokens) +
                                             " of the micro-batch's tokens (seq_len / " + n(par.context) + ").");
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
        const std::uint64_t widest = std::max(denseLayers ? densePerToken : 0, moeLayers ? moePerToken : 0);
        out.recomputeLayer.bytes = mulChecked(tokens, widest, what);
        if (formulas)
            out.recomputeLayer.expression = "1 recomputed layer: " + n(tokens) + " tokens x " + n(widest) + " B";
    } else if (offload) {
        // Without checkpointing the block brought back from CPU RAM is the one being worked on.
        out.recomputeLayer.bytes = oneBlock;
        if (formulas)
            out.recomputeLayer.expression = "1 block brought back from CPU RAM: " + n(tokens) +
                                            " tokens x " + n(widestKept) + " B";
    }

    if (s.kernels.attention == Attention::Eager) {
        const std::uint64_t queries = ceilDiv(s.train.seqLen, par.context);
        const std::uint64_t heads = ceilDiv(std::uint64_t(m.heads), tensor);
        const std::uint64_t oneLayer =
            productChecked("attention scores", std::uint64_t(s.train.microBatch) * s.train.sequencesPerSample(),
                           heads, queries, queries,
                           inv.scoreBytesPerElement);
        // Only the formulas need the text (a bytes-only estimate would spend ~5% of its time here).
        const std::string oneLayerText = formulas ? n(s.train.microBatch * s.train.sequencesPerSample()) +
                                                        " batch x " + n(heads) +
                                                        " heads x " + n(queries) + "^2 x " +
                                                        n(inv.scoreBytesPerElement) + " B"
                                                  : std::string();
        if (ckpt == Checkpointing::None) {
            out.savedScores.bytes = ceilDiv(mulChecked(mulChecked(oneLayer, layers, "attention scores"),
                                                       share.inFlightNumerator, "attention scores"),
                                            share.inFlightDenominator);
            if (offload) {
                out.hostBytes = addChecked(out.hostBytes, out.savedScores.bytes - std::min(oneLayer, out.savedScores.bytes),
                                           "host memory");
                out.savedScores.bytes = std::min(oneLayer, out.savedScores.bytes);
            }
            if (formulas)
                out.savedScores.expression = (offload ? std::string("1 layer in flight (the rest in CPU RAM) x ")
                                                      : n(layers) + " layers x ") + oneLayerText;
        }
        out.transientScores.bytes = oneLayer;
        if (formulas)
            out.transientScores.expression = "1 layer x " + oneLayerText + " (recomputed in backward)";
        if (formulas) {
            const char *note = s.kernels.profile != Profile::Fused
                                   ? "Eager attention keeps the softmax in fp32 and a cast copy "
                                     "(4 + 2 B per score)."
                                   : "Eager attention keeps the softmax output (one score matrix).";
            out.savedScores.notes.push_back(note);
            out.transientScores.notes.push_back(note);
        }
    }
    return out;
}

namespace {

/// What a loss holds at one moment, per logit (tokens x vocab) and per row (token).
struct LossShape
{
    std::uint64_t perLogit = 0;      ///< bytes per logit held for the whole logits
    std::uint64_t perChunkLogit = 0; ///< bytes per logit of one chunk (divided by `chunks`)
    std::uint64_t chunks = 1;
    std::uint64_t perRow = 0;        ///< bytes per token (log-sum-exp)
    const char *why = "";
};

struct LossPhases
{
    LossShape forward;  ///< the loss's peak in the forward pass
    LossShape backward; ///< when backward starts
};

/// Positions the loss runs on: every token of the rank's micro-batch (seq_len / context), or for
/// GRPO the completion's: logits_to_keep + 1 per sequence (TRL adds one and drops the last).
std::uint64_t lossTokens(const EstimateContext &c)
{
    const Scenario &s = c.s;
    if (s.task != Task::Train || s.train.objective != Objective::Grpo)
        return c.share.tokens;
    const std::uint64_t completion =
        mulChecked(std::uint64_t(s.train.microBatch), std::uint64_t(s.train.grpo.completionLength) + 1, "logits");
    return std::min(c.share.tokens, completion);
}

/// The loss kernels, as their code keeps tensors (docs/estimator.md, docs/frameworks.md).
LossPhases lossPhases(const EstimateContext &c)
{
    const Scenario &s = c.s;
    // The lm_head's output: fp32 from a 4-bit base's fp32 lm_head and stream without autocast.
    const std::uint64_t a = autocastBytes(s);
    // Under autocast (fp32 weights, 16-bit compute) log_softmax runs in fp32 whatever the code.
    const bool autocast = dtypeBits(s.precision.weights) > dtypeBits(s.precision.compute);
    if ((s.train.objective == Objective::Grpo || s.train.objective == Objective::Ppo) &&
        s.kernels.loss != Loss::Fused) {
        // TRL GRPOTrainer._get_per_token_logps_and_entropies: the lm_head runs on the completion
        // only (logits_to_keep), the logits are divided by the temperature in place, and
        // selective_log_softmax (trl/trainer/utils.py) takes each sequence's log_softmax in turn,
        // whose outputs autograd keeps; backward builds the logits' gradient one row at a time.
        // PPOTrainer.train does the same on a slice (a view) of the logits of every position.
        const std::uint64_t rows = std::max<std::uint64_t>(1, s.train.microBatch);
        return {{2 * a, 0, 1, 0, "GRPO: the completion's logits and each sequence's log-softmax, in the "
                                 "compute dtype (selective_log_softmax)"},
                {2 * a, a, rows, 0, "GRPO: the saved log-softmax, the logits' gradient and one sequence's "
                                    "log-softmax gradient"}};
    }
    if (s.task == Task::Train && s.train.loss == TrainLoss::LogitsSum)
        // loss = outputs.logits.sum(); loss.backward() (the Transformers SDPA benchmark scripts):
        // no log-softmax; the outputs keep the logits, and SumBackward's expanded gradient is
        // materialized for the lm_head's matmul (a reshape of a stride-0 view copies).
        return {{a, 0, 1, 0, "the logits the outputs hold (loss = logits.sum())"},
                {2 * a, 0, 1, 0, "the logits and the materialized gradient of their sum"}};
    Loss loss = s.kernels.loss;
    if (autocast && loss == Loss::StandardNoUpcast)
        loss = Loss::Standard;
    switch (loss) {
    case Loss::Standard:
        if (s.kernels.profile == Profile::Fused)
            // The logits and one fp32 copy (the accounting of "Where the memory actually goes",
            // example 6); Unsloth's older fused kernel keeps less (bf16 logits and a log-sum-exp
            // per row), so this over-counts it.
            return {{a + 4, 0, 1, 0, "logits in the compute dtype and an fp32 log-softmax"},
                    {a + 4, 0, 1, 0, "logits in the compute dtype and an fp32 log-softmax"}};
        return {{a + 8, 0, 1, 0, "logits, their fp32 upcast and the fp32 log-softmax"},
                {12, 0, 1, 0, "log-softmax's saved fp32 output, the gradient from nll_loss and "
                              "its own output gradient"}};
    case Loss::StandardNoUpcast:
        return {{2 * a, 0, 1, 0, "logits and their log-softmax in the compute dtype"},
                {3 * a, 0, 1, 0, "the saved log-softmax, the logits and the gradient, in the "
                                 "compute dtype"}};
    case Loss::Chunked:
        if (s.train.compile)
            return {{a, 0, 8, 4, "logits; the compiled upcast and cross-entropy of each chunk keep "
                                 "the chunk and a log-sum-exp per row"},
                    {a, a, 8, 4, "the chunk logits the compiled loss saved, and one chunk's "
                                 "gradient"}};
        return {{a + 4, 4, 8, 0, "logits, every chunk's fp32 log-softmax, and one of 8 chunks' "
                                 "fp32 upcast"},
                {4, 8, 8, 0, "every chunk's saved fp32 log-softmax, and one chunk's gradients"}};
    case Loss::ChunkedNoUpcast: {
        const std::uint64_t chunks = std::max<std::uint64_t>(1, ceilDiv(s.train.seqLen, 128));
        if (autocast)
            return {{a + 4, 4, chunks, 0, "logits chunks and their fp32 log-softmax (autocast)"},
                    {a + 4, 8, chunks, 0, "logits chunks, their fp32 log-softmax and one chunk's "
                                          "gradients"}};
        return {{2 * a, 0, chunks, 0, "128-position logits chunks and their log-softmax"},
                {2 * a, 2 * a, chunks, 0, "the logits chunks, their log-softmax and one chunk's "
                                          "gradients"}};
    }
    case Loss::LinearChunked:
        return {{4, a + 4, 8, 0, "each chunk's fp32 log-softmax; one chunk's logits and upcast "
                                 "at a time"},
                {4, 8, 8, 0, "every chunk's saved fp32 log-softmax, and one chunk's gradients"}};
    case Loss::Parallel:
        // torch's loss_parallel() log-softmax: the logits, their fp32 copy, the shifted copy and
        // its exponential (then the result in its place); backward keeps the fp32 log-softmax,
        // a zero-filled gradient with the -1 updates, exp(log-softmax) and their sum, then the
        // product (torch/distributed/tensor/parallel/loss.py).
        return {{a + 12, 0, 1, 0, "logits, their fp32 copy, the shifted logits and their "
                                  "exponential (loss_parallel's decomposed log-softmax)"},
                {16, 0, 1, 0, "the saved fp32 log-softmax, the one-hot gradient, "
                              "exp(log-softmax) and their sum (loss_parallel's backward)"}};
    case Loss::Fused:
        break;
    }
    return {};
}

/// Bytes of one loss phase for the scenario's tokens and vocabulary.
Term lossTerm(const EstimateContext &c, const LossShape &shape)
{
    const Scenario &s = c.s;
    Term term;
    const char *what = "logits";
    const std::uint64_t tokens = lossTokens(c);
    const std::uint64_t logits = mulChecked(tokens, std::uint64_t(c.m.vocab), what);
    std::uint64_t bytes = mulChecked(logits, shape.perLogit, what);
    bytes = addChecked(bytes, ceilDiv(mulChecked(logits, shape.perChunkLogit, what), shape.chunks), what);
    bytes = addChecked(bytes, mulChecked(tokens, shape.perRow, what), what);
    term.bytes = ceilDiv(bytes, s.parallel.tensor);
    if (c.formulas) {
        std::string perValue = n(shape.perLogit);
        if (shape.perChunkLogit)
            perValue = "(" + perValue + " + " + n(shape.perChunkLogit) + " / " + n(shape.chunks) + " chunks)";
        term.expression = n(tokens) + " tokens x " + n(c.m.vocab) + " vocab x " + perValue + " B";
        if (shape.perRow)
            term.expression += " + " + n(tokens) + " tokens x " + n(shape.perRow) + " B";
        if (s.parallel.tensor > 1)
            term.expression += " / " + n(s.parallel.tensor) + " (tensor parallel)";
        term.notes.push_back(std::string("Loss: ") + shape.why + ".");
    }
    return term;
}

/// Liger / Cut Cross Entropy: the lm_head and the loss run chunk by chunk in the input dtype;
/// the gradient of the hidden states is computed in forward (and of the lm_head when it trains).
Term fusedLossTerm(const EstimateContext &c, bool backward)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const char *what = "logits";
    Term term;
    const std::uint64_t a = c.compute;
    const std::uint64_t tokens = lossTokens(c);
    const std::uint64_t vocab = m.vocab;
    const std::uint64_t hidden = m.hidden;
    const std::uint64_t chunks = std::max<std::uint64_t>(1, ceilDiv(vocab, hidden));
    const std::uint64_t chunkTokens = ceilDiv(tokens, chunks);
    const std::uint64_t inputGradient = productChecked(what, tokens, hidden, a);
    const std::uint64_t rows = mulChecked(tokens, 4, what);
    const bool headTrains = s.train.method == Method::Full;
    if (backward) {
        term.bytes = addChecked(inputGradient, rows, what);
        if (c.formulas)
            term.expression = n(tokens) + " tokens x " + n(hidden) + " hidden x " + n(a) +
                              " B (input gradient, scaled in place) + " + n(tokens) + " x 4 B";
        return term;
    }
    term.bytes = addChecked(addChecked(productChecked(what, chunkTokens, vocab, a), inputGradient, what),
                            rows, what);
    if (headTrains)
        term.bytes = addChecked(term.bytes, productChecked(what, vocab, hidden, a), what);
    if (c.formulas) {
        term.expression = n(chunkTokens) + " tokens per chunk x " + n(vocab) + " vocab x " + n(a) +
                          " B + " + n(tokens) + " tokens x " + n(hidden) + " hidden x " + n(a) +
                          " B (input gradient) + " + n(tokens) + " x 4 B (per-row loss)";
        if (headTrains)
            term.expression += " + " + n(vocab) + " x " + n(hidden) + " x " + n(a) + " B (lm_head gradient)";
        term.notes.push_back("Fused linear cross-entropy never materialises the full logits; the "
                             "chunk logits and the gradients stay in the input dtype.");
        const std::string framework = frameworkLossNote(s);
        if (!framework.empty())
            term.notes.push_back(framework);
    }
    return term;
}

} // namespace

Term logitsTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const bool formulas = c.formulas;
    const std::uint64_t compute = c.compute;
    Term term;
    const bool training = s.task == Task::Train;
    if (!c.share.lmHead)
        return term; // the loss runs on the last pipeline stage
    const std::uint64_t tokens = training ? c.share.tokens : std::uint64_t(s.inference.batch);
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
    if (s.train.objective == Objective::Reward)
        return rewardScores(c, false);
    if (s.train.loss == TrainLoss::Classification) {
        if (formulas)
            term.notes.push_back("Sequence-classification head: its logits are batch x labels, no "
                                 "vocabulary logits or log-softmax.");
        return term;
    }
    const LossPhases loss = lossPhases(c);
    if (s.kernels.loss == Loss::Fused && s.train.loss == TrainLoss::Lm)
        return fusedLossTerm(c, false);
    term = combine(lossTerm(c, loss.forward), distillationLogits(c, false), formulas);
    if (formulas) {
        const std::string framework = frameworkLossNote(s);
        if (!framework.empty())
            term.notes.push_back(framework);
    }
    return term;
}

/// The loss buffers when backward starts: the saved log-softmax (or the compiled loss's inputs),
/// the gradient flowing in and the gradient it produces.
Term lossBackwardTerm(const EstimateContext &c, const Term &forwardLogits)
{
    if (!c.share.lmHead)
        return forwardLogits; // the loss runs on the last pipeline stage
    if (c.s.train.objective == Objective::Reward)
        return rewardScores(c, true);
    if (c.s.train.loss == TrainLoss::Classification)
        return forwardLogits; // no vocabulary logits
    if (c.s.kernels.loss == Loss::Fused && c.s.train.loss == TrainLoss::Lm)
        return fusedLossTerm(c, true);
    const LossPhases loss = lossPhases(c);
    const bool distillation = c.s.train.objective == Objective::Distillation;
    if (!distillation && loss.backward.perLogit == loss.forward.perLogit &&
        loss.backward.perChunkLogit == loss.forward.perChunkLogit &&
        loss.backward.perRow == loss.forward.perRow)
        return forwardLogits;
    Term term = combine(lossTerm(c, loss.backward), distillationLogits(c, true), c.formulas);
    if (c.formulas) {
        const std::string framework = frameworkLossNote(c.s);
        if (!framework.empty())
            term.notes.push_back(framework);
    }
    return term;
}

} // namespace headroom::detail
