// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// llama.cpp on several devices (docs/serving.md, "Several devices"): which device holds each
// layer, as src/llama-model.cpp llama_model::load_tensors assigns them from --tensor-split.

#include <cstdint>
#include <vector>

namespace headroom {

/// The split points: the proportions summed and normalised (llama_model::load_tensors, "sum and
/// normalize the splits to get the split points"), in float as llama.cpp keeps them. All zero
/// (or empty) proportions are replaced by `freeBytes`, the default split by free memory.
std::vector<float> llamaSplitPoints(const std::vector<double> &proportions, const std::vector<std::uint64_t> &freeBytes);

/// The device of each layer il = 0..nLayer (nLayer: the output layer), -1 for the CPU:
/// i_gpu_start = max(nLayer + 1 - nGpuLayers, 0), act_gpu_layers = min(nGpuLayers, nLayer + 1),
/// and a GPU layer's device is upper_bound(points, float(il - i_gpu_start) / act_gpu_layers).
std::vector<int> llamaLayerDevices(std::uint64_t nLayer, std::uint64_t nGpuLayers, const std::vector<float> &points);

} // namespace headroom
