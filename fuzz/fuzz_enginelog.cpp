// SPDX-License-Identifier: GPL-3.0-or-later
// Serving-engine start-up logs (vLLM, SGLang, TensorRT-LLM, llama.cpp), as `headroom compare`
// reads them, through to the scenario they state, its estimate and the comparison.
#include "estimate/estimate.h"
#include "fuzzcommon.h"
#include "measure/enginelog.h"
#include "measure/logcompare.h"
#include "scenario/scenariojson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const EngineLog log = readEngineLog(fuzz::text(data, size));
        const LogScenario fromLog = scenarioFromLog(log, {"llama-3.1-8b", "rtx-4090"});
        Estimate e;
        if (fromLog.missing.empty())
            e = estimate(scenarioFromJson(fromLog.document), Detail::BytesOnly);
        const LogComparison comparison = compareLog(log, e);
        (void)logComparisonToJson(log, comparison, fromLog.document).dump();
    });
    return 0;
}
