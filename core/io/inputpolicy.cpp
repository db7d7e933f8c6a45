// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/inputpolicy.h"

#include "scenario/units.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace headroom {

using nlohmann::json;

namespace {

std::string shortPath(const std::string &path) { return keyPathText(path); }

/// Builds the document like nlohmann's own DOM parser, but counts the depth as it goes and
/// refuses a key that the object under construction already has.
class StrictBuilder
{
public:
    StrictBuilder(json &root, int maxDepth) : m_root(root), m_maxDepth(maxDepth) {}

    bool null() { return place(json(nullptr)); }
    bool boolean(bool value) { return place(json(value)); }
    bool number_integer(json::number_integer_t value) { return place(json(value)); }
    bool number_unsigned(json::number_unsigned_t value) { return place(json(value)); }
    bool number_float(json::number_float_t value, const std::string &text)
    {
        // A whole number past 64 bits would become a rounded double: refused, not rounded.
        if (text.find_first_of(".eE") == std::string::npos) {
            m_error.emplace(JsonProblem::TooLargeNumber, shortPath(valuePath()),
                            quotedText(text) + " is too large (a whole number must fit in 64 bits)");
            return false;
        }
        return place(json(value));
    }
    bool string(std::string &value) { return place(json(std::move(value))); }
    bool binary(json::binary_t &)
    {
        m_error.emplace(JsonProblem::Syntax, "", "not valid JSON: binary data");
        return false;
    }
    bool start_object(std::size_t) { return open(json::value_t::object); }
    bool start_array(std::size_t) { return open(json::value_t::array); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(std::string &name)
    {
        auto &object = m_stack.back()->get_ref<json::object_t &>();
        const auto [it, inserted] = object.emplace(name, nullptr);
        if (!inserted) {
            m_error.emplace(JsonProblem::DuplicateKey, shortPath(memberPath(name)),
                            "appears twice in the same object (each key may be given once)");
            return false;
        }
        m_member = &it->second;
        m_key = name;
        return true;
    }

    bool parse_error(std::size_t, const std::string &token, const nlohmann::detail::exception &error)
    {
        // 406: a number past a double (1e999), which Python would read as infinity.
        if (error.id == 406) {
            m_error.emplace(JsonProblem::TooLargeNumber, shortPath(valuePath()),
                            quotedText(token) + " is too large for a number");
            return false;
        }
        std::string message = error.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 3: ...": keep the
        // readable part, and quote at most a short prefix of what was last read.
        if (const auto pos = message.find("] "); pos != std::string::npos)
            message.erase(0, pos + 2);
        static const std::string lastRead = "; last read: '";
        if (const auto pos = message.find(lastRead); pos != std::string::npos) {
            std::string token = message.substr(pos + lastRead.size());
            if (!token.empty() && token.back() == '\'')
                token.pop_back();
            message = message.substr(0, pos) + lastRead + quoteText(token) + "'";
        }
        m_error.emplace(JsonProblem::Syntax, "", "not valid JSON: " + printable(message));
        return false;
    }

    const std::optional<JsonInputError> &error() const { return m_error; }

private:
    /// Where the value being read goes, for messages.
    std::string valuePath() const
    {
        if (m_stack.empty())
            return m_path;
        const json &parent = *m_stack.back();
        if (parent.is_array())
            return m_path + "[" + std::to_string(parent.size()) + "]";
        return memberPath(m_key);
    }

    std::string memberPath(const std::string &name) const
    {
        return m_path + (m_path.empty() ? "" : ".") + keyForPath(name);
    }

    /// Where the next value goes: the root, the end of the open array or the open key.
    json *put(json &&value)
    {
        if (m_stack.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        json &parent = *m_stack.back();
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return &parent.back();
        }
        *m_member = std::move(value);
        return m_member;
    }
    bool place(json &&value) { return put(std::move(value)) != nullptr; }

    bool open(json::value_t type)
    {
        std::string part;
        if (!m_stack.empty()) {
            const json &parent = *m_stack.back();
            part = parent.is_array() ? "[" + std::to_string(parent.size()) + "]"
                                     : (m_path.empty() ? "" : ".") + keyForPath(m_key);
        }
        if (int(m_stack.size()) >= m_maxDepth) {
            m_error.emplace(JsonProblem::TooDeep, shortPath(m_path + part),
                            "nested deeper than " + std::to_string(m_maxDepth) +
                                " levels of lists and objects");
            return false;
        }
        json *slot = put(json(type));
        m_stack.push_back(slot);
        m_lengths.push_back(m_path.size());
        m_path += part;
        return true;
    }

    bool close()
    {
        m_stack.pop_back();
        m_path.resize(m_lengths.back());
        m_lengths.pop_back();
        return true;
    }

    json &m_root;
    int m_maxDepth;
    std::vector<json *> m_stack;
    std::vector<std::size_t> m_lengths;
    std::string m_path;
    std::string m_key;
    json *m_member = nullptr;
    std::optional<JsonInputError> m_error;
};

/// Appends the compact text of `value` to `out`, stopping soon after `limit` characters.
/// Each level of nesting writes a character first, so the recursion is at most `limit` deep.
void appendQuoted(const json &value, std::string &out, std::size_t limit)
{
    if (out.size() > limit)
        return;
    if (value.is_object()) {
        out += '{';
        bool first = true;
        for (const auto &[key, member] : value.items()) {
            if (out.size() > limit)
                return;
            if (!first)
                out += ',';
            first = false;
            appendQuoted(json(quoteText(key, limit)), out, limit);
            out += ':';
            appendQuoted(member, out, limit);
        }
        out += '}';
    } else if (value.is_array()) {
        out += '[';
        bool first = true;
        for (const json &item : value) {
            if (out.size() > limit)
                return;
            if (!first)
                out += ',';
            first = false;
            appendQuoted(item, out, limit);
        }
        out += ']';
    } else if (value.is_string()) {
        const auto &text = value.get_ref<const std::string &>();
        const std::string_view head(text.data(), std::min(text.size(), limit + 1));
        out += json(std::string(head)).dump(-1, ' ', false, json::error_handler_t::replace);
    } else {
        out += value.dump();
    }
}

/// Bytes of the UTF-8 sequence starting at `text[i]` and its code point; 0 when invalid.
std::size_t decodeUtf8(std::string_view text, std::size_t i, std::uint32_t &codePoint)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
        codePoint = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        codePoint = lead & 0x0F;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        codePoint = lead & 0x07;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (i + length > text.size())
        return 0;
    for (std::size_t k = 1; k < length; ++k) {
        const unsigned char next = byte(i + k);
        if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xBF))
            return 0;
        codePoint = (codePoint << 6) | (next & 0x3F);
    }
    return length;
}

bool isInvisibleControl(std::uint32_t codePoint)
{
    return (codePoint >= 0x80 && codePoint <= 0x9F) ||     // C1 controls (CSI is 0x9B)
           (codePoint >= 0x202A && codePoint <= 0x202E) || // bidirectional embeddings/overrides
           (codePoint >= 0x2066 && codePoint <= 0x2069);   // bidirectional isolates
}

} // namespace

json parseStrictJson(std::string_view text, const JsonLimits &policy)
{
    if (text.size() > policy.maxBytes)
        throw JsonInputError(JsonProblem::TooLarge, "",
                             "larger than the " + groupDigits(policy.maxBytes) +
                                 "-byte limit (" + groupDigits(text.size()) + " bytes)");
    json root;
    StrictBuilder builder(root, policy.maxDepth);
    const bool ok = json::sax_parse(text.begin(), text.end(), &builder,
                                    json::input_format_t::json, true, false);
    if (builder.error())
        throw *builder.error();
    if (!ok)
        throw JsonInputError(JsonProblem::Syntax, "", "not valid JSON");
    return root;
}

std::string quoteJson(const json &value, std::size_t maxChars)
{
    std::string out;
    appendQuoted(value, out, maxChars);
    if (out.size() <= maxChars)
        return printable(out);
    return quoteText(out, maxChars);
}

std::string quoteText(std::string_view text, std::size_t maxChars)
{
    if (text.size() <= maxChars)
        return printable(text);
    std::size_t cut = maxChars >= 3 ? maxChars - 3 : 0;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut; // not inside a UTF-8 sequence
    return printable(text.substr(0, cut)) + "...";
}

std::string quotedText(std::string_view text, std::size_t maxChars)
{
    return "\"" + quoteText(text, maxChars) + "\"";
}

std::string printable(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    char escape[16];
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x20 || byte == 0x7F) {
            if (byte == '\n')
                out += "\\n";
            else if (byte == '\t')
                out += "\\t";
            else if (byte == '\r')
                out += "\\r";
            else {
                std::snprintf(escape, sizeof escape, "\\x%02x", byte);
                out += escape;
            }
            ++i;
        } else if (byte < 0x80) {
            out += char(byte);
            ++i;
        } else {
            std::uint32_t codePoint = 0;
            const std::size_t length = decodeUtf8(text, i, codePoint);
            if (length == 0) {
                std::snprintf(escape, sizeof escape, "\\x%02x", byte);
                out += escape;
                ++i;
            } else if (isInvisibleControl(codePoint)) {
                std::snprintf(escape, sizeof escape, "\\u%04x", unsigned(codePoint));
                out += escape;
                i += length;
            } else {
                out.append(text.substr(i, length));
                i += length;
            }
        }
    }
    return out;
}

std::string keyForPath(std::string_view key)
{
    bool plain = !key.empty() && key.size() <= 64;
    for (const char c : key)
        plain = plain && c > 0x20 && c < 0x7F && c != '"' && c != '\\';
    return plain ? std::string(key) : "\"" + quoteText(key) + "\"";
}

std::string keyPathText(std::string_view path)
{
    return path.size() <= limits::kKeyPathChars ? printable(path) : quoteText(path, limits::kKeyPathChars);
}

std::string keyPathProblem(std::string_view path)
{
    if (path.size() > limits::kKeyPathChars)
        return "key path is longer than " + std::to_string(limits::kKeyPathChars) + " characters";
    if (path.empty())
        return "key path is empty";
    std::size_t start = 0;
    while (true) {
        const std::size_t dot = path.find('.', start);
        if ((dot == std::string_view::npos ? path.size() : dot) == start)
            return "key path has an empty part";
        if (dot == std::string_view::npos)
            return {};
        start = dot + 1;
    }
}

bool toUint64(double value, std::uint64_t &result)
{
    if (!std::isfinite(value) || value < 0)
        return false;
    const double rounded = std::round(value);
    if (rounded >= 18446744073709551616.0) // 2^64
        return false;
    result = static_cast<std::uint64_t>(rounded);
    return true;
}

std::size_t firstInvalidUtf8(std::string_view text)
{
    std::uint32_t codePoint = 0;
    for (std::size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t length = decodeUtf8(text, i, codePoint);
        if (length == 0)
            return i;
        i += length;
    }
    return std::string_view::npos;
}

} // namespace headroom
