// SPDX-License-Identifier: GPL-3.0-or-later
// model.safetensors.index.json: the weight map and the shard names.
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const SafetensorsIndex index = parseSafetensorsIndex(fuzz::text(data, size));
        if (index.shards.size() > limits::kShards)
            std::abort();
    });
    return 0;
}
