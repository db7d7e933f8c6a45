// SPDX-License-Identifier: GPL-3.0-or-later
// Estimator speed for a full training scenario, with and without the formula strings, and a
// 256-point sweep of its sequence length.
#include "benchutil.h"
#include "estimate/estimate.h"
#include "scenario/scenariojson.h"
#include "solve/sweep.h"

using namespace headroom;

int main()
{
    const Scenario scenario = parseScenario(R"({
        "format": "headroom-scenario", "version": 1,
        "model": {"preset": "llama-3-8b"},
        "task": "train",
        "train": {"method": "lora", "micro_batch": 4, "seq_len": 4096, "grad_accum": 8,
                  "gradient_checkpointing": "selective",
                  "lora": {"rank": 16, "targets": ["q", "k", "v", "o", "gate", "up", "down"]}},
        "kernels": {"attention": "eager", "loss": "chunked"},
        "gpus": ["t4", "rtx-4090", "a100-80gb", "h100-80gb"]})");
    std::uint64_t sink = 0;
    bench::measure("estimate_with_formulas", 200, 5000, [&] {
        sink += estimate(scenario, Detail::Formulas).peak.deviceBytes;
    });
    bench::measure("estimate_bytes_only", 2000, 50000, [&] {
        sink += estimate(scenario, Detail::BytesOnly).peak.deviceBytes;
    });
    std::vector<std::uint32_t> values;
    for (std::uint32_t i = 1; i <= 256; ++i)
        values.push_back(i * 128); // 128 to 32,768 tokens
    bench::measure("sweep_256_points", 5, 200, [&] {
        sink += sweep(scenario, SweepAxis::SeqLen, values).points.back().estimate.peak.deviceBytes;
    });
    // The sum keeps the estimates from being optimized away; 0 only if every peak was 0.
    return sink == 0 ? 1 : 0;
}
