// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/verdict.h"

#include "scenario/checked.h"
#include "scenario/scenariojson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

namespace headroom {

const Gpu *targetGpu(const Scenario &scenario, const Catalog &catalog)
{
    if (!scenario.targetGpu.empty())
        if (const Gpu *gpu = catalog.findGpu(scenario.targetGpu))
            return gpu;
    const Gpu *largest = nullptr;
    for (const std::string &id : scenario.gpus)
        if (const Gpu *gpu = catalog.findGpu(id); gpu && (!largest || gpu->capacityMiB > largest->capacityMiB))
            largest = gpu;
    return largest;
}

std::optional<GpuFit> targetFit(const Scenario &scenario, const Estimate &estimate, const Catalog &catalog)
{
    const Gpu *gpu = targetGpu(scenario, catalog);
    if (!gpu)
        return std::nullopt;
    // llama.cpp on several devices: the verdict is the tightest device's (the estimate's peak).
    if (estimate.serving && estimate.serving->devices.size() > 1)
        for (const GpuFit &fit : estimate.gpus)
            if (fit.id == estimate.serving->gpuId && fit.headroomBytes == std::int64_t(fit.capacityBytes) -
                                                                              std::int64_t(estimate.peak.deviceBytes))
                return fit;
    for (const GpuFit &fit : estimate.gpus)
        if (fit.id == gpu->id)
            return fit;
    // Not among the estimate's lines (an estimate of another scenario): judge it here.
    const std::int64_t headroom =
        std::int64_t(gpu->capacityBytes()) - std::int64_t(estimate.peak.deviceBytes);
    return GpuFit{gpu->id, gpu->name, gpu->capacityBytes(), headroom >= 0, headroom};
}

std::uint64_t upperEdgeBytes(std::uint64_t peakBytes, int bandPercent)
{
    const long double upper = (long double)peakBytes * (100.0L + std::max(bandPercent, 0)) / 100.0L;
    if (upper >= 18446744073709551615.0L)
        return UINT64_MAX;
    return std::uint64_t(std::ceil(double(upper)));
}

FitState fitState(std::uint64_t peakBytes, std::uint64_t capacityBytes, int bandPercent)
{
    if (upperEdgeBytes(peakBytes, bandPercent) <= capacityBytes)
        return FitState::Fits;
    // The lower edge, peak x (1 - band): the run is over the GPU even if the estimate is high.
    const long double lower = (long double)peakBytes * (100.0L - std::clamp(bandPercent, 0, 100)) / 100.0L;
    return lower > (long double)capacityBytes ? FitState::DoesNotFit : FitState::Borderline;
}

const char *fitStateKey(FitState state)
{
    switch (state) {
    case FitState::Fits:
        return "fits";
    case FitState::Borderline:
        return "borderline";
    case FitState::DoesNotFit:
        break;
    }
    return "does_not_fit";
}

std::string fitStateText(FitState state, int bandPercent)
{
    switch (state) {
    case FitState::Fits:
        return "fits";
    case FitState::Borderline:
        return "may not fit: within the \u00b1" + std::to_string(bandPercent) + "% this estimate carries";
    case FitState::DoesNotFit:
        break;
    }
    return "does not fit";
}

std::optional<FitState> targetState(const Scenario &scenario, const Estimate &estimate, const Catalog &catalog)
{
    const std::optional<GpuFit> fit = targetFit(scenario, estimate, catalog);
    if (!fit)
        return std::nullopt;
    return fitState(estimate.peak.deviceBytes, fit->capacityBytes, estimate.errorBandPercent);
}

namespace {

/// The peak of a configuration, or nothing when it is not a valid scenario or overflows.
std::optional<std::uint64_t> devicePeak(const Scenario &s, const Catalog &catalog)
{
    try {
        scenarioFromJson(scenarioToJson(s), catalog);
        return estimate(s, Detail::BytesOnly, catalog).peak.deviceBytes;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

} // namespace

std::optional<ScaleOut> gpusToFit(const Scenario &scenario, const Gpu &gpu, const Catalog &catalog)
{
    for (const std::uint32_t count : kScaleOutCounts) {
        if (count <= scenario.parallel.gpus)
            continue;
        Scenario wider = scenario;
        ScaleOut out;
        out.gpus = count;
        wider.parallel.gpus = count;
        if (scenario.task == Task::Train) {
            out.strategy = scenario.parallel.strategy == Strategy::Zero3 ? Strategy::Zero3 : Strategy::Fsdp;
            out.tensor = scenario.parallel.tensor;
            wider.parallel.strategy = out.strategy;
            if (count % (std::uint64_t(scenario.parallel.tensor) * scenario.parallel.pipeline) != 0)
                continue;
        } else {
            // Serving shards the weights and the cache over the heads.
            if (scenario.parallel.pipeline != 1 || scenario.model.heads % int(count) != 0)
                continue;
            out.strategy = scenario.parallel.strategy;
            out.tensor = count;
            wider.parallel.tensor = count;
        }
        const std::optional<std::uint64_t> peak = devicePeak(wider, catalog);
        if (peak && *peak <= gpu.capacityBytes()) {
            out.peakDeviceBytes = *peak;
            return out;
        }
    }
    return std::nullopt;
}

std::optional<PositionLimit> positionLimit(const Scenario &scenario)
{
    // What runs: the training sequence, an engine's longest request (and the longest sequence
    // it admits, max_model_len), or plain inference's context.
    std::uint64_t tokens = scenario.task == Task::Train ? scenario.train.seqLen : scenario.inference.context;
    if (scenario.task == Task::Inference && scenario.serving) {
        tokens = 0;
        for (const RequestClass &kind : scenario.serving->requests.classes)
            tokens = std::max<std::uint64_t>(tokens, kind.tokens());
        if (scenario.serving->engine == Engine::Vllm || scenario.serving->engine == Engine::Sglang ||
            scenario.serving->engine == Engine::Trtllm)
            tokens = std::max<std::uint64_t>(tokens, scenario.serving->maxModelLen);
        tokens = std::min<std::uint64_t>(tokens, UINT32_MAX);
    }
    const ModelArch &m = scenario.model;
    if (m.maxPositions <= 0 || tokens <= std::uint32_t(m.maxPositions) || m.position == Position::Alibi)
        return std::nullopt;
    return PositionLimit{std::uint32_t(tokens), m.maxPositions, m.position, m.position == Position::Learned};
}

} // namespace headroom
