// SPDX-License-Identifier: GPL-3.0-or-later
// Python pickles as the restricted reader takes them (memory snapshots): the JSON it gives, then
// the snapshot's sums over it.
#include "fuzzcommon.h"
#include "io/pickle.h"
#include "measure/torchsnapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const nlohmann::json value = readPickle(fuzz::text(data, size));
        (void)summarizeSnapshot(value);
    });
    return 0;
}
