// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace headroom::bench {

/// Runs `body` `warmup` times unmeasured, then `runs` times, and prints
/// "BENCH <name> p50=<v><unit> p95=<v><unit>".
template <typename Body>
void measure(const char *name, int warmup, int runs, Body body)
{
    for (int i = 0; i < warmup; ++i)
        body();
    std::vector<double> samples;
    samples.reserve(static_cast<std::size_t>(runs));
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        body();
        const auto stop = std::chrono::steady_clock::now();
        samples.push_back(std::chrono::duration<double, std::nano>(stop - start).count());
    }
    std::sort(samples.begin(), samples.end());
    const auto at = [&](double q) {
        return samples[std::min(samples.size() - 1, static_cast<std::size_t>(q * samples.size()))];
    };
    const double p50 = at(0.50), p95 = at(0.95);
    const char *unit = "ns";
    double scale = 1;
    if (p95 >= 1e6) {
        unit = "ms";
        scale = 1e6;
    } else if (p95 >= 1e4) {
        unit = "us";
        scale = 1e3;
    }
    std::printf("BENCH %s p50=%.2f%s p95=%.2f%s\n", name, p50 / scale, unit, p95 / scale, unit);
    std::fflush(stdout);
}

} // namespace headroom::bench
