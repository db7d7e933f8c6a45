// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The probe's measurement file ("headroom-probe" v1, written by resources/headroom_probe.py;
// docs/scenario-format.md): allocated, reserved and device memory after loading, at the forward's
// peak, after backward and after the optimizer step, with the run's facts. Read as a scenario
// (what the facts state) with its measurements, and compared phase by phase with the estimate.

#include "estimate/estimate.h"
#include "measure/logcompare.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

struct ProbeReading
{
    PhaseId phase = PhaseId::Load;
    std::uint64_t step = 0;
    std::uint64_t allocatedBytes = 0;
    std::uint64_t reservedBytes = 0;
    std::uint64_t peakAllocatedBytes = 0; ///< the phase's own peak (the probe resets it after each reading)
    std::uint64_t peakReservedBytes = 0;
    std::uint64_t deviceUsedBytes = 0;
};

struct ProbeFile
{
    std::string deviceName;
    std::uint64_t deviceTotalBytes = 0;
    std::vector<ProbeReading> readings;
    nlohmann::json facts = nlohmann::json::object();
};

/// Reads a probe file under the input policy. Throws InputError naming the key
/// ("readings[2].peak_allocated_bytes").
ProbeFile readProbeFile(std::string_view text);

/// The scenario the facts state: the model from its config (a Hugging Face config.json's keys),
/// the batch's shape, the weights' dtype, the optimizer, full fine-tuning or PEFT's LoRA,
/// gradient checkpointing, the attention kernel, the GPU. What they do not state is `missing`.
LogScenario scenarioFromProbe(const ProbeFile &probe, const LogScenarioInput &input,
                              const Catalog &catalog = builtinCatalog());

/// One phase measured beside the estimate's (the last step the probe recorded).
struct ProbePhase
{
    PhaseId phase = PhaseId::Load;
    std::uint64_t step = 0;
    std::uint64_t measuredPeakBytes = 0; ///< peak allocated in the phase
    std::uint64_t measuredReservedBytes = 0;
    std::uint64_t estimatedBytes = 0;    ///< the estimate's allocated bytes at the phase's busiest moment
    /// What the estimate adds in this phase over the one before, by consumer (largest first).
    std::vector<std::pair<ConsumerId, std::int64_t>> estimatedGrowth;
};

struct ProbeComparison
{
    std::vector<ProbePhase> phases;
    std::vector<std::string> findings;
};

ProbeComparison compareProbe(const ProbeFile &probe, const Estimate &estimate);

} // namespace headroom
