// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/servingollama.h"

#include "scenario/catalog.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "scenario/units.h"

#include <algorithm>
#include <string>

namespace headroom {

namespace {

constexpr std::uint64_t kGiB = 1ull << 30, kMiB = 1ull << 20;

std::string n(std::uint64_t v) { return std::to_string(v); }

bool isMetal(const Gpu &gpu) { return gpu.vendor == "apple"; }

} // namespace

std::string ollamaFamily(const std::string &modelType)
{
    // GGUF's general.architecture, which Ollama keeps as the model family: the config.json
    // model_type without its underscores for the Qwen and LFM families (convert/convert_*.go).
    if (modelType.rfind("qwen", 0) == 0 || modelType.rfind("lfm", 0) == 0) {
        std::string out;
        for (char ch : modelType)
            if (ch != '_')
                out += ch;
        return out;
    }
    return modelType;
}

bool ollamaServesOneAtATime(const std::string &family)
{
    // server/sched.go: "Some architectures are not safe with num_parallel > 1" (ollama#4165).
    static const char *const families[] = {"mllama",  "qwen3vl", "qwen3vlmoe",     "qwen35",         "qwen35moe",
                                           "qwen3next", "lfm2",  "lfm2moe",        "nemotron_h",     "nemotron_h_moe",
                                           "nemotron_h_omni"};
    return std::find(std::begin(families), std::end(families), family) != std::end(families);
}

std::uint32_t ollamaDefaultNumCtx(std::uint64_t totalVramBytes)
{
    if (totalVramBytes >= 47 * kGiB)
        return 262144;
    if (totalVramBytes >= 23 * kGiB)
        return 32768;
    return 4096;
}

std::uint32_t ollamaGenerationBatch(std::uint64_t contextTokens, bool flashAttn, bool cuda, std::uint64_t smallestGpuBytes)
{
    if (!flashAttn && cuda) // constrainedCUDAWithoutFlashAttention
        return contextTokens > 4096 && smallestGpuBytes <= 8 * kGiB ? 256 : 512;
    if (contextTokens > 32768)
        return 2048;
    if (contextTokens > 4096)
        return 1024;
    return 512;
}

std::uint64_t ollamaGpuReserve(const Gpu &gpu, std::uint64_t gpuOverheadBytes)
{
    return (isMetal(gpu) ? 512 * kMiB : 457 * kMiB) + gpuOverheadBytes;
}

std::uint64_t ollamaTotalMemory(const Gpu &gpu)
{
    return isMetal(gpu) ? gpu.capacityBytes() : cudaTotalBytes(gpu.id, gpu.capacityBytes());
}

void applyOllama(ServingConfig &cfg, const Scenario &s, const Catalog &catalog)
{
    OllamaConfig &o = *cfg.ollama;
    o.notes.clear();
    std::vector<const Gpu *> gpus;
    for (const std::string &id : s.gpus)
        if (const Gpu *g = catalog.findGpu(id))
            gpus.push_back(g);
    if (gpus.empty())
        throw ScenarioError("gpus", "Ollama's defaults need a catalog GPU (or a size such as 24gib)");
    bool metal = false, cuda = false, integrated = false;
    std::uint64_t totalVram = 0, smallest = ~0ull;
    for (const Gpu *g : gpus) {
        const std::uint64_t total = ollamaTotalMemory(*g);
        totalVram += total > o.gpuOverheadBytes ? total - o.gpuOverheadBytes : 0;
        smallest = std::min(smallest, total);
        metal = metal || isMetal(*g);
        cuda = cuda || g->vendor == "nvidia";
        integrated = integrated || (g->unified && !isMetal(*g));
    }

    // num_ctx: the option, else the default by total VRAM; at least 4 (Scheduler.getRunner), at
    // most the model's training context (llm/server.go NewLlamaServer: "requested context size too
    // large for model").
    const std::uint32_t asked = o.numCtx ? *o.numCtx : ollamaDefaultNumCtx(totalVram);
    const std::uint32_t train = std::uint32_t(std::max(1, s.model.maxPositions));
    const std::uint32_t numCtx = std::min(std::max<std::uint32_t>(asked, 4), train);
    o.notes.push_back(o.numCtx ? "num_ctx " + n(*o.numCtx) + " (given)"
                               : "num_ctx " + n(asked) + ": Ollama's default for " + formatBytes(totalVram, Unit::GiB) +
                                     " of GPU memory (server/routes.go: 262,144 from 47 GiB, 32,768 from 23 GiB, else 4,096)");
    if (numCtx != asked)
        o.notes.push_back("num_ctx " + n(asked) + " is past the model's context; Ollama uses " + n(numCtx));
    // llama-server -c num_ctx x num_parallel -np num_parallel (llm/llama_server.go StartRunner).
    // Ollama runs one sequence at a time for some architectures whatever OLLAMA_NUM_PARALLEL says
    // (server/sched.go, "model architecture does not currently support parallel requests"); the
    // family is known for a catalog preset (its config.json model_type, Ollama's name without
    // the underscores).
    const ModelPreset *preset = s.model.preset.empty() ? nullptr : catalog.findModel(s.model.preset);
    const std::string family = preset ? ollamaFamily(preset->family) : std::string();
    cfg.nParallel = o.numParallel;
    if (o.numParallel != 1 && ollamaServesOneAtATime(family)) {
        cfg.nParallel = 1;
        o.notes.push_back("num_parallel " + n(o.numParallel) + " -> 1: Ollama does not run parallel requests on " +
                          family + " (server/sched.go)");
    }
    cfg.nCtx = numCtx * cfg.nParallel;
    o.notes.push_back("llama-server -c " + n(cfg.nCtx) + " -np " + n(cfg.nParallel) +
                      (preset ? std::string(" (num_ctx x OLLAMA_NUM_PARALLEL)")
                              : std::string(" (num_ctx x OLLAMA_NUM_PARALLEL; Ollama keeps 1 for mllama, qwen3vl, "
                                            "qwen35, qwen3next, lfm2 and nemotron_h models, which a custom model "
                                            "does not say it is)")));

    // OLLAMA_FLASH_ATTENTION: on or off when set; else auto, which llama.cpp turns on on the
    // devices Ollama lets it (ml.FlashAttentionSupported: every catalog card here).
    cfg.flashAttn = o.flashAttention.value_or(true);
    o.notes.push_back(std::string("--flash-attn ") +
                      (o.flashAttention ? (*o.flashAttention ? "on" : "off") + std::string(" (OLLAMA_FLASH_ATTENTION)")
                                        : "auto (on: OLLAMA_FLASH_ATTENTION unset)"));
    cfg.cacheTypeK = cfg.cacheTypeV = o.kvCacheType;
    const bool quantizedV = o.kvCacheType != EngineKvType::F16 && o.kvCacheType != EngineKvType::F32 &&
                            o.kvCacheType != EngineKvType::Bf16;
    if (quantizedV && !cfg.flashAttn)
        throw ScenarioError("serving.kv_cache_type", "a quantized cache needs flash attention (llama.cpp refuses to start)");

    // -b and -ub: num_batch, else Ollama's automatic batch for the context llama-server gets.
    const std::uint32_t batch = o.numBatch ? *o.numBatch : ollamaGenerationBatch(cfg.nCtx, cfg.flashAttn, cuda, smallest);
    cfg.nBatch = cfg.nUbatch = batch;
    if (!o.numBatch)
        o.notes.push_back("-b " + n(batch) + " -ub " + n(batch) +
                          ": Ollama's automatic batch for " + n(cfg.nCtx) +
                          " tokens (server/sched.go automaticGenerationBatch; it steps down when its own VRAM "
                          "prediction leaves too little room, which is not modelled)");

    // num_gpu: -ngl N when given (0: the CPU alone); absent, llama-server places the layers itself
    // (its --fit): modelled as every layer, `headroom fit` gives the plan when that does not fit.
    const std::int32_t numGpu = o.numGpu.value_or(-1);
    cfg.nGpuLayers = numGpu < 0 ? -1 : numGpu;
    o.notes.push_back(numGpu < 0 ? "num_gpu unset: no -ngl, llama-server fits the layers itself; every layer is "
                                   "offloaded here (headroom fit gives llama.cpp's plan when that does not fit)"
                                 : "-ngl " + n(std::uint64_t(numGpu)) + " (num_gpu)");

    // Several GPUs: llama-server's default split by free memory; main_gpu: --split-mode none.
    cfg.tensorSplit.clear();
    cfg.splitMode = LlamaSplitMode::Layer;
    cfg.mainGpu = 0;
    if (gpus.size() > 1)
        cfg.tensorSplit.assign(s.gpus.size(), 0.0);
    if (o.mainGpu) {
        if (*o.mainGpu >= s.gpus.size())
            throw ScenarioError("serving.main_gpu", "must be a device of gpus, 0 to " + n(s.gpus.size() - 1));
        if (gpus.size() > 1) {
            cfg.splitMode = LlamaSplitMode::None;
            cfg.mainGpu = *o.mainGpu;
        }
    }

    // The load mode (llm/llama_server.go appendLoadModeArgs, server/sched.go
    // disableMmapDefaultReason): direct I/O for an integrated CUDA/ROCm GPU on Linux; use_mmap
    // when given; else mmap off for the CPU alone and for a partial offload on Metal.
    const std::uint64_t blocks = std::uint64_t(std::max(0, s.model.layers));
    std::string why;
    if (integrated) {
        cfg.loadMode = LlamaLoadMode::Dio;
        why = "an integrated GPU shares system memory: direct I/O, no page-cache copy";
    } else if (o.useMmap) {
        cfg.loadMode = *o.useMmap ? LlamaLoadMode::Mmap : LlamaLoadMode::None;
        why = "use_mmap";
    } else if (numGpu == 0) {
        cfg.loadMode = LlamaLoadMode::None;
        why = "num_gpu 0 (the CPU alone)";
    } else if (metal && numGpu > 0 && std::uint64_t(numGpu) < blocks + 1) {
        cfg.loadMode = LlamaLoadMode::None;
        why = "a partial offload on Metal";
    } else {
        cfg.loadMode = LlamaLoadMode::Mmap;
        why = "Ollama's default on Linux (it turns mmap off on Windows with CUDA and under host memory "
              "pressure, neither modelled)";
    }
    o.notes.push_back(std::string("load mode ") + enumName(cfg.loadMode) + ": " + why);
    std::uint64_t reserve = 0;
    for (const Gpu *g : gpus)
        reserve = std::max(reserve, ollamaGpuReserve(*g, o.gpuOverheadBytes));
    o.notes.push_back("Ollama's scheduler sets aside " + formatBytes(reserve, Unit::GiB) +
                      " per GPU (MinimumMemory + OLLAMA_GPU_OVERHEAD) when it decides whether to evict another model");
}

} // namespace headroom
