// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom fits`: the whole catalog x 7 GGUF file types planned for llama.cpp on an RTX 4090
// (each plan a handful of estimates). Goal (issue 25): <= 100 ms.
#include "benchutil.h"
#include "serving/llamacppfits.h"

#include <cstdio>

using namespace headroom;

int main()
{
    LlamaFitsOptions options;
    options.gpu = "rtx-4090";
    options.ramGiB = 64;
    std::size_t rows = 0;
    bench::measure("fits_catalog_llama_cpp", 1, 10, [&] { rows = llamaFitsMatrix(builtinCatalog(), options).size(); });
    if (rows != builtinCatalog().models.size() * llamaFitsFormats().size()) {
        std::fprintf(stderr, "bench_fits: %zu rows\n", rows);
        return 1;
    }
    return 0;
}
