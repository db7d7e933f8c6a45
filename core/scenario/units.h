// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace headroom {

/// How sizes are shown: decimal GB (10^9 B) or binary GiB (2^30 B).
enum class Unit { GB, GiB };

/// "GB" or "GiB".
const char *unitName(Unit unit);
/// Bytes expressed in `unit` (only for display).
double toUnit(std::uint64_t bytes, Unit unit);
/// "13.48 GB", with smaller units (MB/MiB, KB/KiB, B) for small sizes.
std::string formatBytes(std::uint64_t bytes, Unit unit);
/// Signed variant for headroom ("-3.21 GB").
std::string formatSignedBytes(std::int64_t bytes, Unit unit);
/// 6738415616 -> "6,738,415,616".
std::string groupDigits(std::uint64_t value);
/// A short decimal: 0.05 -> "0.05", 2.0 -> "2".
std::string formatDecimal(double value, int maxDecimals = 3);

/// One scale for a set of sizes shown together (a table column, an axis, a chart): GB/GiB, or
/// TB/TiB, PB/PiB once the largest would need 10,000 or more of the smaller. A column in one
/// scale never mixes TB and GB.
struct ByteScale
{
    Unit unit = Unit::GiB;
    int power = 3; ///< 3: G, 4: T, 5: P, 6: E
    bool operator==(const ByteScale &) const = default;
};
/// The scale for sizes up to `largestBytes`.
ByteScale scaleFor(std::uint64_t largestBytes, Unit unit);
/// "GiB", "TB", ...
std::string scaleName(ByteScale scale);
/// Bytes expressed in the scale (only for display).
double toScale(std::uint64_t bytes, ByteScale scale);
/// Bytes in the scale ("0.50 TiB", "13.48 GiB"); sizes under one GB/GiB keep the smaller
/// units ("16.78 MB"), as formatBytes does.
std::string formatBytesIn(std::uint64_t bytes, ByteScale scale);
/// A GPU capacity as its name reads: "80 GiB" for an "80GB" card reporting 81920 MiB,
/// "23.99 GiB" for 24564 MiB; trailing zeros dropped.
std::string formatCapacity(std::uint64_t bytes, Unit unit);

/// A memory size as a user types it for a GPU: "24 GiB", "20 GB", "24gib", "23.5 GiB" (GiB,
/// GB, or G for GiB; any case; spaces around the number allowed). The number has at most 6
/// digits and 3 decimals and lies from 1 to 100,000.
struct TypedCapacity
{
    std::uint64_t thousandths = 0; ///< the number x 1,000 (24 GiB: 24,000)
    Unit unit = Unit::GiB;
    std::uint64_t bytes() const; ///< 24 GiB: 24 x 2^30; 20 GB: 20 x 10^9
    /// The number without trailing zeros and the unit, no space: "24gib", "23.5gib", "20gb".
    std::string id() const;
    /// "24 GiB", "20 GB".
    std::string text() const;
};
/// Parses a typed size; a number without a unit is in `bare` (none: refused). Empty when the
/// text is not a size or lies outside 1-100,000.
std::optional<TypedCapacity> parseCapacity(std::string_view text, std::optional<Unit> bare = std::nullopt);

} // namespace headroom
