// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// torch.cuda.memory._snapshot() (what _dump_snapshot() pickles and pytorch.org/memory_viz reads),
// summed for one device: the caching allocator's segments and blocks at the moment of the
// snapshot, and, where the snapshot carries its allocation trace, the peak of allocated memory
// over the trace's window. The pickle is read by the restricted reader (io/pickle.h).

#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct TorchSnapshotSummary
{
    int device = 0;
    std::uint64_t segments = 0;
    std::uint64_t expandableSegments = 0;
    std::uint64_t blocks = 0;
    std::uint64_t reservedBytes = 0;  ///< sum of the segments' total_size
    std::uint64_t allocatedBytes = 0; ///< sum of allocated_size (blocks in use)
    std::uint64_t activeBytes = 0;    ///< sum of active_size (in use or waiting for a stream)
    std::uint64_t largestFreeBlock = 0; ///< the largest inactive block: the biggest allocation that fits without a new segment
    /// Over the trace's window: the highest allocated bytes (the snapshot's allocated less what
    /// the later trace entries added), its entry, and the entries read.
    std::optional<std::uint64_t> tracePeakAllocatedBytes;
    std::size_t tracePeakEntry = 0;
    std::size_t traceEntries = 0;
    std::uint64_t traceOoms = 0;
};

/// Sums the snapshot for `device` (-1: the device of the first segment, else 0). Throws
/// InputError naming the key ("segments[3].total_size") of anything not a snapshot's.
TorchSnapshotSummary summarizeSnapshot(const nlohmann::json &snapshot, int device = -1);

} // namespace headroom
