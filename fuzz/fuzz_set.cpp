// SPDX-License-Identifier: GPL-3.0-or-later
// `--set key.path=value`, one assignment per line, applied to a scenario that is then read and
// estimated as `headroom estimate FILE --set ...` does.
#include "estimate/estimate.h"
#include "fuzzcommon.h"
#include "scenario/scenariojson.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        nlohmann::json doc = {{"format", "headroom-scenario"},
                              {"version", 1},
                              {"model", {{"preset", "llama-2-7b"}}},
                              {"train", {{"method", "lora"}}}};
        std::string_view rest = fuzz::text(data, size);
        while (!rest.empty()) {
            const auto newline = rest.find('\n');
            applyOverride(doc, rest.substr(0, newline));
            rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
        }
        estimate(scenarioFromJson(doc));
    });
    return 0;
}
