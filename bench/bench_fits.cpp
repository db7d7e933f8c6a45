// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom fits`: the whole catalog x its llama.cpp file types planned on an RTX 4090 (each plan
// a handful of estimates), with each row's largest context and concurrency searched. Goal
// (issue 25): <= 100 ms.
#include "benchutil.h"
#include "serving/machinefits.h"

#include <cstdio>

using namespace headroom;

int main()
{
    FitsOptions options;
    options.gpu = "rtx-4090";
    options.ramGiB = 64;
    std::size_t rows = 0;
    bench::measure("fits_catalog_llama_cpp", 1, 10, [&] { rows = fitsMatrix(builtinCatalog(), options).size(); });
    std::size_t expected = 0;
    for (const ModelPreset &preset : builtinCatalog().models)
        expected += fitsFormats(Engine::LlamaCpp, preset).size();
    if (rows != expected) {
        std::fprintf(stderr, "bench_fits: %zu rows, %zu expected\n", rows, expected);
        return 1;
    }
    return 0;
}
