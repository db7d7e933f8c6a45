// SPDX-License-Identifier: GPL-3.0-or-later
// PyYAML's implicit resolvers (resolver.py, YAML 1.1) written out from its regular expressions,
// and its constructors of whole numbers and numbers (constructor.py of PyYAML 6).
#include "io/yamlscalars.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace headroom::yaml {

using nlohmann::json;

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// Skips one optional sign.
std::size_t signEnd(std::string_view s) { return !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0; }

/// `[0-9_]*` (or another class) from `i`; returns the end.
template <typename Pred>
std::size_t span(std::string_view s, std::size_t i, Pred pred)
{
    while (i < s.size() && pred(s[i]))
        ++i;
    return i;
}

bool digitOrUnderscore(char c) { return isDigit(c) || c == '_'; }

/// `(?::[0-5]?[0-9])+` from `i` to the end of `s` or to `stop` (a '.' for floats).
bool sexagesimalTail(std::string_view s, std::size_t i, std::size_t end)
{
    bool any = false;
    while (i < end) {
        if (s[i] != ':')
            return false;
        ++i;
        // [0-5]?[0-9]: one digit, or two with the first 0-5.
        if (i + 1 < end && s[i] >= '0' && s[i] <= '5' && isDigit(s[i + 1]) && (i + 2 == end || s[i + 2] == ':'))
            i += 2;
        else if (i < end && isDigit(s[i]) && (i + 1 == end || s[i + 1] == ':'))
            i += 1;
        else
            return false;
        any = true;
    }
    return any;
}

/// One decimal number (no sign) as a double; false for anything else; `tooLarge` for overflow.
bool parseDecimal(std::string_view v, double &value, bool &tooLarge)
{
    tooLarge = false;
    if (v.empty())
        return false;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value, std::chars_format::general);
    if (end != v.data() + v.size())
        return false;
    if (ec == std::errc::result_out_of_range) {
        // Past a double (1.0e+999) is too large; below the smallest (1.0e-999) is 0, as in Python.
        const std::size_t e = v.find_first_of("eE");
        long exponent = 0;
        if (e != std::string_view::npos)
            std::from_chars(v.data() + e + 1 + (v[e + 1] == '+'), v.data() + v.size(), exponent);
        const std::size_t firstSignificant = v.find_first_of("123456789");
        const std::size_t dot = std::min(v.find('.'), e);
        const long position = long(std::min(dot, v.size())) - long(firstSignificant);
        if (exponent + position > 0) {
            tooLarge = true;
            return false;
        }
        value = 0.0;
        return true;
    }
    return ec == std::errc();
}

} // namespace

bool matchesBool(std::string_view s, bool &value)
{
    static constexpr std::string_view trues[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
    static constexpr std::string_view falses[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
    for (std::string_view t : trues)
        if (s == t)
            return value = true, true;
    for (std::string_view f : falses)
        if (s == f)
            return value = false, true;
    return false;
}

bool matchesNull(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

bool matchesInt(std::string_view s)
{
    const std::size_t i = signEnd(s);
    const std::string_view body = s.substr(i);
    if (body.size() > 2 && body.starts_with("0b"))
        return span(body, 2, [](char c) { return c == '0' || c == '1' || c == '_'; }) == body.size();
    if (body.size() > 2 && body.starts_with("0x"))
        return span(body, 2, [](char c) { return isHexDigit(c) || c == '_'; }) == body.size();
    if (body == "0")
        return true;
    if (body.size() > 1 && body[0] == '0')
        return span(body, 1, [](char c) { return (c >= '0' && c <= '7') || c == '_'; }) == body.size();
    if (body.empty() || body[0] < '1' || body[0] > '9')
        return false;
    const std::size_t end = span(body, 1, digitOrUnderscore);
    return end == body.size() || sexagesimalTail(body, end, body.size());
}

bool matchesFloat(std::string_view s)
{
    // [-+]?\.(?:inf|Inf|INF) and \.(?:nan|NaN|NAN)
    const std::size_t sign = signEnd(s);
    const std::string_view body = s.substr(sign);
    if (body == ".inf" || body == ".Inf" || body == ".INF")
        return true;
    if (sign == 0 && (body == ".nan" || body == ".NaN" || body == ".NAN"))
        return true;
    // (?:[eE][-+][0-9]+)? at `i`, to the end.
    const auto exponentTail = [&](std::size_t i) {
        if (i == body.size())
            return true;
        if ((body[i] != 'e' && body[i] != 'E') || i + 2 >= body.size() + 0 || (body[i + 1] != '-' && body[i + 1] != '+'))
            return false;
        return i + 2 < body.size() && span(body, i + 2, isDigit) == body.size();
    };
    if (!body.empty() && body[0] == '.') {
        // \.[0-9][0-9_]*(exp)? -- no sign allowed on this form.
        if (sign != 0 || body.size() < 2 || !isDigit(body[1]))
            return false;
        return exponentTail(span(body, 2, digitOrUnderscore));
    }
    if (body.empty() || !isDigit(body[0]))
        return false;
    const std::size_t intEnd = span(body, 1, digitOrUnderscore);
    if (intEnd < body.size() && body[intEnd] == '.')
        return exponentTail(span(body, intEnd + 1, digitOrUnderscore));
    // [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    const std::size_t dot = body.find('.', intEnd);
    if (dot == std::string_view::npos || !sexagesimalTail(body, intEnd, dot))
        return false;
    return span(body, dot + 1, digitOrUnderscore) == body.size();
}

bool matchesTimestamp(std::string_view s)
{
    const auto digits = [&](std::size_t i, std::size_t n) {
        if (i + n > s.size())
            return false;
        for (std::size_t k = 0; k < n; ++k)
            if (!isDigit(s[i + k]))
                return false;
        return true;
    };
    // [0-9]{4}-[0-9]{2}-[0-9]{2}
    if (s.size() == 10 && digits(0, 4) && s[4] == '-' && digits(5, 2) && s[7] == '-' && digits(8, 2))
        return true;
    // [0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
    // (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
    std::size_t i = 0;
    const auto oneOrTwo = [&]() {
        if (!digits(i, 1))
            return false;
        i += digits(i, 2) ? 2 : 1;
        return true;
    };
    if (!digits(0, 4) || s.size() < 5 || s[4] != '-')
        return false;
    i = 5;
    if (!oneOrTwo() || i >= s.size() || s[i] != '-')
        return false;
    ++i;
    if (!oneOrTwo() || i >= s.size())
        return false;
    if (s[i] == 'T' || s[i] == 't')
        ++i;
    else if (s[i] == ' ' || s[i] == '\t')
        i = span(s, i, [](char c) { return c == ' ' || c == '\t'; });
    else
        return false;
    if (!oneOrTwo() || i >= s.size() || s[i] != ':' || !digits(i + 1, 2) || i + 3 >= s.size() ||
        s[i + 3] != ':' || !digits(i + 4, 2))
        return false;
    i += 6;
    if (i < s.size() && s[i] == '.')
        i = span(s, i + 1, isDigit);
    i = span(s, i, [](char c) { return c == ' ' || c == '\t'; });
    if (i == s.size())
        return true;
    if (s[i] == 'Z')
        return i + 1 == s.size();
    if (s[i] != '-' && s[i] != '+')
        return false;
    ++i;
    if (!oneOrTwo())
        return false;
    if (i == s.size())
        return true;
    return s[i] == ':' && digits(i + 1, 2) && i + 3 == s.size();
}

Kind resolvePlain(std::string_view s, bool &boolean)
{
    if (matchesBool(s, boolean))
        return Kind::Bool;
    if (matchesFloat(s))
        return Kind::Float;
    if (matchesInt(s))
        return Kind::Int;
    if (s == "<<")
        return Kind::Merge;
    if (matchesNull(s))
        return Kind::Null;
    if (matchesTimestamp(s))
        return Kind::Timestamp;
    if (s == "=")
        return Kind::Value;
    return Kind::Text;
}

/// PyYAML's construct_yaml_int: '_' dropped, 0b/0x/0 (octal)/sexagesimal/decimal.
Problem constructInt(std::string_view text, json &out)
{
    std::string v;
    for (char c : text)
        if (c != '_')
            v += c;
    bool negative = false;
    if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
        negative = v[0] == '-';
        v.erase(0, 1);
    }
    // The magnitude, and whether it went past 64 bits on the way.
    std::uint64_t magnitude = 0;
    bool past = false;
    const auto accumulate = [&](std::string_view digits, unsigned base) {
        if (digits.empty())
            return false;
        for (char c : digits) {
            const unsigned d = isDigit(c) ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10);
            if (d >= base)
                return false;
            past = past || __builtin_mul_overflow(magnitude, std::uint64_t(base), &magnitude) ||
                   __builtin_add_overflow(magnitude, std::uint64_t(d), &magnitude);
        }
        return true;
    };
    bool ok = true;
    if (v.starts_with("0b"))
        ok = accumulate(std::string_view(v).substr(2), 2);
    else if (v.starts_with("0x"))
        ok = accumulate(std::string_view(v).substr(2), 16);
    else if (!v.empty() && v[0] == '0')
        ok = accumulate(v, 8);
    else if (v.find(':') != std::string::npos) {
        // Sexagesimal: each part a decimal number, the value in base 60.
        std::uint64_t total = 0;
        std::size_t start = 0;
        while (ok) {
            const std::size_t colon = v.find(':', start);
            magnitude = 0;
            ok = accumulate(std::string_view(v).substr(start, colon == std::string::npos ? v.npos : colon - start), 10);
            past = past || __builtin_mul_overflow(total, std::uint64_t(60), &total) ||
                   __builtin_add_overflow(total, magnitude, &total);
            if (colon == std::string::npos)
                break;
            start = colon + 1;
        }
        magnitude = total;
    } else
        ok = accumulate(v, 10);
    if (!ok)
        return "is not a whole number PyYAML can read";
    constexpr std::uint64_t kInt64Max = std::uint64_t(INT64_MAX);
    if (past || (negative && magnitude > kInt64Max + 1))
        return "is too large (a whole number must fit in 64 bits)";
    if (negative)
        out = magnitude == kInt64Max + 1 ? INT64_MIN : -std::int64_t(magnitude);
    else if (magnitude <= kInt64Max)
        out = std::int64_t(magnitude);
    else
        out = magnitude;
    return {};
}

/// PyYAML's construct_yaml_float: '_' dropped, lower case, .inf/.nan, sexagesimal, decimal.
/// Infinite and NaN values are kept as the text ".inf", "-.inf" or ".nan".
Problem constructFloat(std::string_view text, json &out)
{
    std::string v;
    for (char c : text)
        if (c != '_')
            v += char(c >= 'A' && c <= 'Z' ? c + 32 : c);
    bool negative = false;
    if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
        negative = v[0] == '-';
        v.erase(0, 1);
    }
    if (v == ".inf" || v == "inf" || v == "infinity") {
        out = negative ? "-.inf" : ".inf";
        return {};
    }
    if (v == ".nan" || v == "nan") {
        out = ".nan";
        return {};
    }
    double value = 0;
    bool tooLarge = false;
    if (v.find(':') != std::string::npos) {
        std::size_t start = 0;
        while (true) {
            const std::size_t colon = v.find(':', start);
            double part = 0;
            if (!parseDecimal(std::string_view(v).substr(start, colon == std::string::npos ? v.npos : colon - start),
                              part, tooLarge))
                return tooLarge ? "is too large for a number" : "is not a number PyYAML can read";
            value = value * 60 + part;
            if (colon == std::string::npos)
                break;
            start = colon + 1;
        }
    } else if (!parseDecimal(v, value, tooLarge)) {
        return tooLarge ? "is too large for a number" : "is not a number PyYAML can read";
    }
    if (!std::isfinite(value))
        return "is too large for a number";
    out = negative ? -value : value;
    return {};
}

} // namespace headroom::yaml
