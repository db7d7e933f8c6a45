// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate/estimate.h"

#include <QString>
#include <cstdint>
#include <optional>

namespace headroom {

/// What a measured figure is: which PyTorch or driver reading.
enum class Reading { Allocated, Reserved, Device };

/// A peak the user measured, to compare with the estimate.
struct Measurement
{
    std::uint64_t bytes = 0;
    Reading reading = Reading::Allocated;
    bool operator==(const Measurement &) const = default;
};

/// Reads "22873276416" (what torch prints: bytes), "21.3 GB", "20480 MiB", or a bare "21.3"
/// in `unit`. Nothing for text that is not a positive size.
std::optional<std::uint64_t> parseMemoryText(const QString &text, Unit unit);
/// The estimate's figure of the same kind as the reading.
std::uint64_t estimateFor(const Estimate &estimate, Reading reading);
/// "Estimate 21.30 GB allocated vs measured 20.00 GB: +6.5%", with the other kinds for reference.
QString compareText(const Estimate &estimate, const Measurement &measured, Unit unit);

} // namespace headroom
