// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario/scenariojson.h"

#include "parallel/parallel.h"

#include "model/modeljson.h"
#include "scenario/objectreader.h"
#include "serving/servingjson.h"

#include "scenario/checked.h"
#include "training/framework.h"
#include "scenario/names.h"
#include "scenario/units.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace headroom {

using nlohmann::json;

namespace {

using detail::knownIds;
using detail::kMaxTokens;
using detail::ObjectReader;
using detail::readCount;
using detail::readInt;

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

/// train.grpo: GRPO's generation settings (TRL GRPOConfig names in docs/scenario-format.md).
GrpoConfig readGrpo(const json *node, std::uint32_t seqLen)
{
    GrpoConfig grpo;
    if (!node)
        return grpo;
    ObjectReader r(*node, "train.grpo");
    grpo.numGenerations = readCount(r, "num_generations", 1 << 16, grpo.numGenerations);
    grpo.completionLength = readCount(r, "completion_length", kMaxTokens, grpo.completionLength);
    grpo.beta = r.number("beta", 0, 1000, grpo.beta, false);
    grpo.stepsPerGeneration =
        static_cast<std::uint32_t>(r.integer("steps_per_generation", 0, 1'000'000, grpo.stepsPerGeneration));
    grpo.rollout = r.choice("rollout", grpo.rollout);
    grpo.vllmGpuMemoryUtilization =
        r.number("vllm_gpu_memory_utilization", 0, 1, grpo.vllmGpuMemoryUtilization, false);
    if (grpo.vllmGpuMemoryUtilization <= 0)
        throw ScenarioError("train.grpo.vllm_gpu_memory_utilization", "must be above 0 (vLLM's range is (0, 1])");
    grpo.vllmSleep = r.boolean("vllm_sleep", grpo.vllmSleep);
    grpo.vllmMaxModelLen =
        static_cast<std::uint32_t>(r.integer("vllm_max_model_len", 0, kMaxTokens, grpo.vllmMaxModelLen));
    grpo.vllmTensorParallel = readCount(r, "vllm_tensor_parallel", 1024, grpo.vllmTensorParallel);
    r.finish();
    if (grpo.completionLength >= seqLen)
        throw ScenarioError("train.grpo.completion_length",
                            std::to_string(grpo.completionLength) + " must be below train.seq_len " +
                                std::to_string(seqLen) + " (seq_len is the prompt and the completion)");
    return grpo;
}

/// train.ppo: PPO's rollout settings (TRL PPOConfig names in docs/scenario-format.md).
PpoConfig readPpo(const json *node, std::uint32_t seqLen)
{
    PpoConfig ppo;
    if (node) {
        ObjectReader r(*node, "train.ppo");
        ppo.responseLength = readCount(r, "response_length", kMaxTokens, ppo.responseLength);
        ppo.rolloutBatch = readCount(r, "rollout_batch", 1 << 20, ppo.rolloutBatch);
        ppo.miniBatches = readCount(r, "num_mini_batches", 1 << 16, ppo.miniBatches);
        r.finish();
    }
    if (ppo.responseLength >= seqLen)
        throw ScenarioError("train.ppo.response_length",
                            std::to_string(ppo.responseLength) + " must be below train.seq_len " +
                                std::to_string(seqLen) + " (seq_len is the query and the response)");
    return ppo;
}

/// train.distillation: the teacher (a model object, as `model`) and the KD loss's settings.
DistillationConfig readDistillation(const json *node, const Catalog &catalog, const ConfigResolver &resolveConfig)
{
    DistillationConfig kd;
    if (!node)
        throw ScenarioError("train.distillation", "is required with train.objective distillation (its teacher)");
    ObjectReader r(*node, "train.distillation");
    const json *teacher = r.child("teacher");
    if (!teacher)
        throw ScenarioError("train.distillation.teacher", "is required (a model object, as `model`)");
    try {
        kd.teacher = readModel(teacher, catalog, resolveConfig);
    } catch (const ScenarioError &error) {
        // readModel names its keys from `model`; here they sit under the teacher.
        const std::string key = error.key.rfind("model", 0) == 0 ? error.key.substr(5) : "." + error.key;
        throw ScenarioError("train.distillation.teacher" + key, error.detail);
    }
    kd.teacherDType = r.choice("teacher_dtype", kd.teacherDType);
    if (kd.teacherDType != DType::BF16 && kd.teacherDType != DType::FP16 && kd.teacherDType != DType::FP32)
        throw ScenarioError("train.distillation.teacher_dtype",
                            "must be one of bf16, fp16, fp32 (a quantized teacher is not modelled)");
    kd.kdRatio = r.number("kd_ratio", 0, 1, kd.kdRatio, true);
    kd.chunks = readCount(r, "chunks", 1024, kd.chunks);
    r.finish();
    return kd;
}

TrainConfig readTrain(const json *node, const Catalog &catalog, const ConfigResolver &resolveConfig)
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
    if (r.has("galore_rank") && train.optimizer != Optimizer::GaloreAdamW && train.optimizer != Optimizer::GaloreAdamW8bit)
        throw ScenarioError("train.galore_rank", "applies only with train.optimizer galore_adamw or galore_adamw8bit");
    train.galoreRank = readCount(r, "galore_rank", 1 << 16, train.galoreRank);
    train.offloadActivations = r.boolean("offload_activations", train.offloadActivations);
    train.compile = r.boolean("compile", train.compile);
    train.masterWeights = r.boolean("master_weights", train.masterWeights);
    train.gradDType = r.choice("grad_dtype", train.gradDType);
    train.checkpointing = r.choice("gradient_checkpointing", train.checkpointing);
    train.objective = r.choice("objective", train.objective);
    train.loss = r.choice("loss", train.loss);
    if (train.loss != TrainLoss::Lm && train.objective != Objective::Sft)
        throw ScenarioError("train.loss", "applies only with train.objective sft (DPO, preference and GRPO "
                                          "losses read the vocabulary log-probabilities)");
    if (const json *grpo = r.child("grpo")) {
        if (train.objective != Objective::Grpo)
            throw ScenarioError("train.grpo", "applies only with train.objective grpo");
        train.grpo = readGrpo(grpo, train.seqLen);
    } else if (train.objective == Objective::Grpo) {
        train.grpo = readGrpo(nullptr, train.seqLen);
        if (train.grpo.completionLength >= train.seqLen)
            throw ScenarioError("train.seq_len", "must be above train.grpo.completion_length (512 by default): "
                                                 "a GRPO sequence is the prompt and the completion");
    }
    const json *ppo = r.child("ppo");
    if (ppo && train.objective != Objective::Ppo)
        throw ScenarioError("train.ppo", "applies only with train.objective ppo");
    if (train.objective == Objective::Ppo)
        train.ppo = readPpo(ppo, train.seqLen);
    const json *kd = r.child("distillation");
    if (kd && train.objective != Objective::Distillation)
        throw ScenarioError("train.distillation", "applies only with train.objective distillation");
    if (train.objective == Objective::Distillation)
        train.distillation = readDistillation(kd, catalog, resolveConfig);
    if (r.has("reward_head") && train.objective != Objective::Reward)
        throw ScenarioError("train.reward_head", "applies only with train.objective reward");
    train.rewardHead = r.choice("reward_head", train.rewardHead);
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
    StoredPrecision stored;
    s.model = readModel(root.child("model"), catalog, resolveConfig, &stored);
    s.task = root.choice("task", s.task);
    s.train = readTrain(root.child("train"), catalog, resolveConfig);

    const bool qlora = s.task == Task::Train && s.train.method == Method::Qlora;
    s.precision.weights = qlora ? DType::NF4 : DType::BF16;
    s.precision.doubleQuant = qlora;
    if (s.task == Task::Inference && stored.weights) {
        // Serving a released checkpoint: its own format unless the scenario says otherwise.
        s.precision.weights = *stored.weights;
        s.precision.fp8Scales = stored.scales;
        s.precision.quantized = stored.modules;
        s.precision.groupSize = stored.groupSize;
        s.precision.zeroPoints = stored.zeroPoints;
    }
    if (s.task == Task::Inference)
        s.precision.unmodelledFormat = stored.unmodelled;
    if (const json *node = root.child("precision")) {
        ObjectReader r(*node, "precision");
        if (r.has("weights") && stored.weights) {
            s.precision.fp8Scales = WeightScales::Tensor;
            s.precision.quantized = QuantizedModules::Linear;
        }
        s.precision.weights = r.choice("weights", s.precision.weights);
        s.precision.doubleQuant = r.boolean("double_quant", s.precision.doubleQuant);
        s.precision.compute = r.choice("compute", s.precision.compute);
        // "compute": the compute dtype, said outright so that a framework does not fill the key.
        if (const json *kept = r.child("unquantized"); kept && *kept != "compute")
            s.precision.unquantized = r.choice("unquantized", DType::BF16);
        s.precision.autocast = r.boolean("autocast", s.precision.autocast);
        s.precision.quantizer = r.choice("quantizer", s.precision.quantizer);
        s.precision.fp8Scales = r.choice("fp8_scales", s.precision.fp8Scales);
        s.precision.quantized = r.choice("quantized", s.precision.quantized);
        s.precision.fp8Training = r.choice("fp8_training", s.precision.fp8Training);
        s.precision.groupSize = static_cast<std::int32_t>(r.integer("group_size", -1, 1 << 20, s.precision.groupSize));
        s.precision.zeroPoints = r.boolean("zero_points", s.precision.zeroPoints);
        if (r.has("weights"))
            s.precision.unmodelledFormat.clear(); // the scenario states the format itself
        r.finish();
    }
    if (s.precision.unquantized && dtypeBits(*s.precision.unquantized) < 16)
        throw ScenarioError("precision.unquantized", "must be one of fp32, bf16, fp16");
    if (s.precision.quantized == QuantizedModules::Experts && s.model.moeLayers() == 0)
        throw ScenarioError("precision.quantized", "\"experts\" needs a mixture-of-experts model "
                                                   "(model.experts above 1)");
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
    if (s.inference.kvDType == DType::NF4 || s.inference.kvDType == DType::FP4 ||
        s.inference.kvDType == DType::MXFP4 || s.inference.kvDType == DType::NVFP4 ||
        s.inference.kvDType == DType::INT3 || s.inference.kvDType == DType::INT2)
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
        s.parallel.context = readCount(r, "context", 1024, s.parallel.context);
        s.parallel.expert = readCount(r, "expert", 4096, s.parallel.expert);
        s.parallel.sequenceParallel = r.boolean("sequence_parallel", s.parallel.sequenceParallel);
        s.parallel.schedule = r.choice("schedule", s.parallel.schedule);
        s.parallel.virtualStages = readCount(r, "virtual_stages", 64, s.parallel.virtualStages);
        r.finish();
        // The layout rules between the keys (gpus a multiple of tensor x pipeline x context, a
        // tensor size that splits the model...) are the estimator's: the window lets the user
        // pass through a layout they refuse while changing its fields and saves it as it is, so
        // the file opens again to the same refusal (issue 22) instead of being refused here.
    }
    if (const json *node = root.child("overhead")) {
        ObjectReader r(*node, "overhead");
        s.overhead.cudaContextMiB =
            r.number("cuda_context_mib", 0, 65536, s.overhead.cudaContextMiB, false);
        s.overhead.fragmentation = r.number("fragmentation", 0, 10, s.overhead.fragmentation, false);
        s.overhead.workspaceMiB = r.number("workspace_mib", 0, 65536, s.overhead.workspaceMiB, false);
        if (r.has("nccl_mib"))
            s.overhead.ncclMiB = r.number("nccl_mib", 0, 65536, 0, false);
        r.finish();
    }
    if (const json *node = root.child("host")) {
        ObjectReader r(*node, "host");
        s.host.ramGiB = r.number("ram_gib", 0, 1 << 24, s.host.ramGiB, false);
        s.host.gpusPerMachine = static_cast<std::uint32_t>(r.integer("gpus_per_machine", 0, 1024, s.host.gpusPerMachine));
        s.host.machine = r.text("machine", "");
        s.host.wiredLimitMiB = static_cast<std::uint32_t>(r.integer("wired_limit_mb", 0, 1 << 24, 0));
        r.finish();
        if (!s.host.machine.empty() && !catalog.findMachine(s.host.machine)) {
            std::vector<std::string> ids;
            for (const auto &machine : catalog.machines)
                ids.push_back(machine.id);
            throw ScenarioError("host.machine", "unknown machine \"" + quoteText(s.host.machine) +
                                                    "\" (known: " + knownIds(ids) + ")");
        }
    }
    if (const json *node = root.child("gpus")) {
        if (!node->is_array() || node->size() > 16)
            throw ScenarioError("gpus", "must be a list of up to 16 GPU ids");
        s.gpus.clear();
        for (const auto &item : *node) {
            // A catalog id, or a size with its unit ("24gib", "24 GiB"): a GPU of that capacity.
            const std::string text = item.is_string() ? item.get<std::string>() : std::string();
            const std::string id = item.is_string() ? canonicalGpuId(text, catalog) : std::string();
            if (id.empty() || !catalog.findGpu(id)) {
                std::vector<std::string> ids;
                for (const auto &gpu : catalog.gpus)
                    ids.push_back(gpu.id);
                throw ScenarioError("gpus", "unknown GPU " +
                                                (item.is_string() ? quoteText(text)
                                                                  : ObjectReader::describe(item)) +
                                                " (known: " + knownIds(ids) + ", or a size such as 24gib or 20gb)");
            }
            s.gpus.push_back(id);
        }
    }
    s.targetGpu = root.text("target_gpu", "");
    if (const std::string id = canonicalGpuId(s.targetGpu, catalog); !id.empty())
        s.targetGpu = id; // "24 GiB" names the size GPU "24gib"
    if (!s.targetGpu.empty() &&
        std::find(s.gpus.begin(), s.gpus.end(), s.targetGpu) == s.gpus.end())
        throw ScenarioError("target_gpu", "must be one of the scenario's gpus (" +
                                              knownIds(s.gpus) + "), got " + s.targetGpu);
    if (const json *node = root.child("serving"))
        s.serving = servingFromJson(*node, s, [&](const json &draft) { return readModel(&draft, catalog, resolveConfig); });
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

namespace {

/// Whether the scenario's framework would fill `key` into a file that leaves it out.
bool frameworkFills(const Scenario &s, const std::string &key)
{
    try {
        const auto preset = frameworkPreset(s);
        return std::any_of(preset.begin(), preset.end(), [&](const PresetSetting &p) { return p.key == key; });
    } catch (const std::exception &) {
        return false; // a scenario the preset cannot describe: the reader refuses it the same way
    }
}

} // namespace

json scenarioToJson(const Scenario &s)
{
    const json model = modelToJson(s.model);
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
          {"quantizer", enumName(s.precision.quantizer)},
          {"fp8_scales", enumName(s.precision.fp8Scales)},
          {"quantized", enumName(s.precision.quantized)},
          {"fp8_training", enumName(s.precision.fp8Training)}}},
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
          {"flat_params", s.parallel.flatParams},
          {"context", s.parallel.context},
          {"expert", s.parallel.expert},
          {"sequence_parallel", s.parallel.sequenceParallel},
          {"schedule", enumName(s.parallel.schedule)},
          {"virtual_stages", s.parallel.virtualStages}}},
        {"overhead",
         {{"cuda_context_mib", s.overhead.cudaContextMiB},
          {"fragmentation", s.overhead.fragmentation},
          {"workspace_mib", s.overhead.workspaceMiB}}},
        {"host", {{"ram_gib", s.host.ramGiB}, {"gpus_per_machine", s.host.gpusPerMachine}}},
        {"gpus", s.gpus}};
    if (s.host.wiredLimitMiB)
        doc["host"]["wired_limit_mb"] = s.host.wiredLimitMiB;
    if (s.train.objective != Objective::Sft)
        doc["train"]["objective"] = enumName(s.train.objective);
    if (s.train.loss != TrainLoss::Lm)
        doc["train"]["loss"] = enumName(s.train.loss);
    if (s.train.optimizer == Optimizer::GaloreAdamW || s.train.optimizer == Optimizer::GaloreAdamW8bit)
        doc["train"]["galore_rank"] = s.train.galoreRank;
    if (s.train.objective == Objective::Grpo) {
        const GrpoConfig &g = s.train.grpo;
        json grpo = {{"num_generations", g.numGenerations},
                     {"completion_length", g.completionLength},
                     {"beta", g.beta},
                     {"rollout", enumName(g.rollout)},
                     {"steps_per_generation", g.stepsPerGeneration},
                     {"vllm_gpu_memory_utilization", g.vllmGpuMemoryUtilization},
                     {"vllm_sleep", g.vllmSleep},
                     {"vllm_tensor_parallel", g.vllmTensorParallel},
                     {"vllm_max_model_len", g.vllmMaxModelLen}};
        doc["train"]["grpo"] = grpo;
    }
    if (s.train.objective == Objective::Ppo)
        doc["train"]["ppo"] = {{"response_length", s.train.ppo.responseLength},
                               {"rollout_batch", s.train.ppo.rolloutBatch},
                               {"num_mini_batches", s.train.ppo.miniBatches}};
    if (s.train.objective == Objective::Reward && s.train.rewardHead != RewardHead::Score)
        doc["train"]["reward_head"] = enumName(s.train.rewardHead);
    if (s.train.objective == Objective::Distillation) {
        const DistillationConfig &kd = s.train.distillation;
        doc["train"]["distillation"] = {{"teacher", modelToJson(kd.teacher)},
                                        {"teacher_dtype", enumName(kd.teacherDType)},
                                        {"kd_ratio", kd.kdRatio},
                                        {"chunks", kd.chunks}};
    }
    if (!s.targetGpu.empty())
        doc["target_gpu"] = s.targetGpu;
    if (s.overhead.ncclMiB)
        doc["overhead"]["nccl_mib"] = *s.overhead.ncclMiB;
    if (!s.host.machine.empty())
        doc["host"]["machine"] = s.host.machine;
    if (s.framework.name != Framework::None)
        doc["framework"] = frameworkToJson(s.framework);
    if (s.precision.unquantized)
        doc["precision"]["unquantized"] = enumName(*s.precision.unquantized);
    else if (s.framework.name != Framework::None && frameworkFills(s, "precision.unquantized"))
        doc["precision"]["unquantized"] = "compute"; // the reader would fill it (issue 22)
    if (!s.precision.autocast)
        doc["precision"]["autocast"] = false;
    if (s.precision.groupSize)
        doc["precision"]["group_size"] = s.precision.groupSize;
    if (!s.precision.zeroPoints)
        doc["precision"]["zero_points"] = false;
    if (s.serving)
        doc["serving"] = servingToJson(*s.serving);
    return doc;
}

void applyOverride(json &doc, std::string_view assignment)
{
    const auto equals = assignment.find('=');
    if (equals == std::string_view::npos || equals == 0)
        throw ScenarioError("", "--set needs key.path=value (got \"" + quoteText(assignment) + "\")");
    const std::string path(assignment.substr(0, equals));
    if (const std::string problem = keyPathProblem(path); !problem.empty())
        throw ScenarioError(problem.find("empty") == std::string::npos ? "" : keyPathText(path),
                            "--set " + problem + " (got \"" + quoteText(assignment) + "\")");
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
