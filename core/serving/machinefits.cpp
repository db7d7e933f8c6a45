// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/machinefits.h"

#include "estimate/estimate.h"
#include "estimate/verdict.h"
#include "model/architecture.h"
#include "io/inputpolicy.h"
#include "scenario/checked.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "serving/llamacppfit.h"
#include "serving/llamacppweights.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <thread>

namespace headroom {

namespace detail {
/// machinefitsengines.cpp: a vLLM or SGLang row (the base scenario has model, GPU and RAM).
FitsRow servingFitsRow(const Scenario &base, const ModelPreset &preset, const FitsFormat &format,
                       const FitsOptions &options);
/// The estimate of the row's scenario at a load, bytes only, and whether it runs.
bool fitsWith(const Scenario &s, Engine engine, std::uint64_t targetBytes, Estimate *out = nullptr);
} // namespace detail

namespace {

constexpr std::uint64_t kMaxTokens = 16u << 20; // n_ctx, max_model_len (servingjson.cpp)

/// llama.cpp's spelling of its file types ("Q4_K_M", "BF16", "MXFP4_MOE").
std::string upper(std::string text)
{
    for (char &ch : text)
        ch = char(std::toupper(static_cast<unsigned char>(ch)));
    return text;
}

/// The requests of a load: `concurrency` sequences of `context` tokens, half prompt.
ServingRequests load(std::uint32_t context, std::uint32_t concurrency)
{
    ServingRequests r;
    r.concurrency = concurrency;
    r.classes = {RequestClass{}};
    r.classes[0].outputTokens = context / 2;
    r.classes[0].promptTokens = context - context / 2;
    return r;
}

/// The GPU's bytes and capacity in an estimate (the target GPU).
void deviceBytes(const Estimate &e, const std::string &gpu, std::uint64_t &bytes, std::uint64_t &capacity)
{
    for (const GpuFit &g : e.gpus)
        if (g.id == gpu) {
            capacity = g.capacityBytes;
            bytes = g.headroomBytes >= 0 ? g.capacityBytes - std::uint64_t(g.headroomBytes)
                                         : g.capacityBytes + std::uint64_t(-g.headroomBytes);
        }
}

FitsRow llamaRow(const Scenario &base, const ModelPreset &preset, const FitsFormat &format, const FitsOptions &options)
{
    FitsRow row;
    row.engine = Engine::LlamaCpp;
    row.model = preset.id;
    row.format = format;
    row.maxPositions = std::uint32_t(std::max(1, preset.arch.maxPositions));
    row.context = std::min(options.context, row.maxPositions);
    row.concurrency = std::min(options.concurrency, kLlamaMaxSeq);
    Scenario s = base;
    ServingConfig serving;
    serving.engine = Engine::LlamaCpp;
    serving.weightType = *format.gguf;
    serving.nCtx = std::uint32_t(std::min<std::uint64_t>(kMaxTokens, std::uint64_t(row.context) * row.concurrency));
    serving.nParallel = row.concurrency;
    serving.requests = load(row.context, row.concurrency);
    s.serving = serving;
    s.inference.context = row.context;
    row.weightBytes = llamaWeights(s.model, countParams(s.model), *format.gguf).totalBytes;
    LlamaFitOptions fit;
    fit.targetBytes = options.targetBytes;
    fit.devices = std::uint32_t(s.gpus.size());
    const LlamaFitPlan plan = planLlamaFit(s, fit);
    row.scenario = plan.scenario;
    row.nGpuLayers = plan.nGpuLayers;
    row.nCpuMoe = plan.nCpuMoe;
    row.flags = plan.flags;
    if (row.concurrency > 1)
        row.flags.push_back("-np " + std::to_string(row.concurrency));
    row.peakBytes = plan.deviceBytes; // several devices: the tightest one's
    row.capacityBytes = fit.devices > 1 ? std::uint64_t(std::int64_t(plan.deviceBytes) + plan.freeBytes)
                                        : targetGpu(s)->capacityBytes();
    row.hostBytes = plan.hostBytes;
    row.fits = plan.fits && plan.ramFits;
    const int all = s.model.layers + 1;
    if (!plan.fits)
        row.verdict = "does not fit";
    else if (!plan.ramFits)
        row.verdict = "does not fit the RAM";
    else if (plan.nGpuLayers < all)
        row.verdict = "partly on the GPU";
    else if (plan.nCpuMoe > 0)
        row.verdict = "fits, experts in CPU RAM";
    else
        row.verdict = "fits";
    row.concurrencyCap = kLlamaMaxSeq;
    return row;
}

/// The GPU bytes of an estimate over the target (negative: short of it).
std::int64_t spareBytes(const Estimate &e, const Scenario &s, std::uint64_t targetBytes)
{
    if (e.serving && !e.serving->devices.empty()) { // several devices: the tightest
        std::int64_t least = INT64_MAX;
        for (const LlamaDevice &d : e.serving->devices)
            least = std::min(least, d.headroomBytes);
        return least - std::int64_t(targetBytes);
    }
    std::uint64_t bytes = 0, capacity = 0;
    deviceBytes(e, targetGpu(s)->id, bytes, capacity);
    return std::int64_t(capacity) - std::int64_t(bytes) - std::int64_t(targetBytes);
}

/// The largest value in [0, cap] that fits, `known` being whether `at` (the load asked) does:
/// searched up from it when it does, else below it after one look at the smallest load.
template <typename Fits>
std::uint32_t largestFrom(std::uint32_t at, bool known, std::int64_t cap, std::int64_t guess, Fits fits)
{
    if (known)
        return std::uint32_t(largestFitting(at, cap, guess, fits));
    if (at <= 1 || !fits(1))
        return 0;
    return std::uint32_t(largestFitting(1, std::min<std::int64_t>(cap, at - 1), guess, fits));
}

/// The limits of a row by search. The first guesses come from two estimates: llama.cpp's spare
/// GPU bytes over what one more token of every sequence costs between the load asked and twice
/// its context (the marginal cost: a sliding-window layer stops growing at its window);
/// vLLM/SGLang, the tokens of the KV pool. Each answer is then confirmed (it fits, one more
/// does not), so that a wrong guess costs calls, never a wrong answer.
void searchLimits(FitsRow &row, std::uint64_t targetBytes)
{
    Estimate at;
    const bool fits = detail::fitsWith(row.scenario, row.engine, targetBytes, &at);
    const std::uint32_t c = row.concurrency;
    const std::uint32_t t = row.context;
    double contextGuess = t, seqGuess = c;
    if (!at.serving) {
        contextGuess = seqGuess = 0;
    } else if (row.engine == Engine::LlamaCpp) {
        const std::int64_t spare = spareBytes(at, row.scenario, targetBytes);
        const std::uint32_t longer = std::uint32_t(std::min<std::uint64_t>(std::uint64_t(t) * 2, kMaxTokens / c));
        double perToken = double(std::max<std::uint64_t>(1, at.serving->kvBytesPerToken)); // a token of one sequence
        if (longer > t) {
            const Estimate e2 = estimate(fitsScenarioAt(row, longer, c), Detail::BytesOnly);
            const double grew = double(spare - spareBytes(e2, row.scenario, targetBytes));
            if (grew > 0)
                perToken = grew / (double(longer - t) * c);
        }
        contextGuess = t + double(spare) / (perToken * c);
        seqGuess = c + double(spare) / (perToken * t);
    } else {
        contextGuess = double(at.serving->kvCacheTokens) / c;
        seqGuess = double(at.serving->kvCacheTokens) / t;
    }
    auto clampGuess = [](double g) { return std::int64_t(std::max(0.0, std::min(g, double(kMaxTokens)))); };
    const std::int64_t contextCap = std::int64_t(std::min<std::uint64_t>(row.maxPositions, kMaxTokens / c));
    row.maxContext = largestFrom(t, fits, contextCap, clampGuess(contextGuess), [&](std::int64_t x) {
        return fitsAt(row, std::uint32_t(x), c, targetBytes);
    });
    row.concurrencyCap = std::uint32_t(std::min<std::uint64_t>(row.concurrencyCap, kMaxTokens / t));
    row.maxConcurrency = largestFrom(c, fits, row.concurrencyCap, clampGuess(seqGuess), [&](std::int64_t n) {
        return fitsAt(row, t, std::uint32_t(n), targetBytes);
    });
}

} // namespace

namespace detail {

bool fitsWith(const Scenario &s, Engine engine, std::uint64_t targetBytes, Estimate *out)
{
    const Estimate e = estimate(s, Detail::BytesOnly);
    if (out)
        *out = e;
    if (!e.hostMachine.fits || !e.serving)
        return false;
    const Gpu *gpu = targetGpu(s);
    if (engine == Engine::LlamaCpp && !e.serving->devices.empty()) { // several devices: every one
        for (const LlamaDevice &d : e.serving->devices)
            if (d.headroomBytes < 0 || std::uint64_t(d.headroomBytes) < targetBytes)
                return false;
        return true;
    }
    if (engine == Engine::LlamaCpp) {
        for (const GpuFit &g : e.gpus)
            if (gpu && g.id == gpu->id)
                return g.headroomBytes >= 0 && std::uint64_t(g.headroomBytes) >= targetBytes;
        return false;
    }
    for (const GpuFit &g : e.gpus)
        if (gpu && g.id == gpu->id && !g.fits)
            return false;
    return e.serving->requestsFit;
}

} // namespace detail

std::vector<FitsFormat> fitsFormats(Engine engine, const ModelPreset &preset)
{
    std::vector<FitsFormat> formats;
    if (engine == Engine::LlamaCpp) {
        for (const GgufType type : {GgufType::Bf16, GgufType::Q8_0, GgufType::Q6_K, GgufType::Q5_K_M, GgufType::Q4_K_M,
                                    GgufType::Q3_K_M, GgufType::Iq2_M})
            formats.push_back({upper(enumName(type)), type, DType::BF16, false});
        if (preset.storedWeights == DType::MXFP4)
            formats.push_back({upper(enumName(GgufType::Mxfp4_Moe)), GgufType::Mxfp4_Moe, DType::MXFP4, true});
        return formats;
    }
    if (engine != Engine::Vllm && engine != Engine::Sglang)
        throw ScenarioError("engine", std::string("what fits plans llama_cpp, vllm and sglang (got ") +
                                          enumName(engine) + ")");
    const DType own = preset.storedWeights.value_or(DType::BF16);
    formats.push_back({"bf16", std::nullopt, DType::BF16, own == DType::BF16});
    formats.push_back({"fp8", std::nullopt, DType::FP8, own == DType::FP8});
    if (own != DType::BF16 && own != DType::FP8)
        formats.push_back({enumName(own), std::nullopt, own, true});
    return formats;
}

Scenario fitsScenarioAt(const FitsRow &row, std::uint32_t context, std::uint32_t concurrency)
{
    Scenario s = row.scenario;
    ServingConfig &cfg = *s.serving;
    cfg.requests = load(context, concurrency);
    s.inference.context = context;
    if (row.engine == Engine::LlamaCpp) {
        cfg.nCtx = std::uint32_t(std::min<std::uint64_t>(kMaxTokens, std::uint64_t(context) * concurrency));
        cfg.nParallel = concurrency;
    } else {
        cfg.maxModelLen = context;
        cfg.maxNumSeqs = concurrency;
    }
    return s;
}

bool fitsAt(const FitsRow &row, std::uint32_t context, std::uint32_t concurrency, std::uint64_t targetBytes)
{
    if (context < 1 || concurrency < 1)
        return true; // nothing to hold (the searches' lower end)
    if (std::uint64_t(context) * concurrency > kMaxTokens)
        return false;
    try {
        return detail::fitsWith(fitsScenarioAt(row, context, concurrency), row.engine, targetBytes);
    } catch (const ScenarioError &) {
        return false;
    } catch (const OverflowError &) {
        return false;
    }
}

namespace {

/// One model's rows, a row per format; a format the estimator refuses is a row saying so.
std::vector<FitsRow> modelRows(const ModelPreset &preset, const FitsOptions &options)
{
    Scenario base;
    base.task = Task::Inference;
    base.model = preset.arch;
    base.model.preset = preset.id;
    base.gpus = {options.gpu};
    base.gpus.insert(base.gpus.end(), options.moreGpus.begin(), options.moreGpus.end());
    base.host.ramGiB = options.ramGiB;
    std::vector<FitsRow> rows;
    for (const FitsFormat &format : fitsFormats(options.engine, preset)) {
        FitsRow row;
        try {
            row = options.engine == Engine::LlamaCpp ? llamaRow(base, preset, format, options)
                                                     : detail::servingFitsRow(base, preset, format, options);
            if (options.limits)
                searchLimits(row, options.engine == Engine::LlamaCpp ? options.targetBytes : 0);
        } catch (const ScenarioError &error) {
            // Refused rather than guessed: the row says what the estimator does not model.
            row = FitsRow{};
            row.model = preset.id;
            row.format = format;
            row.engine = options.engine;
            row.verdict = std::string("not modelled: ") + error.what();
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace

std::vector<FitsRow> fitsMatrix(const Catalog &catalog, const FitsOptions &options)
{
    if (!catalog.findGpu(options.gpu))
        throw ScenarioError("gpu", "\"" + quoteText(options.gpu) + "\" is not a catalog GPU");
    for (const std::string &gpu : options.moreGpus)
        if (!catalog.findGpu(gpu))
            throw ScenarioError("gpu", "\"" + quoteText(gpu) + "\" is not a catalog GPU");
    if (!options.moreGpus.empty() && options.engine != Engine::LlamaCpp)
        throw ScenarioError("gpu", "several GPUs are planned for llama.cpp only: vLLM and SGLang would split the "
                                   "model by tensor parallelism, which fits does not plan");
    if (options.moreGpus.size() > 15)
        throw ScenarioError("gpu", "at most 16 devices");
    // The models are independent (the estimator is pure; its caches are per thread): they are
    // shared out over the cores, and the rows joined in the catalog's order, so the answer is
    // the same on any number of threads. An error other than a refusal is rethrown, the first
    // model's first.
    const std::size_t count = catalog.models.size();
    std::vector<std::vector<FitsRow>> perModel(count);
    std::vector<std::exception_ptr> errors(count);
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i = next++; i < count; i = next++) {
            try {
                perModel[i] = modelRows(catalog.models[i], options);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < count; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread &thread : pool)
        thread.join();
    std::vector<FitsRow> rows;
    for (std::size_t i = 0; i < count; ++i) {
        if (errors[i])
            std::rethrow_exception(errors[i]);
        for (FitsRow &row : perModel[i])
            rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace headroom
