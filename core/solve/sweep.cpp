// SPDX-License-Identifier: GPL-3.0-or-later
#include "solve/sweep.h"

#include "scenario/checked.h"
#include "io/inputpolicy.h"

namespace headroom {

const char *sweepAxisKey(SweepAxis axis)
{
    return axis == SweepAxis::SeqLen ? "seq_len" : "micro_batch";
}

Scenario withAxisValue(const Scenario &scenario, SweepAxis axis, std::uint32_t value)
{
    Scenario s = scenario;
    const bool train = s.task == Task::Train;
    if (axis == SweepAxis::SeqLen)
        (train ? s.train.seqLen : s.inference.context) = value;
    else
        (train ? s.train.microBatch : s.inference.batch) = value;
    return s;
}

std::uint32_t axisValue(const Scenario &s, SweepAxis axis)
{
    const bool train = s.task == Task::Train;
    if (axis == SweepAxis::SeqLen)
        return train ? s.train.seqLen : s.inference.context;
    return train ? s.train.microBatch : s.inference.batch;
}

std::vector<std::uint32_t> doublings(std::uint32_t from, std::uint32_t to)
{
    std::vector<std::uint32_t> out;
    for (std::uint64_t v = std::max<std::uint32_t>(from, 1); v <= to; v *= 2)
        out.push_back(static_cast<std::uint32_t>(v));
    return out;
}

Sweep sweep(const Scenario &scenario, SweepAxis axis, const std::vector<std::uint32_t> &values,
            const Catalog &catalog)
{
    Sweep result;
    result.axis = axis;
    for (const std::uint32_t value : values) {
        if (result.points.size() == limits::kSweepPoints) {
            result.truncated = true; // the count is bounded like every other count
            break;
        }
        try {
            result.points.push_back(
                {value, estimate(withAxisValue(scenario, axis, value), Detail::BytesOnly, catalog)});
        } catch (const OverflowError &) {
            result.truncated = true;
            break;
        } catch (const InputError &) { // a layout the estimator refuses: no curve past it, no crash
            result.truncated = true;
            break;
        }
    }
    for (const std::string &id : scenario.gpus) {
        const Gpu *gpu = catalog.findGpu(id);
        if (!gpu)
            continue;
        SweepCrossing crossing{gpu->id, gpu->name, gpu->capacityBytes(), std::nullopt};
        for (std::size_t i = 0; i < result.points.size(); ++i)
            if (result.points[i].estimate.peak.deviceBytes > crossing.capacityBytes) {
                crossing.firstOver = i;
                break;
            }
        result.crossings.push_back(std::move(crossing));
    }
    return result;
}

} // namespace headroom
