// SPDX-License-Identifier: GPL-3.0-or-later
// TensorRT-LLM's start-up lines (cpp/tensorrt_llm/batch_manager and the PyTorch executor): every
// line starts "[TensorRT-LLM]" or "[TRT-LLM]".
//   "[TensorRT-LLM] TensorRT-LLM version: 0.15.0.dev2024101500"
//   "[TensorRT-LLM][INFO] Loaded engine size: 240 MiB"
//   "[TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv cache: total: 39.39 GiB, available: 21.89 GiB"
//   "[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 631"
//   "[TensorRT-LLM][INFO] Number of tokens per block: 32."
//   "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 78.30 GiB for max tokens in paged KV cache (3731744)."
//   0.5-0.8: "Allocate 69524783104 bytes for k/v cache.", "Using 132608 tokens in paged KV cache."
// Headroom does not model TensorRT-LLM yet: its figures are shown without an estimate.
#include "measure/logtext.h"

namespace headroom::logtext {

bool isTrtllmLine(const Line &line)
{
    return line.has("[TensorRT-LLM]") || line.has("[TRT-LLM]");
}

bool readTrtllmLine(Collector &c, const Line &line)
{
    if (!isTrtllmLine(line))
        return false;
    constexpr GbMeans gb = GbMeans::Gb;
    if (line.has("TensorRT-LLM version:"))
        c.version(valueAfter(line, "TensorRT-LLM version:", " "));
    if (line.has("Loaded engine size:"))
        c.bytes("weights", line, "Loaded engine size:", gb);
    if (line.has("Memory usage when calculating max tokens in paged kv cache")) {
        c.bytes("total_gpu_memory", line, "total:", gb);
        c.bytes("free_before_kv_cache", line, "available:", gb);
    }
    if (line.has("Number of blocks in KV cache primary pool:"))
        c.count("gpu_blocks", line, "Number of blocks in KV cache primary pool:");
    if (line.has("primary blocks="))
        c.count("gpu_blocks", line, "primary blocks=");
    if (line.has("Number of tokens per block:"))
        c.count("tokens_per_block", line, "Number of tokens per block:");
    if (line.has("for max tokens in paged KV cache")) {
        c.bytes("kv_cache", line, "Allocated", gb);
        c.count("kv_tokens", line, "paged KV cache (", FigureUnit::Tokens);
    }
    if (line.has("bytes for k/v cache"))
        c.count("kv_cache", line, "Allocate", FigureUnit::Bytes);
    if (line.has("tokens in paged KV cache.") && line.has("Using "))
        c.count("kv_tokens", line, "Using ", FigureUnit::Tokens);
    if (line.has("for execution context memory"))
        c.bytes("activation_peak", line, "Allocated", gb);
    if (line.has("[ERROR]") && (line.has("out of memory") || line.has("OutOfMemory")))
        c.refusal(line);
    return true;
}

} // namespace headroom::logtext
