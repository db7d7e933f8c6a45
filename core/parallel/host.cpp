// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel/host.h"

#include <algorithm>

namespace headroom {

HostConfig effectiveHost(const Scenario &scenario, const Catalog &catalog)
{
    HostConfig host = scenario.host;
    const Machine *machine = host.machine.empty() ? nullptr : catalog.findMachine(host.machine);
    const std::uint32_t gpus = std::max<std::uint32_t>(1, scenario.parallel.gpus);
    if (host.ramGiB <= 0)
        host.ramGiB = machine ? machine->ramGiB : 0;
    if (host.gpusPerMachine == 0)
        host.gpusPerMachine = std::min<std::uint32_t>(gpus, machine ? machine->gpus : 8);
    return host;
}

} // namespace headroom
