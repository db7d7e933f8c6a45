// SPDX-License-Identifier: GPL-3.0-or-later
// The `model` object of a scenario: a catalog preset, a config.json, a complete architecture
// or a rough size, with explicit keys on top.
#include "model/modeljson.h"

#include "model/architecture.h"
#include "scenario/checked.h"
#include "model/hfconfig.h"
#include "model/modelname.h"
#include "scenario/objectreader.h"
#include "scenario/names.h"
#include "scenario/units.h"

#include <algorithm>
#include <set>

namespace headroom {

using nlohmann::json;

namespace {

using detail::knownIds;
using detail::ObjectReader;
using detail::readInt;

/// A list of enum names (`layer_kinds`, `layer_mlps`): 1 to 1024 entries, repeated over the layers.
template <typename E>
void readPattern(ObjectReader &r, const char *key, std::vector<E> &out)
{
    const json *value = r.child(key);
    if (!value)
        return;
    const std::string path = std::string("model.") + key;
    if (!value->is_array() || value->empty() || value->size() > 1024)
        throw ScenarioError(path, "must be a list of 1 to 1024 names, repeated over the layers (" +
                                      enumChoices<E>() + ")");
    out.clear();
    for (const json &item : *value) {
        const auto parsed = item.is_string() ? enumFromName<E>(item.get<std::string>()) : std::nullopt;
        if (!parsed)
            throw ScenarioError(path, "has " + quoteJson(item) + ": each entry must be one of " + enumChoices<E>());
        out.push_back(*parsed);
    }
}

void readLayerPatterns(ObjectReader &r, ModelArch &arch)
{
    readPattern(r, "layer_kinds", arch.layerKinds);
    readPattern(r, "layer_mlps", arch.layerMlps);
}

/// Reads the architecture keys on top of `arch` (a preset's values or the custom defaults).
void readArchitecture(ObjectReader &r, ModelArch &arch)
{
    arch.layers = readInt(r, "layers", 1, 1024, arch.layers);
    arch.hidden = readInt(r, "hidden", 1, 1 << 20, arch.hidden);
    arch.intermediate = readInt(r, "intermediate", 1, 1 << 22, arch.intermediate);
    arch.heads = readInt(r, "heads", 1, 65536, arch.heads);
    arch.kvHeads = readInt(r, "kv_heads", 1, 65536, arch.kvHeads);
    arch.headDim = readInt(r, "head_dim", 1, 65536, arch.headDim);
    arch.vocab = readInt(r, "vocab", 1, 1 << 22, arch.vocab);
    arch.tiedEmbeddings = r.boolean("tied_embeddings", arch.tiedEmbeddings);
    const Mlp mlpBefore = arch.mlp;
    arch.mlp = r.choice("mlp", arch.mlp);
    if (arch.mlp != mlpBefore)
        arch.activation = defaultActivation(arch.mlp);
    arch.activation = r.choice("activation", arch.activation);
    arch.norm = r.choice("norm", arch.norm);
    arch.bias = r.choice("bias", arch.bias);
    arch.position = r.choice("position", arch.position);
    arch.maxPositions = readInt(r, "max_positions", 0, 1 << 24, arch.maxPositions);
    arch.experts = readInt(r, "experts", 1, 4096, arch.experts);
    arch.expertsPerToken = readInt(r, "experts_per_token", 1, 4096, arch.expertsPerToken);
    arch.slidingWindow = readInt(r, "sliding_window", 0, 1 << 24, arch.slidingWindow);
    arch.normsPerLayer = readInt(r, "norms_per_layer", 0, 16, arch.normsPerLayer);
    arch.expertIntermediate = readInt(r, "expert_intermediate", 0, 1 << 22, arch.expertIntermediate);
    arch.sharedExperts = readInt(r, "shared_experts", 0, 64, arch.sharedExperts);
    arch.sharedExpertIntermediate =
        readInt(r, "shared_expert_intermediate", 0, 1 << 22, arch.sharedExpertIntermediate);
    arch.denseLayers = readInt(r, "dense_layers", 0, 1024, arch.denseLayers);
    arch.moeEvery = readInt(r, "moe_every", 1, 1024, arch.moeEvery);
    arch.globalEvery = readInt(r, "global_every", 0, 1024, arch.globalEvery);
    arch.qkNorm = r.choice("qk_norm", arch.qkNorm);
    arch.attentionSinks = r.boolean("attention_sinks", arch.attentionSinks);
    arch.routerBias = r.boolean("router_bias", arch.routerBias);
    arch.qLoraRank = readInt(r, "q_lora_rank", 0, 1 << 20, arch.qLoraRank);
    arch.kvLoraRank = readInt(r, "kv_lora_rank", 0, 1 << 20, arch.kvLoraRank);
    arch.qkRopeHeadDim = readInt(r, "qk_rope_head_dim", 0, 65536, arch.qkRopeHeadDim);
    arch.qkNopeHeadDim = readInt(r, "qk_nope_head_dim", 0, 65536, arch.qkNopeHeadDim);
    arch.vHeadDim = readInt(r, "v_head_dim", 0, 65536, arch.vHeadDim);
    readLayerPatterns(r, arch);
    LinearShape &l = arch.linear;
    l.heads = readInt(r, "linear_heads", 0, 65536, l.heads);
    l.keyHeads = readInt(r, "linear_key_heads", 0, 65536, l.keyHeads);
    l.keyDim = readInt(r, "linear_key_dim", 0, 65536, l.keyDim);
    l.valueDim = readInt(r, "linear_value_dim", 0, 65536, l.valueDim);
    l.groups = readInt(r, "linear_groups", 1, 65536, l.groups);
    l.convKernel = readInt(r, "linear_conv_kernel", 0, 64, l.convKernel);
    l.projBias = r.boolean("linear_proj_bias", l.projBias);
    l.convBias = r.boolean("linear_conv_bias", l.convBias);
    l.dtRank = readInt(r, "linear_dt_rank", 0, 65536, l.dtRank);
    arch.gatedAttention = r.boolean("gated_attention", arch.gatedAttention);
    arch.indexerHeads = readInt(r, "indexer_heads", 0, 65536, arch.indexerHeads);
    arch.indexerHeadDim = readInt(r, "indexer_head_dim", 0, 65536, arch.indexerHeadDim);
    arch.mtpLayers = readInt(r, "mtp_layers", 0, 16, arch.mtpLayers);
    if (r.has("mtp_params"))
        arch.mtpParams = static_cast<std::uint64_t>(r.integer("mtp_params", 0, 1'000'000'000'000'000, 0));
    if (r.has("vision_params"))
        arch.visionParams = static_cast<std::uint64_t>(r.integer("vision_params", 0, 1'000'000'000'000'000, 0));
    if (r.has("params"))
        arch.params = static_cast<std::uint64_t>(r.integer("params", 1, 1'000'000'000'000'000, 1));
}

/// When keys change the shape of an architecture whose exact total overrode the derived one
/// (an imported config.json, a catalog preset), keep what ModelArch cannot express (BERT's
/// pooler, Qwen3-Next's shared-expert gates, ...) on top of the new shape's count.
void keepUnmodelledParams(const ModelArch &source, ModelArch &arch)
{
    if (!source.params)
        return;
    const std::uint64_t exact = *source.params;
    const std::uint64_t sourceDerived = countParams(source).derived;
    ModelArch shape = arch;
    shape.params.reset();
    const std::uint64_t derived = countParams(shape).derived;
    if (exact >= sourceDerived)
        arch.params = addChecked(derived, exact - sourceDerived, "parameter count");
    else if (sourceDerived - exact < derived)
        arch.params = derived - (sourceDerived - exact);
    else
        throw ScenarioError("model", "the changed architecture leaves no parameters");
}

/// The architecture of `model.config`: the imported config.json with explicit keys on top.
ModelArch readConfigModel(ObjectReader &r, const ConfigResolver &resolveConfig, StoredPrecision *stored)
{
    const std::string path = r.text("config", "");
    if (path.empty())
        throw ScenarioError("model.config", "must name a config.json file");
    if (r.has("preset"))
        throw ScenarioError("model.config", "give either model.preset or model.config, not both");
    HfImport import;
    std::string name;
    try {
        const json config = resolveConfig(path);
        name = importedModelName(config, path);
        import = importHfConfig(config);
    } catch (const HfConfigError &error) {
        throw ScenarioError("model.config", quoteText(path, 200) + ": " + error.what());
    }
    ModelArch arch = import.arch;
    if (stored)
        *stored = {import.storedWeights, import.storedScales, import.storedModules, import.storedGroupSize,
                   import.storedZeroPoints, import.unmodelledFormat};
    arch.config = path;
    arch.name = name;
    const bool explicitParams = r.has("params");
    readArchitecture(r, arch);
    if (!explicitParams)
        keepUnmodelledParams(import.arch, arch);
    return arch;
}

/// The shape rules the newer keys add: latent attention needs its head dimensions, experts
/// their counts, a global layer pattern its window.
void validateArchitecture(const ModelArch &arch)
{
    if (arch.latentAttention()) {
        if (arch.qkRopeHeadDim <= 0 || arch.qkNopeHeadDim <= 0 || arch.vHeadDim <= 0)
            throw ScenarioError("model.kv_lora_rank", "latent attention also needs qk_rope_head_dim, "
                                                      "qk_nope_head_dim and v_head_dim");
    } else if (arch.qLoraRank > 0) {
        throw ScenarioError("model.q_lora_rank", "needs model.kv_lora_rank (latent attention)");
    }
    if (arch.experts <= 1 && (arch.sharedExperts > 0 || arch.expertIntermediate > 0))
        throw ScenarioError(arch.sharedExperts > 0 ? "model.shared_experts" : "model.expert_intermediate",
                            "needs model.experts above 1 (a mixture of experts)");
    if (arch.denseLayers > arch.layers)
        throw ScenarioError("model.dense_layers", "must be at most model.layers (" +
                                                      std::to_string(arch.layers) + ")");
    if (arch.globalEvery > 0 && arch.slidingWindow == 0)
        throw ScenarioError("model.global_every", "needs model.sliding_window (the local layers' window)");
    if ((arch.hasKind(LayerKind::Sliding) || arch.hasKind(LayerKind::Chunked)) && arch.slidingWindow == 0)
        throw ScenarioError("model.layer_kinds", "has sliding or chunked layers: they need model.sliding_window");
    if (arch.hasKind(LayerKind::Mla) && !arch.latentAttention())
        throw ScenarioError("model.layer_kinds", "has mla layers: they need model.kv_lora_rank");
    const LinearShape &l = arch.linear;
    const bool linear = arch.hasKind(LayerKind::GatedDeltaNet) || arch.hasKind(LayerKind::Lightning) ||
                        arch.hasKind(LayerKind::Kda) || arch.hasKind(LayerKind::Mamba2) ||
                        arch.hasKind(LayerKind::Mamba1);
    if (linear && (l.heads <= 0 || l.keyDim <= 0 || l.valueDim <= 0))
        throw ScenarioError("model.layer_kinds", "has linear-attention or mamba2 layers: they need "
                                                 "model.linear_heads, linear_key_dim and linear_value_dim");
    const bool conv = arch.hasKind(LayerKind::GatedDeltaNet) || arch.hasKind(LayerKind::Kda) ||
                      arch.hasKind(LayerKind::Mamba2) || arch.hasKind(LayerKind::Mamba1) ||
                      arch.hasKind(LayerKind::ShortConv);
    if (conv && l.convKernel < 2)
        throw ScenarioError("model.linear_conv_kernel", "must be at least 2 for gated_deltanet, kda, mamba2, mamba1 "
                                                        "and short_conv layers");
    if (arch.hasKind(LayerKind::Mamba1) && l.dtRank <= 0)
        throw ScenarioError("model.linear_dt_rank", "must be above 0 for mamba1 layers (the time step's rank)");
    if (arch.hasKind(LayerKind::Mamba2) && (l.heads % l.groups != 0))
        throw ScenarioError("model.linear_groups", "must divide model.linear_heads (" + std::to_string(l.heads) + ")");
    if (arch.layerMlps.size() > 0 && arch.experts <= 1 && arch.moeLayers() > 0)
        throw ScenarioError("model.layer_mlps", "has moe layers: they need model.experts above 1");
    if (arch.indexerHeads > 0 && (arch.indexerHeadDim <= 0 || !arch.latentAttention()))
        throw ScenarioError("model.indexer_heads", "needs model.indexer_head_dim and latent attention (kv_lora_rank)");
}

/// The fill-ins of a rough model of this hidden size (docs/scenario-format.md): what the reader
/// assumes for every architecture key the file leaves out.
ModelArch roughFillIns(int hidden)
{
    ModelArch arch;
    arch.preset.clear();
    arch.hidden = hidden;
    arch.heads = std::max(1, arch.hidden / 128);
    arch.kvHeads = arch.heads;
    arch.headDim = std::max(1, arch.hidden / arch.heads);
    arch.intermediate = 4 * arch.hidden;
    arch.mlp = Mlp::Standard;
    arch.vocab = 32000;
    arch.maxPositions = 4096;
    arch.rough = true;
    return arch;
}

/// A rough model: only the size is known, the rest documented fill-ins, flagged as rough. The
/// attention and MLP shape keys the window lets a user edit on it (heads, kv_heads, head_dim,
/// intermediate, max_positions) override the fill-ins; a file that gives them all says
/// `"rough": true` (`missing` is then empty).
ModelArch readRoughModel(ObjectReader &r, const json &node, const std::string &missing, const std::string &name)
{
    static const std::set<std::string> roughKeys{"params", "hidden", "layers", "vocab", "tied_embeddings", "name",
                                                 "rough", "heads", "kv_heads", "head_dim", "intermediate",
                                                 "max_positions"};
    for (const auto &item : node.items())
        if (!roughKeys.count(item.key()))
            throw ScenarioError("model." + keyForPath(item.key()),
                                "a rough model (no preset, architecture incomplete" +
                                    (missing.empty() ? std::string() : ": missing " + missing) +
                                    ") takes only params, hidden, layers, vocab, tied_embeddings, heads, "
                                    "kv_heads, head_dim, intermediate, max_positions");
    ModelArch arch = roughFillIns(readInt(r, "hidden", 1, 1 << 20, 4096));
    arch.layers = readInt(r, "layers", 1, 1024, 32);
    arch.vocab = readInt(r, "vocab", 1, 1 << 22, arch.vocab);
    arch.tiedEmbeddings = r.boolean("tied_embeddings", false);
    arch.params = static_cast<std::uint64_t>(r.integer("params", 1, 1'000'000'000'000'000, 1));
    arch.heads = readInt(r, "heads", 1, 65536, arch.heads);
    arch.kvHeads = readInt(r, "kv_heads", 1, 65536, arch.heads);
    arch.headDim = readInt(r, "head_dim", 1, 65536, std::max(1, arch.hidden / arch.heads));
    arch.intermediate = readInt(r, "intermediate", 1, 1 << 22, arch.intermediate);
    arch.maxPositions = readInt(r, "max_positions", 0, 1 << 24, arch.maxPositions);
    if (arch.heads % arch.kvHeads != 0)
        throw ScenarioError("model.kv_heads", "must divide model.heads (" + std::to_string(arch.heads) +
                                                  "), got " + std::to_string(arch.kvHeads));
    arch.name = name;
    return arch;
}

} // namespace

ModelArch readModel(const json *node, const Catalog &catalog, const ConfigResolver &resolveConfig,
                    StoredPrecision *stored)
{
    const ModelPreset *fallbackPreset = catalog.findModel("llama-3-8b");
    if (!node)
        return fallbackPreset ? fallbackPreset->arch : ModelArch{};
    ObjectReader r(*node, "model");
    ModelArch arch;
    const std::string name = r.text("name", "");
    if (const std::string problem = modelNameProblem(name); !problem.empty())
        throw ScenarioError("model.name", problem);
    const bool fromConfig = r.has("config");
    if (fromConfig && resolveConfig) {
        arch = readConfigModel(r, resolveConfig, stored);
    } else if (r.has("preset")) {
        if (fromConfig)
            throw ScenarioError("model.config", "give either model.preset or model.config, not both");
        const std::string id = r.text("preset", "");
        const ModelPreset *preset = catalog.findModel(id);
        if (!preset) {
            std::vector<std::string> ids;
            for (const auto &model : catalog.models)
                ids.push_back(model.id);
            throw ScenarioError("model.preset", "unknown model \"" + quoteText(id) +
                                                    "\" (known: " + knownIds(ids) + ")");
        }
        arch = preset->arch;
        if (stored) {
            *stored = StoredPrecision{};
            stored->weights = preset->storedWeights;
            stored->scales = preset->storedScales;
            stored->modules = preset->storedModules;
        }
        const bool explicitParams = r.has("params");
        readArchitecture(r, arch);
        if (!explicitParams)
            keepUnmodelledParams(preset->arch, arch);
    } else {
        if (r.has("rough")) {
            if (!r.boolean("rough", false))
                throw ScenarioError("model.rough", "may only be true (a rough model); leave it out otherwise");
            if (!(r.has("params") && r.has("hidden") && r.has("layers")))
                throw ScenarioError("model.rough", "needs params, hidden and layers");
            return readRoughModel(r, *node, std::string(), name);
        }
        static const char *required[] = {"layers", "hidden", "intermediate", "heads", "vocab"};
        std::string missing;
        for (const char *key : required)
            if (!r.has(key))
                missing += (missing.empty() ? "" : ", ") + std::string(key);
        if (!missing.empty()) {
            if (fromConfig)
                throw ScenarioError("model.config", "cannot be read here (no config reader); "
                                                    "without it these keys are required: " +
                                                        missing);
            if (r.has("params") && r.has("hidden") && r.has("layers"))
                return readRoughModel(r, *node, missing, name);
            throw ScenarioError("model", "without \"preset\" these keys are required: layers, "
                                         "hidden, intermediate, heads, vocab (missing: " +
                                             missing +
                                             "); or give params, hidden and layers for a rough "
                                             "estimate");
        }
        arch = ModelArch{};
        arch.preset.clear();
        if (fromConfig)
            arch.config = r.text("config", "");
        arch.maxPositions = 4096;
        arch.hidden = readInt(r, "hidden", 1, 1 << 20, 0);
        arch.heads = readInt(r, "heads", 1, 65536, 0);
        arch.kvHeads = arch.heads;
        arch.headDim = std::max(1, arch.hidden / arch.heads);
        if (arch.hidden % arch.heads != 0 && !r.has("head_dim"))
            throw ScenarioError("model.head_dim", "required when hidden is not a multiple of heads");
        readArchitecture(r, arch);
    }
    r.finish();
    if (!name.empty())
        arch.name = name; // the file's own name wins over the one taken from its config.json
    if (arch.heads % arch.kvHeads != 0)
        throw ScenarioError("model.kv_heads", "must divide model.heads (" +
                                                  std::to_string(arch.heads) + "), got " +
                                                  std::to_string(arch.kvHeads));
    validateArchitecture(arch);
    if (arch.expertsPerToken > arch.experts)
        throw ScenarioError("model.experts_per_token",
                            "must be at most model.experts (" + std::to_string(arch.experts) + ")");
    return arch;
}

json modelToJson(const ModelArch &m)
{
    json model;
    if (m.rough) {
        // params is always set on a rough model (0, were it not, is refused on reading).
        model = {{"params", m.params.value_or(0)}, {"hidden", m.hidden}, {"layers", m.layers},
                 {"vocab", m.vocab}, {"tied_embeddings", m.tiedEmbeddings}};
        if (!m.name.empty())
            model["name"] = m.name;
        // The shape keys a user edited on the rough model (issue 22: what the estimate used is
        // what the file holds), each only where it is not the reader's fill-in; with any of
        // them the file says it is rough, as heads, intermediate and vocab would make it complete.
        const ModelArch fill = roughFillIns(m.hidden);
        bool edited = false;
        const auto shape = [&](const char *key, int value, int fallback) {
            if (value != fallback) {
                model[key] = value;
                edited = true;
            }
        };
        shape("heads", m.heads, fill.heads);
        shape("kv_heads", m.kvHeads, m.heads);
        shape("head_dim", m.headDim, std::max(1, m.hidden / std::max(1, m.heads)));
        shape("intermediate", m.intermediate, fill.intermediate);
        shape("max_positions", m.maxPositions, fill.maxPositions);
        if (edited)
            model["rough"] = true;
    } else {
        if (!m.preset.empty())
            model["preset"] = m.preset;
        if (!m.config.empty())
            model["config"] = m.config;
        if (!m.name.empty())
            model["name"] = m.name;
        model.update({{"layers", m.layers},
                      {"hidden", m.hidden},
                      {"intermediate", m.intermediate},
                      {"heads", m.heads},
                      {"kv_heads", m.kvHeads},
                      {"head_dim", m.headDim},
                      {"vocab", m.vocab},
                      {"tied_embeddings", m.tiedEmbeddings},
                      {"mlp", enumName(m.mlp)},
                      {"activation", enumName(m.activation)},
                      {"norm", enumName(m.norm)},
                      {"bias", enumName(m.bias)},
                      {"position", enumName(m.position)},
                      {"max_positions", m.maxPositions},
                      {"experts", m.experts},
                      {"experts_per_token", m.expertsPerToken},
                      {"sliding_window", m.slidingWindow},
                      {"norms_per_layer", m.normsPerLayer}});
        // The newer shape keys only when they differ from their defaults: older files and
        // dense models read back the same.
        const auto optional = [&](const char *key, int value, int fallback) {
            if (value != fallback)
                model[key] = value;
        };
        optional("expert_intermediate", m.expertIntermediate, 0);
        optional("shared_experts", m.sharedExperts, 0);
        optional("shared_expert_intermediate", m.sharedExpertIntermediate, 0);
        optional("dense_layers", m.denseLayers, 0);
        optional("moe_every", m.moeEvery, 1);
        optional("global_every", m.globalEvery, 0);
        if (m.qkNorm != QkNorm::None)
            model["qk_norm"] = enumName(m.qkNorm);
        if (m.attentionSinks)
            model["attention_sinks"] = true;
        if (m.routerBias)
            model["router_bias"] = true;
        optional("q_lora_rank", m.qLoraRank, 0);
        optional("kv_lora_rank", m.kvLoraRank, 0);
        optional("qk_rope_head_dim", m.qkRopeHeadDim, 0);
        optional("qk_nope_head_dim", m.qkNopeHeadDim, 0);
        optional("v_head_dim", m.vHeadDim, 0);
        const auto names = [](const auto &list) {
            json out = json::array();
            for (const auto value : list)
                out.push_back(enumName(value));
            return out;
        };
        if (!m.layerKinds.empty())
            model["layer_kinds"] = names(m.layerKinds);
        if (!m.layerMlps.empty())
            model["layer_mlps"] = names(m.layerMlps);
        const LinearShape defaults;
        optional("linear_heads", m.linear.heads, defaults.heads);
        optional("linear_key_heads", m.linear.keyHeads, defaults.keyHeads);
        optional("linear_key_dim", m.linear.keyDim, defaults.keyDim);
        optional("linear_value_dim", m.linear.valueDim, defaults.valueDim);
        optional("linear_groups", m.linear.groups, defaults.groups);
        optional("linear_conv_kernel", m.linear.convKernel, defaults.convKernel);
        if (m.linear.projBias)
            model["linear_proj_bias"] = true;
        if (!m.linear.convBias)
            model["linear_conv_bias"] = false;
        optional("linear_dt_rank", m.linear.dtRank, defaults.dtRank);
        if (m.gatedAttention)
            model["gated_attention"] = true;
        optional("indexer_heads", m.indexerHeads, 0);
        optional("indexer_head_dim", m.indexerHeadDim, 0);
        optional("mtp_layers", m.mtpLayers, 0);
        if (m.mtpParams)
            model["mtp_params"] = m.mtpParams;
        if (m.visionParams)
            model["vision_params"] = m.visionParams;
        if (m.params)
            model["params"] = *m.params;
    }
    return model;
}

} // namespace headroom
