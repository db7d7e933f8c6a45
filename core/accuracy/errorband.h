// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <span>
#include <vector>

namespace headroom {

/// The expected error of an estimate for one kind of run and one kind of reading, measured by
/// `headroom validate` on held-out cases only (cases the physics was never developed against).
struct ErrorBand
{
    const char *method;  ///< full, lora, qlora or inference (see methodGroup)
    const char *reading; ///< allocated, reserved or device (see readingName)
    int percent;         ///< 80th percentile of |error| over those held-out cases, rounded up
    int cases;           ///< how many held-out cases it rests on
    bool operator==(const ErrorBand &) const = default;
};

/// A band is shown only when at least this many held-out cases support it.
inline constexpr int kMinBandCases = 5;

/// The stored band table (docs/accuracy.md), every method and reading with a held-out case;
/// tst_validation recomputes it from tests/data/measured and fails when it is stale.
std::span<const ErrorBand> errorBands();

/// The bands that apply to this scenario's method, with at least kMinBandCases held-out cases,
/// in the order allocated, reserved, device.
std::vector<ErrorBand> errorBandsFor(const Scenario &scenario);

/// "Typically within +/-N%" for runs like this scenario: the first band of errorBandsFor, or 0
/// when none is known.
int errorBandPercent(const Scenario &scenario);

} // namespace headroom
