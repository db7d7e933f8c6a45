// SPDX-License-Identifier: GPL-3.0-or-later
// An offline `--fit` for llama.cpp: the plan llama.cpp's fit (common/fit.cpp,
// llama_params_fit_impl) reaches for a machine described, not the one at hand: keep the context
// (or shrink it towards --fit-ctx), all layers on the GPU if they fit, else MoE expert tensors to
// CPU RAM layer by layer from the first, else fewer dense layers (the output layer last to go).
// Every plan is the estimator's: it fits, and one more GPU layer (or one layer's experts less in
// CPU RAM) does not.
#pragma once

#include "estimate/estimate.h"
#include "scenario/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

struct LlamaFitOptions
{
    std::uint64_t targetBytes = 1024ull * 1024 * 1024; ///< free memory to leave on the GPU (--fit-target)
    std::uint32_t fitCtx = 0; ///< the smallest context to shrink to (--fit-ctx); 0: keep the context
    std::uint32_t devices = 1; ///< the devices to split over: the first of the scenario's gpus
};

/// One device of a plan: what it holds and what is left free.
struct LlamaFitDevice
{
    std::string gpu;
    std::uint32_t layers = 0;     ///< layers on it (the output layer counted, as -ts counts)
    std::uint64_t bytes = 0;
    std::int64_t freeBytes = 0;   ///< capacity - bytes
};

struct LlamaFitPlan
{
    bool fits = false;       ///< the GPU holds the plan with the target left free
    bool ramFits = true;     ///< and the host RAM (when given) holds the rest
    std::uint32_t nCtx = 0;
    std::int32_t nGpuLayers = 0;  ///< -ngl (n_layer + 1: everything)
    std::uint32_t nCpuMoe = 0;    ///< --n-cpu-moe
    std::string overrideTensor;   ///< the -ot rule --n-cpu-moe stands for; empty when none
    std::string gpu;
    std::uint64_t deviceBytes = 0;
    std::int64_t freeBytes = 0;   ///< capacity - device bytes
    std::uint64_t hostBytes = 0;
    /// Several devices (the scenario's gpus in order, two or more): the layers of each, as -ts
    /// gives them (llama.cpp's fit writes layer counts into tensor_split), and each device.
    std::vector<std::uint32_t> tensorSplit;
    std::vector<LlamaFitDevice> devices;
    std::vector<std::string> flags; ///< "-c 8192", "-ngl 33", "-ts 20,13", "--n-cpu-moe 4"
    std::vector<std::string> steps; ///< what was tried, in order
    Scenario scenario;              ///< the scenario with the plan applied
};

/// The plan for `s` (a llama.cpp serving scenario) on its target GPU; with `devices` > 1 on the
/// first `devices` of its gpus, filling them back to front (common/fit.cpp: the last device
/// takes the last layers and the output layer). Throws ScenarioError when the scenario is not
/// served by llama.cpp.
LlamaFitPlan planLlamaFit(const Scenario &s, const LlamaFitOptions &options = {});

/// Whether `s` fits its target GPU (with tensor_split: every device) with `targetBytes` left
/// free, and its estimate.
bool llamaFitsWith(const Scenario &s, std::uint64_t targetBytes, Estimate *estimate = nullptr);

} // namespace headroom
