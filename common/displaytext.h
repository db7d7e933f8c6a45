// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"
#include "scenario/units.h"
#include "estimate/verdict.h"

#include <QString>
#include <cstdint>

namespace headroom {

/// "RTX 4090" for "NVIDIA GeForce RTX 4090": short enough to label lines and bars.
QString shortGpuName(const QString &name);
/// Bytes in the chosen unit, e.g. "13.48 GiB".
QString bytesText(std::uint64_t bytes, Unit unit);
/// Bytes in a scale shared by a column or an axis ("0.50 TiB").
QString bytesText(std::uint64_t bytes, ByteScale scale);
/// A GPU's capacity as its name reads: "80 GiB" for 81920 MiB.
QString capacityText(std::uint64_t bytes, Unit unit);
/// "A100 80GB · 80 GiB": the card's short name and its capacity.
QString gpuLabel(const QString &name, std::uint64_t bytes, Unit unit);

/// How much room a verdict has.
enum class VerdictStyle {
    Sentence, ///< "does not fit RTX 4090 by 54.63 GiB" / "fits A100 80GB with 12.30 GiB to spare"
    TwoLines, ///< "does not fit RTX 4090\nby 54.63 GiB" / "fits A100 80GB\n12.30 GiB spare"
    Compact,  ///< "over RTX 4090\nby 54.63 GiB" / "fits A100 80GB\n12.30 GiB spare"
    Tiny,     ///< "over by\n54.63 GiB" / "spare\n12.30 GiB": the GPU is the one whose line is bold
};
/// The one wording of a verdict (status bar, chart, advisor and command line say it alike).
/// `headroomBytes` is capacity minus the device peak: negative when it does not fit. With the
/// estimate's band (`bandPercent` > 0) and its `peakBytes`, the verdict has three states
/// (fitState): a borderline one adds "may not fit: within the ±16% this estimate carries"
/// (shorter in the narrow styles).
QString verdictText(const QString &gpuName, std::int64_t headroomBytes, Unit unit,
                    VerdictStyle style = VerdictStyle::Sentence, int bandPercent = 0,
                    std::uint64_t peakBytes = 0);

/// The verdict sentence on the scenario's target GPU (targetFit), with its band's three states:
/// what the status bar leads with and what a lesson step says under its caption. Empty when the
/// scenario ticks no catalog GPU.
QString targetVerdictText(const Scenario &scenario, const Estimate &estimate, Unit unit);

/// "train.seq_len 2,048 is beyond GPT-2's 1,024 learned positions (model.max_positions): ..."
QString positionLimitText(const Scenario &scenario, const PositionLimit &limit);

} // namespace headroom
