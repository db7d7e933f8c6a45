// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// llama.cpp's weights in CPU RAM by load mode (docs/serving.md, "Load mode"): with mmap the
// CPU tensors are the file's pages (src/llama-model.cpp load_tensors: a CPU buffer made from the
// mapping, ggml_backend_dev_buffer_from_host_ptr over [first, last) of its tensors), the rest of
// the mapping is unmapped after the upload (src/llama-model-loader.cpp load_all_data,
// unmap_fragment); without it they are read into anonymous buffers.

#include "serving/serving.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One tensor of the file: its block (-1 outside the blocks), its name without "blk.N.", its
/// bytes, and whether it stays on the CPU.
struct LlamaFileTensor
{
    int layer = -1;
    std::string_view name; ///< a literal or the model's LlamaTensor name (outlives the call)
    std::uint64_t bytes = 0;
    bool cpu = false;
};

/// The weights' share of CPU RAM after load.
struct LlamaHostWeights
{
    LlamaLoadMode mode = LlamaLoadMode::Mmap;
    std::uint64_t cpuBytes = 0;        ///< the tensors that stay on the CPU
    /// mmap: the mapping left after load, from the first CPU tensor to the end of the last in
    /// the file's order (page cache: file-backed, reclaimable); 0 without mmap.
    std::uint64_t mappedBytes = 0;
    std::uint64_t mappedOffloadedBytes = 0; ///< of the mapping, tensors copied to a GPU
    std::uint64_t anonymousBytes = 0;  ///< none/mlock/dio: the CPU tensors in anonymous buffers
    std::uint64_t lockedBytes = 0;     ///< mlock: pinned, never reclaimed or swapped
    /// What must stay resident: the CPU tensors (read every token) and what is locked.
    std::uint64_t requiredBytes = 0;
    /// mmap: the whole file passes through the page cache at load (the mapping is prefetched);
    /// none reads through it as well; dio bypasses it. Reclaimable, not counted in requiredBytes.
    std::uint64_t loadPageCacheBytes = 0;
    bool operator==(const LlamaHostWeights &) const = default;
};

/// The file's tensors in llama-quantize's order (weight_name_comparer: the tensors outside the
/// blocks first, then block by block, by name within each).
void sortLlamaFileOrder(std::vector<LlamaFileTensor> &tensors);

/// The host share of the weights for `tensors` (in any order) under `mode`.
LlamaHostWeights llamaHostWeights(std::vector<LlamaFileTensor> tensors, LlamaLoadMode mode);
/// The same for tensors already in the file's order (llamaWeights gives them so): no copy, no sort.
LlamaHostWeights llamaHostWeightsInFileOrder(const std::vector<LlamaFileTensor> &tensors, LlamaLoadMode mode);

} // namespace headroom
