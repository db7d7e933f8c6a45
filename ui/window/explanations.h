// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate/estimate.h"

#include <QString>

namespace headroom {

/// A sentence or two on what a consumer is, its formula with the user's numbers, what it
/// rests on, and the articles' advice where it applies (HTML).
QString explainConsumer(ConsumerId id, const Scenario &scenario, const Estimate &estimate, Unit unit);

} // namespace headroom
