// SPDX-License-Identifier: GPL-3.0-or-later
#include "solve/solvejson.h"

#include "estimate/estimate.h"

#include <nlohmann/json.hpp>

namespace headroom {

using nlohmann::json;

namespace {

json optionalBytes(const std::optional<std::uint64_t> &bytes) { return bytes ? json(*bytes) : json(nullptr); }

} // namespace

json solutionToJson(const Solution &s)
{
    json doc = {{"for", solveForKey(s.what)},
                {"gpu", s.gpuId},
                {"value", s.value},
                {"peak_bytes", optionalBytes(s.peakBytes)},
                {"next_peak_bytes", optionalBytes(s.nextPeakBytes)},
                {"next_value", optionalBytes(s.nextValue)},
                {"limit_bytes", s.limitBytes},
                {"grows", consumerKey(s.grows)},
                {"limit", s.limit}};
    if (s.what == SolveFor::MinGpus)
        doc["strategy"] = s.strategy;
    return doc;
}

json frontierToJson(const Frontier &f)
{
    json curves = json::array();
    for (const FrontierCurve &c : f.curves) {
        json points = json::array();
        for (const FrontierPoint &p : c.points)
            points.push_back({{"tokens", p.tokens}, {"sequences", p.sequences}, {"limit", servingLimitKey(p.limit)}});
        curves.push_back({{"gpu", c.gpuId},
                          {"name", c.gpuName},
                          {"tensor", c.tensor},
                          {"allocation", frontierAllocationKey(c.allocation)},
                          {"points", points}});
    }
    return {{"format", "headroom-frontier"},
            {"version", 1},
            {"curves", curves},
            {"operating_point",
             {{"tokens", f.operatingTokens},
              {"sequences", f.operatingSequences},
              {"max_sequences", f.operatingMaxSequences},
              {"limit", servingLimitKey(f.operatingLimit)}}}};
}

std::string frontierToCsv(const Frontier &f)
{
    std::string out = "gpu,tensor,allocation,tokens,sequences,limit\n";
    for (const FrontierCurve &c : f.curves)
        for (const FrontierPoint &p : c.points)
            out += c.gpuId + ',' + std::to_string(c.tensor) + ',' + frontierAllocationKey(c.allocation) + ',' +
                   std::to_string(p.tokens) + ',' + std::to_string(p.sequences) + ',' + servingLimitKey(p.limit) + '\n';
    return out;
}

} // namespace headroom
