// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// torch.profiler's export_memory_timeline(path.json): `[times, sizes]`, one row of sizes per time,
// each row PyTorch's zero baseline and then bytes of its categories in the order of
// torch/profiler/_memory_profiler.py's _CATEGORY_TO_COLORS: parameter, optimizer state, input,
// temporary, activation, gradient, autograd detail, unknown. Read under the input policy and
// mapped onto Headroom's consumers.

#include "estimate/estimate.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// PyTorch's categories, in the timeline's column order (after the baseline).
enum class TorchCategory { Parameter, OptimizerState, Input, Temporary, Activation, Gradient, AutogradDetail, Unknown };
inline constexpr std::size_t kTorchCategories = 8;
/// "parameter", "optimizer_state", ...
const char *torchCategoryKey(TorchCategory category);

struct TorchTimeline
{
    std::size_t points = 0;
    /// The busiest moment: its time (microseconds, as exported), its index and its sizes.
    double peakTime = 0;
    std::size_t peakIndex = 0;
    std::uint64_t peakBytes = 0;
    std::array<std::uint64_t, kTorchCategories> atPeak{};
    /// Each category's own largest size over the timeline.
    std::array<std::uint64_t, kTorchCategories> largest{};
};

/// Reads the exported JSON. Throws InputError keyed "sizes[12]" and the like.
TorchTimeline readTorchTimeline(std::string_view text);

/// One Headroom consumer group beside PyTorch's categories at the peak.
struct TimelineRow
{
    std::string label;            ///< "activations (+ attention scores, logits)"
    std::uint64_t measured = 0;   ///< PyTorch's categories summed
    std::uint64_t estimated = 0;  ///< the estimate's consumers at its peak, summed
    std::string hint;             ///< what moves it
    /// The estimate's consumers the row's categories stand beside (the one mapping: the window's
    /// Breakdown view shows the row on these consumers).
    std::vector<ConsumerId> consumers;
};
/// The categories at the timeline's peak beside the estimate's peak composition; the rows in the
/// order of the largest difference first.
std::vector<TimelineRow> compareTimeline(const TorchTimeline &timeline, const Estimate &estimate);

} // namespace headroom
