// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracy/validation.h"

#include "accuracy/casedocument.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace headroom {

using nlohmann::json;

namespace {

} // namespace

const char *readingName(Reading reading)
{
    switch (reading) {
    case Reading::Allocated: return "allocated";
    case Reading::Reserved: return "reserved";
    case Reading::Device: return "device";
    }
    return "allocated";
}

const char *splitName(Split split) { return split == Split::Train ? "train" : "holdout"; }

const char *methodGroup(const Scenario &scenario)
{
    if (scenario.task == Task::Inference)
        return "inference";
    // Post-training (DPO, GRPO, PPO, ...) holds other models and batches than supervised
    // fine-tuning: its own group, whatever the method.
    if (scenario.train.objective != Objective::Sft)
        return "post-training";
    return enumName(scenario.train.method);
}

MeasurementCase parseMeasurementCase(std::string_view text, const std::string &fileName)
{
    const CaseDocument document = readCaseDocument(
        text, fileName, "headroom-measurement",
        {"format", "version", "id", "scenario", "reading", "measured", "measured_bytes", "hardware", "source",
         "verified", "verification_note", "assumptions", "not_modelled", "confidence", "split"});
    const CaseReader r(document.doc, fileName);
    MeasurementCase c;
    c.id = document.id;
    c.scenario = document.scenario;
    c.method = methodGroup(c.scenario);
    c.framework = enumName(c.scenario.framework.name);

    const std::string reading = r.string("reading");
    if (reading == "allocated")
        c.reading = Reading::Allocated;
    else if (reading == "reserved")
        c.reading = Reading::Reserved;
    else if (reading == "device")
        c.reading = Reading::Device;
    else
        r.fail("reading", "must be one of allocated, reserved, device (got " + quotedText(reading) + ")");

    const json &measured = r.required("measured_bytes");
    if (!measured.is_number_unsigned() || measured.get<std::uint64_t>() == 0)
        r.fail("measured_bytes", "must be a positive whole number of bytes");
    c.measuredBytes = measured.get<std::uint64_t>();

    const std::string split = r.string("split");
    if (split == "train")
        c.split = Split::Train;
    else if (split == "holdout")
        c.split = Split::Holdout;
    else
        r.fail("split", "must be train or holdout (got " + quotedText(split) + ")");

    const json &source = r.required("source");
    if (!source.is_object())
        r.fail("source", "must be an object");
    const auto repo = source.find("repo");
    const auto path = source.find("path");
    if (repo != source.end() && repo->is_string() && path != source.end() && path->is_string())
        c.source = repo->get<std::string>() + " " + path->get<std::string>();
    else if (const auto paper = source.find("paper"); paper != source.end() && paper->is_string())
        c.source = paper->get<std::string>();
    else
        r.fail("source", "needs repo and path (strings), or paper");
    return c;
}

std::uint64_t estimatedFigure(const Estimate &estimate, Reading reading)
{
    switch (reading) {
    case Reading::Allocated: return estimate.peak.allocatedBytes;
    case Reading::Reserved: return estimate.peak.reservedBytes;
    case Reading::Device: return estimate.peak.deviceBytes;
    }
    return estimate.peak.allocatedBytes;
}

CaseResult validateCase(const MeasurementCase &measurement)
{
    CaseResult result;
    result.measurement = measurement;
    result.estimatedBytes =
        estimatedFigure(estimate(measurement.scenario, Detail::BytesOnly), measurement.reading);
    const double measured = static_cast<double>(measurement.measuredBytes);
    result.error = (static_cast<double>(result.estimatedBytes) - measured) / measured;
    return result;
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double percentile(std::vector<double> values, double fraction)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const double rank = std::ceil(std::clamp(fraction, 0.0, 1.0) * double(values.size()) - 1e-9);
    const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
    return values[std::min(index, values.size() - 1)];
}

ErrorSummary summarize(const std::vector<double> &signedErrors)
{
    ErrorSummary s;
    s.count = signedErrors.size();
    if (s.count == 0)
        return s;
    std::vector<double> abs;
    abs.reserve(s.count);
    for (double e : signedErrors)
        abs.push_back(std::fabs(e));
    s.medianAbs = median(abs);
    s.p90Abs = percentile(abs, 0.9);
    s.maxAbs = *std::max_element(abs.begin(), abs.end());
    // A small tolerance so that a case at exactly 10% counts as within it.
    const auto share = [&](double limit) {
        return double(std::count_if(abs.begin(), abs.end(), [&](double a) { return a <= limit + 1e-12; })) /
               double(s.count);
    };
    s.within10 = share(0.10);
    s.within20 = share(0.20);
    return s;
}

namespace {

std::vector<GroupSummary> groupBy(const std::vector<CaseResult> &cases,
                                  std::string (*key)(const CaseResult &),
                                  const std::vector<std::string> &order = {})
{
    std::map<std::string, std::vector<double>> groups;
    for (const CaseResult &c : cases)
        groups[key(c)].push_back(c.error);
    std::vector<GroupSummary> out;
    for (const std::string &name : order)
        if (const auto it = groups.find(name); it != groups.end())
            out.push_back({name, summarize(it->second)});
    for (const auto &[name, errors] : groups)
        if (std::find(order.begin(), order.end(), name) == order.end())
            out.push_back({name, summarize(errors)});
    return out;
}

json summaryJson(const ErrorSummary &s)
{
    return {{"count", s.count},       {"median_abs_error", s.medianAbs}, {"p90_abs_error", s.p90Abs},
            {"max_abs_error", s.maxAbs}, {"within_10", s.within10},     {"within_20", s.within20}};
}

json groupsJson(const std::vector<GroupSummary> &groups)
{
    json out = json::array();
    for (const GroupSummary &g : groups) {
        json item = summaryJson(g.summary);
        item["name"] = g.name;
        out.push_back(item);
    }
    return out;
}

} // namespace

ValidationReport validate(const std::vector<MeasurementCase> &cases)
{
    ValidationReport report;
    std::vector<double> errors;
    for (const MeasurementCase &c : cases) {
        report.cases.push_back(validateCase(c));
        errors.push_back(report.cases.back().error);
    }
    report.overall = summarize(errors);
    report.bySplit = groupBy(report.cases,
                             [](const CaseResult &c) { return std::string(splitName(c.measurement.split)); },
                             {"train", "holdout"});
    report.byMethod = groupBy(report.cases, [](const CaseResult &c) { return c.measurement.method; },
                              {"full", "lora", "qlora", "inference"});
    report.bySource = groupBy(report.cases, [](const CaseResult &c) { return c.measurement.source; });
    report.byFramework =
        groupBy(report.cases, [](const CaseResult &c) { return c.measurement.framework; });
    return report;
}

json reportToJson(const ValidationReport &report)
{
    json cases = json::array();
    for (const CaseResult &c : report.cases) {
        cases.push_back({{"id", c.measurement.id},
                         {"method", c.measurement.method},
                         {"reading", readingName(c.measurement.reading)},
                         {"split", splitName(c.measurement.split)},
                         {"source", c.measurement.source},
                         {"framework", c.measurement.framework},
                         {"measured_bytes", c.measurement.measuredBytes},
                         {"estimated_bytes", c.estimatedBytes},
                         {"error", c.error}});
        if (c.measurement.scenario.task == Task::Train)
            cases.back()["optimizer"] = enumName(c.measurement.scenario.train.optimizer);
        json features = json::array();
        for (const char *feature : architectureFeatures(c.measurement.scenario.model))
            features.push_back(feature);
        cases.back()["architecture"] = features;
    }
    return {{"format", "headroom-validation"},
            {"version", 1},
            {"cases", cases},
            {"overall", summaryJson(report.overall)},
            {"by_split", groupsJson(report.bySplit)},
            {"by_method", groupsJson(report.byMethod)},
            {"by_source", groupsJson(report.bySource)},
            {"by_framework", groupsJson(report.byFramework)}};
}

} // namespace headroom
