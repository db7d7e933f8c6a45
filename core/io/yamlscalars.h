// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to io/yamltext.cpp: how PyYAML (SafeLoader, YAML 1.1) reads a scalar.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace headroom::yaml {

/// What a plain scalar means to PyYAML.
enum class Kind { Text, Null, Bool, Int, Float, Timestamp, Merge, Value };

/// Why a number could not be built, or empty.
using Problem = std::string;

bool matchesBool(std::string_view s, bool &value);
bool matchesNull(std::string_view s);
bool matchesInt(std::string_view s);
bool matchesFloat(std::string_view s);
bool matchesTimestamp(std::string_view s);
/// The kind PyYAML's implicit resolvers give a plain scalar (`boolean` set for Kind::Bool).
Kind resolvePlain(std::string_view s, bool &boolean);
/// PyYAML's construct_yaml_int: '_' dropped, 0b/0x/0 (octal)/sexagesimal/decimal; a whole
/// number past 64 bits is a problem, not a rounded number.
Problem constructInt(std::string_view text, nlohmann::json &out);
/// PyYAML's construct_yaml_float: '_' dropped, lower case, .inf/.nan, sexagesimal, decimal.
/// Infinite and NaN values are kept as the text ".inf", "-.inf" or ".nan"; a literal past a
/// double (1.0e+999) is a problem.
Problem constructFloat(std::string_view text, nlohmann::json &out);

} // namespace headroom::yaml
