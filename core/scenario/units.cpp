// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario/units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace headroom {

const char *unitName(Unit unit) { return unit == Unit::GB ? "GB" : "GiB"; }

double toUnit(std::uint64_t bytes, Unit unit)
{
    return static_cast<double>(bytes) / (unit == Unit::GB ? 1e9 : 1073741824.0);
}

std::string formatBytes(std::uint64_t bytes, Unit unit)
{
    const bool decimal = unit == Unit::GB;
    const double base = decimal ? 1000.0 : 1024.0;
    static const char *decimalNames[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    static const char *binaryNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes);
    int index = 0;
    // Stay in GB up to 10,000 GB so that GPU-sized figures compare at a glance.
    while (index < 3 && value >= base) {
        value /= base;
        ++index;
    }
    while (index < 6 && value >= 10000.0) {
        value /= base;
        ++index;
    }
    char text[64];
    if (index == 0)
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(text, sizeof text, "%.2f %s", value,
                      decimal ? decimalNames[index] : binaryNames[index]);
    return text;
}

std::string formatSignedBytes(std::int64_t bytes, Unit unit)
{
    if (bytes < 0)
        return "-" + formatBytes(static_cast<std::uint64_t>(-(bytes + 1)) + 1, unit);
    return formatBytes(static_cast<std::uint64_t>(bytes), unit);
}

std::string groupDigits(std::uint64_t value)
{
    std::string digits = std::to_string(value);
    std::string out;
    const int n = static_cast<int>(digits.size());
    for (int i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0)
            out += ',';
        out += digits[static_cast<std::size_t>(i)];
    }
    return out;
}

std::string formatDecimal(double value, int maxDecimals)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", maxDecimals, value);
    std::string s = text;
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0')
            s.pop_back();
        if (!s.empty() && s.back() == '.')
            s.pop_back();
    }
    return s;
}

namespace {

double unitBase(Unit unit) { return unit == Unit::GB ? 1000.0 : 1024.0; }

} // namespace

ByteScale scaleFor(std::uint64_t largestBytes, Unit unit)
{
    ByteScale scale{unit, 3};
    double value = static_cast<double>(largestBytes) / std::pow(unitBase(unit), 3);
    while (scale.power < 6 && value >= 10000.0) {
        value /= unitBase(unit);
        ++scale.power;
    }
    return scale;
}

std::string scaleName(ByteScale scale)
{
    static const char *decimalNames[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    static const char *binaryNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const int power = std::clamp(scale.power, 0, 6);
    return scale.unit == Unit::GB ? decimalNames[power] : binaryNames[power];
}

double toScale(std::uint64_t bytes, ByteScale scale)
{
    return static_cast<double>(bytes) / std::pow(unitBase(scale.unit), scale.power);
}

std::string formatBytesIn(std::uint64_t bytes, ByteScale scale)
{
    if (scale.power <= 3 || static_cast<double>(bytes) < std::pow(unitBase(scale.unit), 3))
        return formatBytes(bytes, scale.unit);
    // Enough decimals for three significant digits: 0.005 TiB, not 0.00 TiB.
    const double value = toScale(bytes, scale);
    const int decimals = value >= 1 ? 2 : value >= 0.1 ? 3 : 4;
    char text[64];
    std::snprintf(text, sizeof text, "%.*f %s", decimals, value, scaleName(scale).c_str());
    return text;
}

std::string formatCapacity(std::uint64_t bytes, Unit unit)
{
    const std::string text = formatBytes(bytes, unit);
    const auto space = text.find(' ');
    if (space == std::string::npos || text.find('.') == std::string::npos)
        return text;
    std::string number = text.substr(0, space);
    while (number.back() == '0')
        number.pop_back();
    if (number.back() == '.')
        number.pop_back();
    return number + text.substr(space);
}

std::uint64_t TypedCapacity::bytes() const
{
    return unit == Unit::GB ? thousandths * 1000000ull : (thousandths << 30) / 1000;
}

std::string TypedCapacity::id() const
{
    std::string number = std::to_string(thousandths / 1000);
    if (std::uint64_t fraction = thousandths % 1000) {
        std::string digits = std::to_string(fraction);
        digits.insert(0, 3 - digits.size(), '0');
        while (digits.back() == '0')
            digits.pop_back();
        number += '.' + digits;
    }
    return number + (unit == Unit::GB ? "gb" : "gib");
}

std::string TypedCapacity::text() const
{
    std::string number = id();
    number.erase(number.find_first_not_of("0123456789."));
    return number + ' ' + unitName(unit);
}

std::optional<TypedCapacity> parseCapacity(std::string_view text, std::optional<Unit> bare)
{
    // Integer arithmetic only: no locale's decimal point, no rounding of the typed digits.
    const auto isSpace = [](char c) { return c == ' ' || c == '\t'; };
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    std::size_t i = 0;
    std::uint64_t whole = 0;
    int digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits)
        whole = whole * 10 + std::uint64_t(text[i] - '0');
    if (digits == 0 || digits > 6)
        return std::nullopt;
    std::uint64_t fraction = 0;
    if (i < text.size() && text[i] == '.') {
        int decimals = 0;
        for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++decimals)
            fraction = fraction * 10 + std::uint64_t(text[i] - '0');
        if (decimals == 0 || decimals > 3)
            return std::nullopt;
        for (; decimals < 3; ++decimals)
            fraction *= 10;
    }
    while (i < text.size() && isSpace(text[i]))
        ++i;
    std::string unit;
    for (; i < text.size(); ++i)
        unit += char(std::tolower(static_cast<unsigned char>(text[i])));
    TypedCapacity capacity;
    capacity.thousandths = whole * 1000 + fraction;
    if (unit == "gib" || unit == "g")
        capacity.unit = Unit::GiB;
    else if (unit == "gb")
        capacity.unit = Unit::GB;
    else if (unit.empty() && bare)
        capacity.unit = *bare;
    else
        return std::nullopt;
    if (capacity.thousandths < 1000 || capacity.thousandths > 100000000)
        return std::nullopt;
    return capacity;
}

} // namespace headroom
