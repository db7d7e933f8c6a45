// SPDX-License-Identifier: GPL-3.0-or-later
// torch.cuda.memory_summary() tables and torch.profiler's exported memory timelines, as
// `headroom compare` reads them.
#include "fuzzcommon.h"
#include "measure/torchsummary.h"
#include "measure/torchtimeline.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] { (void)readTorchMemorySummary(fuzz::text(data, size)); });
    fuzz::check([&] { (void)readTorchTimeline(fuzz::text(data, size)); });
    return 0;
}
