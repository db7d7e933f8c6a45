// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/llamacpphost.h"

#include "scenario/checked.h"

#include <algorithm>
#include <tuple>

namespace headroom {

void sortLlamaFileOrder(std::vector<LlamaFileTensor> &tensors)
{
    // weight_name_comparer compares the block numbers (-1 outside the blocks), then the names;
    // within one block the "blk.N." prefix is common, so the names without it order the same.
    const auto before = [](const LlamaFileTensor &a, const LlamaFileTensor &b) {
        return std::tie(a.layer, a.name) < std::tie(b.layer, b.name);
    };
    std::stable_sort(tensors.begin(), tensors.end(), before);
}

LlamaHostWeights llamaHostWeights(std::vector<LlamaFileTensor> tensors, LlamaLoadMode mode)
{
    sortLlamaFileOrder(tensors);
    return llamaHostWeightsInFileOrder(tensors, mode);
}

LlamaHostWeights llamaHostWeightsInFileOrder(const std::vector<LlamaFileTensor> &tensors, LlamaLoadMode mode)
{
    LlamaHostWeights out;
    out.mode = mode;
    std::uint64_t file = 0;
    for (const LlamaFileTensor &t : tensors) {
        file = addChecked(file, t.bytes, "weights");
        if (t.cpu)
            out.cpuBytes = addChecked(out.cpuBytes, t.bytes, "weights");
    }
    const bool mapped = mode == LlamaLoadMode::Mmap || mode == LlamaLoadMode::MmapMlock;
    if (mapped) {
        // get_mapping_range: the CPU buffer spans the first CPU tensor's offset to the last one's
        // end; load_all_data unmaps [0, first) and [last, size) once every tensor is loaded.
        const auto first = std::find_if(tensors.begin(), tensors.end(), [](const LlamaFileTensor &t) { return t.cpu; });
        const auto last = std::find_if(tensors.rbegin(), tensors.rend(), [](const LlamaFileTensor &t) { return t.cpu; });
        if (first != tensors.end())
            for (auto it = first; it != last.base(); ++it)
                out.mappedBytes = addChecked(out.mappedBytes, it->bytes, "weights");
        out.mappedOffloadedBytes = out.mappedBytes - out.cpuBytes;
        out.loadPageCacheBytes = file;
    } else {
        out.anonymousBytes = out.cpuBytes;
        out.loadPageCacheBytes = mode == LlamaLoadMode::Dio ? 0 : file;
    }
    // mlock: with mmap the lock grows over the mapping up to the last CPU tensor's end
    // (load_all_data, lmlock->grow_to) and the unmapped head leaves it, so the mapped range is
    // pinned, offloaded tensors inside it too; without mmap the CPU buffers are locked
    // (load_tensors: mlock_buf->grow_to(ggml_backend_buffer_get_size(buf))).
    if (mode == LlamaLoadMode::MmapMlock)
        out.lockedBytes = out.mappedBytes;
    else if (mode == LlamaLoadMode::Mlock)
        out.lockedBytes = out.anonymousBytes;
    out.requiredBytes = std::max(out.cpuBytes, out.lockedBytes);
    return out;
}

} // namespace headroom
