// SPDX-License-Identifier: GPL-3.0-or-later
// YAML as the frameworks read it: PyYAML's safe_load (YAML 1.1 scalars, merge keys), under the
// input policy (a budget of values built with aliases expanded, the nesting limit, one document,
// each key once). The training-config readers and any later YAML reader go through here.
#pragma once

#include "io/inputpolicy.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace headroom {

namespace limits {
/// Values (scalars, lists, mappings, keys included) one YAML document may build, every alias
/// expanded where it is used: real training configs build a few hundred.
inline constexpr std::size_t kYamlValues = 200'000;
/// Bytes of text (keys and scalars) one YAML document may build, aliases expanded.
inline constexpr std::uint64_t kYamlTextBytes = 16 * 1024 * 1024;
} // namespace limits

/// Limits of one YAML read.
struct YamlLimits
{
    std::size_t maxValues = limits::kYamlValues;
    std::uint64_t maxTextBytes = limits::kYamlTextBytes;
    int maxDepth = limits::kJsonDepth;
};

/// Reads YAML text as PyYAML's `yaml.safe_load` does, into JSON:
/// - plain scalars by YAML 1.1's rules (`010` is 8, `0x1F` 31, `1:30` 90, `yes`/`no`/`on`/`off`
///   booleans, `1.5e+3` a number but `1e5` text, `~`/`null`/empty null, dates kept as text);
///   quoted and block scalars stay text; `.inf` and `.nan` become the text ".inf"/".nan" (JSON
///   has no such numbers, and a reader wanting a number refuses them);
/// - merge keys (`<<: *base`, `<<: [*a, *b]`) expanded in PyYAML's order (the mapping's own keys
///   win, then the earlier of the merged mappings);
/// - keys that PyYAML reads as numbers or booleans are named as Python prints them (`010` is
///   "8", `yes` is "True").
/// Refused, with the key path and line (InputError): a key given twice in one mapping, a second
/// document, a tag safe_load does not construct, `=` as a value, an integer past 64 bits or a
/// number past a double ("too large"), nesting deeper than the limit, more values or text than
/// the budget (aliases expanded: "billion laughs"), text whose escapes are not UTF-8, and a
/// syntax error. Never throws anything else (not enough memory is an InputError too).
nlohmann::json parseYaml(std::string_view text, const YamlLimits &limits = {});

} // namespace headroom
