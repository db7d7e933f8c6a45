// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracy/errorband.h"

#include <array>
#include <cstring>

namespace headroom {

namespace {

// 80th percentile of |estimate - measured| / measured over the HELD-OUT cases of
// tests/data/measured with that method and reading, rounded up to a whole percent, and the
// number of cases. Regenerate with `headroom validate tests/data/measured --format json`
// (error_bands) after any estimator or case change; tst_validation fails while it is stale.
constexpr ErrorBand kBands[] = {
    {"full", "allocated", 6, 9},
    {"full", "reserved", 16, 11},
    {"full", "device", 4, 1},
    {"lora", "allocated", 5, 11},
    {"lora", "reserved", 21, 5},
    {"qlora", "allocated", 13, 9},
    {"qlora", "reserved", 34, 4},
    {"qlora", "device", 42, 1},
    {"inference", "allocated", 4, 14},
};

} // namespace

std::span<const ErrorBand> errorBands() { return kBands; }

std::vector<ErrorBand> errorBandsFor(const Scenario &scenario)
{
    static const char *const kMethods[] = {"full", "lora", "qlora", "inference"};
    // Each method's bands, in reading order, found once (every estimate asks).
    static const std::array<std::vector<ErrorBand>, 4> kByMethod = [] {
        std::array<std::vector<ErrorBand>, 4> out;
        for (std::size_t m = 0; m < out.size(); ++m)
            for (const char *reading : {"allocated", "reserved", "device"})
                for (const ErrorBand &band : kBands)
                    if (std::strcmp(band.method, kMethods[m]) == 0 && std::strcmp(band.reading, reading) == 0 &&
                        band.cases >= kMinBandCases)
                        out[m].push_back(band);
        return out;
    }();
    const std::size_t method = scenario.task != Task::Train           ? 3
                               : scenario.train.method == Method::Full ? 0
                               : scenario.train.method == Method::Lora ? 1
                                                                       : 2;
    return kByMethod[method];
}

int errorBandPercent(const Scenario &scenario)
{
    const std::vector<ErrorBand> bands = errorBandsFor(scenario);
    return bands.empty() ? 0 : bands.front().percent;
}

} // namespace headroom
