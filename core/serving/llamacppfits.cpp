// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/llamacppfits.h"

#include "model/architecture.h"
#include "serving/llamacppweights.h"

namespace headroom {

const std::vector<GgufType> &llamaFitsFormats()
{
    static const std::vector<GgufType> formats{GgufType::Bf16,   GgufType::Q8_0,   GgufType::Q6_K,
                                               GgufType::Q5_K_M, GgufType::Q4_K_M, GgufType::Q3_K_M,
                                               GgufType::Iq2_M};
    return formats;
}

std::vector<LlamaFitsRow> llamaFitsMatrix(const Catalog &catalog, const LlamaFitsOptions &options)
{
    std::vector<LlamaFitsRow> rows;
    for (const ModelPreset &preset : catalog.models) {
        Scenario s;
        s.task = Task::Inference;
        s.model = preset.arch;
        s.model.preset = preset.id;
        s.gpus = {options.gpu};
        s.host.ramGiB = options.ramGiB;
        ServingConfig serving;
        serving.engine = Engine::LlamaCpp;
        serving.nCtx = std::min<std::uint32_t>(options.context, std::uint32_t(std::max(1, preset.arch.maxPositions)));
        serving.nParallel = 1;
        s.serving = serving;
        s.inference.context = serving.nCtx; // a model with learned positions ends at its last one
        const ParamCounts params = countParams(s.model);
        for (const GgufType format : llamaFitsFormats()) {
            LlamaFitsRow row;
            row.model = preset.id;
            row.format = format;
            s.serving->weightType = format;
            row.weightBytes = llamaWeights(s.model, params, format).totalBytes;
            LlamaFitOptions fit;
            fit.targetBytes = options.targetBytes;
            row.plan = planLlamaFit(s, fit);
            const int all = s.model.layers + 1;
            if (!row.plan.fits)
                row.verdict = "does not fit";
            else if (!row.plan.ramFits)
                row.verdict = "does not fit the RAM";
            else if (row.plan.nGpuLayers < all)
                row.verdict = "partly on the GPU";
            else if (row.plan.nCpuMoe > 0)
                row.verdict = "fits, experts in CPU RAM";
            else
                row.verdict = "fits";
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

} // namespace headroom
