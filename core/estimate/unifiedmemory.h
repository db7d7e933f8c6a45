// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Unified memory (Apple M-series, DGX Spark, AMD Ryzen AI Max): the GPU and the CPU draw on one
// pool, the machine's RAM. The GPU sees a share of it (Metal's recommendedMaxWorkingSetSize, by
// default about 2/3 or 3/4 of RAM, raised with `sysctl iogpu.wired_limit_mb`; the BIOS carve-out
// or GTT size on AMD; CUDA's total on the Spark); docs/serving.md, "Unified memory".

#include "estimate/estimate.h"
#include "scenario/catalog.h"
#include "scenario/scenario.h"

#include <optional>

namespace headroom {

/// What a GPU can hold: for a unified GPU the wired limit when the scenario sets one
/// (host.wired_limit_mb), else the catalog capacity.
std::uint64_t gpuVisibleBytes(const Scenario &s, const Gpu &gpu);

/// The pool of the scenario's first GPU when it is unified; nullopt otherwise.
std::optional<UnifiedPool> unifiedPool(const Scenario &s, const Estimate &e, const Catalog &catalog);

/// Sets e.unified and judges the GPU against the pool (a pool over the RAM does not fit).
void applyUnifiedPool(const Scenario &s, Estimate &e, const Catalog &catalog);

} // namespace headroom
