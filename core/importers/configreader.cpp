// SPDX-License-Identifier: GPL-3.0-or-later
#include "importers/configreader.h"

#include "scenario/units.h"

#include <charconv>
#include <cmath>
#include <algorithm>
#include <regex>

namespace headroom::importers {

namespace {

/// A value for a message: at most 40 characters of it, never the whole (4 MB) value; a text
/// that is a number to other YAML readers (2e-5, 1e999) says why it is text here.
std::string describe(const json &value)
{
    std::string text = quoteJson(value);
    if (value.is_string()) {
        const std::string &s = value.get_ref<const std::string &>();
        double number = 0;
        const char *begin = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
        const auto parsed = std::from_chars(begin, s.data() + s.size(), number);
        const bool numeric = !s.empty() && s.find_first_of("eE") != std::string::npos &&
                             s.find_first_not_of("0123456789.eE+-") == std::string::npos &&
                             parsed.ptr == s.data() + s.size();
        if (numeric)
            text += ", text to PyYAML: write a number with a decimal point and a signed exponent, "
                    "such as 1.0e+3";
    }
    return text;
}

} // namespace

const json *ConfigReader::lookup(std::string_view path) const
{
    const json *node = &m_root;
    std::size_t start = 0;
    while (true) {
        const std::size_t dot = path.find('.', start);
        const std::string part(path.substr(start, dot == std::string_view::npos ? path.npos : dot - start));
        if (!node->is_object())
            return nullptr;
        const auto it = node->find(part);
        if (it == node->end())
            return nullptr;
        node = &*it;
        if (dot == std::string_view::npos)
            return node->is_null() ? nullptr : node;
        start = dot + 1;
    }
}

const json *ConfigReader::find(std::string_view path)
{
    m_read.insert(std::string(path));
    return lookup(path);
}

std::optional<bool> ConfigReader::flag(std::string_view path)
{
    const json *value = find(path);
    if (!value)
        return std::nullopt;
    if (value->is_boolean())
        return value->get<bool>();
    if (value->is_string()) {
        const std::string text = value->get<std::string>();
        if (text == "true" || text == "True")
            return true;
        if (text == "false" || text == "False")
            return false;
    }
    fail(path, "must be true or false (got " + describe(*value) + ")");
}

std::optional<std::int64_t> ConfigReader::count(std::string_view path, std::int64_t low, std::int64_t high)
{
    const json *value = find(path);
    if (!value)
        return std::nullopt;
    if (value->is_number_integer() || value->is_number_unsigned()) {
        if (value->is_number_unsigned() && value->get<std::uint64_t>() > std::uint64_t(high))
            fail(path, "must be a whole number from " + std::to_string(low) + " to " + std::to_string(high) +
                           " (got " + describe(*value) + ")");
        const std::int64_t v = value->get<std::int64_t>();
        if (v >= low && v <= high)
            return v;
    }
    fail(path, "must be a whole number from " + std::to_string(low) + " to " + std::to_string(high) +
                   " (got " + describe(*value) + ")");
}

std::optional<double> ConfigReader::number(std::string_view path, double low, double high)
{
    const json *value = find(path);
    if (!value)
        return std::nullopt;
    if (value->is_number()) {
        const double v = value->get<double>();
        if (std::isfinite(v) && v >= low && v <= high)
            return v;
    }
    fail(path, "must be a number from " + formatDecimal(low) + " to " + formatDecimal(high) + " (got " +
                   describe(*value) + ")");
}

std::optional<std::string> ConfigReader::text(std::string_view path)
{
    const json *value = find(path);
    if (!value)
        return std::nullopt;
    if (value->is_string())
        return value->get<std::string>();
    if (value->is_number() || value->is_boolean())
        return value->dump();
    fail(path, "must be a string (got " + describe(*value) + ")");
}

std::optional<std::vector<std::string>> ConfigReader::strings(std::string_view path)
{
    const json *value = find(path);
    if (!value)
        return std::nullopt;
    std::vector<std::string> out;
    if (value->is_string()) {
        out.push_back(value->get<std::string>());
        return out;
    }
    if (value->is_array()) {
        for (const json &item : *value) {
            if (!item.is_string())
                fail(path, "must be a list of names (got " + describe(item) + ")");
            out.push_back(item.get<std::string>());
        }
        return out;
    }
    fail(path, "must be a list of names (got " + describe(*value) + ")");
}

void ConfigReader::noEffect(std::initializer_list<std::string_view> paths)
{
    for (std::string_view path : paths) {
        m_read.insert(std::string(path));
        if (lookup(path))
            m_out.ignored.push_back(std::string(path) + " (no effect on memory)");
    }
}

void ConfigReader::set(const std::string &scenarioKey, const json &value, std::string_view from)
{
    setPath(m_out.scenario, scenarioKey, value);
    m_out.mapped.push_back(std::string(from) + " -> " + scenarioKey + " = " +
                           (value.is_string() ? quoteText(value.get<std::string>()) : quoteJson(value)));
}

void ConfigReader::warn(std::string_view path, const std::string &why)
{
    m_read.insert(std::string(path));
    m_out.warnings.push_back(std::string(path) + ": " + why);
}

void ConfigReader::defaulted(const std::string &what) { m_out.defaults.push_back(what); }

void ConfigReader::fail(std::string_view path, const std::string &message) const
{
    throw TrainConfigError(m_out.file, std::string(path), message);
}

void ConfigReader::collectUnread(const json &node, const std::string &prefix)
{
    if (!prefix.empty()) {
        if (m_read.count(prefix))
            return;
        if (!node.is_object() || node.empty()) {
            m_out.ignored.push_back(prefix + " (unknown to Headroom: ignored)");
            return;
        }
    }
    if (!node.is_object())
        return;
    for (const auto &item : node.items()) {
        // Keys as the messages name them (a 4 MB key is shortened, an escape shown as one).
        const std::string key = keyForPath(item.key());
        collectUnread(item.value(), prefix.empty() ? key : prefix + "." + key);
    }
}

void ConfigReader::finish() { collectUnread(m_root, ""); }

void setPath(json &doc, const std::string &dottedPath, const json &value)
{
    json *node = &doc;
    std::size_t start = 0;
    while (true) {
        const std::size_t dot = dottedPath.find('.', start);
        const std::string part = dottedPath.substr(start, dot == std::string::npos ? dot : dot - start);
        if (!node->is_object())
            *node = json::object();
        if (dot == std::string::npos) {
            (*node)[part] = value;
            return;
        }
        node = &(*node)[part];
        start = dot + 1;
    }
}

std::vector<std::string> loraTargetsFor(std::string_view name)
{
    // The last component of a module path ("model.layers.0.self_attn.q_proj" -> "q_proj").
    if (const auto dot = name.rfind('.'); dot != std::string_view::npos)
        name.remove_prefix(dot + 1);
    struct Alias { std::string_view name; std::vector<std::string> targets; };
    static const Alias aliases[] = {
        {"q_proj", {"q"}},       {"k_proj", {"k"}},        {"v_proj", {"v"}},
        {"o_proj", {"o"}},       {"output_proj", {"o"}},   {"out_proj", {"o"}},
        {"dense", {"o"}},        {"wq", {"q"}},            {"wk", {"k"}},
        {"wv", {"v"}},           {"wo", {"o"}},            {"query", {"q"}},
        {"key", {"k"}},          {"value", {"v"}},         {"query_key_value", {"q", "k", "v"}},
        {"c_attn", {"q", "k", "v"}}, {"qkv_proj", {"q", "k", "v"}}, {"Wqkv", {"q", "k", "v"}},
        {"gate_proj", {"gate"}}, {"up_proj", {"up"}},      {"down_proj", {"down"}},
        {"w1", {"gate"}},        {"w3", {"up"}},           {"w2", {"down"}},
        {"gate_up_proj", {"gate", "up"}}, {"fc1", {"up"}}, {"fc2", {"down"}},
        {"c_fc", {"up"}},        {"dense_h_to_4h", {"up"}}, {"dense_4h_to_h", {"down"}},
        {"lm_head", {"lm_head"}}, {"output", {"lm_head"}},
    };
    for (const Alias &alias : aliases)
        if (alias.name == name)
            return alias.targets;
    return {};
}

RegexTargets regexLoraTargets(const std::string &pattern)
{
    RegexTargets out;
    // A bounded pattern (std::regex backtracks; the frameworks' patterns are a few hundred bytes).
    if (pattern.size() > 1000) {
        out.error = "a pattern longer than 1,000 characters";
        return out;
    }
    // Nesting bounded too (libstdc++ compiles and matches groups recursively).
    int depth = 0, deepest = 0;
    for (char c : pattern) {
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        deepest = std::max(deepest, depth);
    }
    if (deepest > 16) {
        out.error = "a pattern nesting groups more than 16 deep";
        return out;
    }
    std::regex expression;
    try {
        // libstdc++'s default executor backtracks: "(.*)*(.*)*X" or ".*" twelve times took minutes
        // on one module name. The polynomial (breadth-first) executor matches in linear time; it
        // refuses back-references, which regex_error reports as unreadable.
        auto flags = std::regex::ECMAScript;
#ifdef __GLIBCXX__
        flags |= std::regex_constants::__polynomial;
#endif
        expression = std::regex(pattern, flags);
    } catch (const std::regex_error &) {
        out.error = "is not a regular expression Headroom can read (got " + quotedText(pattern) + ")";
        return out;
    }
    struct Module { const char *name; const char *block; const char *target; };
    static const Module modules[] = {
        {"q_proj", "self_attn", "q"}, {"k_proj", "self_attn", "k"}, {"v_proj", "self_attn", "v"},
        {"o_proj", "self_attn", "o"}, {"gate_proj", "mlp", "gate"}, {"up_proj", "mlp", "up"},
        {"down_proj", "mlp", "down"}};
    static const char *prefixes[] = {"model.layers.", "model.language_model.layers.", "language_model.model.layers.",
                                     "model.text_model.layers.", "base_model.model.model.layers."};
    constexpr int kLayers = 32;
    try {
        for (const Module &module : modules) {
            int matched = 0;
            for (int layer = 0; layer < kLayers; ++layer) {
                bool any = false;
                for (const char *prefix : prefixes) {
                    const std::string name = std::string(prefix) + std::to_string(layer) + "." + module.block + "." + module.name;
                    if (std::regex_match(name, expression)) {
                        any = true;
                        break;
                    }
                }
                matched += any ? 1 : 0;
            }
            if (matched > 0)
                out.targets.push_back(module.target);
            if (matched > 0 && matched < kLayers)
                out.someLayers = true;
        }
    } catch (const std::regex_error &) {
        out.targets.clear();
        out.error = "is a pattern too costly to match (got " + quotedText(pattern) + ")";
    }
    return out;
}

std::string dtypeName(std::string_view text)
{
    if (text.starts_with("torch."))
        text.remove_prefix(6);
    if (text == "bf16" || text == "bfloat16")
        return "bf16";
    if (text == "fp16" || text == "float16" || text == "half")
        return "fp16";
    if (text == "fp32" || text == "float32" || text == "float")
        return "fp32";
    return {};
}

} // namespace headroom::importers
