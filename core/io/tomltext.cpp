// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/tomltext.h"

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <cmath>
#include <new>
#include <sstream>

namespace headroom {

namespace {

using nlohmann::json;

json convert(const toml::node &node, int depth, int maxDepth, const std::string &path)
{
    if (depth > maxDepth)
        throw InputError(path, "nests deeper than " + std::to_string(maxDepth) + " levels");
    if (const toml::table *table = node.as_table()) {
        json out = json::object();
        for (const auto &[key, value] : *table) {
            const std::string name(key.str());
            const std::string shown = keyForPath(name);
            out[name] = convert(value, depth + 1, maxDepth, path.empty() ? shown : path + "." + shown);
        }
        return out;
    }
    if (const toml::array *array = node.as_array()) {
        json out = json::array();
        std::size_t index = 0;
        for (const toml::node &item : *array)
            out.push_back(convert(item, depth + 1, maxDepth, path + "[" + std::to_string(index++) + "]"));
        return out;
    }
    if (const auto *value = node.as_integer())
        return value->get();
    if (const auto *value = node.as_floating_point()) {
        const double v = value->get();
        if (std::isnan(v))
            return "nan";
        if (std::isinf(v))
            return v > 0 ? "inf" : "-inf";
        return v;
    }
    if (const auto *value = node.as_boolean())
        return value->get();
    if (const auto *value = node.as_string())
        return value->get();
    // Dates and times: their TOML text.
    std::ostringstream text;
    if (const auto *value = node.as_date())
        text << *value;
    else if (const auto *value = node.as_time())
        text << *value;
    else if (const auto *value = node.as_date_time())
        text << *value;
    return text.str();
}

} // namespace

json parseToml(std::string_view text, int maxDepth)
{
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw InputError("", "is not UTF-8 text (byte " + std::to_string(bad) + ")");
    try {
        const toml::table table = toml::parse(text);
        return convert(table, 0, maxDepth, "");
    } catch (const toml::parse_error &error) {
        throw InputError("", "is not TOML: " + std::string(error.description().substr(0, 120)) + " (line " +
                                 std::to_string(error.source().begin.line) + ")");
    } catch (const std::bad_alloc &) {
        throw InputError("", "not enough memory to read this file");
    }
}

} // namespace headroom
