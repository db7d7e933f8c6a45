// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/llamacppdevices.h"

#include <algorithm>

namespace headroom {

std::vector<float> llamaSplitPoints(const std::vector<double> &proportions, const std::vector<std::uint64_t> &freeBytes)
{
    const bool allZero = std::all_of(proportions.begin(), proportions.end(), [](double x) { return x == 0.0; });
    std::vector<float> splits(freeBytes.size(), 0.0f);
    for (std::size_t i = 0; i < splits.size(); ++i)
        splits[i] = allZero ? float(freeBytes[i]) : (i < proportions.size() ? float(proportions[i]) : 0.0f);
    float sum = 0.0f;
    for (float &split : splits) {
        sum += split;
        split = sum;
    }
    for (float &split : splits)
        split = sum > 0.0f ? split / sum : 1.0f;
    return splits;
}

std::vector<int> llamaLayerDevices(std::uint64_t nLayer, std::uint64_t nGpuLayers, const std::vector<float> &points)
{
    const std::int64_t layers = std::int64_t(nLayer);
    const std::int64_t start = std::max<std::int64_t>(layers + 1 - std::int64_t(nGpuLayers), 0); // i_gpu_start
    const std::int64_t active = points.empty() ? 0 : std::min<std::int64_t>(std::int64_t(nGpuLayers), layers + 1);
    std::vector<int> device(std::size_t(layers + 1), -1);
    for (std::int64_t il = 0; il <= layers; ++il) {
        if (il < start || il - start >= active)
            continue;
        const float at = float(il - start) / float(active);
        const auto it = std::upper_bound(points.begin(), points.end(), at);
        // A point rounded below 1 cannot leave a layer past the last device.
        device[std::size_t(il)] = int(std::min<std::ptrdiff_t>(it - points.begin(), std::ptrdiff_t(points.size()) - 1));
    }
    return device;
}

} // namespace headroom
