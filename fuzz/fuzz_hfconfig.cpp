// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face config.json files, as --model-config and File > Import model read them: the
// architecture, its parameter count, and what each layer kind caches.
#include "model/architecture.h"
#include "serving/kvcache.h"
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const HfImport import = importHfConfig(fuzz::text(data, size));
        countParams(import.arch);
        Scenario s;
        s.task = Task::Inference;
        s.model = import.arch;
        const KvLayout layout = kvLayout(s);
        kvBytesPerToken(layout);
        stateBytesPerSequence(layout);
        kvCacheBytes(layout, 4, 4096);
    });
    return 0;
}
