// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face config.json files, as --model-config and File > Import model read them: the
// architecture, its parameter count, what each layer kind caches, and the name the import gives
// it (from _name_or_path or the folder), which must be a valid model.name.
#include "model/architecture.h"
#include "model/modelname.h"
#include "serving/kvcache.h"
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const std::string name = importedModelName(
            parseStrictJson(pythonJsonToJson(fuzz::text(data, size)), {limits::kConfigBytes * 2, limits::kJsonDepth}),
            "/hub/models--org--name/snapshots/rev/config.json");
        if (!modelNameProblem(name).empty() || name.size() > 4 * limits::kQuoteChars) {
            std::fprintf(stderr, "an imported name that model.name refuses: %.300s\n", name.c_str());
            std::abort();
        }
    });
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
