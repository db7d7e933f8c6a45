// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace headroom {

/// Thrown when a size does not fit in 64 bits; names the quantity that overflowed.
class OverflowError : public std::overflow_error
{
public:
    explicit OverflowError(const std::string &quantity,
                           const std::string &limit = "2^64 bytes (18.4 EB)")
        : std::overflow_error(quantity + " exceeds " + limit + ": the scenario is beyond range"),
          quantityName(quantity)
    {
    }
    std::string quantityName;
};

/// a * b, or OverflowError naming `what`.
inline std::uint64_t mulChecked(std::uint64_t a, std::uint64_t b, const char *what)
{
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw OverflowError(what);
    return r;
}

/// a + b, or OverflowError naming `what`.
inline std::uint64_t addChecked(std::uint64_t a, std::uint64_t b, const char *what)
{
    std::uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        throw OverflowError(what);
    return r;
}

/// Product of several factors, checked at every step.
template <typename... T>
std::uint64_t productChecked(const char *what, std::uint64_t first, T... rest)
{
    std::uint64_t r = first;
    ((r = mulChecked(r, static_cast<std::uint64_t>(rest), what)), ...);
    return r;
}

/// A non-negative byte count computed in floating point, rounded to the nearest byte; NaN,
/// infinity or anything at or past 2^64 is an OverflowError naming `what` (std::llround stops
/// at 2^63 and returns garbage past it). Negative values are clamped to 0.
inline std::uint64_t roundedBytes(double value, const char *what)
{
    if (std::isnan(value) || !(value < 18446744073709551616.0))
        throw OverflowError(what);
    if (value <= 0)
        return 0;
    const double rounded = std::round(value); // half away from zero, as llround
    if (!(rounded < 18446744073709551616.0))
        throw OverflowError(what);
    return static_cast<std::uint64_t>(rounded);
}

/// ceil(a / b) for b > 0.
constexpr std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// Bytes for `elements` values of `bits` each, rounded up to whole bytes.
inline std::uint64_t bitsToBytes(std::uint64_t elements, std::uint64_t bits, const char *what)
{
    // Avoid overflow in elements*bits by splitting whole bytes and the remainder.
    const std::uint64_t whole = mulChecked(elements, bits / 8, what);
    const std::uint64_t rest = bits % 8;
    return addChecked(whole, ceilDiv(mulChecked(elements, rest, what), 8), what);
}

} // namespace headroom
