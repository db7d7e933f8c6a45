// SPDX-License-Identifier: GPL-3.0-or-later
// "What fits my machine" for vLLM and SGLang: the row is the engine's serving estimate
// (servingvllm.cpp vllmPhases, servingsglang.cpp sglangPhases) for --concurrency requests of
// --context tokens, with max_model_len (SGLang --context-length) the context and max_num_seqs
// (SGLang --max-running-requests) the concurrency. No expert offload: both keep every weight on
// the GPU.
#include "serving/machinefits.h"

#include "estimate/estimate.h"
#include "estimate/verdict.h"
#include "scenario/names.h"

namespace headroom::detail {

bool fitsWith(const Scenario &s, Engine engine, std::uint64_t targetBytes, Estimate *out);

FitsRow servingFitsRow(const Scenario &base, const ModelPreset &preset, const FitsFormat &format,
                       const FitsOptions &options)
{
    FitsRow row;
    row.engine = options.engine;
    row.model = preset.id;
    row.format = format;
    row.maxPositions = std::uint32_t(std::max(1, preset.arch.maxPositions));
    row.context = std::min(options.context, row.maxPositions);
    row.concurrency = std::min(options.concurrency, kFitsMaxSeqs);
    row.concurrencyCap = kFitsMaxSeqs;
    row.nGpuLayers = base.model.layers + 1;
    Scenario s = base;
    s.precision.weights = format.weights;
    if (format.checkpoint && preset.storedWeights) {
        // The released checkpoint as stored (DeepSeek-V3's fp8 blocks, gpt-oss's mxfp4 experts).
        s.precision.fp8Scales = preset.storedScales;
        s.precision.quantized = preset.storedModules;
    }
    ServingConfig serving;
    serving.engine = options.engine;
    s.serving = serving;
    row.scenario = s;
    row.scenario = fitsScenarioAt(row, row.context, row.concurrency);

    Estimate e;
    row.fits = fitsWith(row.scenario, row.engine, 0, &e);
    const ServingFigures &f = *e.serving;
    row.weightBytes = f.weightsBytes;
    const Gpu *gpu = targetGpu(row.scenario);
    for (const GpuFit &g : e.gpus)
        if (gpu && g.id == gpu->id) {
            row.capacityBytes = g.capacityBytes;
            row.peakBytes = g.headroomBytes >= 0 ? g.capacityBytes - std::uint64_t(g.headroomBytes)
                                                 : g.capacityBytes + std::uint64_t(-g.headroomBytes);
        }
    row.hostBytes = e.hostMachine.perGpuBytes ? e.hostMachine.perGpuBytes : e.hostBytes;
    if (!f.startsOk)
        row.verdict = "does not fit";
    else if (!f.requestsFit)
        row.verdict = "fewer sequences fit";
    else if (!e.hostMachine.fits)
        row.verdict = "does not fit the RAM";
    else if (!row.fits)
        row.verdict = "does not fit";
    else
        row.verdict = "fits";
    const bool vllm = row.engine == Engine::Vllm;
    row.flags.push_back((vllm ? "--max-model-len " : "--context-length ") + std::to_string(row.context));
    row.flags.push_back((vllm ? "--max-num-seqs " : "--max-running-requests ") + std::to_string(row.concurrency));
    if (!format.checkpoint && format.weights == DType::FP8)
        row.flags.push_back("--quantization fp8"); // online fp8 of a 16-bit checkpoint
    return row;
}

} // namespace headroom::detail
