// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "displaytext.h"
#include "estimate/estimate.h"

#include <QColor>
#include <QString>

namespace headroom {

/// The user-facing name of a consumer ("Optimizer state").
QString consumerDisplayName(ConsumerId id);
/// The user-facing name of a phase ("Backward").
QString phaseDisplayName(PhaseId id);
/// The consumer's fixed colour (Okabe-Ito based, colour-blind safe); `dark` for dark themes.
QColor consumerColor(ConsumerId id, bool dark = false);

} // namespace headroom
