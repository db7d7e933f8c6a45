// SPDX-License-Identifier: GPL-3.0-or-later
#include "measure/servingcase.h"

#include "estimate/verdict.h"
#include "scenario/scenariojson.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#ifndef HEADROOM_VERSION
#define HEADROOM_VERSION "unknown"
#endif

namespace headroom {

namespace {

std::string gib2(double bytes)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.2f", bytes / 1073741824.0);
    return text;
}

} // namespace

nlohmann::json servingCaseDocument(const std::string &id, const std::string &logFileName, const EngineLog &log,
                                   const Scenario &scenario, const Estimate &e,
                                   const std::vector<std::string> &notes, std::string &error)
{
    const LogFigure *kv = log.figure("kv_cache");
    const LogFigure *tokens = log.figure("kv_tokens");
    if (!kv && !tokens) {
        error = "the log prints neither its KV cache memory nor its KV tokens, what a serving case compares";
        return nlohmann::json::object();
    }
    if (!e.serving) {
        error = std::string(logEngineName(log.engine)) + " is not modelled, so there is no estimate to keep beside the log";
        return nlohmann::json::object();
    }
    nlohmann::json printed = nlohmann::json::object(), measured = nlohmann::json::object();
    std::string quote, how = "as the log printed them:";
    for (const LogFigure &f : log.figures)
        if (!printed.contains(f.key)) {
            printed[f.key] = f.text;
            quote += (quote.empty() ? "" : "\n") + f.text;
        }
    std::string firstSeen = "first seen: Headroom " HEADROOM_VERSION;
    if (kv) {
        measured["kv_cache_bytes"] = std::uint64_t(std::llround(std::min(kv->value, 1e18)));
        measured["kv_cache_gib"] = std::round(kv->value / 1073741824.0 * 100) / 100;
        how += " KV memory line " + std::to_string(kv->line);
        firstSeen += " estimated " + gib2(double(e.serving->kvCacheBytes)) + " GiB of KV cache against the log's " +
                     gib2(kv->value) + " GiB";
    }
    if (tokens) {
        measured["kv_tokens"] = std::uint64_t(std::llround(std::min(tokens->value, 1e18)));
        how += std::string(kv ? "," : "") + " KV tokens line " + std::to_string(tokens->line);
        firstSeen += std::string(kv ? ";" : "") + " " + std::to_string(e.serving->kvCacheTokens) + " tokens against " +
                     std::to_string(std::llround(std::min(tokens->value, 1e18)));
    }
    measured["how"] = how;
    const Gpu *gpu = targetGpu(scenario);
    nlohmann::json assumptions = nlohmann::json::array();
    for (const std::string &n : notes)
        assumptions.push_back(n);
    return {{"format", "headroom-serving-log"}, {"version", 1}, {"id", id},
            {"scenario", scenarioToJson(scenario)},
            {"engine_version", log.version.empty() ? std::string("not stated") : log.version},
            {"printed", printed}, {"measured", measured},
            {"hardware", gpu ? gpu->name : std::string("not stated")},
            {"source", {{"repo", "your run"}, {"path", logFileName},
                        {"url", "not published yet: fill in where the log is published before giving it back"}}},
            {"quote", quote}, {"verified", false}, {"verification_note", firstSeen},
            {"assumptions", assumptions}, {"not_modelled", nlohmann::json::array()}, {"confidence", "medium"}};
}

std::optional<double> logMeasuredTotal(const EngineLog &log, std::vector<std::string> &parts)
{
    parts.clear();
    if (const LogFigure *budget = log.figure("budget"); budget && budget->value > 0) {
        parts.push_back("the engine's budget");
        return budget->value;
    }
    if (!log.figure("weights") || !log.figure("kv_cache"))
        return std::nullopt;
    double total = 0;
    for (const char *key : {"weights", "activation_peak", "non_torch", "cuda_graph", "kv_cache"})
        if (const LogFigure *f = log.figure(key); f && f->value > 0) {
            total += f->value;
            parts.push_back(key);
        }
    if (total <= 0)
        return std::nullopt;
    return total;
}

} // namespace headroom
