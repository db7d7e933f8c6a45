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

/// toml++ builds a dotted key (`a.b.c = 1`, `[a.b.c]`) as nested tables and frees them
/// recursively: 200,000 parts in a 400 KB file overflow the stack in toml::parse. The parts of
/// each key are counted before it parses: outside strings and comments, the dots between two of
/// `= , { } [ ]` or line breaks (a number or a time has at most one).
void checkKeyParts(std::string_view text, int maxParts)
{
    int dots = 0, line = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '#') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            --i;
            continue;
        }
        if (c == '"' || c == '\'') {
            const bool multi = text.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
            const std::string_view close = multi ? text.substr(i, 3) : text.substr(i, 1);
            std::size_t j = i + close.size();
            for (; j < text.size(); ++j) {
                if (c == '"' && text[j] == '\\') {
                    ++j;
                    continue;
                }
                if (text[j] == '\n') {
                    if (!multi)
                        break; // an unterminated string: toml++ says so
                    ++line;
                }
                if (text.substr(j, close.size()) == close)
                    break;
            }
            // Past the closing quotes; at an unterminated string's line break, that break.
            i = j < text.size() && text[j] == '\n' && !multi ? j - 1 : j + close.size() - 1;
            continue;
        }
        if (c == '.' && ++dots >= maxParts)
            throw InputError("", "line " + std::to_string(line) + ": a key of more than " + std::to_string(maxParts) +
                                     " dotted parts (nested deeper than " + std::to_string(maxParts) + " levels)");
        if (c == '\n' || c == '=' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']') {
            dots = 0;
            line += c == '\n';
        }
    }
}

} // namespace

json parseToml(std::string_view text, int maxDepth)
{
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw InputError("", "is not UTF-8 text (byte " + std::to_string(bad) + ")");
    checkKeyParts(text, maxDepth);
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
