// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/sessionrestore.h"

#include "io/inputpolicy.h"
#include "scenario/scenariojson.h"

#include <nlohmann/json.hpp>

namespace headroom {

namespace {

/// The top-level key of a key path: "serving" of "serving.engine", "pins" of "pins[1].x".
std::string topKey(const std::string &path)
{
    return path.substr(0, path.find_first_of(".["));
}

} // namespace

RestoredScenario restoreScenario(const std::string &text)
{
    RestoredScenario out;
    nlohmann::json doc;
    try {
        doc = parseStrictJson(text);
    } catch (const std::exception &problem) {
        out.resetSections << QString::fromStdString(problem.what());
        return out;
    }
    for (int attempt = 0; attempt <= 16; ++attempt) {
        try {
            out.scenario = parseScenario(doc.dump());
            return out;
        } catch (const ScenarioError &problem) {
            const std::string key = topKey(problem.key);
            // A whole-document problem, or a section that cannot go (format, version): give up.
            if (key.empty() || key == "format" || key == "version" || !doc.is_object() || !doc.contains(key)) {
                out.resetSections << QString::fromStdString(problem.what());
                return out;
            }
            out.resetSections << QString::fromStdString(problem.what());
            doc.erase(key);
        } catch (const std::exception &problem) {
            out.resetSections << QString::fromStdString(problem.what());
            return out;
        }
    }
    return out;
}

} // namespace headroom
