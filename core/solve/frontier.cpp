// SPDX-License-Identifier: GPL-3.0-or-later
#include "solve/frontier.h"

#include "estimate/estimate.h"
#include "parallel/parallel.h"
#include "estimate/verdict.h"
#include "solve/solver.h"

#include <algorithm>

namespace headroom {

namespace {

constexpr std::uint64_t kMaxTokens = 16u << 20;

std::uint64_t longestOf(const Scenario &s)
{
    return solveValue(s, SolveFor::MaxContext);
}

ServingLimit limitFromKey(const std::string &key)
{
    for (ServingLimit limit : {ServingLimit::KvCache, ServingLimit::MaxNumSeqs, ServingLimit::MaxModelLen,
                               ServingLimit::Memory})
        if (key == servingLimitKey(limit))
            return limit;
    return ServingLimit::Memory;
}

/// What a contiguous cache reserves per sequence: the engine's longest sequence where it has one,
/// else the load's longest request.
std::uint64_t reservedLength(const Scenario &s)
{
    if (s.serving && s.serving->engine != Engine::LlamaCpp && s.serving->maxModelLen)
        return s.serving->maxModelLen;
    if (s.serving && s.serving->engine == Engine::LlamaCpp)
        return s.serving->nCtx / std::max<std::uint32_t>(1, s.serving->nParallel);
    return longestOf(s);
}

FrontierPoint pointAt(const Scenario &s, const std::string &gpuId, std::uint64_t tokens,
                      const Catalog &catalog, bool perSequence = false)
{
    FrontierPoint p;
    p.tokens = tokens;
    const Solution answer = solve(withTokensPerSequence(s, tokens), SolveFor::MaxConcurrency, gpuId, {}, catalog);
    p.sequences = answer.value;
    p.limit = limitFromKey(answer.limit);
    if (perSequence && answer.value > 0) {
        // The answer's own estimate: what its sequences occupy of the pool, per sequence.
        try {
            Scenario at = answer.scenario;
            const Gpu *gpu = catalog.findGpu(gpuId);
            if (gpu) {
                at.gpus = {gpu->id};
                at.targetGpu = gpu->id;
            }
            const Estimate e = estimate(at, Detail::BytesOnly, catalog);
            if (e.serving && e.serving->requestSequences > 0)
                p.kvBytesPerSequence = e.serving->requestKvBytes / e.serving->requestSequences;
        } catch (const std::exception &) {
            p.kvBytesPerSequence = 0;
        }
    }
    return p;
}

/// The engine's longest sequence, where it refuses longer requests (vLLM, SGLang, TensorRT-LLM's
/// max_seq_len); else 0.
std::uint64_t engineMaxModelLen(const Scenario &s)
{
    if (s.serving && (s.serving->engine == Engine::Vllm || s.serving->engine == Engine::Sglang ||
                      s.serving->engine == Engine::Trtllm))
        return s.serving->maxModelLen;
    return 0;
}

FrontierCurve curve(const Scenario &s, const Gpu &gpu, std::uint32_t tensor, FrontierAllocation allocation,
                    const std::vector<std::uint64_t> &tokens, const Catalog &catalog, bool engineLimits)
{
    FrontierCurve c;
    c.gpuId = gpu.id;
    c.gpuName = gpu.name;
    c.tensor = tensor;
    c.allocation = allocation;
    Scenario scaled = s;
    if (tensor != s.parallel.tensor) {
        scaled.parallel.tensor = tensor;
        scaled.parallel.gpus = tensor * s.parallel.pipeline;
    }
    if (allocation == FrontierAllocation::Contiguous) {
        // Every sequence holds the engine's longest sequence (a static cache sized for
        // max_model_len), however short it is: as many as fit at that length.
        const std::uint64_t reserve = reservedLength(s);
        for (std::uint64_t t : tokens) {
            FrontierPoint p = pointAt(scaled, gpu.id, std::max(t, reserve), catalog, engineLimits);
            p.tokens = t;
            if (engineLimits && p.sequences == 0)
                break; // the pool holds not one sequence: the engine does not start
            c.points.push_back(p);
        }
        return c;
    }
    for (std::uint64_t t : tokens) {
        FrontierPoint p = pointAt(scaled, gpu.id, t, catalog, engineLimits);
        if (engineLimits && p.sequences == 0)
            break; // not one sequence of this length fits: longer ones fit no better
        c.points.push_back(p);
    }
    return c;
}

} // namespace

const char *frontierAllocationKey(FrontierAllocation allocation)
{
    return allocation == FrontierAllocation::Paged ? "paged" : "contiguous";
}

Scenario withTokensPerSequence(const Scenario &scenario, std::uint64_t tokens)
{
    Scenario s = scenario;
    tokens = std::clamp<std::uint64_t>(tokens, 1, kMaxTokens);
    if (!s.serving) {
        s.inference.context = static_cast<std::uint32_t>(tokens);
        return s;
    }
    ServingConfig &cfg = *s.serving;
    RequestClass kind;
    kind.promptTokens = static_cast<std::uint32_t>(tokens);
    kind.outputTokens = 0;
    cfg.requests.classes = {kind};
    if ((cfg.engine == Engine::Vllm || cfg.engine == Engine::Sglang || cfg.engine == Engine::Trtllm) &&
        cfg.maxModelLen < tokens)
        cfg.maxModelLen = static_cast<std::uint32_t>(tokens);
    if (cfg.engine == Engine::LlamaCpp)
        cfg.nCtx = static_cast<std::uint32_t>(std::min<std::uint64_t>(tokens * cfg.nParallel, kMaxTokens));
    return s;
}

Frontier servingFrontier(const Scenario &scenario, const FrontierOptions &options, const Catalog &catalog)
{
    if (scenario.task != Task::Inference)
        throw SolveError("the concurrency x context frontier is for inference scenarios");
    checkParallel(scenario); // the file's own layout, refused as `estimate` refuses it
    Frontier f;
    f.operatingTokens = longestOf(scenario);
    f.operatingSequences = solveValue(scenario, SolveFor::MaxConcurrency);
    f.maxModelLen = engineMaxModelLen(scenario);

    std::vector<std::uint64_t> tokens = options.tokens;
    if (tokens.empty()) {
        std::uint64_t top = f.operatingTokens;
        if (scenario.serving && (scenario.serving->engine == Engine::Vllm || scenario.serving->engine == Engine::Sglang ||
                                  scenario.serving->engine == Engine::Trtllm))
            top = std::max<std::uint64_t>(top, scenario.serving->maxModelLen);
        top = std::clamp<std::uint64_t>(top * 2, 1024, kMaxTokens);
        for (std::uint64_t t = 256; t <= top; t *= 2)
            tokens.push_back(t);
        tokens.push_back(f.operatingTokens);
        if (options.engineLimits && f.maxModelLen)
            tokens.push_back(f.maxModelLen); // the curve reaches the mark
        std::sort(tokens.begin(), tokens.end());
        tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
    }
    if (options.engineLimits && f.maxModelLen) // the engine refuses a longer request
        tokens.erase(std::remove_if(tokens.begin(), tokens.end(), [&](std::uint64_t t) { return t > f.maxModelLen; }),
                     tokens.end());

    std::vector<std::string> gpus = options.gpuIds.empty() ? scenario.gpus : options.gpuIds;
    // The operating point is on the GPU the verdict is about (one target GPU): it goes first.
    if (options.gpuIds.empty())
        if (const Gpu *target = targetGpu(scenario, catalog))
            if (auto it = std::find(gpus.begin(), gpus.end(), target->id); it != gpus.end())
                std::rotate(gpus.begin(), it, it + 1);
    std::vector<const Gpu *> found;
    for (const std::string &id : gpus)
        if (const Gpu *gpu = catalog.findGpu(id))
            found.push_back(gpu);
    if (found.empty())
        throw SolveError("the frontier needs at least one catalog GPU");
    std::vector<std::uint32_t> tensors = options.tensor;
    for (const Gpu *gpu : found) {
        const bool first = gpu == found.front();
        const std::vector<std::uint32_t> sizes =
            first && !tensors.empty() ? tensors : std::vector<std::uint32_t>{scenario.parallel.tensor};
        for (std::uint32_t tensor : sizes) {
            f.curves.push_back(curve(scenario, *gpu, tensor, FrontierAllocation::Paged, tokens, catalog, options.engineLimits));
            if (options.contiguous)
                f.curves.push_back(curve(scenario, *gpu, tensor, FrontierAllocation::Contiguous, tokens, catalog, options.engineLimits));
        }
    }
    const FrontierPoint here = pointAt(scenario, found.front()->id, f.operatingTokens, catalog);
    f.operatingMaxSequences = here.sequences;
    f.operatingLimit = here.limit;
    return f;
}

} // namespace headroom
