// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenariojson.h"

#include "objectreader.h"
#include "servingjson.h"

#include "architecture.h"
#include "checked.h"
#include "framework.h"
#include "hfconfig.h"
#include "names.h"
#include "units.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace headroom {

using nlohmann::json;

namespace {

using detail::ObjectReader;

constexpr std::int64_t kMaxTokens = 16 * 1024 * 1024;
/// The longest `--set` key path (the longest real one is under 40 characters).
constexpr std::size_t kMaxSetPathChars = 200;

/// The value of `--set path=text`: JSON when it parses as JSON (under the input policy: a
/// value too deep or with a key given twice is an error, not a string), else a string, and
/// "a,b" a list of strings.
json overrideValue(const std::string &path, const std::string &text)
{
    try {
        return parseStrictJson(text);
    } catch (const JsonInputError &error) {
        if (error.problem != JsonProblem::Syntax)
            throw ScenarioError(error.key.empty()        ? path
                                : error.key.front() == '[' ? path + error.key
                                                           : path + "." + error.key,
                                "--set value " + error.detail);
    }
    if (text.find(',') == std::string::npos)
        return text;
    json list = json::array();
    std::size_t from = 0;
    while (from <= text.size()) {
        const auto comma = text.find(',', from);
        list.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
        if (comma == std::string::npos)
            break;
        from = comma + 1;
    }
    return list;
}

int readInt(ObjectReader &r, const char *key, int low, int high, int fallback)
{
    return static_cast<int>(r.integer(key, low, high, fallback));
}

std::uint32_t readCount(ObjectReader &r, const char *key, std::int64_t high, std::uint32_t fallback)
{
    return static_cast<std::uint32_t>(r.integer(key, 1, high, fallback));
}

std::string knownIds(const std::vector<std::string> &ids)
{
    std::string out;
    for (std::size_t i = 0; i < ids.size(); ++i)
        out += (i ? ", " : "") + ids[i];
    return out;
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
    if (r.has("params"))
        arch.params = static_cast<std::uint64_t>(r.integer("params", 1, 1'000'000'000'000'000, 1));
}

/// The architecture of `model.config`: the imported config.json with explicit keys on top.
ModelArch readConfigModel(ObjectReader &r, const ConfigResolver &resolveConfig)
{
    const std::string path = r.text("config", "");
    if (path.empty())
        throw ScenarioError("model.config", "must name a config.json file");
    if (r.has("preset"))
        throw ScenarioError("model.config", "give either model.preset or model.config, not both");
    HfImport import;
    try {
        import = importHfConfig(resolveConfig(path));
    } catch (const HfConfigError &error) {
        throw ScenarioError("model.config", quoteText(path, 200) + ": " + error.what());
    }
    ModelArch arch = import.arch;
    arch.config = path;
    const bool explicitParams = r.has("params");
    readArchitecture(r, arch);
    if (import.arch.params && !explicitParams) {
        // Keep what ModelArch cannot express (BERT's pooler, ...) when keys change the shape.
        const std::uint64_t imported = *import.arch.params;
        const std::uint64_t importedDerived = countParams(import.arch).derived;
        ModelArch shape = arch;
        shape.params.reset();
        const std::uint64_t derived = countParams(shape).derived;
        if (imported >= importedDerived)
            arch.params = addChecked(derived, imported - importedDerived, "parameter count");
        else if (importedDerived - imported < derived)
            arch.params = derived - (importedDerived - imported);
        else
            throw ScenarioError("model", "the changed architecture leaves no parameters");
    }
    return arch;
}

ModelArch readModel(const json *node, const Catalog &catalog, const ConfigResolver &resolveConfig)
{
    const ModelPreset *fallbackPreset = catalog.findModel("llama-3-8b");
    if (!node)
        return fallbackPreset ? fallbackPreset->arch : ModelArch{};
    ObjectReader r(*node, "model");
    ModelArch arch;
    const bool fromConfig = r.has("config");
    if (fromConfig && resolveConfig) {
        arch = readConfigModel(r, resolveConfig);
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
        readArchitecture(r, arch);
    } else {
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
            if (r.has("params") && r.has("hidden") && r.has("layers")) {
                // Rough model: only the size is known. Documented fill-ins, flagged as rough.
                arch = ModelArch{};
                arch.preset.clear();
                arch.hidden = readInt(r, "hidden", 1, 1 << 20, 4096);
                arch.heads = std::max(1, arch.hidden / 128);
                arch.kvHeads = arch.heads;
                arch.headDim = std::max(1, arch.hidden / arch.heads);
                arch.intermediate = 4 * arch.hidden;
                arch.mlp = Mlp::Standard;
                arch.vocab = 32000;
                arch.maxPositions = 4096;
                for (const auto &item : node->items()) {
                    static const std::set<std::string> roughKeys{"params", "hidden", "layers",
                                                                 "vocab", "tied_embeddings"};
                    if (!roughKeys.count(item.key()))
                        throw ScenarioError("model." + keyForPath(item.key()),
                                            "a rough model (no preset, architecture incomplete: "
                                            "missing " + missing +
                                                ") takes only params, hidden, layers, vocab, "
                                                "tied_embeddings");
                }
                arch.layers = readInt(r, "layers", 1, 1024, 32);
                arch.vocab = readInt(r, "vocab", 1, 1 << 22, arch.vocab);
                arch.tiedEmbeddings = r.boolean("tied_embeddings", false);
                arch.params =
                    static_cast<std::uint64_t>(r.integer("params", 1, 1'000'000'000'000'000, 1));
                arch.rough = true;
                return arch;
            }
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
    if (arch.heads % arch.kvHeads != 0)
        throw ScenarioError("model.kv_heads", "must divide model.heads (" +
                                                  std::to_string(arch.heads) + "), got " +
                                                  std::to_string(arch.kvHeads));
    if (arch.expertsPerToken > arch.experts)
        throw ScenarioError("model.experts_per_token",
                            "must be at most model.experts (" + std::to_string(arch.experts) + ")");
    return arch;
}

LoraConfig readLora(const json *node)
{
    LoraConfig lora;
    if (!node)
        return lora;
    ObjectReader r(*node, "train.lora");
    lora.rank = readInt(r, "rank", 1, 65536, lora.rank);
    if (const json *targets = r.child("targets")) {
        if (!targets->is_array() || targets->empty())
            throw ScenarioError("train.lora.targets",
                                "must be a non-empty list of " + enumChoices<LoraTarget>());
        lora.targets.clear();
        for (const auto &item : *targets) {
            auto target = item.is_string() ? enumFromName<LoraTarget>(item.get<std::string>())
                                           : std::nullopt;
            if (!target)
                throw ScenarioError("train.lora.targets", "each entry must be one of " +
                                                              enumChoices<LoraTarget>() + " (got " +
                                                              ObjectReader::describe(item) + ")");
            if (std::find(lora.targets.begin(), lora.targets.end(), *target) != lora.targets.end())
                throw ScenarioError("train.lora.targets",
                                    "lists " + ObjectReader::describe(item) + " twice");
            lora.targets.push_back(*target);
        }
    }
    lora.dropout = r.number("dropout", 0.0, 1.0, lora.dropout, true);
    lora.dtype = r.choice("dtype", lora.dtype);
    if (lora.dtype != DType::FP32 && lora.dtype != DType::BF16 && lora.dtype != DType::FP16)
        throw ScenarioError("train.lora.dtype", "must be one of fp32, bf16, fp16");
    r.finish();
    return lora;
}

TrainConfig readTrain(const json *node)
{
    TrainConfig train;
    if (!node)
        return train;
    ObjectReader r(*node, "train");
    train.method = r.choice("method", train.method);
    train.microBatch = readCount(r, "micro_batch", 1 << 20, train.microBatch);
    train.seqLen = readCount(r, "seq_len", kMaxTokens, train.seqLen);
    train.gradAccum = readCount(r, "grad_accum", 1'000'000, train.gradAccum);
    train.optimizer = r.choice("optimizer", train.optimizer);
    train.optimizerInBackward = r.boolean("optimizer_in_backward", train.optimizerInBackward);
    train.optimizerImpl = r.choice("optimizer_impl", train.optimizerImpl);
    train.offloadActivations = r.boolean("offload_activations", train.offloadActivations);
    train.compile = r.boolean("compile", train.compile);
    train.masterWeights = r.boolean("master_weights", train.masterWeights);
    train.gradDType = r.choice("grad_dtype", train.gradDType);
    train.checkpointing = r.choice("gradient_checkpointing", train.checkpointing);
    train.activationConstant =
        r.number("activation_constant", 0, 1000, train.activationConstant, false);
    train.lora = readLora(r.child("lora"));
    r.finish();
    return train;
}

} // namespace

json parseJsonText(std::string_view text)
{
    try {
        return parseStrictJson(text);
    } catch (const JsonInputError &error) {
        throw ScenarioError(error.key, error.detail);
    }
}

Scenario parseScenario(std::string_view text, const Catalog &catalog,
                       const ConfigResolver &resolveConfig)
{
    return scenarioFromJson(parseJsonText(text), catalog, resolveConfig);
}

namespace {

Scenario readScenarioDocument(const json &doc, const Catalog &catalog,
                              const ConfigResolver &resolveConfig)
{
    ObjectReader root(doc, "");
    if (!root.has("format") || root.text("format", "") != "headroom-scenario")
        throw ScenarioError("format", "must be \"headroom-scenario\"");
    if (!root.has("version"))
        throw ScenarioError("version", "is required (this Headroom reads version 1)");
    root.integer("version", 1, 1, 1);

    Scenario s;
    s.name = root.text("name", "");
    if (s.name.size() > limits::kTitleBytes)
        throw ScenarioError("name", "at most " + std::to_string(limits::kTitleBytes) +
                                        " bytes (got " + std::to_string(s.name.size()) + ")");
    if (const json *framework = root.child("framework"))
        s.framework = frameworkFromJson(*framework);
    s.model = readModel(root.child("model"), catalog, resolveConfig);
    s.task = root.choice("task", s.task);
    s.train = readTrain(root.child("train"));

    const bool qlora = s.task == Task::Train && s.train.method == Method::Qlora;
    s.precision.weights = qlora ? DType::NF4 : DType::BF16;
    s.precision.doubleQuant = qlora;
    if (const json *node = root.child("precision")) {
        ObjectReader r(*node, "precision");
        s.precision.weights = r.choice("weights", s.precision.weights);
        s.precision.doubleQuant = r.boolean("double_quant", s.precision.doubleQuant);
        s.precision.compute = r.choice("compute", s.precision.compute);
        if (r.has("unquantized"))
            s.precision.unquantized = r.choice("unquantized", DType::BF16);
        s.precision.quantizer = r.choice("quantizer", s.precision.quantizer);
        r.finish();
    }
    if (s.precision.unquantized && dtypeBits(*s.precision.unquantized) < 16)
        throw ScenarioError("precision.unquantized", "must be one of fp32, bf16, fp16");
    if (dtypeBits(s.precision.compute) < 16)
        throw ScenarioError("precision.compute", "must be one of fp32, bf16, fp16");
    if (s.task == Task::Train && s.train.method == Method::Full && isQuantized(s.precision.weights))
        throw ScenarioError("precision.weights", "full fine-tuning needs fp32, bf16 or fp16 "
                                                 "weights; use train.method lora or qlora for a "
                                                 "quantized base");
    if (qlora && dtypeBits(s.precision.weights) != 4)
        throw ScenarioError("precision.weights",
                            "train.method qlora needs a 4-bit base: nf4, fp4 or int4");

    s.inference.kvDType = s.precision.compute;
    if (const json *node = root.child("inference")) {
        ObjectReader r(*node, "inference");
        s.inference.batch = readCount(r, "batch", 1 << 20, s.inference.batch);
        s.inference.context = readCount(r, "context", kMaxTokens, s.inference.context);
        s.inference.kvDType = r.choice("kv_dtype", s.inference.kvDType);
        s.inference.kvCache = r.choice("kv_cache", s.inference.kvCache);
        s.inference.promptLogits = r.choice("prompt_logits", s.inference.promptLogits);
        r.finish();
    }
    if (s.inference.kvDType == DType::NF4 || s.inference.kvDType == DType::FP4)
        throw ScenarioError("inference.kv_dtype", "must be one of fp32, bf16, fp16, fp8, int8, int4");

    if (const json *node = root.child("kernels")) {
        ObjectReader r(*node, "kernels");
        s.kernels.attention = r.choice("attention", s.kernels.attention);
        s.kernels.loss = r.choice("loss", s.kernels.loss);
        s.kernels.profile = r.choice("profile", s.kernels.profile);
        r.finish();
    }
    if (const json *node = root.child("parallel")) {
        ObjectReader r(*node, "parallel");
        s.parallel.gpus = readCount(r, "gpus", 65536, s.parallel.gpus);
        s.parallel.strategy = r.choice("strategy", s.parallel.strategy);
        s.parallel.tensor = readCount(r, "tensor", 65536, s.parallel.tensor);
        s.parallel.pipeline = readCount(r, "pipeline", 1024, s.parallel.pipeline);
        s.parallel.offloadOptimizer = r.boolean("offload_optimizer", s.parallel.offloadOptimizer);
        s.parallel.offloadParams = r.boolean("offload_params", s.parallel.offloadParams);
        s.parallel.flatParams = r.boolean("flat_params", s.parallel.flatParams);
        r.finish();
        const std::uint64_t modelParallel =
            std::uint64_t(s.parallel.tensor) * s.parallel.pipeline;
        if (s.parallel.gpus % modelParallel != 0)
            throw ScenarioError("parallel.gpus", "must be a multiple of tensor x pipeline (" +
                                                     std::to_string(modelParallel) + ")");
        if (s.parallel.pipeline > static_cast<std::uint32_t>(s.model.layers))
            throw ScenarioError("parallel.pipeline", "must be at most model.layers (" +
                                                         std::to_string(s.model.layers) + ")");
        if (s.parallel.offloadParams && s.parallel.strategy != Strategy::Zero3 &&
            s.parallel.strategy != Strategy::Fsdp)
            throw ScenarioError("parallel.offload_params", "needs parallel.strategy zero3 or fsdp");
    }
    if (const json *node = root.child("overhead")) {
        ObjectReader r(*node, "overhead");
        s.overhead.cudaContextMiB =
            r.number("cuda_context_mib", 0, 65536, s.overhead.cudaContextMiB, false);
        s.overhead.fragmentation = r.number("fragmentation", 0, 10, s.overhead.fragmentation, false);
        s.overhead.workspaceMiB = r.number("workspace_mib", 0, 65536, s.overhead.workspaceMiB, false);
        r.finish();
    }
    if (const json *node = root.child("gpus")) {
        if (!node->is_array() || node->size() > 16)
            throw ScenarioError("gpus", "must be a list of up to 16 GPU ids");
        s.gpus.clear();
        for (const auto &item : *node) {
            const std::string id = item.is_string() ? item.get<std::string>() : std::string();
            if (!item.is_string() || !catalog.findGpu(id)) {
                std::vector<std::string> ids;
                for (const auto &gpu : catalog.gpus)
                    ids.push_back(gpu.id);
                throw ScenarioError("gpus", "unknown GPU " +
                                                (item.is_string() ? quoteText(id)
                                                                  : ObjectReader::describe(item)) +
                                                " (known: " + knownIds(ids) + ")");
            }
            s.gpus.push_back(id);
        }
    }
    s.targetGpu = root.text("target_gpu", "");
    if (!s.targetGpu.empty() &&
        std::find(s.gpus.begin(), s.gpus.end(), s.targetGpu) == s.gpus.end())
        throw ScenarioError("target_gpu", "must be one of the scenario's gpus (" +
                                              knownIds(s.gpus) + "), got " + s.targetGpu);
    if (const json *node = root.child("serving"))
        s.serving = servingFromJson(*node, s);
    root.finish();
    return s;
}

} // namespace

Scenario scenarioFromJson(const json &doc, const Catalog &catalog,
                          const ConfigResolver &resolveConfig)
{
    // A framework fills in every key the document leaves out: parse once to learn the run
    // (method, precision, parallelism), write the preset into the gaps, parse again.
    if (doc.is_object() && doc.contains("framework") &&
        frameworkFromJson(doc.at("framework")).name != Framework::None) {
        json withPreset = doc;
        applyPresetToDocument(withPreset, readScenarioDocument(doc, catalog, resolveConfig));
        return readScenarioDocument(withPreset, catalog, resolveConfig);
    }
    return readScenarioDocument(doc, catalog, resolveConfig);
}

json scenarioToJson(const Scenario &s)
{
    const ModelArch &m = s.model;
    json model;
    if (m.rough) {
        model = {{"params", *m.params}, {"hidden", m.hidden}, {"layers", m.layers},
                 {"vocab", m.vocab}, {"tied_embeddings", m.tiedEmbeddings}};
    } else {
        if (!m.preset.empty())
            model["preset"] = m.preset;
        if (!m.config.empty())
            model["config"] = m.config;
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
        if (m.params)
            model["params"] = *m.params;
    }
    json targets = json::array();
    for (LoraTarget target : s.train.lora.targets)
        targets.push_back(enumName(target));
    json doc = {
        {"format", "headroom-scenario"},
        {"version", 1},
        {"name", s.name},
        {"model", model},
        {"task", enumName(s.task)},
        {"train",
         {{"method", enumName(s.train.method)},
          {"micro_batch", s.train.microBatch},
          {"seq_len", s.train.seqLen},
          {"grad_accum", s.train.gradAccum},
          {"optimizer", enumName(s.train.optimizer)},
          {"optimizer_in_backward", s.train.optimizerInBackward},
          {"optimizer_impl", enumName(s.train.optimizerImpl)},
          {"offload_activations", s.train.offloadActivations},
          {"compile", s.train.compile},
          {"master_weights", s.train.masterWeights},
          {"grad_dtype", enumName(s.train.gradDType)},
          {"gradient_checkpointing", enumName(s.train.checkpointing)},
          {"activation_constant", s.train.activationConstant},
          {"lora",
           {{"rank", s.train.lora.rank},
            {"targets", targets},
            {"dropout", s.train.lora.dropout},
            {"dtype", enumName(s.train.lora.dtype)}}}}},
        {"inference",
         {{"batch", s.inference.batch},
          {"context", s.inference.context},
          {"kv_dtype", enumName(s.inference.kvDType)},
          {"kv_cache", enumName(s.inference.kvCache)},
          {"prompt_logits", enumName(s.inference.promptLogits)}}},
        {"precision",
         {{"weights", enumName(s.precision.weights)},
          {"double_quant", s.precision.doubleQuant},
          {"compute", enumName(s.precision.compute)},
          {"quantizer", enumName(s.precision.quantizer)}}},
        {"kernels",
         {{"attention", enumName(s.kernels.attention)},
          {"loss", enumName(s.kernels.loss)},
          {"profile", enumName(s.kernels.profile)}}},
        {"parallel",
         {{"gpus", s.parallel.gpus},
          {"strategy", enumName(s.parallel.strategy)},
          {"tensor", s.parallel.tensor},
          {"pipeline", s.parallel.pipeline},
          {"offload_optimizer", s.parallel.offloadOptimizer},
          {"offload_params", s.parallel.offloadParams},
          {"flat_params", s.parallel.flatParams}}},
        {"overhead",
         {{"cuda_context_mib", s.overhead.cudaContextMiB},
          {"fragmentation", s.overhead.fragmentation},
          {"workspace_mib", s.overhead.workspaceMiB}}},
        {"gpus", s.gpus}};
    if (!s.targetGpu.empty())
        doc["target_gpu"] = s.targetGpu;
    if (s.framework.name != Framework::None)
        doc["framework"] = frameworkToJson(s.framework);
    if (s.precision.unquantized)
        doc["precision"]["unquantized"] = enumName(*s.precision.unquantized);
    if (s.serving)
        doc["serving"] = servingToJson(*s.serving);
    return doc;
}

void applyOverride(json &doc, std::string_view assignment)
{
    const auto equals = assignment.find('=');
    if (equals == std::string_view::npos || equals == 0)
        throw ScenarioError("", "--set needs key.path=value (got \"" + quoteText(assignment) + "\")");
    if (equals > kMaxSetPathChars)
        throw ScenarioError("", "--set key path is longer than " + std::to_string(kMaxSetPathChars) +
                                    " characters (got \"" + quoteText(assignment) + "\")");
    const std::string path(assignment.substr(0, equals));
    const std::string valueText(assignment.substr(equals + 1));
    if (valueText.empty())
        throw ScenarioError(path, "--set needs a value after '='");
    if (!doc.is_object())
        throw ScenarioError("", "the scenario is not a JSON object");

    json *node = &doc;
    std::size_t start = 0;
    while (true) {
        const auto dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? path.npos : dot - start);
        if (key.empty())
            throw ScenarioError(path, "--set key path has an empty part");
        if (dot == std::string::npos) {
            (*node)[key] = overrideValue(path, valueText);
            return;
        }
        json &next = (*node)[key];
        if (next.is_null())
            next = json::object();
        if (!next.is_object())
            throw ScenarioError(path.substr(0, dot), "is not an object, so --set cannot go inside it");
        node = &next;
        start = dot + 1;
    }
}

} // namespace headroom
