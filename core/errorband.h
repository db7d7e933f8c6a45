// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario.h"

#include <span>

namespace headroom {

/// The expected error of an estimate for one kind of run, measured by `headroom validate`.
struct ErrorBand
{
    const char *method; ///< full, lora, qlora or inference (see methodGroup)
    int percent;        ///< 80th percentile of |error| over the measured cases of that method
    int cases;          ///< how many measured cases it rests on
};

/// The stored band table (docs/accuracy.md); tst_validation recomputes it from
/// tests/data/measured and fails when it is stale.
std::span<const ErrorBand> errorBands();

/// "Typically within +/-N%" for runs like this scenario: the band of its method, or 0 when
/// none is known.
int errorBandPercent(const Scenario &scenario);

} // namespace headroom
