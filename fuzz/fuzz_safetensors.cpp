// SPDX-License-Identifier: GPL-3.0-or-later
// A .safetensors file's first bytes: the 8-byte header length, the JSON header and (for the
// offsets to be checked against) the data after it; then the summary of that one shard.
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    const std::string_view file = fuzz::text(data, size);
    fuzz::check([&] {
        const std::uint64_t length = safetensorsHeaderLength(file, file.size());
        SafetensorsShard shard{"model.safetensors", file.size(),
                               parseSafetensorsHeader(file.substr(8, length), file.size())};
        summarizeSafetensors({shard});
    });
    return 0;
}
