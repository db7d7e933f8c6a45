// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario/catalog.h"

#include "scenario/catalogdata.h"
#include "scenario/names.h"
#include "scenario/units.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>

namespace headroom {

namespace {

using nlohmann::json;

/// The largest machine RAM a catalog entry (and host.ram_gib) may give: 16 PiB.
constexpr double kMaxRamGiB = 1 << 24;

template <typename T>
T field(const json &entry, const char *key, const std::string &where)
{
    if (!entry.contains(key))
        throw std::runtime_error(where + ": missing key \"" + key + "\"");
    try {
        return entry.at(key).get<T>();
    } catch (const json::exception &) {
        throw std::runtime_error(where + ": key \"" + key + "\" has the wrong type");
    }
}

template <typename E>
E enumField(const json &entry, const char *key, const std::string &where)
{
    const auto name = field<std::string>(entry, key, where);
    if (auto value = enumFromName<E>(name))
        return *value;
    throw std::runtime_error(where + ": \"" + key + "\" must be one of " + enumChoices<E>());
}

ModelPreset parseModel(const json &entry)
{
    ModelPreset preset;
    preset.id = field<std::string>(entry, "id", "models.json");
    const std::string where = "models.json entry " + preset.id;
    preset.name = field<std::string>(entry, "name", where);
    preset.hfId = field<std::string>(entry, "hf_id", where);
    preset.family = field<std::string>(entry, "family", where);
    preset.publishedParams = field<std::uint64_t>(entry, "published_params", where);
    preset.source = field<std::string>(entry, "source", where);
    ModelArch &arch = preset.arch;
    arch.preset = preset.id;
    arch.layers = field<int>(entry, "layers", where);
    arch.hidden = field<int>(entry, "hidden", where);
    arch.intermediate = field<int>(entry, "intermediate", where);
    arch.heads = field<int>(entry, "heads", where);
    arch.kvHeads = field<int>(entry, "kv_heads", where);
    arch.headDim = field<int>(entry, "head_dim", where);
    arch.vocab = field<int>(entry, "vocab", where);
    arch.tiedEmbeddings = field<bool>(entry, "tied_embeddings", where);
    arch.mlp = enumField<Mlp>(entry, "mlp", where);
    arch.activation = entry.contains("activation") ? enumField<Activation>(entry, "activation", where)
                                                   : defaultActivation(arch.mlp);
    arch.norm = enumField<Norm>(entry, "norm", where);
    arch.bias = enumField<Bias>(entry, "bias", where);
    arch.position = enumField<Position>(entry, "position", where);
    arch.maxPositions = field<int>(entry, "max_positions", where);
    arch.experts = field<int>(entry, "experts", where);
    arch.expertsPerToken = field<int>(entry, "experts_per_token", where);
    arch.slidingWindow = field<int>(entry, "sliding_window", where);
    arch.normsPerLayer = field<int>(entry, "norms_per_layer", where);
    // The 2025-2026 shape keys are optional (absent: a dense model with full attention).
    const auto optional = [&](const char *key, int fallback) {
        return entry.contains(key) ? field<int>(entry, key, where) : fallback;
    };
    arch.expertIntermediate = optional("expert_intermediate", 0);
    arch.sharedExperts = optional("shared_experts", 0);
    arch.sharedExpertIntermediate = optional("shared_expert_intermediate", 0);
    arch.denseLayers = optional("dense_layers", 0);
    arch.moeEvery = optional("moe_every", 1);
    arch.globalEvery = optional("global_every", 0);
    arch.qLoraRank = optional("q_lora_rank", 0);
    arch.kvLoraRank = optional("kv_lora_rank", 0);
    arch.qkRopeHeadDim = optional("qk_rope_head_dim", 0);
    arch.qkNopeHeadDim = optional("qk_nope_head_dim", 0);
    arch.vHeadDim = optional("v_head_dim", 0);
    if (entry.contains("qk_norm"))
        arch.qkNorm = enumField<QkNorm>(entry, "qk_norm", where);
    arch.attentionSinks = entry.contains("attention_sinks") && field<bool>(entry, "attention_sinks", where);
    arch.routerBias = entry.contains("router_bias") && field<bool>(entry, "router_bias", where);
    arch.mtpLayers = optional("mtp_layers", 0);
    if (entry.contains("mtp_params"))
        arch.mtpParams = field<std::uint64_t>(entry, "mtp_params", where);
    // Hybrid layers: each layer's mixer and MLP (repeated over the layers), the linear mixers' shape.
    const auto pattern = [&](const char *key, auto &out) {
        if (!entry.contains(key))
            return;
        using E = typename std::decay_t<decltype(out)>::value_type;
        const json &list = entry.at(key);
        if (!list.is_array() || list.empty() || list.size() > 1024)
            throw std::runtime_error(where + ": \"" + key + "\" must be a list of 1 to 1024 names");
        for (const json &item : list) {
            const auto parsed = item.is_string() ? enumFromName<E>(item.get<std::string>()) : std::nullopt;
            if (!parsed)
                throw std::runtime_error(where + ": \"" + key + "\" entries must be one of " + enumChoices<E>());
            out.push_back(*parsed);
        }
    };
    pattern("layer_kinds", arch.layerKinds);
    pattern("layer_mlps", arch.layerMlps);
    LinearShape &linear = arch.linear;
    linear.heads = optional("linear_heads", 0);
    linear.keyHeads = optional("linear_key_heads", 0);
    linear.keyDim = optional("linear_key_dim", 0);
    linear.valueDim = optional("linear_value_dim", 0);
    linear.groups = optional("linear_groups", 1);
    linear.convKernel = optional("linear_conv_kernel", 0);
    linear.dtRank = optional("linear_dt_rank", 0);
    if (entry.contains("linear_conv_bias"))
        linear.convBias = field<bool>(entry, "linear_conv_bias", where);
    if (entry.contains("linear_proj_bias"))
        linear.projBias = field<bool>(entry, "linear_proj_bias", where);
    // As a scenario's model block names them: Qwen3-Next's gated attention, DeepSeek-V3.2's
    // indexer, and the exact total where the shape leaves tensors out (Qwen3-Next's shared gates).
    arch.gatedAttention = entry.contains("gated_attention") && field<bool>(entry, "gated_attention", where);
    arch.indexerHeads = optional("indexer_heads", 0);
    arch.indexerHeadDim = optional("indexer_head_dim", 0);
    if (entry.contains("params"))
        arch.params = field<std::uint64_t>(entry, "params", where);
    if (entry.contains("published_total")) {
        const json &published = entry.at("published_total");
        preset.publishedRounded = field<double>(published, "value", where + " published_total");
        preset.publishedRounding = field<double>(published, "round", where + " published_total");
        preset.publishedText = field<std::string>(published, "text", where + " published_total");
        if (published.contains("active"))
            preset.publishedActiveRounded = field<double>(published, "active", where + " published_total");
    }
    if (entry.contains("stored_weights"))
        preset.storedWeights = enumField<DType>(entry, "stored_weights", where);
    if (entry.contains("stored_scales"))
        preset.storedScales = enumField<WeightScales>(entry, "stored_scales", where);
    if (entry.contains("stored_modules"))
        preset.storedModules = enumField<QuantizedModules>(entry, "stored_modules", where);
    return preset;
}

Gpu parseGpu(const json &entry)
{
    Gpu gpu;
    gpu.id = field<std::string>(entry, "id", "gpus.json");
    const std::string where = "gpus.json entry " + gpu.id;
    gpu.name = field<std::string>(entry, "name", where);
    gpu.marketingGb = field<double>(entry, "marketing_gb", where);
    gpu.capacityMiB = field<std::uint64_t>(entry, "capacity_mib", where);
    gpu.vendor = field<std::string>(entry, "vendor", where);
    gpu.gpuClass = field<std::string>(entry, "class", where);
    gpu.source = field<std::string>(entry, "source", where);
    if (entry.contains("unified")) {
        if (!entry.at("unified").is_boolean())
            throw std::runtime_error(where + ": key \"unified\" must be true or false");
        gpu.unified = entry.at("unified").get<bool>();
    }
    return gpu;
}

/// One entry of gpus.json's `machines`: every key required, no other key, its GPU in `catalog`.
Machine parseMachine(const json &entry, const Catalog &catalog)
{
    if (!entry.is_object())
        throw std::runtime_error("gpus.json machines: each entry must be an object");
    Machine machine;
    machine.id = field<std::string>(entry, "id", "gpus.json machines");
    if (machine.id.empty())
        throw std::runtime_error("gpus.json machines: key \"id\" must not be empty");
    const std::string where = "gpus.json machine " + machine.id;
    static const char *keys[] = {"id", "name", "gpu", "gpus", "ram_gib", "source"};
    for (const auto &item : entry.items())
        if (std::find(std::begin(keys), std::end(keys), item.key()) == std::end(keys))
            throw std::runtime_error(where + ": unknown key \"" + item.key() +
                                     "\" (allowed: id, name, gpu, gpus, ram_gib, source)");
    machine.name = field<std::string>(entry, "name", where);
    machine.gpuId = field<std::string>(entry, "gpu", where);
    if (!catalog.findGpu(machine.gpuId))
        throw std::runtime_error(where + ": key \"gpu\" names \"" + machine.gpuId +
                                 "\", which is not in gpus.json's gpus");
    if (!entry.contains("gpus"))
        throw std::runtime_error(where + ": missing key \"gpus\"");
    const json &count = entry.at("gpus");
    if (!count.is_number_integer() || count.get<std::int64_t>() < 1 || count.get<std::int64_t>() > 1024)
        throw std::runtime_error(where + ": key \"gpus\" must be a whole number from 1 to 1,024");
    machine.gpus = count.get<std::uint32_t>();
    if (entry.contains("ram_gib") && !entry.at("ram_gib").is_number())
        throw std::runtime_error(where + ": key \"ram_gib\" has the wrong type");
    machine.ramGiB = field<double>(entry, "ram_gib", where);
    if (!std::isfinite(machine.ramGiB) || machine.ramGiB <= 0 || machine.ramGiB > kMaxRamGiB)
        throw std::runtime_error(where + ": key \"ram_gib\" must be above 0 and at most 16,777,216");
    machine.source = field<std::string>(entry, "source", where);
    if (machine.source.empty())
        throw std::runtime_error(where + ": key \"source\" must say where the figures come from");
    if (catalog.findMachine(machine.id))
        throw std::runtime_error(where + ": the id is given twice");
    return machine;
}

json parseDocument(std::string_view text, const char *format, const char *name)
{
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        throw std::runtime_error(std::string(name) + ": not a JSON object");
    const auto formatIt = doc.find("format");
    const auto versionIt = doc.find("version");
    if (formatIt == doc.end() || *formatIt != format || versionIt == doc.end() || *versionIt != 1)
        throw std::runtime_error(std::string(name) + ": expected format \"" + format +
                                 "\" version 1");
    return doc;
}

} // namespace

const ModelPreset *Catalog::findModel(std::string_view id) const
{
    for (const auto &model : models)
        if (model.id == id)
            return &model;
    return nullptr;
}

std::optional<Gpu> sizeGpu(std::string_view id)
{
    const std::optional<TypedCapacity> capacity = parseCapacity(id);
    if (!capacity || capacity->id() != id)
        return std::nullopt;
    Gpu gpu;
    gpu.id = std::string(id);
    gpu.name = capacity->text() + " GPU";
    gpu.marketingGb = double(capacity->thousandths) / 1000.0;
    gpu.capacityMiB = capacity->bytes() >> 20;
    gpu.vendor = "unknown";
    gpu.gpuClass = "typed";
    gpu.source = "the size you typed, taken as nvidia-smi's memory.total; not a catalog GPU";
    return gpu;
}

std::string canonicalGpuId(std::string_view text, const Catalog &catalog)
{
    if (catalog.findGpu(text))
        return std::string(text);
    if (const std::optional<TypedCapacity> capacity = parseCapacity(text))
        return capacity->id();
    return {};
}

const Gpu *Catalog::findGpu(std::string_view id) const
{
    for (const auto &gpu : gpus)
        if (gpu.id == id)
            return &gpu;
    // A size GPU: made once per spelling and kept for the program's life (the pointer is
    // stable), at most kMaxSizeGpus of them, which no window or command comes near.
    constexpr std::size_t kMaxSizeGpus = 65536;
    static std::mutex lock;
    static std::map<std::string, Gpu, std::less<>> made;
    const std::lock_guard<std::mutex> guard(lock);
    if (const auto found = made.find(id); found != made.end())
        return &found->second;
    if (made.size() >= kMaxSizeGpus)
        return nullptr;
    if (std::optional<Gpu> gpu = sizeGpu(id))
        return &made.emplace(gpu->id, std::move(*gpu)).first->second;
    return nullptr;
}

const Machine *Catalog::findMachine(std::string_view id) const
{
    for (const auto &machine : machines)
        if (machine.id == id)
            return &machine;
    return nullptr;
}

Catalog parseCatalog(std::string_view modelsJson, std::string_view gpusJson)
{
    Catalog catalog;
    const json models = parseDocument(modelsJson, "headroom-model-catalog", "models.json");
    for (const auto &entry : models.at("models"))
        catalog.models.push_back(parseModel(entry));
    const json gpus = parseDocument(gpusJson, "headroom-gpu-catalog", "gpus.json");
    for (const auto &entry : gpus.at("gpus"))
        catalog.gpus.push_back(parseGpu(entry));
    if (const auto machines = gpus.find("machines"); machines != gpus.end()) {
        if (!machines->is_array())
            throw std::runtime_error("gpus.json: \"machines\" must be a list");
        for (const auto &entry : *machines)
            catalog.machines.push_back(parseMachine(entry, catalog));
    }
    return catalog;
}

const Catalog &builtinCatalog()
{
    static const Catalog catalog = parseCatalog(catalogdata::modelsJson, catalogdata::gpusJson);
    return catalog;
}

} // namespace headroom
