// SPDX-License-Identifier: GPL-3.0-or-later
// The exact solvers at the speed a slider needs: a full set of limits (every variable that
// applies) for 8 GPUs, as the capacity lines and the Solve panel redraw them.
#include "benchutil.h"
#include "scenario/scenariojson.h"
#include "solve/solver.h"

#include <cstdio>

using namespace headroom;

namespace {

const std::vector<std::string> kGpus{"t4", "rtx-3090", "rtx-4090", "rtx-5090", "l40s", "a100-40gb", "a100-80gb", "h100-80gb"};

Scenario scenario(const char *text) { return parseScenario(text); }

/// Every limit but min-gpus, for every GPU.
std::size_t fullSet(const Scenario &s)
{
    std::size_t answers = 0;
    for (SolveFor what : applicableSolves(s))
        if (what != SolveFor::MinGpus)
            answers += solveForGpus(s, what, kGpus).size();
    return answers;
}

} // namespace

int main()
{
    const Scenario lora = scenario(R"({"format": "headroom-scenario", "version": 1, "model": {"preset": "llama-3-8b"},
        "train": {"method": "lora", "micro_batch": 2, "seq_len": 2048, "gradient_checkpointing": "full"},
        "kernels": {"attention": "flash"}})");
    const Scenario vllm = scenario(R"({"format": "headroom-scenario", "version": 1, "task": "inference",
        "model": {"preset": "llama-3-8b"}, "gpus": ["rtx-4090"], "serving": {"engine": "vllm", "max_model_len": 8192,
        "requests": {"concurrency": 16, "prompt_tokens": 2000, "output_tokens": 500}}})");
    const Scenario full = scenario(R"({"format": "headroom-scenario", "version": 1, "model": {"preset": "llama-3-8b"},
        "parallel": {"gpus": 2, "strategy": "zero3"}})");
    std::size_t sink = 0;
    bench::measure("solve_limits_8gpus", 5, 200, [&] { sink += fullSet(lora); });
    bench::measure("solve_limits_8gpus_vllm", 5, 200, [&] { sink += fullSet(vllm); });
    bench::measure("solve_min_gpus_8gpus", 2, 50, [&] {
        for (const std::string &gpu : kGpus)
            sink += solve(full, SolveFor::MinGpus, gpu).value;
    });
    std::printf("# %zu answers\n", sink);
    return 0;
}
