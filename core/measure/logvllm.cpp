// SPDX-License-Identifier: GPL-3.0-or-later
// vLLM's start-up lines, every version's wording (vllm/worker/worker.py and model_runner.py for
// V0, vllm/v1/worker/gpu_worker.py, gpu_model_runner.py and v1/core/kv_cache_utils.py for V1):
//   0.2-0.6   "# GPU blocks: 7823, # CPU blocks: 512", "Loading model weights took 67.7229 GB"
//   0.6.4-0.6 "Memory profiling results: ... total_gpu_memory=79.15GiB ... non_torch_memory=0.48GiB
//             kv_cache_size=54.76GiB gpu_memory_utilization=0.90"
//   0.7-0.8   "the current vLLM instance can use total_gpu_memory (23.58GiB) x
//             gpu_memory_utilization (0.99) = 23.35GiB", "model weights take 21.21GiB;
//             non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the
//             rest of the memory reserved for KV Cache is 1.57GiB."
//   V1        "Model loading took 14.99 GiB memory and 31.46 seconds", "Available KV cache memory:
//             51.38 GiB", "GPU KV cache size: 75,840 tokens", "Maximum concurrency for 120,000
//             tokens per request: 2.48x", "Graph capturing finished in 5 secs, took 0.45 GiB"
// vLLM divides by 2^30 where it prints "GB".
#include "measure/logtext.h"

#include <array>
#include <cmath>

namespace headroom::logtext {

namespace {

constexpr std::array<std::string_view, 24> kMarkers{
    "LLM engine (v", "vLLM API server version", "# GPU blocks:", "Available KV cache memory:",
    "GPU KV cache size:", "tokens per request:", "Model loading took", "Loading model weights took",
    "Memory profiling results:", "the current vLLM instance can use", "non_torch_memory takes",
    "Graph capturing finished in", "the estimated maximum model length is",
    "No available memory for the cache blocks", "that can be stored in KV cache",
    "vllm serve ", "non-default args:", "Free memory on device", "Estimated CUDA graph memory:",
    "CUDAGraph memory:", "Peak activation memory:", "Non-torch memory:", "Memory profiling takes",
    "[kv_cache_utils.py:"};

void kvDtypeSetting(Collector &c, std::string text, const Line &line)
{
    if (text == "auto" || text == "fp8" || text == "fp8_e4m3" || text == "fp8_e5m2" || text == "nvfp4")
        c.setting("serving.kv_cache_dtype", text, line);
}

/// The engine's config line and the `non-default args` dict: the launch.
void readLaunch(Collector &c, const Line &line)
{
    c.model(configValue(line, "model"), line);
    integerSetting(c, "serving.max_model_len", configValue(line, "max_seq_len"), line);
    integerSetting(c, "serving.max_model_len", configValue(line, "max_model_len"), line);
    integerSetting(c, "parallel.tensor", configValue(line, "tensor_parallel_size"), line);
    integerSetting(c, "parallel.pipeline", configValue(line, "pipeline_parallel_size"), line);
    integerSetting(c, "serving.block_size", configValue(line, "block_size"), line);
    integerSetting(c, "serving.max_num_seqs", configValue(line, "max_num_seqs"), line);
    integerSetting(c, "serving.max_num_batched_tokens", configValue(line, "max_num_batched_tokens"), line);
    boolSetting(c, "serving.enforce_eager", configValue(line, "enforce_eager"), line);
    kvDtypeSetting(c, configValue(line, "kv_cache_dtype"), line);
    if (const auto u = number(configValue(line, "gpu_memory_utilization"), 0))
        c.setting("serving.gpu_memory_utilization", *u, line);
    const std::string dtype = configValue(line, "dtype");
    if (dtype == "torch.bfloat16" || dtype == "bfloat16")
        c.setting("launch.dtype", "bf16", line);
    else if (dtype == "torch.float16" || dtype == "float16")
        c.setting("launch.dtype", "fp16", line);
    const std::string quantization = configValue(line, "quantization");
    if (!quantization.empty() && quantization != "None")
        c.setting("launch.quantization", quantization, line);
}

void readCommandLine(Collector &c, const Line &line)
{
    const std::size_t at = line.text.find("vllm serve ");
    std::size_t i = at + 11;
    while (i < line.text.size() && line.text[i] == ' ')
        ++i;
    std::size_t j = i;
    while (j < line.text.size() && line.text[j] != ' ')
        ++j;
    if (j > i && line.text[i] != '-')
        c.model(std::string(line.text.substr(i, std::min<std::size_t>(j - i, 300))), line);
    integerSetting(c, "serving.max_model_len", flagValue(line, "--max-model-len"), line);
    integerSetting(c, "parallel.tensor", flagValue(line, "--tensor-parallel-size"), line);
    integerSetting(c, "parallel.tensor", flagValue(line, "-tp"), line);
    integerSetting(c, "parallel.pipeline", flagValue(line, "--pipeline-parallel-size"), line);
    integerSetting(c, "serving.block_size", flagValue(line, "--block-size"), line);
    integerSetting(c, "serving.max_num_seqs", flagValue(line, "--max-num-seqs"), line);
    integerSetting(c, "serving.max_num_batched_tokens", flagValue(line, "--max-num-batched-tokens"), line);
    kvDtypeSetting(c, flagValue(line, "--kv-cache-dtype"), line);
    if (const auto u = number(flagValue(line, "--gpu-memory-utilization"), 0))
        c.setting("serving.gpu_memory_utilization", *u, line);
    if (line.has(" --enforce-eager"))
        c.setting("serving.enforce_eager", true, line);
}

} // namespace

bool isVllmLine(const Line &line)
{
    for (std::string_view m : kMarkers)
        if (line.has(m))
            return m != "tokens per request:" || line.has("Maximum concurrency for");
    return false;
}

bool readVllmLine(Collector &c, const Line &line)
{
    if (!isVllmLine(line))
        return false;
    constexpr GbMeans gib = GbMeans::Gib;
    if (line.has("LLM engine (v")) {
        c.version(valueAfter(line, "LLM engine (v", ")"));
        if (line.has("Initializing a V1 LLM engine"))
            c.setting("serving.v1_engine", true, line);
        else if (line.has("Initializing a V0 LLM engine") || line.has("Initializing an LLM engine"))
            c.setting("serving.v1_engine", false, line);
        readLaunch(c, line);
    } else if (line.has("vLLM API server version")) {
        c.version(valueAfter(line, "vLLM API server version", " "));
    } else if (line.has("non-default args:")) {
        readLaunch(c, line);
    } else if (line.has("vllm serve ")) {
        readCommandLine(c, line);
    }
    if (line.has("# GPU blocks:"))
        c.count("gpu_blocks", line, "# GPU blocks:");
    if (line.has("Loading model weights took"))
        c.bytes("weights", line, "Loading model weights took", gib);
    if (line.has("Model loading took"))
        c.bytes("weights", line, "Model loading took", gib);
    if (line.has("Memory profiling results:")) {
        c.bytes("total_gpu_memory", line, "total_gpu_memory=", gib);
        c.bytes("non_torch", line, "non_torch_memory=", gib);
        c.bytes("kv_cache", line, "kv_cache_size=", gib);
        if (const auto u = numberAfter(line, "gpu_memory_utilization="))
            c.setting("serving.gpu_memory_utilization", *u, line);
    }
    if (line.has("the current vLLM instance can use")) {
        c.bytes("total_gpu_memory", line, "total_gpu_memory (", gib);
        const auto u = numberAfter(line, "gpu_memory_utilization (");
        if (!u)
            c.truncated(line, "gpu_memory_utilization (");
        c.setting("serving.gpu_memory_utilization", *u, line);
        c.bytes("budget", line, ") = ", gib);
    }
    if (line.has("non_torch_memory takes")) {
        c.bytes("weights", line, "model weights take", gib);
        c.bytes("non_torch", line, "non_torch_memory takes", gib);
        c.bytes("activation_peak", line, "activation peak memory takes", gib);
        c.bytes("kv_cache", line, "reserved for KV Cache is", gib);
    }
    if (line.has("Available KV cache memory:"))
        c.bytes("kv_cache", line, "Available KV cache memory:", gib);
    if (line.has("GPU KV cache size:"))
        c.count("kv_tokens", line, "GPU KV cache size:", FigureUnit::Tokens);
    if (line.has("Maximum concurrency for") && line.has("tokens per request:")) {
        c.count("max_concurrency_tokens", line, "Maximum concurrency for", FigureUnit::Tokens);
        c.count("max_concurrency", line, "tokens per request:", FigureUnit::Ratio);
    }
    if (line.has("Graph capturing finished in")) {
        if (line.has(", took "))
            c.bytes("cuda_graph", line, ", took ", gib);
    }
    if (line.has("Estimated CUDA graph memory:"))
        c.bytes("cuda_graph", line, "Estimated CUDA graph memory:", gib);
    if (line.has("CUDAGraph memory:"))
        c.bytes("cuda_graph", line, "CUDAGraph memory:", gib);
    if (line.has("Peak activation memory:"))
        c.bytes("activation_peak", line, "Peak activation memory:", gib);
    if (line.has("Non-torch memory:"))
        c.bytes("non_torch", line, "Non-torch memory:", gib);
    if (line.has("Free memory on device")) {
        // "Free memory on device (139.21/139.81 GiB) on startup. Desired GPU memory utilization is
        // (0.9, 125.83 GiB). Actual usage is 74.28 GiB for weight, 5.58 GiB for peak activation,
        // 1.38 GiB for non-torch memory, and 2.37 GiB for CUDAGraph memory." (0.10.2 on), the
        // refusal "... on startup is less than desired GPU memory utilization (0.9, 71.24 GiB)",
        // "Free memory on device cuda:0 (27.28/31.86 GiB)", and the older "Free memory on device:
        // 78.57/79.18 GiB on startup".
        const std::size_t at = line.text.find("Free memory on device");
        std::size_t from = at + std::string_view("Free memory on device").size();
        const std::size_t open = line.text.find('(', from), slash = line.text.find('/', from);
        if (open != std::string_view::npos && slash != std::string_view::npos && open < slash)
            from = open + 1;
        else if (from < line.text.size() && line.text[from] == ':')
            ++from;
        std::size_t end = 0;
        const auto free = number(line.text, from, &end);
        const std::string_view rest = line.text.substr(end);
        if (!free || rest.empty() || rest.front() != '/')
            c.truncated(line, "Free memory on device");
        const Line tail{line.text.substr(end), line.number};
        const auto total = bytesAfter(tail, "/", gib);
        if (!total)
            c.truncated(line, "Free memory on device");
        c.figure("total_gpu_memory", *total, FigureUnit::Bytes, line);
        c.figure("free_at_startup", *total / std::max(1.0, *numberAfter(tail, "/")) * *free, FigureUnit::Bytes, line);
        for (const char *marker : {"utilization is (", "utilization ("}) {
            if (!line.has(marker))
                continue;
            std::size_t after = 0;
            const auto u = numberAfter(line, marker, &after);
            const Line budget{line.text.substr(after), line.number};
            const auto b = bytesAfter(budget, ",", gib);
            if (!u || !b)
                c.truncated(line, marker);
            c.setting("serving.gpu_memory_utilization", *u, line);
            c.figure("budget", *b, FigureUnit::Bytes, line);
            break;
        }
        if (line.has("Actual usage is") && line.has(" for weight,")) {
            c.bytes("weights", line, "Actual usage is", gib);
            c.bytes("activation_peak", line, "for weight,", gib);
            c.bytes("non_torch", line, "for peak activation,", gib);
            if (line.has("for non-torch memory, and"))
                c.bytes("cuda_graph", line, "for non-torch memory, and", gib);
        }
        if (line.has("is less than desired GPU memory utilization"))
            c.refusal(line);
    }
    if (line.has("the estimated maximum model length is")) {
        c.refusal(line);
        c.count("max_len_that_fits", line, "the estimated maximum model length is", FigureUnit::Tokens);
        if (line.has("KV cache is needed"))
            c.bytes("kv_cache", line, "available KV cache memory (", gib);
    }
    if (line.has("No available memory for the cache blocks") || line.has("that can be stored in KV cache"))
        c.refusal(line);
    return true;
}

} // namespace headroom::logtext
