// SPDX-License-Identifier: GPL-3.0-or-later
// vLLM's speculative decoding (serving.speculative, docs/serving.md "Speculative decoding"), read
// in vLLM's V1 code: EagleProposer (vllm/v1/spec_decode/eagle.py: its buffers, load_model's
// sharing of embed_tokens and lm_head, dummy_run), the draft heads (llama_eagle.py,
// llama_eagle3.py, deepseek_mtp.py), GPUModelRunner (the KV cache spec covers the drafter's
// attention layers; _dummy_sampler_run runs the rejection sampler) and the scheduler's
// num_lookahead_tokens.
#include "serving/servingengines.h"

#include "scenario/checked.h"
#include "scenario/names.h"
#include "scenario/units.h"
#include "training/modelstate.h"

#include <algorithm>

namespace headroom::detail {

namespace {

/// The model dtype the drafter loads in: the target's (SpeculativeConfig builds the draft's
/// ModelConfig with the target's dtype); a quantized target's MTP layers keep its format.
Scenario drafterScenario(const Scenario &s, const ModelArch &draft, bool targetPrecision)
{
    Scenario d = s;
    d.serving.reset();
    d.model = draft;
    d.model.mtpLayers = 0;
    d.model.mtpParams = 0;
    d.model.visionParams = 0;
    if (!targetPrecision) {
        const DType dtype = dtypeBits(s.precision.compute) == 16 ? s.precision.compute : DType::BF16;
        d.precision = PrecisionConfig{};
        d.precision.weights = dtype;
        d.precision.compute = dtype;
    }
    return d;
}

/// DeepSeek-V3's MTP layers as one more block of the last layer's kind (deepseek_mtp.py
/// DeepSeekMultiTokenPredictorLayer.mtp_block), with shared_head's norm and head as the final
/// norm and lm_head.
ModelArch mtpArch(const ModelArch &m, int layers)
{
    ModelArch a = m;
    const int last = std::max(0, m.layers - 1);
    a.layerKinds = {m.layerKind(last)};
    a.layerMlps = {m.layerMlp(last)};
    a.denseLayers = 0;
    a.moeEvery = 1;
    a.layers = layers;
    a.params.reset();
    a.preset.clear();
    return a;
}

Detail detailOf(const EstimateContext &c) { return c.formulas ? Detail::Formulas : Detail::BytesOnly; }

std::string gib(std::uint64_t bytes) { return formatBytes(bytes, Unit::GiB); }

} // namespace

VllmSpeculative vllmSpeculative(const EstimateContext &c, std::uint64_t batched, std::uint64_t maxSeqs)
{
    VllmSpeculative out;
    const Scenario &s = c.s;
    if (!s.serving || !s.serving->speculative)
        return out;
    const SpeculativeConfig &spec = *s.serving->speculative;
    const ModelArch &m = c.m;
    const std::uint64_t a = c.compute;
    const std::uint64_t tp = std::max<std::uint64_t>(1, c.parallel.tensor);
    out.active = true;
    // Scheduler.schedule allocates num_lookahead_tokens (= num_speculative_tokens) more slots
    // for every running request.
    out.lookahead = spec.numSpeculativeTokens;
    const std::string method = spec.methodName + ", num_speculative_tokens " + n(spec.numSpeculativeTokens);
    if (spec.method == SpeculativeMethod::Ngram || spec.method == SpeculativeMethod::Suffix) {
        if (c.formulas)
            out.notes.push_back("Speculative decoding (" + method + "): the " + spec.methodName +
                                " proposer runs on the CPU and loads no weights; each running request holds " +
                                n(out.lookahead) + " more KV slots (num_lookahead_tokens), and the profile's "
                                "dummy sampler run adds the rejection sampler.");
        return out;
    }

    const std::uint64_t h = std::uint64_t(m.hidden);
    ModelArch draft = spec.method == SpeculativeMethod::Mtp ? mtpArch(m, 1) : *spec.draft;
    const std::uint64_t hd = std::uint64_t(draft.hidden);
    const Scenario weightsScenario = drafterScenario(s, draft, spec.method == SpeculativeMethod::Mtp);
    const EstimateContext dc(weightsScenario, detailOf(c), c.catalog, c.share.role);
    const ParamCounts &p = dc.params;
    const std::uint64_t finalNorm = draft.norm == Norm::LayerNorm ? 2 * hd : hd;
    const std::uint64_t blocks = p.total - std::min(p.total, p.embeddings + p.lmHead + finalNorm);
    const std::string layersText = n(draft.layers) + (draft.layers == 1 ? " layer" : " layers");
    std::uint64_t params = 0;   // in the model dtype (eagle, eagle3, draft_model)
    std::uint64_t bytes = 0;
    std::string parts;
    switch (spec.method) {
    case SpeculativeMethod::Eagle: {
        // llama_eagle.py: layer 0 without input_layernorm, fc (2 x hidden -> hidden, replicated),
        // no final norm.
        const std::uint64_t fc = 2 * hd * hd;
        params = blocks - hd + fc;
        parts = n(blocks - hd) + " layer params (" + layersText + ", the first without input_layernorm) + " +
                n(fc) + " fc (2 x " + n(hd) + " -> " + n(hd) + ")";
        break;
    }
    case SpeculativeMethod::Eagle3: {
        // llama_eagle3.py: layer 0's qkv_proj reads 2 x hidden, each layer a hidden_norm; fc
        // (3 x the target's hidden -> hidden); the final norm; lm_head over draft_vocab_size and
        // draft_id_to_target_id (int64).
        const std::uint64_t q = std::uint64_t(draft.heads) * std::uint64_t(draft.headDim);
        const std::uint64_t kv = std::uint64_t(draft.kvHeads) * std::uint64_t(draft.headDim);
        const std::uint64_t qkvExtra = hd * ceilDiv(q + 2 * kv, tp);
        const std::uint64_t fc = 3 * h * hd;
        params = blocks + qkvExtra + std::uint64_t(draft.layers) * hd + fc + finalNorm;
        parts = n(blocks) + " layer params (" + layersText + ") + " + n(qkvExtra) +
                " for layer 0's qkv_proj on 2 x hidden + " + n(std::uint64_t(draft.layers) * hd) + " hidden_norm + " +
                n(fc) + " fc (3 x " + n(h) + " -> " + n(hd) + ") + " + n(finalNorm) + " norm";
        const std::uint64_t draftVocab = spec.draftVocabSize ? spec.draftVocabSize : std::uint64_t(m.vocab);
        if (spec.ownLmHead) {
            const std::uint64_t head = ceilDiv(draftVocab, tp) * hd;
            params += head;
            parts += " + " + n(head) + " lm_head (draft_vocab_size " + n(draftVocab) + ")";
        }
        bytes = mulChecked(draftVocab, 8, "weights"); // draft_id_to_target_id
        parts += " + draft_id_to_target_id " + n(draftVocab) + " x 8 B";
        break;
    }
    case SpeculativeMethod::DraftModel:
        params = p.total;
        parts = n(p.total) + " params of the draft model";
        break;
    case SpeculativeMethod::Mtp:
    case SpeculativeMethod::Ngram:
    case SpeculativeMethod::Suffix:
        break;
    }
    if (spec.method == SpeculativeMethod::Eagle || spec.method == SpeculativeMethod::Eagle3) {
        if (spec.ownEmbedTokens) {
            params += p.embeddings;
            parts += " + " + n(p.embeddings) + " own embed_tokens";
        }
        if (spec.ownLmHead && spec.method == SpeculativeMethod::Eagle) {
            const std::uint64_t head = p.lmHead ? p.lmHead : p.embeddings;
            params += head;
            parts += " + " + n(head) + " own lm_head";
        }
    }
    Term &w = out.weights;
    if (spec.method == SpeculativeMethod::Mtp) {
        // Per MTP layer: the block in the target's format, shared_head (norm, head) 16-bit; the
        // embed_tokens copy is deleted for the target's (EagleProposer.load_model); eh_proj is
        // an nn.Linear (not quantized, whole on every rank) and enorm/hnorm two norms.
        const DType weights = s.precision.weights;
        const std::uint64_t keep = isQuantized(weights) ? 2 : std::uint64_t(dtypeBits(weights)) / 8;
        const std::uint64_t layerBytes = addChecked(weightsTerm(dc).bytes, quantMetadataTerm(dc).bytes, "weights");
        const std::uint64_t embed = mulChecked(p.embeddings, keep, "weights");
        const std::uint64_t ehProj = (2 * h * h + 2 * h) * a;
        const std::uint64_t perLayer = addChecked(layerBytes - std::min(layerBytes, embed), ehProj, "weights");
        w.bytes = mulChecked(perLayer, std::uint64_t(m.mtpLayers), "weights");
        if (c.formulas)
            w.expression = n(m.mtpLayers) + " MTP layers (num_nextn_predict_layers) x (" +
                           n(layerBytes - std::min(layerBytes, embed)) + " B for the decoder block as the model's layers, "
                           "shared_head's norm and " + n(p.lmHead) + "-value head + " + n(ehProj) +
                           " B eh_proj (2 x " + n(h) + " -> " + n(h) + ") and enorm/hnorm x " + n(a) + " B)";
    } else {
        w.bytes = addChecked(mulChecked(params, a, "weights"), bytes, "weights");
        if (c.formulas)
            w.expression = "drafter (" + method + "): (" + parts + ") x " + n(a) + " B";
    }
    if (c.formulas) {
        if (spec.method == SpeculativeMethod::Mtp || !spec.ownEmbedTokens)
            w.notes.push_back("The drafter shares the target's embed_tokens (EagleProposer.load_model)" +
                              std::string(spec.method == SpeculativeMethod::Eagle && !spec.ownLmHead
                                              ? " and lm_head." : "."));
        w.notes.push_back("\"Model loading took\" includes the drafter: GPUModelRunner.load_model loads it after "
                          "the target (\"Loading drafter model...\").");
    }

    // The drafter's attention layers join the KV cache spec (same page: the same KV group).
    const ModelArch kvArch = spec.method == SpeculativeMethod::Mtp ? mtpArch(m, m.mtpLayers) : draft;
    out.kvScenario = drafterScenario(s, kvArch, true);
    out.kvLayers = std::uint64_t(kvArch.layers);

    // The profile run: _dummy_run runs the drafter's dummy_run over the profiled tokens after
    // the target, whose hidden states are still alive; EAGLE-3's target keeps three layers'
    // auxiliary hidden states during its forward.
    const std::uint64_t drafterPerToken = addChecked(engineForwardBytesPerToken(dc), h * a, "activations");
    out.drafterForward = mulChecked(batched, drafterPerToken, "activations");
    if (spec.method == SpeculativeMethod::Eagle3)
        out.targetExtra = productChecked("activations", batched, 3 * h, a);
    // EagleProposer.__init__: input_ids (int32), positions (int64), hidden_states and
    // inputs_embeds [max_num_batched_tokens, hidden] in the model dtype, an int32 arange.
    out.buffers = addChecked(productChecked("activations", batched, 12 + 2 * hd * a, 1),
                             4 * std::max(maxSeqs + 1, batched), "activations");
    if (c.formulas) {
        out.drafterText = n(batched) + " profiled tokens x " + n(drafterPerToken) +
                          " B (the drafter's dummy_run: a draft layer's working set and the target's hidden states)";
        out.notes.push_back("Speculative decoding (" + method + "): the drafter's weights are in \"Model loading "
                            "took\" (" + gib(w.bytes) + "), its attention layers in every KV block, its buffers (" +
                            gib(out.buffers) + ") and dummy_run in the profile; each running request holds " +
                            n(out.lookahead) + " more KV slots (num_lookahead_tokens).");
        out.notes.push_back("Not sized: the drafter's CUDA graphs (EagleProposer captures PIECEWISE graphs at the "
                            "target's sizes); the graph pool above is the target's alone.");
    }
    return out;
}

void vllmSpeculativeProfile(const VllmSpeculative &spec, const SpeculativeProfileInputs &in, Term &activation,
                            Term &samplerTerm, bool formulas)
{
    if (!spec.active)
        return;
    // The target's forward (with EAGLE-3's auxiliary hidden states) or the drafter's dummy_run.
    const std::uint64_t target = addChecked(in.forward, spec.targetExtra, "activations");
    const std::uint64_t forward = std::max(target, spec.drafterForward);
    // _dummy_sampler_run with a speculative config: after the sampler, rejection_sampler over one
    // dummy draft token per request: the old logits alive while new [2 x rows, vocab] logits are
    // drawn, and the target probabilities in fp32.
    const std::uint64_t perLogit = 3 * in.valueBytes + 4;
    const std::uint64_t rejection =
        addChecked(in.hiddenBytes, productChecked("logits", in.rows, in.vocab, perLogit), "logits");
    const std::uint64_t sampler = std::max(in.sampler, rejection);
    if (forward >= sampler) {
        if (formulas && forward != in.forward)
            activation.expression =
                forward == spec.drafterForward
                    ? spec.drafterText
                    : in.forwardText + " + " + n(spec.targetExtra) + " B EAGLE-3 auxiliary hidden states (3 target layers)";
        activation.bytes = forward;
        samplerTerm = Term{};
    } else {
        if (formulas && sampler != in.sampler)
            samplerTerm.expression = n(in.rows) + " dummy requests x " + n(in.vocab) + " vocab x " + n(perLogit) +
                                     " B (rejection_sampler: the old and 2 x new logits, fp32 target probabilities) + " +
                                     n(in.hiddenBytes) + " B hidden states";
        samplerTerm.bytes = sampler;
        activation = Term{};
    }
    Term &peak = forward >= sampler ? activation : samplerTerm;
    peak.bytes = addChecked(peak.bytes, spec.buffers, "activations");
    if (formulas && spec.buffers)
        peak.expression += " + " + n(spec.buffers) + " B EagleProposer buffers (max_num_batched_tokens x hidden)";
}

} // namespace headroom::detail
