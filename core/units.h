// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

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

} // namespace headroom
