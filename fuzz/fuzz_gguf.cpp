// SPDX-License-Identifier: GPL-3.0-or-later
// A GGUF file whole (header, metadata, tensor infos and data), then its summary and the
// architecture its metadata gives. Seeds: fuzz/seeds/gguf (written by fuzz/seeds/gguf/make_seeds.py).
#include "fuzzcommon.h"
#include "io/gguf.h"
#include "io/ggufarch.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    const std::string_view file = fuzz::text(data, size);
    fuzz::check([&] {
        try {
            GgufShard shard{"model.gguf", file.size(), parseGgufHeader(file, file.size())};
            const GgufModel model = summarizeGguf({shard});
            ggufArchitecture(model);
        } catch (const GgufNeedMore &) {
            std::abort(); // the whole file was given: the header cannot go on past it
        }
    });
    return 0;
}
