// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "checked.h"
#include "scenario.h"

#include <cmath>
#include <cstdint>

namespace headroom {

/// Allocator slack on top of `allocatedBytes`: reserved - allocated.
inline std::uint64_t fragmentationBytes(std::uint64_t allocatedBytes, const Scenario &scenario)
{
    const double value = static_cast<double>(allocatedBytes) * scenario.overhead.fragmentation;
    if (!(value < 1.8e19))
        throw OverflowError("fragmentation");
    return static_cast<std::uint64_t>(std::llround(value));
}

/// The CUDA context outside PyTorch's allocator.
inline std::uint64_t cudaContextBytes(const Scenario &scenario)
{
    return static_cast<std::uint64_t>(std::llround(scenario.overhead.cudaContextMiB * 1048576.0));
}

} // namespace headroom
