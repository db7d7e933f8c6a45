// SPDX-License-Identifier: GPL-3.0-or-later
#include "measure/logcompare.h"

#include "io/inputpolicy.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace headroom {

namespace {

constexpr double kGiB = 1073741824.0;

std::string lower(std::string_view text)
{
    std::string s;
    for (char ch : text)
        s += char(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

/// The part after the last '/'.
std::string_view tail(std::string_view path)
{
    while (!path.empty() && path.back() == '/')
        path.remove_suffix(1);
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// A GPU name without case, spaces, dashes and the vendor's words.
std::string gpuKey(std::string_view name)
{
    std::string s = lower(name);
    for (const char *word : {"nvidia", "geforce", "tesla", "amd", "radeon"}) {
        const std::size_t at = s.find(word);
        if (at != std::string::npos)
            s.erase(at, std::string_view(word).size());
    }
    std::string key;
    for (char ch : s)
        if (std::isalnum(static_cast<unsigned char>(ch)))
            key += ch;
    return key;
}

std::string lineRef(std::size_t line) { return line ? " (line " + std::to_string(line) + ")" : std::string(); }

std::string gib(double bytes)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f GiB", bytes / kGiB);
    return buffer;
}

std::string signedGib(double bytes)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%+.2f GiB", bytes / kGiB);
    return buffer;
}

std::string percent(double fraction)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%+.1f%%", fraction * 100);
    return buffer;
}

/// The catalog value of a log setting's key in the scenario document ("serving.max_model_len").
void put(nlohmann::json &doc, const std::string &key, const nlohmann::json &value)
{
    const std::size_t dot = key.find('.');
    doc[key.substr(0, dot)][key.substr(dot + 1)] = value;
}

struct FigureInfo
{
    const char *key;
    const char *label;
    const char *hint; ///< what moves it, for the finding that names it
};

constexpr FigureInfo kFigures[] = {
    {"total_gpu_memory", "GPU total (as CUDA reports it)",
     "what CUDA reports as the card's total: serving.total_gpu_memory_gib sets it"},
    {"budget", "engine budget", "the card's total x gpu_memory_utilization"},
    {"weights", "weights", "the checkpoint's format or parameter count: check precision.weights and the model"},
    {"activation_peak", "activation peak (profile run, compute buffer)",
     "the profile run's peak: vLLM runs max_num_batched_tokens at once, llama.cpp's compute buffer follows n_ubatch"},
    {"non_torch", "non-torch memory", "memory outside PyTorch (NCCL, the CUDA context's growth), larger at tensor parallel > 1"},
    {"cuda_graph", "CUDA graphs", "the CUDA graph pool: enforce_eager drops it"},
    {"kv_cache", "KV cache", ""},
    {"kv_tokens", "KV cache tokens", ""},
    {"gpu_blocks", "KV cache blocks", ""},
    {"max_concurrency", "maximum concurrency", ""},
    {"max_concurrency_tokens", "tokens per request (concurrency line)", ""},
    {"max_len_that_fits", "longest sequence that fits", ""},
    {"recurrent_state", "recurrent state", ""},
    {"unaccounted", "unaccounted (driver, other programs)", ""},
    {"free_at_startup", "free at start-up", ""},
    {"free_after_weights", "free after the weights", ""},
    {"free_after_kv_cache", "free after the KV cache", ""},
    {"free_before_kv_cache", "free before the KV cache", ""},
    {"host_weights", "weights in CPU RAM", ""},
    {"host_kv_cache", "KV cache in CPU RAM", ""},
    {"host_compute", "compute buffer in CPU RAM", ""},
    {"tokens_per_block", "tokens per block", ""},
};

const FigureInfo *info(std::string_view key)
{
    for (const FigureInfo &f : kFigures)
        if (key == f.key)
            return &f;
    return nullptr;
}

std::optional<double> estimatedFigure(std::string_view key, const ServingFigures &s)
{
    if (key == "total_gpu_memory") return double(s.deviceTotalBytes);
    if (key == "budget") return double(s.budgetBytes);
    if (key == "weights") return double(s.weightsBytes);
    if (key == "activation_peak") return double(s.activationBytes);
    if (key == "non_torch") return double(s.nonTorchBytes);
    if (key == "cuda_graph") return double(s.cudaGraphBytes);
    if (key == "kv_cache") return double(s.kvCacheBytes);
    if (key == "kv_tokens") return double(s.kvCacheTokens);
    if (key == "gpu_blocks") return double(s.blocks);
    if (key == "max_concurrency") return s.maxConcurrency;
    if (key == "max_concurrency_tokens") return double(s.maxConcurrencyTokens);
    if (key == "max_len_that_fits" && !s.startsOk) return double(s.maxLenThatFits);
    if (key == "host_compute" && s.engine == Engine::LlamaCpp) return double(s.hostComputeBytes);
    return std::nullopt;
}

/// The consumers a log figure measures: the engine's weights, its KV pool (used and free) and its
/// activation peak (vLLM's profile run, llama.cpp's compute buffers). Non-torch memory and CUDA
/// graphs have no consumer of their own in the estimate's breakdown.
std::vector<ConsumerId> figureConsumers(std::string_view key)
{
    if (key == "weights") return {ConsumerId::Weights, ConsumerId::QuantMetadata};
    if (key == "kv_cache") return {ConsumerId::KvCache, ConsumerId::KvCacheFree};
    if (key == "activation_peak") return {ConsumerId::Activations};
    return {};
}

} // namespace

const ModelPreset *catalogModelForLog(const std::string &model, const Catalog &catalog)
{
    if (model.empty())
        return nullptr;
    const std::string whole = lower(model), last = lower(tail(model));
    for (const ModelPreset &m : catalog.models)
        if (!m.hfId.empty() && (lower(m.hfId) == whole || lower(tail(m.hfId)) == last))
            return &m;
    return nullptr;
}

const Gpu *catalogGpuForLog(const std::string &name, const Catalog &catalog)
{
    const std::string key = gpuKey(name);
    if (key.empty())
        return nullptr;
    const Gpu *found = nullptr;
    for (const Gpu &g : catalog.gpus)
        if (gpuKey(g.name) == key || gpuKey(g.id) == key) {
            if (found && found != &g)
                return nullptr;
            found = &g;
        }
    return found;
}

LogScenario scenarioFromLog(const EngineLog &log, const LogScenarioInput &input, const Catalog &catalog)
{
    LogScenario s;
    nlohmann::json &doc = s.document;
    doc = {{"format", "headroom-scenario"}, {"version", 1}, {"task", "inference"}};
    const std::string engineKey = logEngineScenarioKey(log.engine);
    if (engineKey.empty())
        s.missing.push_back(std::string("Headroom does not model ") + logEngineName(log.engine) +
                            "'s memory yet: its figures are shown without an estimate");
    // The model.
    std::string modelName;
    if (!input.modelPreset.empty()) {
        if (!catalog.findModel(input.modelPreset))
            s.missing.push_back("--model: no catalog model " + quotedText(input.modelPreset));
        else {
            doc["model"] = {{"preset", input.modelPreset}};
            modelName = input.modelPreset;
            s.notes.push_back("model " + input.modelPreset + ": given with --model");
        }
    } else if (const ModelPreset *m = catalogModelForLog(log.model, catalog)) {
        doc["model"] = {{"preset", m->id}};
        modelName = m->id;
        s.notes.push_back("model " + m->id + ": the log's " + quotedText(log.model, 80) + lineRef(log.modelLine));
    } else if (!log.model.empty()) {
        s.missing.push_back("the model: the log's " + quotedText(log.model, 80) + lineRef(log.modelLine) +
                            " is no catalog model's Hugging Face id; give --model PRESET or a SCENARIO");
    } else {
        s.missing.push_back(std::string("the model: the log does not name it; give --model PRESET or a SCENARIO"));
    }
    // The engine and its settings.
    if (!engineKey.empty()) {
        doc["serving"]["engine"] = engineKey;
        if (!log.version.empty() && log.engine == LogEngine::Vllm)
            doc["serving"]["version"] = log.version;
    }
    std::uint64_t tensor = 1, pipeline = 1;
    std::string quantization;
    std::size_t quantizationLine = 0;
    for (const LogSetting &setting : log.settings) {
        // Whole numbers under 2^53 (the readers' own bound): their product stays exact enough for
        // the scenario reader to refuse one out of range.
        if (setting.key == "parallel.tensor")
            tensor = std::clamp<std::uint64_t>(setting.value.get<std::uint64_t>(), 1, 1u << 30);
        else if (setting.key == "parallel.pipeline")
            pipeline = std::clamp<std::uint64_t>(setting.value.get<std::uint64_t>(), 1, 1u << 30);
        else if (setting.key == "launch.quantization") {
            quantization = setting.value.get<std::string>();
            quantizationLine = setting.line;
        } else if (setting.key.rfind("serving.", 0) == 0 && !engineKey.empty())
            put(doc, setting.key, setting.value);
    }
    if (tensor > 1 || pipeline > 1) {
        doc["parallel"] = {{"gpus", tensor * pipeline}, {"tensor", tensor}};
        if (pipeline > 1)
            doc["parallel"]["pipeline"] = pipeline;
    }
    if (!quantization.empty()) {
        if (quantization == "fp8")
            doc["precision"]["weights"] = "fp8";
        else
            s.missing.push_back("the weights' format: the log's quantization " + quotedText(quantization) +
                                lineRef(quantizationLine) + " is not read; give --set precision.weights=...");
    } else if (const LogSetting *dtype = log.setting("launch.dtype")) {
        doc["precision"]["weights"] = dtype->value;
    }
    if (const LogFigure *total = log.figure("total_gpu_memory");
        total && (log.engine == LogEngine::Vllm || log.engine == LogEngine::Sglang)) {
        doc["serving"]["total_gpu_memory_gib"] = std::round(total->value / kGiB * 100) / 100;
        s.notes.push_back("the GPU's total " + gib(total->value) + ": as the log states it" + lineRef(total->line));
    }
    // The GPU.
    std::string gpuName = log.gpuName;
    std::size_t gpuLine = log.gpuLine;
    if (gpuName.empty())
        for (const LlamaBreakdownRow &r : log.breakdown) {
            const std::size_t open = r.device.find('('), close = r.device.rfind(')');
            if (open != std::string::npos && close != std::string::npos && close > open && r.total > 0) {
                gpuName = r.device.substr(open + 1, close - open - 1);
                gpuLine = r.line;
                break;
            }
        }
    if (!input.gpuId.empty()) {
        if (!catalog.findGpu(input.gpuId))
            s.missing.push_back("--gpu: no catalog GPU " + quotedText(input.gpuId));
        else {
            doc["gpus"] = {input.gpuId};
            s.notes.push_back("GPU " + input.gpuId + ": given with --gpu");
        }
    } else if (const Gpu *g = catalogGpuForLog(gpuName, catalog)) {
        doc["gpus"] = {g->id};
        s.notes.push_back("GPU " + g->id + ": the log's " + quotedText(gpuName, 60) + lineRef(gpuLine));
    } else if (!gpuName.empty()) {
        s.missing.push_back("the GPU: the log's " + quotedText(gpuName, 60) + lineRef(gpuLine) +
                            " is no catalog GPU's name; give --gpu ID");
    } else {
        s.missing.push_back(std::string("the GPU: ") + logEngineName(log.engine) +
                            " does not print its name; give --gpu ID");
    }
    doc["name"] = (modelName.empty() ? std::string("model") : modelName) + ", " + logEngineName(log.engine) +
                  " log";
    return s;
}

LogComparison compareLog(const EngineLog &log, const Estimate &estimate)
{
    LogComparison c;
    const ServingFigures *s = estimate.serving ? &*estimate.serving : nullptr;
    for (const LogFigure &f : log.figures) {
        const FigureInfo *i = info(f.key);
        ComparedFigure row{f.key, i ? i->label : f.key, f.unit, f.value, std::nullopt, f.line, f.text,
                           f.unit == FigureUnit::Bytes ? figureConsumers(f.key) : std::vector<ConsumerId>{}};
        if (s)
            row.estimated = estimatedFigure(f.key, *s);
        c.figures.push_back(row);
    }
    if (!s)
        return c;
    const auto pairOf = [&](const char *key) -> const ComparedFigure * {
        for (const ComparedFigure &f : c.figures)
            if (f.key == key && f.estimated)
                return &f;
        return nullptr;
    };
    // Where the engine refused, or the estimate says it would.
    if (log.refusal && s->startsOk)
        c.findings.push_back("The engine refused to start" + lineRef(log.refusal->line) +
                             ", but the estimate says one sequence of the longest length fits: " + log.refusal->text);
    if (!log.refusal && !s->startsOk && pairOf("kv_cache"))
        c.findings.push_back("The estimate says one sequence of the longest length does not fit, but the engine "
                             "started with the KV cache the log shows.");
    // The KV cache is what the engine's budget leaves after the other consumers: a consumer the
    // estimate puts higher leaves the cache that much less.
    const ComparedFigure *kv = pairOf("kv_cache");
    std::vector<std::pair<double, const ComparedFigure *>> others;
    for (const char *key : {"weights", "activation_peak", "non_torch", "cuda_graph", "total_gpu_memory", "budget"})
        if (const ComparedFigure *f = pairOf(key))
            others.push_back({*f->estimated - f->measured, f});
    std::sort(others.begin(), others.end(),
              [](const auto &a, const auto &b) { return std::abs(a.first) > std::abs(b.first); });
    bool firstNamed = false;
    if (kv) {
        const double d = *kv->estimated - kv->measured;
        std::string text = "KV cache " + signedGib(d) + " beside the log: the estimate has " + gib(*kv->estimated) +
                           ", the engine " + gib(kv->measured) + lineRef(kv->line);
        if (kv->measured > 0)
            text += " (" + percent(d / kv->measured) + ")";
        c.findings.push_back(text + ".");
        const bool leftover = log.engine == LogEngine::Vllm || log.engine == LogEngine::Sglang;
        if (leftover && !others.empty() && std::abs(d) >= 0.05 * kGiB) {
            const auto &[delta, f] = others.front();
            // A budget-side consumer explains the KV difference when it moved the other way.
            const bool budgetSide = f->key == "total_gpu_memory" || f->key == "budget";
            if (std::abs(delta) >= 0.2 * std::abs(d) && ((delta > 0) != (d > 0)) != budgetSide) {
                firstNamed = true;
                c.findings.push_back(std::string(budgetSide ? "The budget explains it: " : "Most of it is ") + f->label +
                                     " " + signedGib(delta) + " (estimated " + gib(*f->estimated) + ", the log " +
                                     gib(f->measured) + lineRef(f->line) + "): " + info(f->key)->hint + ".");
            } else {
                c.findings.push_back("No printed consumer explains it (the largest, " + std::string(f->label) + ", is " +
                                     signedGib(delta) + "): the cache's layout or the engine's rounding differ.");
            }
        }
    }
    for (std::size_t i = firstNamed ? 1 : 0; i < others.size(); ++i) {
        const auto &[delta, f] = others[i];
        if (std::abs(delta) >= 0.25 * kGiB && (f->measured <= 0 || std::abs(delta) / f->measured >= 0.1))
            c.findings.push_back(std::string(f->label) + " " + signedGib(delta) + " beside the log (estimated " +
                                 gib(*f->estimated) + ", the log " + gib(f->measured) + lineRef(f->line) +
                                 "): " + info(f->key)->hint + ".");
    }
    if (const ComparedFigure *tokens = pairOf("kv_tokens"); tokens && kv && tokens->measured > 0 && kv->measured > 0 &&
                                                            *tokens->estimated > 0 && *kv->estimated > 0) {
        const double logPerToken = kv->measured / tokens->measured;
        const double estPerToken = *kv->estimated / *tokens->estimated;
        if (std::abs(estPerToken - logPerToken) / logPerToken > 0.05)
            c.findings.push_back("A token's KV bytes differ: the engine's " + std::to_string(std::llround(std::min(logPerToken, 1e18))) +
                                 " B, the estimate's " + std::to_string(std::llround(std::min(estPerToken, 1e18))) +
                                 " B: the cache's layout (kv_cache_dtype, layers, KV heads, tensor parallel) is not the same.");
    }
    return c;
}

nlohmann::json logComparisonToJson(const EngineLog &log, const LogComparison &comparison, const nlohmann::json &scenario)
{
    nlohmann::json figures = nlohmann::json::array();
    for (const ComparedFigure &f : comparison.figures) {
        nlohmann::json row = {{"key", f.key}, {"label", f.label}, {"measured", f.measured}, {"line", f.line}, {"text", f.text}};
        row["unit"] = f.unit == FigureUnit::Bytes ? "bytes" : f.unit == FigureUnit::Tokens ? "tokens"
                      : f.unit == FigureUnit::Ratio ? "ratio" : "count";
        row["estimated"] = f.estimated ? nlohmann::json(*f.estimated) : nlohmann::json();
        figures.push_back(row);
    }
    nlohmann::json breakdown = nlohmann::json::array();
    for (const LlamaBreakdownRow &r : log.breakdown) {
        nlohmann::json row = {{"device", r.device}, {"line", r.line}};
        const std::pair<const char *, double> cells[] = {{"total_mib", r.total},     {"free_mib", r.free},
                                                         {"self_mib", r.self},       {"model_mib", r.model},
                                                         {"context_mib", r.context}, {"compute_mib", r.compute},
                                                         {"unaccounted_mib", r.unaccounted}};
        for (const auto &[key, value] : cells)
            if (value != -1)
                row[key] = value;
        breakdown.push_back(row);
    }
    nlohmann::json doc = {{"format", "headroom-log-comparison"},
                          {"version", 1},
                          {"engine", logEngineScenarioKey(log.engine)[0] ? logEngineScenarioKey(log.engine) : "tensorrt_llm"},
                          {"engine_version", log.version},
                          {"model", log.model},
                          {"lines", log.lines},
                          {"scenario", scenario},
                          {"figures", figures},
                          {"findings", comparison.findings}};
    if (!breakdown.empty())
        doc["breakdown"] = breakdown;
    if (log.refusal)
        doc["refusal"] = {{"line", log.refusal->line}, {"text", log.refusal->text}};
    return doc;
}

} // namespace headroom
