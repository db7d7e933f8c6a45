// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracy/firstseen.h"

#include "io/inputpolicy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace headroom {

using nlohmann::json;

namespace {

/// Lines of one ledger (the repository's has a few hundred; one per measured case).
constexpr std::size_t kMaxLedgerLines = 100000;

bool isHex40(const std::string &s)
{
    return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

bool isDate(const std::string &s)
{
    if (s.size() != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u})
        if (s[i] < '0' || s[i] > '9')
            return false;
    const int month = (s[5] - '0') * 10 + (s[6] - '0');
    const int day = (s[8] - '0') * 10 + (s[9] - '0');
    return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

int roundedUpPercent(double fraction) { return static_cast<int>(std::ceil(fraction * 100 - 1e-9)); }

} // namespace

std::vector<FirstSeen> parseFirstSeenLedger(std::string_view text, const std::string &fileName)
{
    if (text.size() > limits::kDocumentBytes)
        throw ValidationError(fileName, "", "more than " + std::to_string(limits::kDocumentBytes) + " bytes");
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw ValidationError(fileName, "", "not UTF-8 at byte " + std::to_string(bad));
    std::vector<FirstSeen> out;
    std::set<std::string> seen;
    std::size_t lineNumber = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++lineNumber;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;
        if (out.size() >= kMaxLedgerLines)
            throw ValidationError(fileName, "", "more than " + std::to_string(kMaxLedgerLines) + " lines");
        const std::string where = "line " + std::to_string(lineNumber);
        json doc;
        try {
            doc = parseStrictJson(line);
        } catch (const InputError &error) {
            throw ValidationError(fileName, where, error.detail);
        }
        if (!doc.is_object())
            throw ValidationError(fileName, where, "must be a JSON object");
        static const std::set<std::string> kKeys = {"id",     "error", "estimated_bytes", "measured_bytes",
                                                    "commit", "date",  "blind",           "note"};
        for (const auto &[key, value] : doc.items())
            if (!kKeys.count(key))
                throw ValidationError(fileName, where + "." + keyForPath(key), "unknown key");
        const auto required = [&](const char *key) -> const json & {
            if (!doc.contains(key))
                throw ValidationError(fileName, where + "." + key, "missing");
            return doc.at(key);
        };
        const auto string = [&](const char *key) {
            const json &v = required(key);
            if (!v.is_string())
                throw ValidationError(fileName, where + "." + key, "must be a string (got " + quoteJson(v) + ")");
            return v.get<std::string>();
        };
        const auto bytes = [&](const char *key) {
            const json &v = required(key);
            if (!v.is_number_unsigned())
                throw ValidationError(fileName, where + "." + key,
                                      "must be a whole number of bytes (got " + quoteJson(v) + ")");
            return v.get<std::uint64_t>();
        };
        FirstSeen f;
        f.id = string("id");
        if (f.id.empty() || f.id.size() > 200)
            throw ValidationError(fileName, where + ".id", "must be a case id (1 to 200 characters)");
        const json &error = required("error");
        if (!error.is_number() || !std::isfinite(error.get<double>()) || error.get<double>() < -1 ||
            error.get<double>() > 100)
            throw ValidationError(fileName, where + ".error",
                                  "must be a signed fraction from -1 to 100 (got " + quoteJson(error) + ")");
        f.error = error.get<double>();
        f.estimatedBytes = bytes("estimated_bytes");
        f.measuredBytes = bytes("measured_bytes");
        if (f.measuredBytes == 0)
            throw ValidationError(fileName, where + ".measured_bytes", "must be more than 0");
        f.commit = string("commit");
        if (!isHex40(f.commit))
            throw ValidationError(fileName, where + ".commit",
                                  "must be 40 lower-case hex digits (got " + quotedText(f.commit) + ")");
        f.date = string("date");
        if (!isDate(f.date))
            throw ValidationError(fileName, where + ".date", "must be YYYY-MM-DD (got " + quotedText(f.date) + ")");
        const json &blind = required("blind");
        if (!blind.is_boolean())
            throw ValidationError(fileName, where + ".blind", "must be true or false (got " + quoteJson(blind) + ")");
        f.blind = blind.get<bool>();
        if (doc.contains("note") && !doc.at("note").is_string())
            throw ValidationError(fileName, where + ".note", "must be a string");
        if (!seen.insert(f.id).second)
            throw ValidationError(fileName, where + ".id", "case " + quotedText(f.id) + " is in the ledger twice");
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<BandRow> computeFirstSeenBands(const std::vector<MeasurementCase> &cases,
                                           const std::vector<FirstSeen> &ledger)
{
    std::map<std::string, const FirstSeen *> byId;
    for (const FirstSeen &f : ledger)
        byId[f.id] = &f;
    // key: (level, method index, reading index, framework)
    std::map<std::tuple<int, int, int, std::string>, std::vector<double>> groups;
    static const std::vector<std::string> kMethods = {"full", "lora", "qlora", "inference", "post-training"};
    for (const MeasurementCase &c : cases) {
        const auto it = byId.find(c.id);
        if (it == byId.end() || !it->second->blind)
            continue;
        const int method = int(std::find(kMethods.begin(), kMethods.end(), c.method) - kMethods.begin());
        const int reading = int(c.reading);
        const double error = it->second->error;
        groups[{0, method, reading, c.framework}].push_back(error);
        groups[{1, method, reading, ""}].push_back(error);
        groups[{2, method, 3, ""}].push_back(error);
    }
    std::vector<BandRow> rows;
    for (const auto &[key, errors] : groups) {
        std::vector<double> abs;
        int low = 0;
        for (const double e : errors) {
            abs.push_back(std::fabs(e));
            low += e < -0.10;
        }
        BandRow row;
        row.framework = std::get<3>(key);
        row.method = std::size_t(std::get<1>(key)) < kMethods.size() ? kMethods[std::size_t(std::get<1>(key))] : "?";
        row.reading = std::get<2>(key) < 3 ? readingName(Reading(std::get<2>(key))) : "";
        row.percent = roundedUpPercent(percentile(abs, 0.8));
        row.cases = int(errors.size());
        row.unsafePercent = int(std::lround(100.0 * low / double(errors.size())));
        rows.push_back(row);
    }
    return rows;
}

std::vector<FirstSeenSummary> summarizeFirstSeen(const ValidationReport &report, const std::vector<FirstSeen> &ledger)
{
    std::map<std::string, const FirstSeen *> byId;
    for (const FirstSeen &f : ledger)
        byId[f.id] = &f;
    struct Acc
    {
        std::vector<double> first, current;
    };
    std::vector<std::pair<std::string, Acc>> groups;
    const auto add = [&](const std::string &name, double first, double current) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto &g) { return g.first == name; });
        if (it == groups.end()) {
            groups.emplace_back(name, Acc{});
            it = groups.end() - 1;
        }
        it->second.first.push_back(first);
        it->second.current.push_back(current);
    };
    // Fixed order of the leading groups, then the rest as met (cases come sorted by id).
    for (const char *name : {"blind: all", "blind: full", "blind: lora", "blind: qlora", "blind: inference", "blind: post-training"})
        groups.emplace_back(name, Acc{});
    for (const CaseResult &c : report.cases) {
        const auto it = byId.find(c.measurement.id);
        if (it == byId.end())
            continue;
        const FirstSeen &f = *it->second;
        if (!f.blind) {
            add("not blind: all", f.error, c.error);
            continue;
        }
        add("blind: all", f.error, c.error);
        add("blind: " + c.measurement.method, f.error, c.error);
        add("blind: " + c.measurement.framework + " x " + c.measurement.method + " x " +
                readingName(c.measurement.reading),
            f.error, c.error);
    }
    std::vector<FirstSeenSummary> out;
    for (const auto &[name, acc] : groups) {
        if (acc.first.empty())
            continue;
        FirstSeenSummary s;
        s.name = name;
        s.summary = summarize(acc.first);
        s.unsafe = double(std::count_if(acc.first.begin(), acc.first.end(), [](double e) { return e < -0.10; })) /
                   double(acc.first.size());
        s.currentMedian = summarize(acc.current).medianAbs;
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace headroom

namespace headroom {

nlohmann::json firstSeenJson(const ValidationReport &report, const std::vector<FirstSeen> &ledger)
{
    using nlohmann::json;
    std::map<std::string, const FirstSeen *> byId;
    for (const FirstSeen &f : ledger)
        byId[f.id] = &f;
    json cases = json::object();
    std::vector<MeasurementCase> measured;
    for (const CaseResult &c : report.cases) {
        measured.push_back(c.measurement);
        const auto it = byId.find(c.measurement.id);
        cases[c.measurement.id] = it == byId.end()
                                      ? json(nullptr)
                                      : json{{"error", it->second->error},
                                             {"blind", it->second->blind},
                                             {"commit", it->second->commit},
                                             {"date", it->second->date}};
    }
    json summaries = json::array();
    for (const FirstSeenSummary &s : summarizeFirstSeen(report, ledger))
        summaries.push_back({{"group", s.name},
                             {"count", s.summary.count},
                             {"median_abs_error", s.summary.medianAbs},
                             {"p90_abs_error", s.summary.p90Abs},
                             {"max_abs_error", s.summary.maxAbs},
                             {"unsafe", s.unsafe},
                             {"current_median_abs_error", s.currentMedian}});
    json bands = json::array();
    for (const BandRow &b : computeFirstSeenBands(measured, ledger))
        bands.push_back({{"framework", b.framework},
                         {"method", b.method},
                         {"reading", b.reading},
                         {"percent", b.percent},
                         {"cases", b.cases},
                         {"unsafe_percent", b.unsafePercent}});
    return {{"cases", cases}, {"summaries", summaries}, {"bands", bands}};
}

} // namespace headroom
