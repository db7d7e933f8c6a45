// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate.h"

#include <QColor>
#include <QString>

namespace headroom {

/// The user-facing name of a consumer ("Optimizer state").
QString consumerDisplayName(ConsumerId id);
/// The user-facing name of a phase ("Backward").
QString phaseDisplayName(PhaseId id);
/// The consumer's fixed colour (Okabe-Ito based, colour-blind safe); `dark` for dark themes.
QColor consumerColor(ConsumerId id, bool dark = false);
/// Bytes shown in the chosen unit, e.g. "13.48 GB".
QString bytesText(std::uint64_t bytes, Unit unit);

} // namespace headroom
