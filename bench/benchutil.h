// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace headroom::bench {

/// The sample at quantile q (nearest rank) of sorted samples.
inline double quantile(const std::vector<double> &sorted, double q)
{
    return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * double(sorted.size())))];
}

/// Prints "BENCH <name> p50=<v><unit> p95=<v><unit>" for durations in nanoseconds, in ns, us or
/// ms by the size of p95. The only thing a benchmark prints on stdout.
inline void reportTimes(const char *name, std::vector<double> nanoseconds)
{
    if (nanoseconds.empty())
        return;
    std::sort(nanoseconds.begin(), nanoseconds.end());
    const double p50 = quantile(nanoseconds, 0.50), p95 = quantile(nanoseconds, 0.95);
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

/// Prints "BENCH <name> p50=<v>MiB p95=<v>MiB" for sizes in bytes.
inline void reportBytes(const char *name, std::vector<double> bytes)
{
    if (bytes.empty())
        return;
    std::sort(bytes.begin(), bytes.end());
    std::printf("BENCH %s p50=%.1fMiB p95=%.1fMiB\n", name, quantile(bytes, 0.50) / 1048576.0,
                quantile(bytes, 0.95) / 1048576.0);
    std::fflush(stdout);
}

/// Runs `body` `warmup` times unmeasured, then `runs` times, and reports the durations.
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
    reportTimes(name, std::move(samples));
}

} // namespace headroom::bench
