// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario and comparison files: parsed as `headroom estimate` and the window read them, then
// estimated as every reader of a scenario does.
#include "scenario/documentjson.h"
#include "estimate/estimate.h"
#include "fuzzcommon.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    ScenarioDocument document;
    try {
        document = parseDocument(fuzz::text(data, size));
    } catch (const std::exception &error) {
        fuzz::expectReaderError(error);
        return 0;
    }
    fuzz::check([&] { estimate(document.current); });
    for (const Scenario &pin : document.pins)
        fuzz::check([&] { estimate(pin, Detail::BytesOnly); });
    // What the window saves opens again as the same document (no exception allowed here).
    try {
        if (parseDocument(documentToJson(document).dump()) != document) {
            std::fprintf(stderr, "the document does not read back the same\n");
            std::abort();
        }
    } catch (const std::exception &error) {
        std::fprintf(stderr, "the saved document does not read back: %.300s\n", error.what());
        std::abort();
    }
    return 0;
}
