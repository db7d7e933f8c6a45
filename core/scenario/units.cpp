// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario/units.h"

#include <algorithm>
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

} // namespace headroom
