// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "estimate/estimate.h"
#include "scenario/scenario.h"

#include <cstdint>
#include <optional>
#include <string>

namespace headroom {

/// The GPU a scenario's verdict is about: its `targetGpu`, else the largest of its `gpus` (the
/// first of equals). The status bar, the chart, the advisor and `headroom advise` all use it.
/// Null when the scenario ticks no catalog GPU.
const Gpu *targetGpu(const Scenario &scenario, const Catalog &catalog = builtinCatalog());

/// The estimate's fit on the target GPU; empty when there is none.
std::optional<GpuFit> targetFit(const Scenario &scenario, const Estimate &estimate,
                                const Catalog &catalog = builtinCatalog());

/// The verdict that knows its band (docs/accuracy.md): `Fits` when the band's upper edge fits,
/// `Borderline` when the GPU's capacity lies inside the band, `DoesNotFit` when even the lower
/// edge does not. Every view (status bar, chart, advisor, `advise`, `solve`, exports) uses it.
enum class FitState { Fits, Borderline, DoesNotFit };

/// The state of a device peak on a GPU of `capacityBytes` under a band of +/- `bandPercent`.
FitState fitState(std::uint64_t peakBytes, std::uint64_t capacityBytes, int bandPercent);
/// The band's upper edge: peak x (1 + bandPercent / 100), rounded up; saturates.
std::uint64_t upperEdgeBytes(std::uint64_t peakBytes, int bandPercent);
/// "fits", "borderline" or "does_not_fit" (the JSON `state`).
const char *fitStateKey(FitState state);
/// "fits", "may not fit: within the ±16% this estimate carries" or "does not fit".
std::string fitStateText(FitState state, int bandPercent);
/// The state on the target GPU (targetFit with the estimate's fit band); empty without one.
std::optional<FitState> targetState(const Scenario &scenario, const Estimate &estimate,
                                    const Catalog &catalog = builtinCatalog());

/// More GPUs of one kind that the estimator says would fit: the answer to "what would?".
struct ScaleOut
{
    std::uint32_t gpus = 1;
    Strategy strategy = Strategy::Fsdp; ///< training: FSDP (or the ZeRO-3 already chosen)
    std::uint32_t tensor = 1;           ///< serving: tensor parallel over the GPUs
    std::uint64_t peakDeviceBytes = 0;  ///< per GPU
    bool operator==(const ScaleOut &) const = default;
};

/// The GPU counts tried for "what would fit", smallest first.
inline constexpr std::uint32_t kScaleOutCounts[] = {2, 4, 8};

/// The first of 2, 4 and 8 `gpu`s (more than the scenario has) on which the estimator's own
/// peak fits: training sharded with FSDP (ZeRO-3 when the scenario uses it), serving with
/// tensor parallelism. Empty when none does or none applies. Never an extrapolation: each
/// answer is a whole estimate of that configuration.
std::optional<ScaleOut> gpusToFit(const Scenario &scenario, const Gpu &gpu,
                                  const Catalog &catalog = builtinCatalog());

/// A sequence longer than the model's positions.
struct PositionLimit
{
    std::uint32_t tokens = 0; ///< the sequence length (training) or context (serving)
    int maxPositions = 0;
    Position position = Position::Rope;
    /// Learned positions have no row for these tokens: the run cannot start. RoPE runs but
    /// attends beyond what the model was trained on unless its positions are scaled.
    bool error = false;
    bool operator==(const PositionLimit &) const = default;
};

/// The sequence length past the model's maximum positions, if it is (ALiBi extrapolates and is
/// not flagged).
std::optional<PositionLimit> positionLimit(const Scenario &scenario);

} // namespace headroom
