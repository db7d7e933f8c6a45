// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor.h"
#include "units.h"

#include <QString>
#include <QStringList>

namespace headroom {

/// A step's lever in words, with this step's numbers ("Micro-batch 8 -> 2, accumulation 1 -> 4").
QString adviceLeverText(const Advice &advice, std::size_t index);
/// What a step costs, in words ("about +33% compute: ...").
QString adviceCostText(const Advice &advice, std::size_t index, Unit unit);
/// A lever's name without numbers ("Flash attention").
QString leverDisplayName(Lever lever);
/// Why a lever was skipped ("already on or does not apply").
QString skipReasonText(SkipReason reason);
/// The settings that decide the memory of a scenario, one "name: value" line each.
QStringList keySettingsText(const Scenario &scenario);

} // namespace headroom
