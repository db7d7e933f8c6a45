// SPDX-License-Identifier: GPL-3.0-or-later
// serving.speculative: vLLM's --speculative-config (vllm/config/speculative.py SpeculativeConfig),
// its keys as vLLM names them; the draft (`model`) is a model object as the scenario's `model`.
#include "serving/servingjson.h"

#include "model/modeljson.h"
#include "scenario/names.h"
#include "scenario/objectreader.h"

#include <nlohmann/json.hpp>

namespace headroom::detail {

using nlohmann::json;

namespace {

/// Methods vLLM accepts that Headroom does not size: refused by name rather than guessed.
bool unmodelledMethod(const std::string &name)
{
    static constexpr const char *names[] = {"medusa", "mlp_speculator", "custom_class", "extract_hidden_states",
                                            "dflash", "dspark", "ngram_gpu"};
    for (const char *known : names)
        if (name == known)
            return true;
    // vLLM's other MTPModelTypes (qwen3_next_mtp, glm4_moe_mtp, ...): their MTP layers differ.
    return name.size() > 4 && name.compare(name.size() - 4, 4, "_mtp") == 0 && name != "deepseek_mtp";
}

/// Whether every layer of a draft is a dense full-attention layer (what the EAGLE heads are).
bool denseAttentionDraft(const ModelArch &m)
{
    for (int i = 0; i < m.layers; ++i)
        if (m.layerKind(i) != LayerKind::Full || m.isMoeLayer(i))
            return false;
    return !m.latentAttention();
}

} // namespace

SpeculativeConfig readSpeculative(const json &node, const ServingConfig &serving, const Scenario &s,
                                  const DraftModelReader &readDraft)
{
    ObjectReader r(node, "serving.speculative");
    SpeculativeConfig c;
    if (!r.has("method"))
        throw ScenarioError(r.keyPath("method"), "is required: one of " + enumChoices<SpeculativeMethod>() +
                                                     " (vLLM's --speculative-config method)");
    c.methodName = r.text("method", "");
    if (unmodelledMethod(c.methodName))
        throw ScenarioError(r.keyPath("method"), "\"" + c.methodName + "\" is not modelled by Headroom (modelled: " +
                                                     enumChoices<SpeculativeMethod>() +
                                                     "; mtp as DeepSeek-V3's deepseek_mtp)");
    if (c.methodName == "deepseek_mtp")
        c.method = SpeculativeMethod::Mtp; // vLLM renames it mtp (SpeculativeConfig.__post_init__)
    else if (const auto method = enumFromName<SpeculativeMethod>(c.methodName))
        c.method = *method;
    else
        throw ScenarioError(r.keyPath("method"), "must be one of " + enumChoices<SpeculativeMethod>() +
                                                     ", deepseek_mtp (got " + quotedText(c.methodName) + ")");
    const EngineVersion version = serving.version.empty() ? kCurrentVllm : parseEngineVersion(serving.version).value_or(kCurrentVllm);
    if (!serving.v1Engine.value_or(version >= EngineVersion{0, 8, 0}))
        throw ScenarioError("serving.speculative", "is modelled for vLLM's V1 engine only (vllm/v1/spec_decode)");
    if (s.parallel.pipeline > 1)
        throw ScenarioError("serving.speculative", "with pipeline parallelism is not modelled (the drafter sits on "
                                                   "the last stage and loads its own embeddings there)");
    const bool eagle = c.method == SpeculativeMethod::Eagle || c.method == SpeculativeMethod::Eagle3;
    const bool drafted = eagle || c.method == SpeculativeMethod::DraftModel;
    if (c.method == SpeculativeMethod::Mtp) {
        if (s.model.mtpLayers == 0)
            throw ScenarioError(r.keyPath("method"), "mtp needs the model's multi-token-prediction layers "
                                                     "(model.mtp_layers, num_nextn_predict_layers); this model has none");
        if (!s.model.latentAttention())
            throw ScenarioError(r.keyPath("method"), "mtp is modelled for DeepSeek-V3's layers only (deepseek_mtp: "
                                                     "an MLA decoder layer, eh_proj, enorm/hnorm and shared_head)");
    }
    // num_speculative_tokens: MTP defaults to the model's num_nextn_predict_layers (vLLM).
    const bool tokensGiven = r.has("num_speculative_tokens");
    if (!tokensGiven && c.method != SpeculativeMethod::Mtp)
        throw ScenarioError(r.keyPath("num_speculative_tokens"), "is required for method " + c.methodName);
    c.numSpeculativeTokens = static_cast<std::uint32_t>(
        r.integer("num_speculative_tokens", 1, 64, std::max(1, s.model.mtpLayers)));

    const json *model = r.child("model");
    if (model && !drafted)
        throw ScenarioError(r.keyPath("model"), "applies to methods eagle, eagle3 and draft_model only (" +
                                                    c.methodName + (c.method == SpeculativeMethod::Mtp
                                                                        ? " uses the target's own MTP layers)"
                                                                        : " proposes without weights)"));
    if (!model && drafted)
        throw ScenarioError(r.keyPath("model"), "is required for method " + c.methodName +
                                                    ": the draft as a model object (a preset or its architecture)");
    if (model) {
        if (!readDraft)
            throw ScenarioError(r.keyPath("model"), "can only be read with the rest of the scenario (the catalog)");
        try {
            c.draft = std::make_shared<const ModelArch>(readDraft(*model));
        } catch (const ScenarioError &error) {
            const std::string key = error.key.rfind("model", 0) == 0 ? error.key.substr(5) : "." + error.key;
            throw ScenarioError(r.keyPath("model") + key, error.detail);
        }
        if (eagle && !denseAttentionDraft(*c.draft))
            throw ScenarioError(r.keyPath("model"), "an EAGLE head of dense full-attention Llama layers is modelled "
                                                    "(llama_eagle.py, llama_eagle3.py); this draft has other layers");
        if (c.method == SpeculativeMethod::Eagle && c.draft->hidden != s.model.hidden)
            throw ScenarioError(r.keyPath("model"), "an EAGLE head's hidden size must be the target's (" +
                                                        std::to_string(s.model.hidden) + "): its fc reads the target's "
                                                        "embeddings and hidden states");
    }
    for (const char *key : {"own_embed_tokens", "own_lm_head"})
        if (r.has(key) && !eagle)
            throw ScenarioError(r.keyPath(key), "applies to methods eagle and eagle3 only");
    c.ownEmbedTokens = r.boolean("own_embed_tokens", false);
    c.ownLmHead = r.boolean("own_lm_head", c.method == SpeculativeMethod::Eagle3);
    if (r.has("draft_vocab_size") && c.method != SpeculativeMethod::Eagle3)
        throw ScenarioError(r.keyPath("draft_vocab_size"), "applies to method eagle3 only");
    c.draftVocabSize = static_cast<std::uint32_t>(
        r.integer("draft_vocab_size", 0, std::max(1, s.model.vocab), 0));
    if (r.has("draft_tensor_parallel_size") &&
        r.integer("draft_tensor_parallel_size", 1, 1024, 1) != std::int64_t(s.parallel.tensor))
        throw ScenarioError(r.keyPath("draft_tensor_parallel_size"),
                            "only the target's tensor-parallel size (" + std::to_string(s.parallel.tensor) +
                                ") is modelled");
    for (const char *key : {"quantization", "kv_cache_dtype", "speculative_token_tree", "parallel_drafting"})
        if (r.has(key))
            throw ScenarioError(r.keyPath(key), "is not modelled by Headroom (the draft is sized in the model dtype, "
                                                "its KV cache as the target's, drafting as a chain)");
    for (const char *key : {"prompt_lookup_max", "prompt_lookup_min"}) { // ngram's: no GPU memory
        if (r.has(key) && c.method != SpeculativeMethod::Ngram)
            throw ScenarioError(r.keyPath(key), "applies to method ngram only");
        r.integer(key, 1, 1 << 20, 1);
    }
    r.finish();
    return c;
}

json speculativeToJson(const SpeculativeConfig &c)
{
    json doc = {{"method", c.methodName}, {"num_speculative_tokens", c.numSpeculativeTokens}};
    if (c.draft)
        doc["model"] = modelToJson(*c.draft);
    if (c.method == SpeculativeMethod::Eagle || c.method == SpeculativeMethod::Eagle3)
        doc.update({{"own_embed_tokens", c.ownEmbedTokens}, {"own_lm_head", c.ownLmHead}});
    if (c.draftVocabSize)
        doc["draft_vocab_size"] = c.draftVocabSize;
    return doc;
}

} // namespace headroom::detail
