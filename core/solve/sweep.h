// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "estimate/estimate.h"
#include "scenario/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// What a sweep varies: the sequence length (inference: the context) or the micro-batch
/// (inference: the concurrent sequences).
enum class SweepAxis { SeqLen, MicroBatch };
/// Stable id of an axis ("seq_len", "micro_batch").
const char *sweepAxisKey(SweepAxis axis);

/// One point of a sweep: the axis value and the whole estimate of that configuration.
struct SweepPoint
{
    std::uint32_t value = 0;
    Estimate estimate; ///< BytesOnly detail: the peak and its composition, no formula text
    bool operator==(const SweepPoint &) const = default;
};

/// Where a capacity line is crossed: the first point whose device bytes exceed the capacity.
struct SweepCrossing
{
    std::string gpuId;
    std::string gpuName;
    std::uint64_t capacityBytes = 0;
    std::optional<std::size_t> firstOver; ///< index into points; empty when every point fits
    bool operator==(const SweepCrossing &) const = default;
};

/// Memory against one axis, with the scenario's GPU lines.
struct Sweep
{
    SweepAxis axis = SweepAxis::SeqLen;
    std::vector<SweepPoint> points;
    std::vector<SweepCrossing> crossings; ///< one per catalog GPU in scenario.gpus, in that order
    /// A later value was left out: beyond range (2^64 bytes), or past limits::kSweepPoints.
    bool truncated = false;
    bool operator==(const Sweep &) const = default;
};

/// The scenario with the axis set to `value` (the configuration of one sweep point).
Scenario withAxisValue(const Scenario &scenario, SweepAxis axis, std::uint32_t value);

/// The axis value of a scenario.
std::uint32_t axisValue(const Scenario &scenario, SweepAxis axis);

/// Powers of two from `from` to `to` inclusive (from, 2 from, 4 from, ...).
std::vector<std::uint32_t> doublings(std::uint32_t from, std::uint32_t to);

/// Estimates every value in order. Stops (truncated) at the first value beyond range and after
/// limits::kSweepPoints points.
Sweep sweep(const Scenario &scenario, SweepAxis axis, const std::vector<std::uint32_t> &values,
            const Catalog &catalog = builtinCatalog());

} // namespace headroom
