// SPDX-License-Identifier: GPL-3.0-or-later
#include "solve/advicejson.h"

#include "scenario/scenariojson.h"
#include "solve/solvejson.h"

#include <nlohmann/json.hpp>

namespace headroom {

using nlohmann::json;

namespace {

/// Appends the leaves of `after` that differ from `before` (objects recurse, lists compare whole).
void diff(const json &before, const json &after, const std::string &prefix,
          std::vector<ScenarioChange> &out)
{
    for (const auto &item : after.items()) {
        const std::string path = prefix.empty() ? item.key() : prefix + "." + item.key();
        const json *old = before.contains(item.key()) ? &before.at(item.key()) : nullptr;
        if (item.value().is_object() && old && old->is_object())
            diff(*old, item.value(), path, out);
        else if (!old || *old != item.value())
            out.emplace_back(path, item.value());
    }
}

} // namespace

std::vector<ScenarioChange> scenarioChanges(const Scenario &before, const Scenario &after)
{
    std::vector<ScenarioChange> out;
    diff(scenarioToJson(before), scenarioToJson(after), "", out);
    return out;
}

const char *skipReasonKey(SkipReason reason)
{
    static const char *keys[] = {"not_applicable", "no_saving", "negligible", "not_enough"};
    return keys[static_cast<int>(reason)];
}

json adviceToJson(const Advice &advice)
{
    json steps = json::array();
    for (std::size_t i = 0; i < advice.steps.size(); ++i) {
        const AdviceStep &step = advice.steps[i];
        json changes = json::object();
        for (const auto &[key, value] : scenarioChanges(advice.before(i), step.scenario))
            changes[key] = value;
        steps.push_back({{"lever", leverKey(step.lever)},
                         {"saved_bytes", step.savedBytes},
                         {"device_bytes", step.peakDeviceBytes},
                         {"host_bytes", step.hostBytes},
                         {"fits", step.fits},
                         {"changes", changes},
                         {"scenario", scenarioToJson(step.scenario)}});
    }
    json skipped = json::array();
    for (const SkippedLever &s : advice.skipped)
        skipped.push_back({{"lever", leverKey(s.lever)}, {"reason", skipReasonKey(s.reason)}});
    json doc = {{"format", "headroom-advice"},
            {"version", 1},
            {"gpu", {{"id", advice.gpuId}, {"name", advice.gpuName}, {"capacity_bytes", advice.capacityBytes}}},
            {"start", {{"device_bytes", advice.startPeakDeviceBytes},
                       {"fits", advice.startPeakDeviceBytes <= advice.capacityBytes}}},
            {"steps", steps},
            {"skipped", skipped},
            {"fits", advice.fits},
            {"final_device_bytes", advice.finalPeakDeviceBytes()}};
    if (advice.then)
        doc["then"] = solutionToJson(*advice.then);
    return doc;
}

} // namespace headroom
