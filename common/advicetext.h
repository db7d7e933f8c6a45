// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "solve/advisor.h"
#include "scenario/units.h"

#include <QString>
#include <QStringList>

namespace headroom {

/// A step's lever in words, with this step's numbers ("Micro-batch 8 -> 2, accumulation 1 -> 4").
QString adviceLeverText(const Advice &advice, std::size_t index);
/// What a step costs, in words ("about +33% compute: ...").
QString adviceCostText(const Advice &advice, std::size_t index, Unit unit);
/// A lever's name without numbers ("Flash attention").
QString leverDisplayName(Lever lever);
/// Why a lever was skipped, in general ("already on or does not apply").
QString skipReasonText(SkipReason reason);
/// Why this lever was skipped for this scenario ("already 1", "logits are not the peak
/// phase's consumer"), from the configuration it was tried on.
QString skippedLeverText(const Advice &advice, const SkippedLever &skipped);
/// What would make the scenario fit `gpu` when nothing else does: the estimator's answer for
/// 2, 4 or 8 of them sharded ("needs 4 x A100 80GB with FSDP: 61.2 GiB each"), or what is
/// left when even 8 would not do. Empty when it already fits. A hook: a GPU-count solver
/// answers here later.
QString whatWouldFitText(const Scenario &scenario, const std::string &gpuId, Unit unit);
/// The short form for a chart annotation ("would fit 4 x A100 80GB with FSDP"); empty when
/// there is no answer.
QString whatWouldFitMark(const Scenario &scenario, const std::string &gpuId);
/// The settings that decide the memory of a scenario, one "name: value" line each.
QStringList keySettingsText(const Scenario &scenario);

} // namespace headroom
