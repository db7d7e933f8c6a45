// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "scenario/scenario.h"

namespace headroom {

/// The machine a scenario's GPUs sit in, every figure resolved: `ramGiB` is host.ram_gib, or the
/// catalog machine's RAM where the scenario leaves it at 0 (still 0 when neither says);
/// `gpusPerMachine` is host.gpus_per_machine, or where that is 0 the machine's GPU count (at most
/// parallel.gpus), or without a machine min(parallel.gpus, 8). A machine id the catalog lacks
/// counts as none (the scenario reader refuses one).
HostConfig effectiveHost(const Scenario &scenario, const Catalog &catalog = builtinCatalog());

} // namespace headroom
