// SPDX-License-Identifier: GPL-3.0-or-later
// llama.cpp's start-up lines (src/llama-model.cpp, llama-context.cpp, llama-kv-cache.cpp,
// llama-memory-recurrent.cpp; the older llm_load_* and llama_new_context_with_model names too).
// Sizes are MiB (2^20). Per-device buffers are read for the first GPU device (CUDA0, ROCm0, ...):
//   "load_tensors:        CUDA0 model buffer size =  4403.49 MiB"
//   "llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16): 256.00 MiB, V (f16): 256.00 MiB"
//   "llama_kv_cache:      CUDA0 KV buffer size =   512.00 MiB"
//   "llama_memory_recurrent:      CUDA0 RS buffer size =    16.07 MiB"
//   "llama_context:      CUDA0 compute buffer size =   560.00 MiB"
// and the table printed at exit (llama_memory_breakdown_print, common_memory_breakdown_print):
//   "| memory breakdown [MiB] | total   free    self   model   context   compute    unaccounted |"
//   "|   - CUDA0 (RTX 4090)   | 24080 = 9436 + (14193 = 13169 +   38 +  985) +   451 |"
//   "|   - Host               |                  72 =     0 +   57 +   15           |"
// The table is printed again for each trial of the parameter fit: the last one of each device is
// the run's.
#include "io/inputpolicy.h"
#include "measure/logtext.h"

#include <array>
#include <cctype>

namespace headroom::logtext {

namespace {

constexpr std::array<std::string_view, 15> kPrefixes{
    "llama_model_load", "llama_model_loader:", "llama_context:", "llama_kv_cache", "llama_memory_",
    "llama_new_context_with_model:", "llama_init_from_model:", "llm_load_", "load_tensors:",
    "print_info:", "ggml_cuda_init:", "common_memory_breakdown_print:", "llama_print_memory_breakdown:",
    "common_params_fit", "llama_params_fit"};

std::string_view trimmed(std::string_view t)
{
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
        t.remove_prefix(1);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t'))
        t.remove_suffix(1);
    return t;
}

/// The line without what a log wrapper puts before llama.cpp's own text: colour escapes and the
/// `common_log` timestamp and level ("\x1b[34m0.00.612.795\x1b[0m \x1b[32mI \x1b[0mprint_info: ...").
std::string_view body(std::string_view t)
{
    for (int round = 0; round < 8; ++round) {
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
            t.remove_prefix(1);
        if (t.size() >= 2 && t[0] == '\x1b' && t[1] == '[') {
            const std::size_t m = t.find('m');
            if (m == std::string_view::npos || m > 12)
                return t;
            t.remove_prefix(m + 1);
            continue;
        }
        std::size_t i = 0;
        while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.'))
            ++i;
        if (i >= 5 && i < t.size() && (t[i] == ' ' || t[i] == '\x1b')) { // the timestamp
            t.remove_prefix(i);
            continue;
        }
        if (t.size() >= 2 && (t[0] == 'I' || t[0] == 'W' || t[0] == 'E' || t[0] == 'D') && (t[1] == ' ' || t[1] == '\x1b')) {
            t.remove_prefix(1); // the level
            continue;
        }
        break;
    }
    return t;
}

bool isGpuDevice(std::string_view device)
{
    for (std::string_view kind : {"CUDA", "ROCm", "Vulkan", "SYCL", "Metal", "MTL", "CANN", "MUSA"})
        if (device.substr(0, kind.size()) == kind && device.find("_Host") == std::string_view::npos)
            return true;
    return false;
}

/// The device named before `marker` ("CUDA0" in "load_tensors:   CUDA0 model buffer size = ...").
std::string_view deviceBefore(const Line &line, std::string_view marker)
{
    const std::size_t at = line.text.find(marker);
    const std::size_t colon = line.text.rfind(':', at);
    if (at == std::string_view::npos || colon == std::string_view::npos)
        return {};
    return trimmed(line.text.substr(colon + 1, at - colon - 1));
}

/// The first GPU device's buffers; other devices' are left out (one target GPU).
void deviceBuffer(Collector &c, const Line &line, std::string_view marker, const char *key, const char *hostKey)
{
    const std::string_view device = deviceBefore(line, marker);
    if (isGpuDevice(device)) {
        std::string &first = c.log().device;
        if (first.empty())
            first = std::string(device.substr(0, 40));
        if (device == first)
            c.bytes(key, line, marker, GbMeans::Gb);
    } else if (hostKey && (device.substr(0, 3) == "CPU" || device.find("_Host") != std::string_view::npos)) {
        c.bytes(hostKey, line, marker, GbMeans::Gb);
    }
}

/// Numbers of a table row after the device column, in order (negative ones included).
std::vector<double> rowNumbers(std::string_view cells)
{
    std::vector<double> values;
    for (std::size_t i = 0; i < cells.size() && values.size() < 16;) {
        const bool negative = cells[i] == '-' && i + 1 < cells.size() && std::isdigit(static_cast<unsigned char>(cells[i + 1]));
        if (std::isdigit(static_cast<unsigned char>(cells[i])) || negative) {
            std::size_t end = i;
            const auto v = number(cells, i, &end);
            if (!v || end <= i)
                break;
            values.push_back(*v);
            i = end;
        } else {
            ++i;
        }
    }
    return values;
}

void readBreakdownRow(Collector &c, const Line &line)
{
    // "|   - CUDA0 (RTX 4090)   | 24080 = ..." or, before the pipes, "  - CUDA0 (RTX 4090):  24080 = ...".
    const std::size_t dash = line.text.find("- ");
    if (dash == std::string_view::npos)
        return;
    std::size_t end = line.text.find('|', dash);
    if (end == std::string_view::npos) {
        end = line.text.find("):", dash);
        end = end == std::string_view::npos ? line.text.find(':', dash) : end + 1;
    }
    if (end == std::string_view::npos)
        return;
    LlamaBreakdownRow row;
    row.device = std::string(trimmed(line.text.substr(dash + 2, end - dash - 2)).substr(0, 120));
    row.line = line.number;
    const std::vector<double> v = rowNumbers(line.text.substr(end + 1));
    if (v.size() == 7) {
        row.total = v[0], row.free = v[1], row.self = v[2], row.model = v[3], row.context = v[4];
        row.compute = v[5], row.unaccounted = v[6];
        // llama.cpp computes it as an unsigned total - (free + self): a negative one prints as
        // 2^64 / 2^20 less a little. It is read as what it is.
        if (row.unaccounted > row.total)
            row.unaccounted = row.total - row.free - row.self;
    } else if (v.size() == 5) { // the first version's CPU row: total, then self = model + context + compute
        row.total = v[0], row.self = v[1], row.model = v[2], row.context = v[3], row.compute = v[4];
    } else if (v.size() == 4) {
        row.self = v[0], row.model = v[1], row.context = v[2], row.compute = v[3];
    } else {
        throw EngineLogError(line.number, "a memory breakdown row with " + std::to_string(v.size()) +
                                              " figures (4, 5 or 7 expected; a cut-off line?): " +
                                              quoteText(line.text, 80));
    }
    auto &rows = c.log().breakdown;
    for (LlamaBreakdownRow &r : rows)
        if (r.device == row.device) {
            r = row; // a later table (the run's, after the fit's trials) replaces an earlier one
            return;
        }
    rows.push_back(row);
}

std::string ggufType(std::string text)
{
    // "Q4_K - Medium" -> q4_k; "BF16" -> bf16; "MOSTLY Q4_0" (old) -> q4_0.
    if (text.rfind("MOSTLY ", 0) == 0)
        text = text.substr(7);
    std::string id;
    for (char ch : text) {
        if (ch == ' ')
            break;
        id += char(std::tolower(static_cast<unsigned char>(ch)));
    }
    for (const char *known : {"f32", "f16", "bf16", "q8_0", "q6_k", "q5_k", "q5_0", "q4_k", "q4_0", "q3_k", "q2_k"})
        if (id == known)
            return id;
    return {};
}

void readContextSetting(Collector &c, const Line &line, std::string_view name, const char *key)
{
    const std::string marker = std::string(name) + " ";
    const std::size_t at = line.text.find(marker);
    if (at == std::string_view::npos)
        return;
    const std::size_t eq = line.text.find('=', at);
    if (eq == std::string_view::npos || trimmed(line.text.substr(at + name.size(), eq - at - name.size())).size())
        return;
    integerSetting(c, key, std::string(trimmed(line.text.substr(eq + 1))), line);
}

} // namespace

bool isLlamaCppLine(const Line &line)
{
    const std::string_view t = trimmed(body(line.text));
    for (std::string_view p : kPrefixes)
        if (t.substr(0, p.size()) == p)
            return true;
    return false;
}

bool readLlamaCppLine(Collector &c, const Line &line)
{
    const std::string_view t = trimmed(body(line.text));
    if (line.has("Device 0:") && line.has("compute capability")) {
        c.gpu(valueAfter(line, "Device 0:", ","), line);
        return true;
    }
    if (!isLlamaCppLine(line))
        return false;
    constexpr GbMeans mib = GbMeans::Gb;
    if (line.has("using device ") && line.has(" - ") && line.has("MiB free")) {
        const std::string name = valueAfter(line, "(", ")");
        c.gpu(name, line);
    }
    if (line.has("memory breakdown") && line.has("total")) {
        // the header: nothing to read
    } else if ((t.rfind("llama_memory_breakdown_print:", 0) == 0 || t.rfind("common_memory_breakdown_print:", 0) == 0 ||
                t.rfind("llama_print_memory_breakdown:", 0) == 0) && line.has("- ")) {
        readBreakdownRow(c, line);
    }
    if (line.has("general.name") && line.has("="))
        c.model(valueAfter(line, "=", "\n"), line);
    if (line.has("file type") || line.has("model ftype")) {
        const std::string type = ggufType(valueAfter(line, "=", "\n"));
        if (!type.empty())
            c.setting("serving.weight_type", type, line);
    }
    if (line.has("offloaded ") && line.has(" layers to GPU")) {
        std::size_t end = 0;
        const auto n = numberAfter(line, "offloaded ", &end);
        const auto m = numberAfter(Line{line.text.substr(end), line.number}, "/");
        if (!n || !m)
            c.truncated(line, "offloaded");
        if (*n >= 0 && *n < 1e9 && *m < 1e9)
            c.setting("serving.n_gpu_layers", *n >= *m ? std::int64_t(-1) : std::int64_t(*n), line);
    }
    if (line.has("model buffer size ="))
        deviceBuffer(c, line, "model buffer size =", "weights", "host_weights");
    else if (t.rfind("llm_load_tensors:", 0) == 0 && line.has("buffer size ="))
        deviceBuffer(c, line, "buffer size =", "weights", "host_weights");
    if (line.has("KV buffer size ="))
        deviceBuffer(c, line, "KV buffer size =", "kv_cache", "host_kv_cache");
    if (line.has("RS buffer size ="))
        deviceBuffer(c, line, "RS buffer size =", "recurrent_state", nullptr);
    if (line.has("compute buffer size ="))
        deviceBuffer(c, line, "compute buffer size =", "activation_peak", "host_compute");
    if ((t.rfind("llama_kv_cache", 0) == 0 && line.has(": size =") && line.has("cells")) ||
        line.has("KV self size")) {
        if (line.has("cells"))
            c.count("kv_tokens", line, "(", FigureUnit::Tokens);
        c.bytes("kv_cache_all_devices", line, "size =", mib);
        const std::string k = valueAfter(line, "K (", ")"), v = valueAfter(line, "V (", ")");
        if (!ggufType(k).empty() || k == "q5_1" || k == "q4_1" || k == "iq4_nl")
            c.setting("serving.cache_type_k", k, line);
        if (!ggufType(v).empty() || v == "q5_1" || v == "q4_1" || v == "iq4_nl")
            c.setting("serving.cache_type_v", v, line);
    }
    if (line.has("type_k = '")) {
        c.setting("serving.cache_type_k", valueAfter(line, "type_k = '", "'"), line);
        c.setting("serving.cache_type_v", valueAfter(line, "type_v = '", "'"), line);
    }
    if (line.has("offload = 0"))
        c.setting("serving.kv_offload", false, line);
    readContextSetting(c, line, "n_ctx", "serving.n_ctx");
    readContextSetting(c, line, "n_batch", "serving.n_batch");
    readContextSetting(c, line, "n_ubatch", "serving.n_ubatch");
    readContextSetting(c, line, "n_seq_max", "serving.n_parallel");
    if (line.has("flash_attn") && line.has("=")) {
        const std::string fa = std::string(trimmed(valueAfter(line, "=", "\n")));
        if (fa == "1" || fa == "enabled")
            c.setting("serving.flash_attn", true, line);
        else if (fa == "0" || fa == "disabled")
            c.setting("serving.flash_attn", false, line);
    }
    if (line.has("cudaMalloc failed: out of memory") || line.has("failed to allocate") ||
        line.has("failed to initialize the context") || line.has("failed to fit params"))
        c.refusal(line);
    return true;
}

void finishLlamaCpp(Collector &c)
{
    EngineLog &log = c.log();
    for (const LlamaBreakdownRow &r : log.breakdown) {
        if (!isGpuDevice(r.device) || (!log.device.empty() && r.device.rfind(log.device, 0) != 0))
            continue;
        const Line line{r.device, r.line};
        constexpr double mib = 1048576.0;
        const std::pair<const char *, double> cells[] = {{"weights", r.model},          {"kv_cache", r.context},
                                                         {"activation_peak", r.compute}, {"unaccounted", r.unaccounted},
                                                         {"total_gpu_memory", r.total}};
        for (const auto &[key, value] : cells)
            if (value != -1)
                c.figure(key, value * mib, FigureUnit::Bytes, line);
        return;
    }
}

} // namespace headroom::logtext
