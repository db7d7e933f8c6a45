// SPDX-License-Identifier: GPL-3.0-or-later
// Measurement cases, the first-seen ledger and serving-engine start-up logs, as `headroom validate` reads a folder of
// them, through to the estimate each one is compared with.
#include "accuracy/firstseen.h"
#include "accuracy/servingvalidation.h"
#include "accuracy/validation.h"
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    const std::string_view text = fuzz::text(data, size);
    fuzz::check([&] { validateCase(parseMeasurementCase(text, "case.json")); });
    fuzz::check([&] { validateServing({parseServingCase(text, "log.json")}); });
    fuzz::check([&] { parseFirstSeenLedger(text, "first-seen.jsonl"); });
    return 0;
}
