// SPDX-License-Identifier: GPL-3.0-or-later
#include "errorband.h"

#include <cstring>

namespace headroom {

namespace {

// 80th percentile of |estimate - measured| / measured over every case of tests/data/measured
// with that method, rounded up to a whole percent. Regenerate with `headroom validate
// tests/data/measured --format json` (by_method_p80) after any estimator or case change.
constexpr ErrorBand kBands[] = {
    {"full", 8, 21},
    {"lora", 12, 35},
    {"qlora", 20, 17},
    {"inference", 5, 38},
};

} // namespace

std::span<const ErrorBand> errorBands() { return kBands; }

int errorBandPercent(const Scenario &scenario)
{
    const char *method = "inference";
    if (scenario.task == Task::Train)
        method = scenario.train.method == Method::Full ? "full"
                 : scenario.train.method == Method::Lora ? "lora"
                                                         : "qlora";
    for (const ErrorBand &band : kBands)
        if (std::strcmp(band.method, method) == 0)
            return band.percent;
    return 0;
}

} // namespace headroom
