// SPDX-License-Identifier: GPL-3.0-or-later
// The probe's measurement files (resources/headroom_probe.py) as `headroom compare` reads them:
// the readings, the scenario the facts state, its estimate and the phase comparison.
#include "estimate/estimate.h"
#include "fuzzcommon.h"
#include "measure/probefile.h"
#include "scenario/scenariojson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const ProbeFile probe = readProbeFile(fuzz::text(data, size));
        const LogScenario s = scenarioFromProbe(probe, {"", "h100-80gb"});
        if (s.missing.empty())
            (void)compareProbe(probe, estimate(scenarioFromJson(s.document), Detail::BytesOnly));
    });
    return 0;
}
