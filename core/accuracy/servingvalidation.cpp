// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracy/servingvalidation.h"

#include "accuracy/casedocument.h"
#include "estimate/estimate.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace headroom {

using nlohmann::json;

namespace {

std::optional<std::uint64_t> positive(const json &measured, const char *key, const std::string &file)
{
    const auto it = measured.find(key);
    if (it == measured.end())
        return std::nullopt;
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0)
        throw ValidationError(file, std::string("measured.") + key, "must be a positive whole number");
    return it->get<std::uint64_t>();
}

json summaryJson(const ErrorSummary &s)
{
    return {{"count", s.count},       {"median_abs_error", s.medianAbs}, {"p90_abs_error", s.p90Abs},
            {"max_abs_error", s.maxAbs}, {"within_10", s.within10},     {"within_20", s.within20}};
}

std::optional<double> relative(std::uint64_t estimated, const std::optional<std::uint64_t> &printed)
{
    if (!printed)
        return std::nullopt;
    return (double(estimated) - double(*printed)) / double(*printed);
}

} // namespace

ServingCase parseServingCase(std::string_view text, const std::string &fileName)
{
    CaseDocument document = readCaseDocument(
        text, fileName, "headroom-serving-log",
        {"format", "version", "id", "scenario", "engine_version", "printed", "measured", "hardware", "source", "quote",
         "verified", "verification_note", "assumptions", "not_modelled", "confidence", "research_id"});
    json &doc = document.doc;
    const CaseReader r(doc, fileName);
    ServingCase c;
    c.id = document.id;
    c.scenario = document.scenario;
    if (!c.scenario.serving)
        throw ValidationError(fileName, "scenario.serving", "is required (the engine that printed the log)");
    if (!doc.contains("measured") || !doc["measured"].is_object())
        throw ValidationError(fileName, "measured", "is required (an object)");
    c.kvCacheBytes = positive(doc["measured"], "kv_cache_bytes", fileName);
    c.kvTokens = positive(doc["measured"], "kv_tokens", fileName);
    if (!c.kvCacheBytes && !c.kvTokens)
        throw ValidationError(fileName, "measured", "needs kv_cache_bytes or kv_tokens");
    c.engineVersion = r.string("engine_version");
    c.confidence = r.string("confidence");
    if (c.confidence != "high" && c.confidence != "medium" && c.confidence != "low")
        throw ValidationError(fileName, "confidence", "must be high, medium or low");
    if (!doc.contains("verified") || !doc["verified"].is_boolean())
        throw ValidationError(fileName, "verified", "is required (true or false)");
    c.verified = doc["verified"].get<bool>();
    if (!doc.contains("source") || !doc["source"].is_object() || !doc["source"].contains("url") ||
        !doc["source"]["url"].is_string())
        throw ValidationError(fileName, "source.url", "is required (where the log was published)");
    c.url = doc["source"]["url"].get<std::string>();
    return c;
}

std::string servingGroupName(const Scenario &s)
{
    if (!s.serving)
        return "none";
    const ServingConfig &cfg = *s.serving;
    std::string name = enumName(cfg.engine);
    if (cfg.engine != Engine::Vllm)
        return name;
    const EngineVersion v = cfg.version.empty() ? kCurrentVllm : parseEngineVersion(cfg.version).value_or(kCurrentVllm);
    const bool v1 = cfg.v1Engine.value_or(v >= EngineVersion{0, 8, 0});
    name += " " + std::to_string(v.major) + "." + std::to_string(v.minor);
    if (cfg.version.empty())
        name += " (version not stated)";
    else if (!v1)
        name += " (V0)";
    return name;
}

ServingReport validateServing(const std::vector<ServingCase> &cases)
{
    ServingReport report;
    std::vector<double> bytes, tokens;
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
    std::vector<std::string> order;
    for (const ServingCase &c : cases) {
        ServingCaseResult r;
        r.log = c;
        const Estimate e = estimate(c.scenario, Detail::BytesOnly);
        if (e.serving)
            r.figures = *e.serving;
        r.bytesError = relative(r.figures.kvCacheBytes, c.kvCacheBytes);
        r.tokensError = relative(r.figures.kvCacheTokens, c.kvTokens);
        const std::string group = servingGroupName(c.scenario);
        if (!groups.count(group))
            order.push_back(group);
        if (r.bytesError) {
            bytes.push_back(*r.bytesError);
            groups[group].first.push_back(*r.bytesError);
        }
        if (r.tokensError) {
            tokens.push_back(*r.tokensError);
            groups[group].second.push_back(*r.tokensError);
        }
        report.cases.push_back(std::move(r));
    }
    report.bytes = summarize(bytes);
    report.tokens = summarize(tokens);
    std::sort(order.begin(), order.end());
    for (const std::string &name : order)
        report.groups.push_back({name, summarize(groups[name].first), summarize(groups[name].second)});
    return report;
}

json servingReportToJson(const ServingReport &report)
{
    json cases = json::array();
    for (const ServingCaseResult &r : report.cases) {
        json item = {{"id", r.log.id},
                     {"group", servingGroupName(r.log.scenario)},
                     {"engine_version", r.log.engineVersion},
                     {"confidence", r.log.confidence},
                     {"verified", r.log.verified},
                     {"source", r.log.url},
                     {"estimated_kv_cache_bytes", r.figures.kvCacheBytes},
                     {"estimated_kv_tokens", r.figures.kvCacheTokens}};
        item["printed_kv_cache_bytes"] = r.log.kvCacheBytes ? json(*r.log.kvCacheBytes) : json(nullptr);
        item["printed_kv_tokens"] = r.log.kvTokens ? json(*r.log.kvTokens) : json(nullptr);
        item["kv_cache_bytes_error"] = r.bytesError ? json(*r.bytesError) : json(nullptr);
        item["kv_tokens_error"] = r.tokensError ? json(*r.tokensError) : json(nullptr);
        cases.push_back(item);
    }
    json groups = json::array();
    for (const ServingGroup &g : report.groups)
        groups.push_back({{"name", g.name}, {"kv_cache_bytes", summaryJson(g.bytes)}, {"kv_tokens", summaryJson(g.tokens)}});
    return {{"format", "headroom-serving-validation"},
            {"version", 1},
            {"cases", cases},
            {"kv_cache_bytes", summaryJson(report.bytes)},
            {"kv_tokens", summaryJson(report.tokens)},
            {"groups", groups}};
}

} // namespace headroom
