// SPDX-License-Identifier: GPL-3.0-or-later
// "What fits my machine" for llama.cpp: every catalog model in every common file type, planned
// on one GPU (and the host RAM) as `headroom fit` plans one (llamacppfit.h).
#pragma once

#include "scenario/catalog.h"
#include "serving/llamacppfit.h"

#include <string>
#include <vector>

namespace headroom {

/// The file types of the matrix: what GGUF repositories publish most.
const std::vector<GgufType> &llamaFitsFormats();

struct LlamaFitsRow
{
    std::string model;   ///< catalog id
    GgufType format = GgufType::Q4_K_M;
    std::uint64_t weightBytes = 0; ///< the file's tensors
    LlamaFitPlan plan;
    /// "fits", "fits, experts in CPU RAM", "partly on the GPU", "does not fit" (the GPU), or
    /// "does not fit the RAM".
    std::string verdict;
};

struct LlamaFitsOptions
{
    std::string gpu;
    double ramGiB = 0;
    std::uint32_t context = 4096;
    std::uint64_t targetBytes = 1024ull * 1024 * 1024;
};

/// Every catalog model x llamaFitsFormats() on `options.gpu`, in catalog order.
std::vector<LlamaFitsRow> llamaFitsMatrix(const Catalog &catalog, const LlamaFitsOptions &options);

} // namespace headroom
