// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Ollama as an engine name: it starts llama.cpp's llama-server (llm/llama_server.go,
// StartRunner's flags), so its settings map onto the llama.cpp model (docs/serving.md, "Ollama",
// read in ollama/ollama at fb30760, August 2026).

#include "scenario/catalog.h"
#include "scenario/scenario.h"

#include <cstdint>
#include <string>

namespace headroom {

/// Ollama's default num_ctx (server/routes.go, Serve: "vram-based default context"): the GPUs'
/// total memory less OLLAMA_GPU_OVERHEAD each, 262,144 from 47 GiB, 32,768 from 23 GiB, else 4,096.
/// Ollama's model family (GGUF general.architecture) for a config.json model_type.
std::string ollamaFamily(const std::string &modelType);
/// Whether Ollama forces num_parallel 1 for a family (server/sched.go).
bool ollamaServesOneAtATime(const std::string &family);
std::uint32_t ollamaDefaultNumCtx(std::uint64_t totalVramBytes);

/// The batch Ollama passes as -b and -ub when num_batch is not given (server/sched.go,
/// automaticGenerationBatch): without flash attention on CUDA 512, or 256 past 4,096 tokens on a
/// card of at most 8 GiB; else by the context (`generationBatchForContext`): 2,048 past 32,768
/// tokens, 1,024 past 4,096, else 512.
std::uint32_t ollamaGenerationBatch(std::uint64_t contextTokens, bool flashAttn, bool cuda, std::uint64_t smallestGpuBytes);

/// What Ollama's scheduler sets aside on each GPU (server/sched.go, load: available = free -
/// OLLAMA_GPU_OVERHEAD - MinimumMemory; ml/device.go MinimumMemory: 512 MiB on Metal, else 457 MiB).
std::uint64_t ollamaGpuReserve(const Gpu &gpu, std::uint64_t gpuOverheadBytes);

/// What Ollama's device discovery reports as a GPU's total memory: Metal's working-set limit
/// (the catalog capacity of an Apple entry), else what CUDA reports.
std::uint64_t ollamaTotalMemory(const Gpu &gpu);

/// Fills the llama.cpp settings of `cfg` from `cfg.ollama` for the scenario's GPUs and model, and
/// cfg.ollama->notes with how each was derived. Throws ScenarioError naming the field.
void applyOllama(ServingConfig &cfg, const Scenario &s, const Catalog &catalog = builtinCatalog());

} // namespace headroom
