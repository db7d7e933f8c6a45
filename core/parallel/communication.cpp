// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel/communication.h"

#include "scenario/checked.h"
#include "parallel/parallel.h"
#include "scenario/units.h"

namespace headroom {

namespace {
bool servingEngine(const Scenario &s) { return s.serving && s.serving->engine != Engine::HfGenerate; }
} // namespace

std::vector<std::string> ncclCommunicators(const Scenario &s)
{
    if (s.parallel.gpus <= 1 || servingEngine(s))
        return {};
    const ParallelLayout layout = parallelLayout(s);
    std::vector<std::string> groups;
    // ZeRO/FSDP shard over data x context ranks (one mesh dimension); DDP all-reduces over data.
    if (layout.dataParallel > 1 || (layout.shardLevel != ShardLevel::None && layout.shardGroup() > 1))
        groups.emplace_back("data");
    if (layout.tensor > 1)
        groups.emplace_back("tensor");
    if (layout.pipeline > 1)
        groups.emplace_back("pipeline");
    if (layout.context > 1)
        groups.emplace_back("context");
    if (layout.expert > 1)
        groups.emplace_back("expert");
    return groups;
}

std::uint64_t ncclBytes(const Scenario &s)
{
    if (servingEngine(s))
        return 0;
    if (s.overhead.ncclMiB)
        return roundedBytes(*s.overhead.ncclMiB * 1048576.0, "overhead.nccl_mib");
    return roundedBytes(double(ncclCommunicators(s).size()) * kNcclCommunicatorMiB * 1048576.0, "NCCL buffers");
}

std::string ncclExpression(const Scenario &s)
{
    if (s.overhead.ncclMiB)
        return formatDecimal(*s.overhead.ncclMiB) + " MiB (overhead.nccl_mib)";
    const std::vector<std::string> groups = ncclCommunicators(s);
    std::string names;
    for (const std::string &group : groups)
        names += (names.empty() ? "" : ", ") + group;
    return std::to_string(groups.size()) + (groups.size() == 1 ? " communicator (" : " communicators (") + names +
           ") x " + formatDecimal(kNcclCommunicatorMiB) + " MiB (NCCL buffers)";
}

} // namespace headroom
