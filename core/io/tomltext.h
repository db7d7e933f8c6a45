// SPDX-License-Identifier: GPL-3.0-or-later
// TOML as Python's tomllib reads it (torchtitan's job configs), through tomlplusplus, under the
// input policy: the nesting limit, UTF-8, each key once (TOML itself refuses a key given twice).
#pragma once

#include "io/inputpolicy.h"

#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace headroom {

/// Reads TOML text into JSON: tables become objects, arrays arrays, integers and floats numbers,
/// booleans booleans; dates and times become their TOML text; `inf` and `nan` become the text
/// "inf"/"nan" (JSON has no such numbers: a reader wanting a number refuses them). Refused with
/// the line (InputError): a syntax error (a key given twice included), nesting deeper than
/// `maxDepth`, text that is not UTF-8. Never throws anything else.
nlohmann::json parseToml(std::string_view text, int maxDepth = limits::kJsonDepth);

} // namespace headroom
