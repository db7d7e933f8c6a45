// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// NCCL's device memory per communicator actually used, with NCCL 2.22+ defaults on an NVLink
/// node: about 200 MiB allocated when the communicator is created (per-channel structures at
/// cuMem's 2 MiB granularity) and 24 ring channels x 12 MiB (a 10 MiB receive buffer of the LL,
/// LL128 and Simple protocols, a 2 MiB send side) the first time a collective runs.
/// docs/estimator.md "NCCL communicators" gives the sources and what moves it.
inline constexpr double kNcclCommunicatorMiB = 512;

/// The process groups of more than one rank a rank of the scenario talks in ("data", "tensor",
/// "pipeline", "context", "expert"): each is one NCCL communicator. Serving engines (vLLM,
/// SGLang, llama.cpp) count their own communication memory and get none here.
std::vector<std::string> ncclCommunicators(const Scenario &scenario);

/// NCCL's buffers on one rank (none under a serving engine): overhead.nccl_mib when given, else kNcclCommunicatorMiB per
/// communicator. Device memory only: nvidia-smi shows it, max_memory_reserved() does not.
std::uint64_t ncclBytes(const Scenario &scenario);

/// "2 communicators (data, tensor) x 512 MiB" or "1,024 MiB (overhead.nccl_mib)".
std::string ncclExpression(const Scenario &scenario);

} // namespace headroom
