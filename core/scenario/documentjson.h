// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenariojson.h"

#include <nlohmann/json_fwd.hpp>
#include <string_view>
#include <vector>

namespace headroom {

/// What a file holds: a scenario, or a comparison (the current scenario and the pinned ones).
struct ScenarioDocument
{
    Scenario current;
    std::vector<Scenario> pins; ///< empty for a plain scenario file

    bool operator==(const ScenarioDocument &) const = default;
};

/// Parses a scenario ("headroom-scenario") or comparison ("headroom-comparison") document.
/// Throws ScenarioError; keys inside a comparison are prefixed ("pins[1].train.seq_len").
ScenarioDocument documentFromJson(const nlohmann::json &doc, const Catalog &catalog = builtinCatalog(),
                                  const ConfigResolver &resolveConfig = {});
/// Same, from JSON text.
ScenarioDocument parseDocument(std::string_view text, const Catalog &catalog = builtinCatalog(),
                               const ConfigResolver &resolveConfig = {});
/// A scenario document when there are no pins, else a version 1 comparison document.
nlohmann::json documentToJson(const ScenarioDocument &document);

} // namespace headroom
