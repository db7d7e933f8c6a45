// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/checked.h"
#include "scenario/scenario.h"

#include <cstdint>

namespace headroom {

/// Allocator slack on top of `allocatedBytes`: reserved - allocated. OverflowError past 2^64.
inline std::uint64_t fragmentationBytes(std::uint64_t allocatedBytes, const Scenario &scenario)
{
    return roundedBytes(static_cast<double>(allocatedBytes) * scenario.overhead.fragmentation,
                        "fragmentation");
}

/// The CUDA context outside PyTorch's allocator.
inline std::uint64_t cudaContextBytes(const Scenario &scenario)
{
    return roundedBytes(scenario.overhead.cudaContextMiB * 1048576.0, "CUDA context");
}

} // namespace headroom
