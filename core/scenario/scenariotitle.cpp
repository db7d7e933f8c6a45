// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario/scenariotitle.h"

#include "training/framework.h"
#include "serving/serving.h"

#include "io/inputpolicy.h"
#include "model/architecture.h"
#include "model/modelname.h"
#include "scenario/names.h"
#include "scenario/units.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace headroom {

namespace {

std::string join(const std::vector<std::string> &parts, const char *separator)
{
    std::string out;
    for (const std::string &part : parts)
        out += (out.empty() ? "" : separator) + part;
    return out;
}

/// "7.0B", "124M": a parameter count as people say it.
std::string shortCount(std::uint64_t params)
{
    char text[32];
    if (params >= 1'000'000'000)
        std::snprintf(text, sizeof text, "%.1fB", double(params) / 1e9);
    else
        std::snprintf(text, sizeof text, "%.0fM", double(params) / 1e6);
    return text;
}

std::string attentionText(Attention attention)
{
    switch (attention) {
    case Attention::Eager: return "eager attention";
    case Attention::Sdpa: return "SDPA";
    case Attention::Flash: return "flash attention";
    }
    return {};
}

std::string optimizerText(Optimizer optimizer)
{
    switch (optimizer) {
    case Optimizer::AdamW: return "AdamW";
    case Optimizer::AdamW8bit: return "8-bit AdamW";
    case Optimizer::PagedAdamW8bit: return "paged 8-bit AdamW";
    case Optimizer::PagedAdamW: return "paged AdamW";
    case Optimizer::Sgd: return "SGD";
    case Optimizer::SgdMomentum: return "SGD with momentum";
    case Optimizer::Adafactor: return "Adafactor";
    case Optimizer::Lion: return "Lion";
    case Optimizer::None: return "no optimizer step";
    case Optimizer::AdamW4bit: return "4-bit AdamW";
    case Optimizer::GaloreAdamW: return "GaLore AdamW";
    case Optimizer::GaloreAdamW8bit: return "8-bit GaLore AdamW";
    }
    return {};
}

std::string strategyText(Strategy strategy)
{
    switch (strategy) {
    case Strategy::None: return "";
    case Strategy::Ddp: return "DDP";
    case Strategy::Zero1: return "ZeRO-1";
    case Strategy::Zero2: return "ZeRO-2";
    case Strategy::Zero3: return "ZeRO-3";
    case Strategy::Fsdp: return "FSDP";
    }
    return {};
}

} // namespace

std::string loraTargetsText(const std::vector<LoraTarget> &targets)
{
    const LoraTarget linear[] = {LoraTarget::Q,  LoraTarget::K,    LoraTarget::V,   LoraTarget::O,
                                 LoraTarget::Gate, LoraTarget::Up, LoraTarget::Down};
    const bool allLinear = std::all_of(std::begin(linear), std::end(linear), [&](LoraTarget t) {
        return std::find(targets.begin(), targets.end(), t) != targets.end();
    });
    if (allLinear && targets.size() == std::size(linear))
        return "all linear layers";
    std::vector<std::string> names;
    for (LoraTarget target : targets)
        names.emplace_back(enumName(target));
    return join(names, ", ");
}

std::string modelDisplayName(const Scenario &scenario, const Catalog &catalog)
{
    const ModelArch &arch = scenario.model;
    // What the user calls it: an imported config.json's _name_or_path or folder, or the file's
    // own model.name (issue 22: "Llama-3.1-8B", never "custom 8.0B").
    if (!arch.name.empty())
        return arch.name;
    if (!arch.preset.empty())
        if (const ModelPreset *preset = catalog.findModel(arch.preset))
            return preset->arch == arch ? preset->name : preset->name + " (modified)";
    if (!arch.config.empty())
        if (const std::string name = quoteText(modelNameFromPath(arch.config)); !name.empty())
            return name;
    std::uint64_t params = arch.params.value_or(0);
    if (!params) {
        try {
            params = countParams(arch).total;
        } catch (const std::exception &) {
            params = 0;
        }
    }
    return params ? "custom " + shortCount(params) : "custom model";
}

namespace {
const char *engineDisplayName(Engine engine)
{
    switch (engine) {
    case Engine::HfGenerate:
        return "Transformers generate()";
    case Engine::Vllm:
        return "vLLM";
    case Engine::Sglang:
        return "SGLang";
    case Engine::LlamaCpp:
        return "llama.cpp";
    case Engine::Trtllm:
        return "TensorRT-LLM";
    }
    return "an engine";
}
} // namespace

std::string scenarioTitle(const Scenario &s, const Catalog &catalog)
{
    std::vector<std::string> parts{modelDisplayName(s, catalog)};
    const std::string weights = enumName(s.precision.weights);
    const std::string compute = enumName(s.precision.compute);
    if (s.task == Task::Inference) {
        parts.push_back(s.serving ? std::string("served by ") + engineDisplayName(s.serving->engine) : "serving");
        if (s.serving && s.serving->engine == Engine::LlamaCpp) {
            // llama.cpp sizes the weights by its file type (or a GGUF file's own types), not by
            // precision.weights: the title names what the estimate counts, as llama.cpp spells it.
            std::string type = enumName(s.serving->weightType);
            std::transform(type.begin(), type.end(), type.begin(), [](unsigned char ch) { return char(std::toupper(ch)); });
            parts.push_back(s.serving->fileBytes ? std::string("the GGUF file's weights") : type + " weights");
            return join(parts, " \u00b7 ");
        }
        parts.push_back(weights + " weights");
        return join(parts, " \u00b7 ");
    }
    switch (s.train.method) {
    case Method::Full:
        parts.push_back("full fine-tune");
        parts.push_back(weights == compute ? weights : weights + " weights, " + compute + " compute");
        break;
    case Method::Lora:
    case Method::Qlora:
        parts.push_back(std::string(s.train.method == Method::Lora ? "LoRA" : "QLoRA") + " r" +
                        std::to_string(s.train.lora.rank) + " on " + loraTargetsText(s.train.lora.targets));
        parts.push_back(weights + " base" + (s.precision.doubleQuant && dtypeBits(s.precision.weights) == 4
                                                 ? " (double quant)"
                                                 : ""));
        break;
    }
    return join(parts, " \u00b7 ");
}

std::vector<std::string> scenarioFacts(const Scenario &s)
{
    std::vector<std::string> facts;
    // Training-only words never reach a serving title (issue 22): a training framework, a
    // sharding strategy, the optimizer's place are facts of training runs only.
    const bool train = s.task == Task::Train;
    if (s.framework.name != Framework::None && !s.serving && train != isServingEngine(s.framework.name))
        facts.push_back(frameworkDisplayName(s.framework.name));
    if (s.task == Task::Inference && s.serving) {
        // What the engine serves: the concurrent sequences and the longest request.
        std::uint64_t longest = 0;
        for (const RequestClass &kind : s.serving->requests.classes)
            longest = std::max(longest, kind.tokens());
        facts.push_back(groupDigits(s.serving->requests.concurrency) +
                        (s.serving->requests.concurrency == 1 ? " sequence x " : " sequences x ") +
                        groupDigits(longest) + " tokens");
    } else if (s.task == Task::Inference) {
        facts.push_back(groupDigits(s.inference.batch) + (s.inference.batch == 1 ? " sequence x " : " sequences x ") +
                        groupDigits(s.inference.context) + " tokens");
        facts.push_back(std::string("KV cache ") + enumName(s.inference.kvDType));
        if (s.inference.kvCache == KvCache::Concat)
            facts.push_back("legacy concatenated cache");
        if (s.inference.promptLogits == PromptLogits::All)
            facts.push_back("logits of every prompt position");
    } else {
        facts.push_back("micro-batch " + groupDigits(s.train.microBatch) + " x " +
                        groupDigits(s.train.seqLen) + " tokens");
        if (s.train.gradAccum > 1)
            facts.push_back("accumulation " + groupDigits(s.train.gradAccum));
        if (s.train.method != Method::Full && dtypeBits(s.precision.compute) != 16)
            facts.push_back(std::string("compute ") + enumName(s.precision.compute));
        facts.push_back(optimizerText(s.train.optimizer));
        if (s.train.masterWeights)
            facts.push_back("fp32 master weights");
        if (s.train.checkpointing != Checkpointing::None)
            facts.push_back(std::string(s.train.checkpointing == Checkpointing::Full ? "full" : "selective") +
                            " checkpointing");
        if (s.kernels.loss != Loss::Standard)
            facts.push_back(std::string(enumName(s.kernels.loss)) + " loss");
    }
    facts.push_back(attentionText(s.kernels.attention));
    if (s.parallel.gpus > 1) {
        std::string text = groupDigits(s.parallel.gpus) + " GPUs";
        if (const std::string strategy = strategyText(s.parallel.strategy); !strategy.empty() && train)
            text += " " + strategy;
        if (s.parallel.tensor > 1)
            text += ", tensor parallel " + groupDigits(s.parallel.tensor);
        if (s.parallel.pipeline > 1)
            text += ", pipeline " + groupDigits(s.parallel.pipeline);
        facts.push_back(text);
    }
    if (s.parallel.offloadOptimizer && train)
        facts.push_back("optimizer in CPU RAM");
    if (s.kernels.profile == Profile::Fused && train)
        facts.push_back("fused-kernel profile");
    return facts;
}

} // namespace headroom
