// SPDX-License-Identifier: GPL-3.0-or-later
#include "activationterms.h"

#include "activations.h"
#include "checked.h"
#include "names.h"
#include "units.h"

#include <algorithm>
#include <cmath>

namespace headroom::detail {

ActivationTerms activationTerms(const EstimateContext &ctx)
{
    const Scenario &s = ctx.s;
    const ModelArch &m = ctx.m;
    const bool formulas = ctx.formulas;
    const std::uint64_t compute = ctx.compute;
    ActivationTerms out;
    Term &savedActivations = out.saved;
    Term &recomputeLayer = out.recomputeLayer;
    Term &savedScores = out.savedScores;
    Term &transientScores = out.transientScores;
    const LayerInventory inv = trainingInventory(s);
    const std::uint64_t tokens = std::uint64_t(s.train.microBatch) * s.train.seqLen;
    const std::uint64_t layers = ctx.parallel.layersPerStage(std::uint64_t(m.layers));
    const std::uint64_t tensor = ctx.parallel.tensor;
    // 1F1B: the first pipeline stage keeps up to `pipeline` micro-batches in flight.
    const std::uint64_t inFlight = ctx.parallel.microBatchesInFlight(s.train.gradAccum);
    const char *what = "activations";
    const std::uint64_t finalNorm = mulChecked(tokens, inv.finalNormBytesPerToken, what);
    const double c = s.train.activationConstant;
    const Checkpointing ckpt = s.train.checkpointing;

    // The rule of thumb of "Where the memory actually goes" replaces the inventory when the
    // user sets c:
    // batch x seq x hidden x layers x bytes x c.
    const std::uint64_t perToken =
        c > 0 ? roundedBytes(double(m.hidden) * double(compute) * c, what) : inv.bytesPerToken;
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
        // Only the formulas need the text (a bytes-only estimate would spend ~5% of its time here).
        const std::string oneLayerText = formulas ? n(s.train.microBatch) + " batch x " + n(m.heads) +
                                                        " heads x " + n(s.train.seqLen) + "^2 x " +
                                                        n(inv.scoreBytesPerElement) + " B"
                                                  : std::string();
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
    return out;
}

Term logitsTerm(const EstimateContext &c)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const bool formulas = c.formulas;
    const std::uint64_t compute = c.compute;
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


/// The loss buffers when backward starts. The fp32 path (Hugging Face: logits upcast, then
/// log-softmax in fp32) runs log_softmax's backward with three fp32 tensors alive: the saved
/// output, its incoming gradient (from nll_loss) and the gradient it produces.
Term lossBackwardTerm(const EstimateContext &c, const Term &forwardLogits)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const bool formulas = c.formulas;
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

} // namespace headroom::detail
