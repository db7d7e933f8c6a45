// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face config.json files, as --model-config and File > Import model read them.
#include "model/architecture.h"
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const HfImport import = importHfConfig(fuzz::text(data, size));
        countParams(import.arch);
    });
    return 0;
}
