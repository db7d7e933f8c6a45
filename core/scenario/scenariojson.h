// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "io/inputpolicy.h"
#include "scenario/scenario.h"

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace headroom {

/// A scenario that cannot be read: names the key (dotted path) and what is allowed.
class ScenarioError : public InputError
{
public:
    using InputError::InputError;
};

/// Supplies the parsed config.json that `model.config` names (the core does no file I/O: the
/// app reads the path, relative to the scenario file). Throws ScenarioError when it cannot.
using ConfigResolver = std::function<nlohmann::json(const std::string &path)>;

/// Parses a v1 scenario document; every absent key takes its documented default.
/// Throws ScenarioError on malformed JSON, unknown keys, wrong types or out-of-range values.
/// Without a resolver, `model.config` is accepted only next to a complete architecture (as
/// scenarioToJson writes it).
Scenario parseScenario(std::string_view text, const Catalog &catalog = builtinCatalog(),
                       const ConfigResolver &resolveConfig = {});
/// Same, from an already parsed JSON value.
Scenario scenarioFromJson(const nlohmann::json &doc, const Catalog &catalog = builtinCatalog(),
                          const ConfigResolver &resolveConfig = {});
/// The v1 document for a scenario, every field written out (parses back to an equal Scenario).
nlohmann::json scenarioToJson(const Scenario &scenario);

/// Applies `--set key.path=value` to a scenario document before it is parsed.
/// The value is read as JSON when it parses as JSON, else as a string;
/// "a,b" becomes a list of strings. Throws ScenarioError on an empty or malformed path, and on
/// a JSON value that breaks the input policy (too deep, a key given twice).
void applyOverride(nlohmann::json &doc, std::string_view assignment);

/// Reads a JSON text into a value under the input policy (size, depth, unique keys), throwing
/// ScenarioError with the parser's position or the offending key path.
nlohmann::json parseJsonText(std::string_view text);

} // namespace headroom
