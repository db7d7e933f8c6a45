// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// torch.cuda.memory_summary()'s table, as PyTorch prints it (torch/cuda/memory.py): the
// allocator's current and peak allocated, active, requested, reserved and non-releasable
// memory of one device. PyTorch floors every size to the unit it prints ("KB" .. "PB" up to
// 2.0, "KiB" .. "PiB" after; both are powers of 1024), so each figure carries that resolution.

#include "io/inputpolicy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One size row of the table ("Allocated memory": the whole pool, not the large/small split).
struct TorchSummaryRow
{
    std::string key;   ///< "allocated", "active", "requested", "reserved", "non_releasable"
    std::string label; ///< as printed: "Allocated memory"
    double current = 0, peak = 0, allocated = 0, freed = 0; ///< bytes, floored by PyTorch
    double resolution = 1; ///< bytes of the unit the peak was printed in
    std::size_t line = 0;
};

struct TorchMemorySummary
{
    int device = 0;
    std::uint64_t ooms = 0;
    std::uint64_t mallocRetries = 0;
    std::vector<TorchSummaryRow> rows;
    std::size_t lines = 0;
    const TorchSummaryRow *row(std::string_view key) const;
};

/// True when the text holds the summary's title line.
bool looksLikeTorchMemorySummary(std::string_view text);

/// Reads the table. Throws InputError keyed "line N": no title, a size row cut off or with a
/// unit PyTorch does not print, no "Allocated memory" or "GPU reserved memory" row.
TorchMemorySummary readTorchMemorySummary(std::string_view text);

} // namespace headroom
