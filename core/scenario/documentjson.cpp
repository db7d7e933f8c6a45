// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario/documentjson.h"

#include <nlohmann/json.hpp>

namespace headroom {

namespace {

constexpr const char *kComparisonFormat = "headroom-comparison";

/// One scenario of a comparison, its errors named under `prefix` ("current", "pins[2]").
Scenario readPart(const nlohmann::json &part, const std::string &prefix, const Catalog &catalog,
                  const ConfigResolver &resolveConfig)
{
    try {
        return scenarioFromJson(part, catalog, resolveConfig);
    } catch (const ScenarioError &error) {
        throw ScenarioError(error.key.empty() ? prefix : prefix + "." + error.key, error.detail);
    }
}

} // namespace

ScenarioDocument documentFromJson(const nlohmann::json &doc, const Catalog &catalog,
                                  const ConfigResolver &resolveConfig)
{
    if (!doc.is_object())
        throw ScenarioError("", "the file is not a JSON object");
    const auto format = doc.find("format");
    if (format != doc.end() && format->is_string() && *format != kComparisonFormat &&
        *format != "headroom-scenario")
        throw ScenarioError("format", "must be \"headroom-scenario\" or \"" +
                                          std::string(kComparisonFormat) + "\" (got " +
                                          quoteJson(*format) + ")");
    if (format == doc.end() || !format->is_string() || *format != kComparisonFormat)
        return {scenarioFromJson(doc, catalog, resolveConfig), {}};

    for (const auto &item : doc.items())
        if (item.key() != "format" && item.key() != "version" && item.key() != "current" &&
            item.key() != "pins")
            throw ScenarioError(keyForPath(item.key()), "unknown key in a comparison (known: format, version, "
                                            "current, pins)");
    const auto version = doc.find("version");
    if (version == doc.end())
        throw ScenarioError("version", "missing (this reader knows version 1)");
    if (!version->is_number_integer() || *version != 1)
        throw ScenarioError("version", "unsupported comparison version " + quoteJson(*version) +
                                           " (this reader knows version 1)");
    const auto current = doc.find("current");
    if (current == doc.end())
        throw ScenarioError("current", "missing: a comparison needs its current scenario");
    ScenarioDocument document;
    document.current = readPart(*current, "current", catalog, resolveConfig);
    if (const auto pins = doc.find("pins"); pins != doc.end()) {
        if (!pins->is_array())
            throw ScenarioError("pins", "must be a list of scenarios");
        if (pins->size() > limits::kPins)
            throw ScenarioError("pins", "at most " + std::to_string(limits::kPins) +
                                            " pinned scenarios (the file has " +
                                            std::to_string(pins->size()) + ")");
        for (std::size_t i = 0; i < pins->size(); ++i)
            document.pins.push_back(
                readPart(pins->at(i), "pins[" + std::to_string(i) + "]", catalog, resolveConfig));
    }
    return document;
}

ScenarioDocument parseDocument(std::string_view text, const Catalog &catalog,
                               const ConfigResolver &resolveConfig)
{
    return documentFromJson(parseJsonText(text), catalog, resolveConfig);
}

nlohmann::json documentToJson(const ScenarioDocument &document)
{
    if (document.pins.empty())
        return scenarioToJson(document.current);
    nlohmann::json pins = nlohmann::json::array();
    for (const Scenario &pin : document.pins)
        pins.push_back(scenarioToJson(pin));
    return {{"format", kComparisonFormat},
            {"version", 1},
            {"current", scenarioToJson(document.current)},
            {"pins", std::move(pins)}};
}

} // namespace headroom
