// SPDX-License-Identifier: GPL-3.0-or-later
// SGLang's start-up lines (python/sglang/srt/model_executor/model_runner.py and
// cuda_graph_runner.py; SGLang divides by 2^30 where it prints "GB"):
//   "server_args=ServerArgs(model_path='...', tp_size=4, mem_fraction_static=0.87, ...)"
//   "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.15 GB, mem usage=14.99 GB."
//   "KV Cache is allocated. #tokens: 413556, K size: 25.24 GB, V size: 25.24 GB"
//   "Memory pool end. avail mem=11.87 GB"
//   "Capture cuda graph end. Time elapsed: 11.35 s. mem usage=1.04 GB. avail mem=11.22 GB."
//   "max_total_num_tokens=413556, chunked_prefill_size=8192, max_prefill_tokens=16384,
//    max_running_requests=4096, context_len=131072"
#include "measure/logtext.h"

#include <array>

namespace headroom::logtext {

namespace {

constexpr std::array<std::string_view, 10> kMarkers{
    "KV Cache is allocated.", "Load weight begin.", "Load weight end.", "Memory pool end.",
    "Capture cuda graph begin.", "Capture cuda graph end.", "server_args=ServerArgs(",
    "max_total_num_tokens=", "sglang.launch_server", "increase --mem-fraction-static"};

void readServerArgs(Collector &c, const Line &line)
{
    c.model(configValue(line, "model_path"), line);
    integerSetting(c, "parallel.tensor", configValue(line, "tp_size"), line);
    integerSetting(c, "parallel.pipeline", configValue(line, "pp_size"), line);
    integerSetting(c, "serving.max_model_len", configValue(line, "context_length"), line);
    integerSetting(c, "serving.page_size", configValue(line, "page_size"), line);
    integerSetting(c, "serving.chunked_prefill_size", configValue(line, "chunked_prefill_size"), line);
    integerSetting(c, "serving.max_num_seqs", configValue(line, "max_running_requests"), line);
    if (const auto f = number(configValue(line, "mem_fraction_static"), 0))
        c.setting("serving.mem_fraction_static", *f, line);
    const std::string kv = configValue(line, "kv_cache_dtype");
    if (kv == "auto" || kv == "fp8_e4m3" || kv == "fp8_e5m2")
        c.setting("serving.kv_cache_dtype", kv, line);
    const std::string quantization = configValue(line, "quantization");
    if (!quantization.empty() && quantization != "None")
        c.setting("launch.quantization", quantization, line);
}

void readCommandLine(Collector &c, const Line &line)
{
    c.model(flagValue(line, "--model-path"), line);
    c.model(flagValue(line, "--model"), line);
    integerSetting(c, "parallel.tensor", flagValue(line, "--tp"), line);
    integerSetting(c, "parallel.tensor", flagValue(line, "--tp-size"), line);
    integerSetting(c, "serving.max_model_len", flagValue(line, "--context-length"), line);
    if (const auto f = number(flagValue(line, "--mem-fraction-static"), 0))
        c.setting("serving.mem_fraction_static", *f, line);
}

} // namespace

bool isSglangLine(const Line &line)
{
    for (std::string_view m : kMarkers)
        if (line.has(m))
            return true;
    return false;
}

bool readSglangLine(Collector &c, const Line &line)
{
    if (!isSglangLine(line))
        return false;
    constexpr GbMeans gib = GbMeans::Gib;
    if (line.has("server_args=ServerArgs("))
        readServerArgs(c, line);
    if (line.has("sglang.launch_server"))
        readCommandLine(c, line);
    if (line.has("Load weight begin."))
        c.bytes("free_at_startup", line, "avail mem=", gib);
    if (line.has("Load weight end.")) {
        if (line.has("mem usage="))
            c.bytes("weights", line, "mem usage=", gib);
        c.bytes("free_after_weights", line, "avail mem=", gib);
        const std::string dtype = configValue(line, "dtype");
        if (dtype == "torch.bfloat16")
            c.setting("launch.dtype", "bf16", line);
        else if (dtype == "torch.float16")
            c.setting("launch.dtype", "fp16", line);
    }
    if (line.has("KV Cache is allocated.")) {
        if (line.has("#tokens:"))
            c.count("kv_tokens", line, "#tokens:", FigureUnit::Tokens);
        const auto k = bytesAfter(line, "K size:", gib);
        const auto v = bytesAfter(line, "V size:", gib);
        if (!k)
            c.truncated(line, "K size:");
        if (!v)
            c.truncated(line, "V size:");
        c.figure("kv_cache", *k + *v, FigureUnit::Bytes, line);
    }
    if (line.has("Memory pool end."))
        c.bytes("free_after_kv_cache", line, "avail mem=", gib);
    if (line.has("Capture cuda graph end.") && line.has("mem usage="))
        c.bytes("cuda_graph", line, "mem usage=", gib);
    if (line.has("max_total_num_tokens=")) {
        c.count("kv_tokens", line, "max_total_num_tokens=", FigureUnit::Tokens);
        integerSetting(c, "serving.max_model_len", configValue(line, "context_len"), line);
    }
    if (line.has("increase --mem-fraction-static"))
        c.refusal(line);
    return true;
}

} // namespace headroom::logtext
