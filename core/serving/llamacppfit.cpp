// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/llamacppfit.h"

#include "estimate/verdict.h"
#include "scenario/scenariojson.h"

#include <algorithm>
#include <climits>

namespace headroom {

namespace {

ServingConfig &cfg(Scenario &s) { return *s.serving; }

/// The last value in [lo, hi] for which `fits` holds, `fits` being true up to a point and false
/// after it; lo - 1 when none.
template <typename Fits>
std::int64_t lastFitting(std::int64_t lo, std::int64_t hi, Fits fits)
{
    std::int64_t good = lo - 1;
    while (lo <= hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (fits(mid)) {
            good = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return good;
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }

/// The -ot rule --n-cpu-moe N stands for (common/arg.cpp: "blk\\.(0|...|N-1)\\.ffn_(up|down|gate)_exps=CPU").
std::string cpuMoeRule(std::uint32_t n, int layers)
{
    if (n == 0)
        return {};
    if (n >= std::uint32_t(layers))
        return "\\.ffn_(up|down|gate)_exps=CPU";
    std::string alternatives;
    for (std::uint32_t i = 0; i < n; ++i)
        alternatives += (i ? "|" : "") + std::to_string(i);
    return "blk\\.(" + alternatives + ")\\.ffn_(up|down|gate)_exps=CPU";
}

/// Layer counts as tensor_split proportions, -ngl their sum.
void applyCounts(Scenario &s, const std::vector<std::uint32_t> &counts)
{
    std::uint32_t ngl = 0;
    cfg(s).tensorSplit.assign(counts.begin(), counts.end());
    for (const std::uint32_t count : counts)
        ngl += count;
    cfg(s).nGpuLayers = std::int32_t(ngl);
}

LlamaFitPlan planOverDevices(const Scenario &input, const LlamaFitOptions &options);

} // namespace

bool llamaFitsWith(const Scenario &s, std::uint64_t targetBytes, Estimate *out)
{
    const Estimate e = estimate(s, Detail::BytesOnly); // bytes only: the plan prints no formulas
    const Gpu *gpu = targetGpu(s);
    bool fits = false;
    for (const GpuFit &g : e.gpus)
        if (gpu && g.id == gpu->id)
            // Memory only, as llama.cpp's fit: the whole n_ctx cache is allocated up front, and
            // whether the scenario's requests fit in n_ctx is another question.
            fits = g.headroomBytes >= 0 && std::uint64_t(g.headroomBytes) >= targetBytes;
    if (e.serving && !e.serving->devices.empty()) { // several devices: every one
        fits = true;
        for (const LlamaDevice &d : e.serving->devices)
            fits = fits && d.headroomBytes >= 0 && std::uint64_t(d.headroomBytes) >= targetBytes;
    }
    if (out)
        *out = e;
    return fits;
}

LlamaFitPlan planLlamaFit(const Scenario &input, const LlamaFitOptions &options)
{
    if (!input.serving || input.serving->engine != Engine::LlamaCpp)
        throw ScenarioError("serving.engine", "fit plans llama.cpp: the scenario needs \"engine\": \"llama_cpp\"");
    if (!targetGpu(input))
        throw ScenarioError("gpus", "fit needs a GPU (--gpu ID)");
    if (options.devices > 1)
        return planOverDevices(input, options);
    LlamaFitPlan plan;
    Scenario s = input;
    const int layers = s.model.layers;
    const std::uint64_t target = options.targetBytes;
    const bool moe = s.model.moeLayers() > 0;
    cfg(s).nGpuLayers = layers + 1;
    cfg(s).nCpuMoe = 0;
    cfg(s).cpuMoe = false;
    auto fits = [&](const Scenario &candidate) { return llamaFitsWith(candidate, target); };

    plan.steps.push_back("all " + std::to_string(layers + 1) + " layers on the GPU, n_ctx " +
                         std::to_string(cfg(s).nCtx));
    bool done = fits(s);
    // The context, when it may shrink (--fit-ctx): halve it, not below the floor.
    if (!done && options.fitCtx > 0 && options.fitCtx < cfg(s).nCtx) {
        while (!done && cfg(s).nCtx > options.fitCtx) {
            cfg(s).nCtx = std::max(options.fitCtx, cfg(s).nCtx / 2);
            cfg(s).nParallel = std::min(cfg(s).nParallel, cfg(s).nCtx);
            done = fits(s);
        }
        plan.steps.push_back("context shrunk to " + std::to_string(cfg(s).nCtx) + (done ? ": fits" : ": not enough"));
    }
    // Mixture of experts: the expert tensors of the first N layers to CPU RAM.
    if (!done && moe) {
        const std::int64_t n = lastFitting(0, layers, [&](std::int64_t k) {
            Scenario t = s;
            cfg(t).nCpuMoe = std::uint32_t(layers - k); // k layers keep their experts on the GPU
            return fits(t);
        });
        if (n >= 0) {
            cfg(s).nCpuMoe = std::uint32_t(layers - n);
            done = true;
            plan.steps.push_back("experts of the first " + std::to_string(cfg(s).nCpuMoe) + " layers to CPU RAM: fits");
        } else {
            cfg(s).nCpuMoe = std::uint32_t(layers);
            plan.steps.push_back("every layer's experts in CPU RAM: not enough");
        }
    }
    // Fewer layers on the GPU: the first blocks go first, the output layer last.
    if (!done) {
        const std::int64_t ngl = lastFitting(0, layers + 1, [&](std::int64_t k) {
            Scenario t = s;
            cfg(t).nGpuLayers = std::int32_t(k);
            return fits(t);
        });
        if (ngl >= 0) {
            cfg(s).nGpuLayers = std::int32_t(ngl);
            done = true;
            plan.steps.push_back(std::to_string(ngl) + " of " + std::to_string(layers + 1) + " layers on the GPU: fits");
        } else {
            cfg(s).nGpuLayers = 0;
            plan.steps.push_back("nothing fits: the GPU cannot hold llama.cpp's context with " + mib(target) + " free");
        }
    }
    Estimate e;
    plan.fits = llamaFitsWith(s, target, &e);
    plan.nCtx = cfg(s).nCtx;
    plan.nGpuLayers = cfg(s).nGpuLayers;
    plan.nCpuMoe = cfg(s).nCpuMoe;
    const Gpu *gpu = targetGpu(s);
    plan.gpu = gpu->id;
    // The peak on the device; the free bytes are the verdict's (on unified memory the pool's
    // RAM can be the tighter limit, so capacity - free is not the peak there).
    plan.deviceBytes = e.peak.deviceBytes;
    for (const GpuFit &g : e.gpus)
        if (g.id == gpu->id)
            plan.freeBytes = g.headroomBytes;
    plan.hostBytes = e.hostMachine.perGpuBytes ? e.hostMachine.perGpuBytes : e.hostBytes;
    plan.ramFits = e.hostMachine.fits;
    plan.flags.push_back("-c " + std::to_string(plan.nCtx));
    plan.flags.push_back("-ngl " + std::to_string(plan.nGpuLayers));
    if (plan.nCpuMoe > 0) {
        plan.flags.push_back("--n-cpu-moe " + std::to_string(plan.nCpuMoe));
        plan.overrideTensor = cpuMoeRule(plan.nCpuMoe, layers);
    }
    plan.scenario = s;
    return plan;
}

} // namespace headroom

namespace headroom {

namespace {

/// Several devices, as common/fit.cpp fills them: back to front, the last device taking the last
/// layers and the output layer, each device as many as fit with the target free; a mixture of
/// experts moves the first layers' experts to CPU RAM until every layer is on a device.
LlamaFitPlan planOverDevices(const Scenario &input, const LlamaFitOptions &options)
{
    const std::size_t nd = options.devices;
    if (input.gpus.size() < nd)
        throw ScenarioError("gpus", "a fit over " + std::to_string(nd) + " devices needs " + std::to_string(nd) +
                                        " GPUs in gpus (one --gpu per device)");
    LlamaFitPlan plan;
    Scenario s = input;
    const int layers = s.model.layers;
    const std::uint32_t all = std::uint32_t(layers) + 1;
    const std::uint64_t target = options.targetBytes;
    cfg(s).splitMode = LlamaSplitMode::Layer;
    cfg(s).mainGpu = 0;
    cfg(s).nCpuMoe = 0;
    cfg(s).cpuMoe = false;
    auto deviceFits = [&](const Scenario &t, std::size_t d) {
        const Estimate e = estimate(t, Detail::BytesOnly);
        for (const LlamaDevice &dev : e.serving->devices)
            if (dev.index == d)
                return dev.headroomBytes >= 0 && std::uint64_t(dev.headroomBytes) >= target;
        return false;
    };
    auto fill = [&](const Scenario &base) {
        std::vector<std::uint32_t> counts(nd, 0);
        std::uint32_t remaining = all;
        for (std::size_t d = nd; d-- > 0;) {
            const std::int64_t k = lastFitting(0, remaining, [&](std::int64_t k) {
                Scenario t = base;
                std::vector<std::uint32_t> trial = counts;
                trial[d] = std::uint32_t(k);
                applyCounts(t, trial);
                return deviceFits(t, d);
            });
            counts[d] = std::uint32_t(std::max<std::int64_t>(0, k));
            remaining -= counts[d];
        }
        return counts;
    };
    auto placed = [](const std::vector<std::uint32_t> &counts) {
        std::uint32_t sum = 0;
        for (const std::uint32_t c : counts)
            sum += c;
        return sum;
    };
    // common/fit.cpp changes nothing when the default placement (every layer, split by free
    // memory) already fits every device: its layer counts are the plan.
    std::vector<std::uint32_t> counts;
    {
        Scenario byFree = s;
        cfg(byFree).tensorSplit.assign(nd, 0.0);
        cfg(byFree).nGpuLayers = std::int32_t(all);
        Estimate e;
        if (llamaFitsWith(byFree, target, &e)) {
            for (const LlamaDevice &d : e.serving->devices)
                counts.push_back(d.layers + (d.output ? 1u : 0u));
            plan.steps.push_back("every layer, split by free memory (llama.cpp's default), n_ctx " +
                                 std::to_string(cfg(s).nCtx) + ": fits");
        }
    }
    if (counts.empty()) {
        counts = fill(s);
        plan.steps.push_back("the devices filled back to front, n_ctx " + std::to_string(cfg(s).nCtx) + ": " +
                             std::to_string(placed(counts)) + " of " + std::to_string(all) + " layers");
    }
    if (placed(counts) < all && options.fitCtx > 0 && options.fitCtx < cfg(s).nCtx) {
        while (placed(counts) < all && cfg(s).nCtx > options.fitCtx) {
            cfg(s).nCtx = std::max(options.fitCtx, cfg(s).nCtx / 2);
            cfg(s).nParallel = std::min(cfg(s).nParallel, cfg(s).nCtx);
            counts = fill(s);
        }
        plan.steps.push_back("context shrunk to " + std::to_string(cfg(s).nCtx) + ": " +
                             std::to_string(placed(counts)) + " of " + std::to_string(all) + " layers");
    }
    if (placed(counts) < all && s.model.moeLayers() > 0) {
        std::vector<std::uint32_t> best;
        const std::int64_t keep = lastFitting(0, layers, [&](std::int64_t k) {
            Scenario t = s;
            cfg(t).nCpuMoe = std::uint32_t(layers - k); // k layers keep their experts on the devices
            return placed(fill(t)) == all;
        });
        cfg(s).nCpuMoe = std::uint32_t(keep >= 0 ? layers - keep : layers);
        counts = fill(s);
        plan.steps.push_back("experts of the first " + std::to_string(cfg(s).nCpuMoe) + " layers to CPU RAM: " +
                             std::to_string(placed(counts)) + " of " + std::to_string(all) + " layers");
    }
    applyCounts(s, counts);
    Estimate e;
    plan.fits = llamaFitsWith(s, target, &e);
    plan.nCtx = cfg(s).nCtx;
    plan.nGpuLayers = cfg(s).nGpuLayers;
    plan.nCpuMoe = cfg(s).nCpuMoe;
    plan.overrideTensor = cpuMoeRule(plan.nCpuMoe, layers);
    plan.tensorSplit = counts;
    plan.gpu = e.serving->gpuId;
    plan.freeBytes = INT64_MAX;
    for (const LlamaDevice &d : e.serving->devices) {
        plan.devices.push_back({d.gpuId, d.layers + (d.output ? 1u : 0u), d.deviceBytes, d.headroomBytes});
        if (d.headroomBytes < plan.freeBytes) {
            plan.freeBytes = d.headroomBytes;
            plan.deviceBytes = d.deviceBytes;
            plan.gpu = d.gpuId;
        }
    }
    plan.hostBytes = e.hostMachine.perGpuBytes ? e.hostMachine.perGpuBytes : e.hostBytes;
    plan.ramFits = e.hostMachine.fits;
    std::string ts;
    for (const std::uint32_t c : counts)
        ts += (ts.empty() ? "" : ",") + std::to_string(c);
    plan.flags = {"-c " + std::to_string(plan.nCtx), "-ngl " + std::to_string(plan.nGpuLayers), "-ts " + ts};
    if (plan.nCpuMoe > 0)
        plan.flags.push_back("--n-cpu-moe " + std::to_string(plan.nCpuMoe));
    plan.scenario = s;
    return plan;
}

} // namespace

} // namespace headroom
