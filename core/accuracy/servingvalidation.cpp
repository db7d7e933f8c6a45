// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracy/servingvalidation.h"

#include "accuracy/casedocument.h"
#include "estimate/estimate.h"
#include "io/inputpolicy.h"
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
    // Issue 29's hostile pass: 2^64 - 1 was compared as "17,179,869,184 GiB printed" and went
    // into the medians; no engine prints a KV cache or a token count past 2^53.
    if (it->get<std::uint64_t>() > (std::uint64_t(1) << 53))
        throw ValidationError(file, std::string("measured.") + key, "must be at most 2^53 (got " + quoteJson(*it) + ")");
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

/// A printed figure in GiB (or x): a finite number, at least `lowest`.
std::optional<double> number(const json &measured, const char *key, double lowest, const std::string &file)
{
    const auto it = measured.find(key);
    if (it == measured.end())
        return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < lowest ||
        it->get<double>() > 1e6)
        throw ValidationError(file, std::string("measured.") + key,
                              lowest < 0 ? "must be a number of GiB" : "must be a non-negative number");
    return it->get<double>();
}

constexpr double kGiB = 1073741824.0;

FigureError compare(const char *key, double printed, double estimated, bool memory)
{
    FigureError e;
    e.key = key;
    e.printed = printed;
    e.estimated = estimated;
    if (printed > 0)
        e.relative = (estimated - printed) / printed;
    if (memory)
        e.gib = estimated - printed;
    return e;
}

/// Every figure the log printed against the estimate, in kServingFigureKeys order.
std::vector<FigureError> compareFigures(const ServingCase &c, const ServingFigures &f)
{
    std::vector<FigureError> out;
    if (c.kvCacheBytes)
        out.push_back(compare("kv_cache", double(*c.kvCacheBytes) / kGiB, double(f.kvCacheBytes) / kGiB, true));
    if (c.kvTokens)
        out.push_back(compare("kv_tokens", double(*c.kvTokens), double(f.kvCacheTokens), false));
    const std::pair<const char *, std::pair<const std::optional<double> *, std::uint64_t>> memory[] = {
        {"weights", {&c.weightsGiB, f.weightsBytes}},
        {"activation", {&c.activationGiB, f.activationBytes}},
        {"non_torch", {&c.nonTorchGiB, f.nonTorchBytes}},
        {"cuda_graph", {&c.cudaGraphGiB, f.cudaGraphBytes}}};
    for (const auto &[key, figure] : memory)
        if (*figure.first)
            out.push_back(compare(key, **figure.first, double(figure.second) / kGiB, true));
    if (c.maxConcurrency)
        out.push_back(compare("max_concurrency", *c.maxConcurrency, f.maxConcurrency, false));
    return out;
}

json figureErrorJson(const FigureError &e)
{
    return {{"figure", e.key},
            {"printed", e.printed},
            {"estimated", e.estimated},
            {"relative_error", e.relative ? json(*e.relative) : json(nullptr)},
            {"gib_error", e.gib ? json(*e.gib) : json(nullptr)}};
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
    const json &measured = doc["measured"];
    // The bytes and the GiB the case quotes are one figure: they must agree (to the GiB's 2 decimals).
    if (const auto gib = measured.find("kv_cache_gib"); c.kvCacheBytes && gib != measured.end() && gib->is_number() &&
                                                        std::abs(double(*c.kvCacheBytes) / 1073741824.0 - gib->get<double>()) > 0.006)
        throw ValidationError(fileName, "measured.kv_cache_bytes",
                              std::to_string(*c.kvCacheBytes) + " bytes is not the case's kv_cache_gib " + quoteJson(*gib));
    static const char *const kMeasuredKeys[] = {"kv_cache_bytes", "kv_cache_gib",   "kv_tokens",       "how",
                                                "weights_gib",    "activation_gib", "non_torch_gib",   "cuda_graph_gib",
                                                "max_concurrency", "started",       "refusal"};
    for (auto it = measured.begin(); it != measured.end(); ++it)
        if (std::find_if(std::begin(kMeasuredKeys), std::end(kMeasuredKeys),
                         [&](const char *k) { return it.key() == k; }) == std::end(kMeasuredKeys))
            throw ValidationError(fileName, "measured." + it.key().substr(0, 40), "is not a known measured figure");
    c.weightsGiB = number(measured, "weights_gib", 0, fileName);
    c.activationGiB = number(measured, "activation_gib", 0, fileName);
    c.nonTorchGiB = number(measured, "non_torch_gib", 0, fileName);
    c.cudaGraphGiB = number(measured, "cuda_graph_gib", -1e6, fileName); // vLLM has printed -0.45 GiB
    c.maxConcurrency = number(measured, "max_concurrency", 0, fileName);
    if (measured.contains("started")) {
        if (!measured["started"].is_boolean())
            throw ValidationError(fileName, "measured.started", "must be true or false");
        c.started = measured["started"].get<bool>();
    }
    if (measured.contains("refusal")) {
        if (!measured["refusal"].is_string() || c.started.value_or(true))
            throw ValidationError(fileName, "measured.refusal",
                                  "must be the engine's message (a string), with started false");
        c.refusal = measured["refusal"].get<std::string>();
    }
    if (!c.kvCacheBytes && !c.kvTokens && c.started.value_or(true))
        throw ValidationError(fileName, "measured", "needs kv_cache_bytes or kv_tokens (or started false)");
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
    if (cfg.engine != Engine::Vllm) {
        // SGLang and the others by release family where the case states one.
        if (const std::optional<EngineVersion> v = parseEngineVersion(cfg.version))
            name += " " + std::to_string(v->major) + "." + std::to_string(v->minor);
        return name;
    }
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
    std::map<std::string, std::vector<double>> relErrors, gibErrors;
    std::vector<std::string> order;
    for (const ServingCase &c : cases) {
        ServingCaseResult r;
        r.log = c;
        const Estimate e = estimate(c.scenario, Detail::BytesOnly);
        if (e.serving)
            r.figures = *e.serving;
        r.bytesError = relative(r.figures.kvCacheBytes, c.kvCacheBytes);
        r.tokensError = relative(r.figures.kvCacheTokens, c.kvTokens);
        r.errors = compareFigures(c, r.figures);
        if (c.started) {
            r.refusalPredicted = e.serving && r.figures.startsOk == *c.started;
            ++report.startCases;
            report.startPredicted += *r.refusalPredicted ? 1 : 0;
        }
        for (const FigureError &fe : r.errors) {
            if (fe.relative)
                relErrors[fe.key].push_back(*fe.relative);
            if (fe.gib)
                gibErrors[fe.key].push_back(*fe.gib);
        }
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
    for (const char *key : kServingFigureKeys) {
        FigureSummary fs;
        fs.key = key;
        fs.relative = summarize(relErrors[key]);
        const ErrorSummary gib = summarize(gibErrors[key]);
        fs.gibCount = gib.count;
        fs.medianAbsGiB = gib.medianAbs;
        fs.p90AbsGiB = gib.p90Abs;
        report.figures.push_back(fs);
    }
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
        json figures = json::array();
        for (const FigureError &e : r.errors)
            figures.push_back(figureErrorJson(e));
        item["figures"] = figures;
        item["estimated_starts"] = r.figures.startsOk;
        item["printed_started"] = r.log.started ? json(*r.log.started) : json(nullptr);
        cases.push_back(item);
    }
    json groups = json::array();
    for (const ServingGroup &g : report.groups)
        groups.push_back({{"name", g.name}, {"kv_cache_bytes", summaryJson(g.bytes)}, {"kv_tokens", summaryJson(g.tokens)}});
    json figures = json::array();
    for (const FigureSummary &f : report.figures) {
        json item = {{"figure", f.key}, {"relative", summaryJson(f.relative)}};
        if (f.gibCount)
            item["gib"] = {{"count", f.gibCount}, {"median_abs", f.medianAbsGiB}, {"p90_abs", f.p90AbsGiB}};
        figures.push_back(item);
    }
    return {{"format", "headroom-serving-validation"},
            {"figures", figures},
            {"starts", {{"cases", report.startCases}, {"predicted", report.startPredicted}}},
            {"version", 1},
            {"cases", cases},
            {"kv_cache_bytes", summaryJson(report.bytes)},
            {"kv_tokens", summaryJson(report.tokens)},
            {"groups", groups}};
}

} // namespace headroom
