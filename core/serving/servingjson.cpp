// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/servingjson.h"

#include <cctype>
#include <regex>

#include "scenario/names.h"
#include "io/inputpolicy.h"
#include "scenario/objectreader.h"
#include "serving/servingollama.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>

namespace headroom {

using nlohmann::json;
using detail::kMaxTokens;
using detail::ObjectReader;

namespace {

/// Which engines read a key (keys of the section itself; `engine`, `version` and `requests`
/// belong to every engine).
struct EngineKey
{
    const char *key;
    std::initializer_list<Engine> engines;
};
const EngineKey kEngineKeys[] = {
    {"gpu_memory_utilization", {Engine::Vllm}},
    {"max_model_len", {Engine::Vllm, Engine::Sglang, Engine::HfGenerate}},
    {"backend", {Engine::Trtllm}},
    {"free_gpu_memory_fraction", {Engine::Trtllm}},
    {"tokens_per_block", {Engine::Trtllm}},
    {"max_batch_size", {Engine::Trtllm}},
    {"max_num_tokens", {Engine::Trtllm}},
    {"max_seq_len", {Engine::Trtllm}},
    {"max_tokens", {Engine::Trtllm}},
    {"cuda_graph", {Engine::Trtllm}},
    {"cuda_graph_max_batch_size", {Engine::Trtllm}},
    {"cuda_graph_padding", {Engine::Trtllm}},
    {"max_num_seqs", {Engine::Vllm, Engine::Sglang}},
    {"max_num_batched_tokens", {Engine::Vllm}},
    {"kv_cache_dtype", {Engine::Vllm, Engine::Sglang, Engine::Trtllm}},
    {"block_size", {Engine::Vllm}},
    {"enforce_eager", {Engine::Vllm}},
    {"sampler", {Engine::Vllm}},
    {"usage_context", {Engine::Vllm}},
    {"v1_engine", {Engine::Vllm}},
    {"non_torch_mib", {Engine::Vllm, Engine::Trtllm}},
    {"cuda_graph_mib", {Engine::Vllm, Engine::Sglang, Engine::Trtllm}},
    {"kv_cache_memory_bytes", {Engine::Vllm}},
    {"enable_lora", {Engine::Vllm}},
    {"max_loras", {Engine::Vllm}},
    {"max_lora_rank", {Engine::Vllm}},
    {"max_cpu_loras", {Engine::Vllm}},
    {"cpu_offload_gb", {Engine::Vllm}},
    {"speculative", {Engine::Vllm}},
    {"total_gpu_memory_gib", {Engine::Vllm, Engine::Sglang, Engine::Trtllm}},
    {"mem_fraction_static", {Engine::Sglang}},
    {"chunked_prefill_size", {Engine::Sglang}},
    {"page_size", {Engine::Sglang}},
    {"n_ctx", {Engine::LlamaCpp}},
    {"n_batch", {Engine::LlamaCpp}},
    {"n_ubatch", {Engine::LlamaCpp}},
    {"n_gpu_layers", {Engine::LlamaCpp}},
    {"n_parallel", {Engine::LlamaCpp}},
    {"cache_type_k", {Engine::LlamaCpp}},
    {"cache_type_v", {Engine::LlamaCpp}},
    {"flash_attn", {Engine::LlamaCpp}},
    {"kv_offload", {Engine::LlamaCpp}},
    {"op_offload", {Engine::LlamaCpp}},
    {"weight_type", {Engine::LlamaCpp}},
    {"n_cpu_moe", {Engine::LlamaCpp}},
    {"cpu_moe", {Engine::LlamaCpp}},
    {"override_tensor", {Engine::LlamaCpp}},
    {"tensor_split", {Engine::LlamaCpp}},
    {"split_mode", {Engine::LlamaCpp}},
    {"main_gpu", {Engine::LlamaCpp}},
    {"load_mode", {Engine::LlamaCpp}},
    {"cache_implementation", {Engine::HfGenerate}},
    {"cache_nbits", {Engine::HfGenerate}},
    {"residual_length", {Engine::HfGenerate}},
    {"q_group_size", {Engine::HfGenerate}},
};

/// The keys of engine "ollama" (Ollama's own names; weight_type as llama_cpp's).
const char *const kOllamaKeys[] = {"num_ctx",          "num_parallel", "num_gpu",  "num_batch", "flash_attention",
                                   "kv_cache_type",    "gpu_overhead_bytes", "use_mmap", "main_gpu", "weight_type"};

bool ollamaReads(const std::string &key)
{
    return std::find(std::begin(kOllamaKeys), std::end(kOllamaKeys), key) != std::end(kOllamaKeys);
}

/// Engine "ollama": its options as given, the llama.cpp settings derived (servingollama.cpp).
void readOllama(ObjectReader &r, ServingConfig &c, const Scenario &s);

bool engineReads(const EngineKey &entry, Engine engine)
{
    for (Engine e : entry.engines)
        if (e == engine)
            return true;
    return false;
}

std::string engineList(const EngineKey &entry)
{
    std::string out;
    for (Engine e : entry.engines)
        out += (out.empty() ? "" : ", ") + std::string(enumName(e));
    return out;
}

std::uint32_t count(ObjectReader &r, const char *key, std::int64_t low, std::int64_t high, std::uint32_t fallback)
{
    return static_cast<std::uint32_t>(r.integer(key, low, high, fallback));
}

ServingRequests readRequests(const json &node)
{
    ObjectReader r(node, "serving.requests");
    ServingRequests requests;
    requests.concurrency = count(r, "concurrency", 1, 1 << 20, requests.concurrency);
    RequestClass single;
    single.promptTokens = count(r, "prompt_tokens", 0, kMaxTokens, single.promptTokens);
    single.outputTokens = count(r, "output_tokens", 0, kMaxTokens, single.outputTokens);
    requests.classes = {single};
    if (const json *mix = r.child("mix")) {
        if (r.has("prompt_tokens") || r.has("output_tokens"))
            throw ScenarioError("serving.requests.mix",
                                "give either prompt_tokens/output_tokens or a mix, not both");
        if (!mix->is_array() || mix->empty() || mix->size() > 16)
            throw ScenarioError("serving.requests.mix", "must be a list of 1 to 16 request kinds");
        requests.classes.clear();
        double total = 0;
        for (std::size_t i = 0; i < mix->size(); ++i) {
            ObjectReader item((*mix)[i], "serving.requests.mix[" + std::to_string(i) + "]");
            RequestClass kind;
            kind.share = item.number("share", 0, 1, 0, false);
            if (!item.has("share") || kind.share <= 0)
                throw ScenarioError(item.keyPath("share"), "must be a number above 0 and at most 1");
            kind.promptTokens = count(item, "prompt_tokens", 0, kMaxTokens, kind.promptTokens);
            kind.outputTokens = count(item, "output_tokens", 0, kMaxTokens, kind.outputTokens);
            if (kind.tokens() == 0)
                throw ScenarioError(item.keyPath("prompt_tokens"),
                                    "prompt_tokens + output_tokens must be at least 1");
            item.finish();
            total += kind.share;
            requests.classes.push_back(kind);
        }
        if (std::fabs(total - 1) > 1e-6)
            throw ScenarioError("serving.requests.mix",
                                "the shares must add up to 1 (got " + formatDecimal(total, 6) + ")");
    } else if (single.tokens() == 0) {
        throw ScenarioError("serving.requests.prompt_tokens",
                            "prompt_tokens + output_tokens must be at least 1");
    }
    r.finish();
    return requests;
}

EngineKvType readKvType(ObjectReader &r, const char *key, EngineKvType fallback,
                        std::initializer_list<EngineKvType> allowed)
{
    const EngineKvType value = r.choice(key, fallback);
    for (EngineKvType a : allowed)
        if (a == value)
            return value;
    std::string names;
    for (EngineKvType a : allowed)
        names += (names.empty() ? "" : ", ") + std::string(enumName(a));
    throw ScenarioError(r.keyPath(key), "must be one of " + names + " for this engine (got \"" +
                                            enumName(value) + "\")");
}

/// override_tensor: llama.cpp's -ot rules, "REGEX=BUFFER" (common/arg.cpp splits at the last
/// '='), the regex as std::regex (ECMAScript) reads it, as llama.cpp does.
std::vector<std::string> readOverrides(ObjectReader &r, std::size_t first, std::size_t devices)
{
    const json *node = r.child("override_tensor");
    if (!node)
        return {};
    const std::string key = r.keyPath("override_tensor");
    if (!node->is_array() || node->size() > 64)
        throw ScenarioError(key, "must be a list of at most 64 \"REGEX=BUFFER\" rules");
    std::vector<std::string> rules;
    for (std::size_t i = 0; i < node->size(); ++i) {
        const std::string at = key + "[" + std::to_string(i) + "]";
        const json &rule = (*node)[i];
        if (!rule.is_string() || rule.get<std::string>().size() > 256)
            throw ScenarioError(at, "must be a \"REGEX=BUFFER\" string of at most 256 characters");
        const std::string text = rule.get<std::string>();
        const std::size_t eq = text.rfind('=');
        if (eq == std::string::npos || eq == 0)
            throw ScenarioError(at, "must be REGEX=BUFFER (got " + quotedText(text) + ")");
        const std::string buffer = text.substr(eq + 1);
        bool device = false;
        for (std::size_t d = first; d < first + devices; ++d)
            device = device || buffer == "CUDA" + std::to_string(d);
        if (buffer != "CPU" && !device)
            throw ScenarioError(at, "the buffer must be CPU or CUDA" + std::to_string(first) +
                                        (devices > 1 ? " to CUDA" + std::to_string(first + devices - 1) : std::string()) +
                                        " (the devices of tensor_split; got " + quotedText(buffer) + ")");
        try {
            std::regex check(text.substr(0, eq));
        } catch (const std::regex_error &) {
            throw ScenarioError(at, "not a regular expression: " + quotedText(text.substr(0, eq)));
        }
        rules.push_back(text);
    }
    return rules;
}

/// tensor_split: one proportion per device (the first entries of gpus, in order), at least two,
/// each from 0 to 1e6; all zero means llama.cpp's default split by free memory.
std::vector<double> readTensorSplit(ObjectReader &r, std::size_t gpus)
{
    const json *node = r.child("tensor_split");
    if (!node)
        return {};
    const std::string key = r.keyPath("tensor_split");
    if (!node->is_array() || node->size() < 2 || node->size() > 16)
        throw ScenarioError(key, "must be a list of 2 to 16 proportions, one per device of gpus (got " +
                                     ObjectReader::describe(*node) + ")");
    if (node->size() > gpus)
        throw ScenarioError(key, "has " + std::to_string(node->size()) + " devices but gpus names " +
                                     std::to_string(gpus) + ": name every device in gpus, in order");
    std::vector<double> split;
    for (std::size_t i = 0; i < node->size(); ++i) {
        const json &item = (*node)[i];
        if (!item.is_number() || !(item.get<double>() >= 0) || item.get<double>() > 1e6)
            throw ScenarioError(key + "[" + std::to_string(i) + "]",
                                "must be a number from 0 to 1000000 (got " + ObjectReader::describe(item) + ")");
        split.push_back(item.get<double>());
    }
    return split;
}

/// weight_type: a llama.cpp file type or ggml type, as llama-quantize names them ("Q4_K_M",
/// "IQ4_XS", "MXFP4" for MXFP4_MOE), in any case.
GgufType readWeightType(ObjectReader &r, GgufType fallback)
{
    const std::string text = r.text("weight_type", enumName(fallback));
    std::string lower;
    for (const char ch : text.substr(0, 64))
        lower += char(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "mxfp4")
        return GgufType::Mxfp4_Moe;
    if (const auto type = enumFromName<GgufType>(lower); type && text.size() <= 64)
        return *type;
    throw ScenarioError(r.keyPath("weight_type"), "must be a llama.cpp file type (" + enumChoices<GgufType>() +
                                                      ", any case) (got " + quotedText(text) + ")");
}

/// vLLM's LoRA slots and CPU offload (vllm/config/lora.py LoRAConfig's checks).
void readVllmFeatures(ObjectReader &r, ServingConfig &c, const Scenario &s)
{
    c.enableLora = r.boolean("enable_lora", c.enableLora);
    for (const char *key : {"max_loras", "max_lora_rank", "max_cpu_loras"})
        if (r.has(key) && !c.enableLora)
            throw ScenarioError(r.keyPath(key), "needs \"enable_lora\": true (vLLM's --enable-lora)");
    c.maxLoras = count(r, "max_loras", 1, 4096, c.maxLoras);
    c.maxLoraRank = count(r, "max_lora_rank", 1, 512, c.maxLoraRank);
    bool rankOk = false;
    for (std::uint32_t allowed : {1u, 8u, 16u, 32u, 64u, 128u, 256u, 320u, 512u})
        rankOk = rankOk || c.maxLoraRank == allowed;
    if (!rankOk)
        throw ScenarioError(r.keyPath("max_lora_rank"), "must be one of 1, 8, 16, 32, 64, 128, 256, 320, 512 "
                                                        "(vLLM's possible_max_ranks; got " +
                                                            std::to_string(c.maxLoraRank) + ")");
    c.maxCpuLoras = count(r, "max_cpu_loras", 0, 1 << 20, c.maxCpuLoras);
    if (c.maxCpuLoras && c.maxCpuLoras < c.maxLoras)
        throw ScenarioError(r.keyPath("max_cpu_loras"), "must be at least max_loras (" + std::to_string(c.maxLoras) +
                                                            "), as vLLM requires");
    const ModelArch &m = s.model;
    bool attentionOnly = true;
    for (LayerKind kind : m.layerKinds)
        attentionOnly = attentionOnly && (kind == LayerKind::Full || kind == LayerKind::Sliding || kind == LayerKind::Chunked);
    if (c.enableLora && (m.experts > 1 || m.kvLoraRank > 0 || !attentionOnly || m.gatedAttention))
        throw ScenarioError(r.keyPath("enable_lora"), "LoRA slots are modelled for dense attention models only "
                                                      "(this model has experts, latent attention or mixed layer kinds)");
    c.cpuOffloadGb = r.number("cpu_offload_gb", 0, 1e6, c.cpuOffloadGb, false);
}

} // namespace

ServingConfig servingFromJson(const json &node, const Scenario &s, const DraftModelReader &readDraft)
{
    if (s.task != Task::Inference)
        throw ScenarioError("serving", "needs \"task\": \"inference\" (a serving engine serves a "
                                       "trained model)");
    ObjectReader r(node, "serving");
    if (s.gpus.empty())
        throw ScenarioError("gpus", "a serving scenario needs at least one GPU: the engine runs on "
                                    "the first");
    ServingConfig c;
    if (!r.has("engine"))
        throw ScenarioError("serving.engine", "is required: one of " + enumChoices<Engine>());
    const bool ollama = node.at("engine").is_string() && node.at("engine").get<std::string>() == "ollama";
    if (ollama) { // llama.cpp as Ollama starts it
        r.text("engine", "ollama");
        c.engine = Engine::LlamaCpp;
    }
    else if (node.at("engine").is_string() && !enumFromName<Engine>(node.at("engine").get<std::string>()))
        throw ScenarioError("serving.engine", "must be one of " + enumChoices<Engine>() + ", ollama (got " +
                                                  quotedText(node.at("engine").get<std::string>()) + ")");
    else
        c.engine = r.choice("engine", c.engine);
    for (const auto &item : node.items()) {
        if (ollama && ollamaReads(item.key()))
            continue;
        for (const EngineKey &entry : kEngineKeys)
            if (item.key() == entry.key && (ollama || !engineReads(entry, c.engine)))
                throw ScenarioError("serving." + item.key(),
                                    "applies to engine " + engineList(entry) + " only (this section's engine is " +
                                        (ollama ? std::string("ollama") : enumName(c.engine)) + ")");
        if (!ollama && ollamaReads(item.key()) && item.key() != "weight_type" && item.key() != "main_gpu")
            throw ScenarioError("serving." + item.key(),
                                "applies to engine ollama only (this section's engine is " +
                                    std::string(enumName(c.engine)) + ")");
    }

    c.version = r.text("version", c.version);
    if (c.version.size() > 64)
        throw ScenarioError("serving.version", "must be at most 64 characters");
    if (c.engine == Engine::Vllm && !c.version.empty() && !parseEngineVersion(c.version))
        throw ScenarioError("serving.version",
                            "must be a vLLM version such as \"0.10.1\" (got " + quotedText(c.version) + ")");
    if (c.engine == Engine::Trtllm && !c.version.empty() && !parseEngineVersion(c.version))
        throw ScenarioError("serving.version", "must be a TensorRT-LLM version such as \"1.0.0\" (got " +
                                                   quotedText(c.version) + ")");
    const std::uint32_t longest = static_cast<std::uint32_t>(std::max(1, s.model.maxPositions));
    switch (c.engine) {
    case Engine::Vllm:
        c.gpuMemoryUtilization = r.number("gpu_memory_utilization", 0.01, 1, c.gpuMemoryUtilization, false);
        c.maxModelLen = count(r, "max_model_len", 1, kMaxTokens, longest);
        c.maxNumSeqs = count(r, "max_num_seqs", 0, 1 << 20, 0);
        c.maxNumBatchedTokens = count(r, "max_num_batched_tokens", 0, kMaxTokens, 0);
        c.kvCacheDtype = readKvType(r, "kv_cache_dtype", EngineKvType::Auto,
                                    {EngineKvType::Auto, EngineKvType::Fp8, EngineKvType::Fp8E4m3,
                                     EngineKvType::Fp8E5m2, EngineKvType::Nvfp4});
        c.blockSize = count(r, "block_size", 1, 4096, c.blockSize);
        c.enforceEager = r.boolean("enforce_eager", c.enforceEager);
        c.sampler = r.choice("sampler", c.sampler);
        c.usage = r.choice("usage_context", c.usage);
        if (r.has("v1_engine"))
            c.v1Engine = r.boolean("v1_engine", true);
        if (r.has("non_torch_mib"))
            c.nonTorchMiB = r.number("non_torch_mib", 0, 1 << 20, 0, false);
        if (r.has("cuda_graph_mib"))
            c.cudaGraphMiB = r.number("cuda_graph_mib", 0, 1 << 20, 0, false);
        if (r.has("kv_cache_memory_bytes"))
            c.kvCacheMemoryBytes =
                static_cast<std::uint64_t>(r.integer("kv_cache_memory_bytes", 1, std::int64_t(1) << 62, 1));
        if (r.has("total_gpu_memory_gib"))
            c.totalGpuMemoryGiB = r.number("total_gpu_memory_gib", 0.1, 1e6, 0, false);
        readVllmFeatures(r, c, s);
        if (const json *speculative = r.child("speculative"))
            c.speculative = detail::readSpeculative(*speculative, c, s, readDraft);
        break;
    case Engine::Sglang:
        c.maxModelLen = count(r, "max_model_len", 1, kMaxTokens, longest);
        c.maxNumSeqs = count(r, "max_num_seqs", 0, 1 << 20, 0);
        c.kvCacheDtype = readKvType(r, "kv_cache_dtype", EngineKvType::Auto,
                                    {EngineKvType::Auto, EngineKvType::Fp8E4m3, EngineKvType::Fp8E5m2});
        c.memFractionStatic = r.number("mem_fraction_static", 0, 1, 0, false);
        if (r.has("mem_fraction_static") && c.memFractionStatic < 0.01)
            throw ScenarioError("serving.mem_fraction_static", "must be a number from 0.01 to 1");
        c.chunkedPrefillSize = count(r, "chunked_prefill_size", 0, kMaxTokens, 0);
        c.pageSize = count(r, "page_size", 1, 4096, c.pageSize);
        if (r.has("cuda_graph_mib"))
            c.cudaGraphMiB = r.number("cuda_graph_mib", 0, 1 << 20, 0, false);
        if (r.has("total_gpu_memory_gib"))
            c.totalGpuMemoryGiB = r.number("total_gpu_memory_gib", 0.1, 1e6, 0, false);
        break;
    case Engine::LlamaCpp: {
        if (ollama) {
            readOllama(r, c, s);
            break;
        }
        c.nCtx = count(r, "n_ctx", 1, kMaxTokens, c.nCtx);
        c.nBatch = count(r, "n_batch", 1, kMaxTokens, c.nBatch);
        c.nUbatch = count(r, "n_ubatch", 1, kMaxTokens, c.nUbatch);
        if (c.nUbatch > c.nBatch)
            throw ScenarioError("serving.n_ubatch", "must be at most n_batch (" + std::to_string(c.nBatch) + ")");
        c.nGpuLayers = static_cast<std::int32_t>(r.integer("n_gpu_layers", -1, 1'000'000, c.nGpuLayers));
        c.nParallel = count(r, "n_parallel", 1, 4096, c.nParallel);
        if (c.nParallel > c.nCtx)
            throw ScenarioError("serving.n_parallel", "must be at most n_ctx (" + std::to_string(c.nCtx) + ")");
        const auto ggml = {EngineKvType::F32,  EngineKvType::F16,  EngineKvType::Bf16, EngineKvType::Q8_0,
                           EngineKvType::Q5_1, EngineKvType::Q5_0, EngineKvType::Q4_1, EngineKvType::Q4_0,
                           EngineKvType::Iq4Nl};
        c.cacheTypeK = readKvType(r, "cache_type_k", c.cacheTypeK, ggml);
        c.cacheTypeV = readKvType(r, "cache_type_v", c.cacheTypeV, ggml);
        c.flashAttn = r.boolean("flash_attn", c.flashAttn);
        const bool quantizedV = c.cacheTypeV != EngineKvType::F16 && c.cacheTypeV != EngineKvType::F32 &&
                                c.cacheTypeV != EngineKvType::Bf16;
        if (quantizedV && !c.flashAttn)
            throw ScenarioError("serving.cache_type_v",
                                "a quantized V cache needs flash_attn (llama.cpp refuses to start)");
        c.kvOffload = r.boolean("kv_offload", c.kvOffload);
        c.opOffload = r.boolean("op_offload", c.opOffload);
        c.weightType = readWeightType(r, c.weightType);
        c.nCpuMoe = count(r, "n_cpu_moe", 0, 100000, c.nCpuMoe);
        c.cpuMoe = r.boolean("cpu_moe", c.cpuMoe);
        c.tensorSplit = readTensorSplit(r, s.gpus.size());
        c.splitMode = r.choice("split_mode", c.splitMode);
        c.mainGpu = count(r, "main_gpu", 0, 15, c.mainGpu);
        const std::size_t devices = std::max<std::size_t>(1, c.tensorSplit.size());
        if (c.mainGpu >= devices)
            throw ScenarioError("serving.main_gpu", "must be a device of tensor_split, 0 to " +
                                                        std::to_string(devices - 1) + " (got " +
                                                        std::to_string(c.mainGpu) + ")");
        if (c.tensorSplit.empty() && c.splitMode != LlamaSplitMode::Layer)
            throw ScenarioError("serving.split_mode", "applies to several devices: give tensor_split too "
                                                      "(one proportion per device of gpus)");
        // split_mode none keeps the main GPU alone: its buffer is CUDA<main_gpu>.
        const bool none = c.splitMode == LlamaSplitMode::None;
        c.overrideTensor = readOverrides(r, none ? c.mainGpu : 0, none ? 1 : devices);
        c.loadMode = r.choice("load_mode", c.loadMode);
        break;
    }
    case Engine::Trtllm:
        c.trtllmBackend = r.choice("backend", c.trtllmBackend);
        // llm_args.py KvCacheConfig: ge=0, le=1; calculate_max_num_blocks asserts < 1.
        c.freeGpuMemoryFraction = r.number("free_gpu_memory_fraction", 0.01, 0.99, c.freeGpuMemoryFraction, false);
        c.tokensPerBlock = count(r, "tokens_per_block", 1, 4096, c.tokensPerBlock);
        c.maxBatchSize = count(r, "max_batch_size", 1, 1 << 20, c.maxBatchSize);
        c.maxNumTokens = count(r, "max_num_tokens", 1, kMaxTokens, c.maxNumTokens);
        c.maxModelLen = count(r, "max_seq_len", 1, kMaxTokens, longest);
        if (r.has("max_tokens"))
            c.maxTokens = static_cast<std::uint64_t>(r.integer("max_tokens", 1, std::int64_t(1) << 40, 1));
        c.kvCacheDtype = readKvType(r, "kv_cache_dtype", EngineKvType::Auto,
                                    {EngineKvType::Auto, EngineKvType::Fp8, EngineKvType::Nvfp4});
        c.cudaGraph = r.boolean("cuda_graph", c.cudaGraph);
        c.cudaGraphMaxBatchSize = count(r, "cuda_graph_max_batch_size", 0, 1 << 20, c.cudaGraphMaxBatchSize);
        c.cudaGraphPadding = r.boolean("cuda_graph_padding", c.cudaGraphPadding);
        if (r.has("non_torch_mib"))
            c.nonTorchMiB = r.number("non_torch_mib", 0, 1 << 20, 0, false);
        if (r.has("cuda_graph_mib"))
            c.cudaGraphMiB = r.number("cuda_graph_mib", 0, 1 << 20, 0, false);
        if (r.has("total_gpu_memory_gib"))
            c.totalGpuMemoryGiB = r.number("total_gpu_memory_gib", 0.1, 1e6, 0, false);
        break;
    case Engine::HfGenerate:
        c.maxModelLen = count(r, "max_model_len", 0, kMaxTokens, 0);
        c.cacheImplementation = r.choice("cache_implementation", c.cacheImplementation);
        c.cacheNbits = count(r, "cache_nbits", 1, 8, c.cacheNbits);
        if (c.cacheNbits != 1 && c.cacheNbits != 2 && c.cacheNbits != 3 && c.cacheNbits != 4 &&
            c.cacheNbits != 8)
            throw ScenarioError("serving.cache_nbits", "must be 1, 2, 3, 4 or 8 (got " +
                                                           std::to_string(c.cacheNbits) + ")");
        c.residualLength = count(r, "residual_length", 0, kMaxTokens, c.residualLength);
        c.qGroupSize = count(r, "q_group_size", 1, 65536, c.qGroupSize);
        break;
    }
    if (const json *requests = r.child("requests"))
        c.requests = readRequests(*requests);
    r.finish();
    return c;
}

namespace {

void readOllama(ObjectReader &r, ServingConfig &c, const Scenario &s)
{
    OllamaConfig o;
    if (r.has("num_ctx"))
        o.numCtx = count(r, "num_ctx", 1, kMaxTokens, 4096);
    o.numParallel = count(r, "num_parallel", 1, 4096, o.numParallel);
    if (r.has("num_gpu"))
        o.numGpu = static_cast<std::int32_t>(r.integer("num_gpu", -1, 1'000'000, -1));
    if (r.has("num_batch"))
        o.numBatch = count(r, "num_batch", 1, kMaxTokens, 512);
    if (r.has("flash_attention"))
        o.flashAttention = r.boolean("flash_attention", true);
    o.kvCacheType = readKvType(r, "kv_cache_type", o.kvCacheType,
                               {EngineKvType::F32, EngineKvType::F16, EngineKvType::Bf16, EngineKvType::Q8_0,
                                EngineKvType::Q5_1, EngineKvType::Q5_0, EngineKvType::Q4_1, EngineKvType::Q4_0,
                                EngineKvType::Iq4Nl});
    o.gpuOverheadBytes = static_cast<std::uint64_t>(r.integer("gpu_overhead_bytes", 0, std::int64_t(1) << 50, 0));
    if (r.has("use_mmap"))
        o.useMmap = r.boolean("use_mmap", true);
    if (r.has("main_gpu"))
        o.mainGpu = count(r, "main_gpu", 0, 15, 0);
    // Ollama's library tags are Q4_K_M unless a tag names another type.
    c.weightType = readWeightType(r, GgufType::Q4_K_M);
    c.ollama = o;
    applyOllama(c, s);
}

} // namespace

json servingToJson(const ServingConfig &c)
{
    json requests = {{"concurrency", c.requests.concurrency}};
    if (c.requests.classes.size() == 1) {
        requests["prompt_tokens"] = c.requests.classes[0].promptTokens;
        requests["output_tokens"] = c.requests.classes[0].outputTokens;
    } else {
        json mix = json::array();
        for (const RequestClass &kind : c.requests.classes)
            mix.push_back({{"share", kind.share},
                           {"prompt_tokens", kind.promptTokens},
                           {"output_tokens", kind.outputTokens}});
        requests["mix"] = mix;
    }
    json doc = {{"engine", c.ollama ? "ollama" : enumName(c.engine)}};
    if (!c.version.empty())
        doc["version"] = c.version;
    if (c.ollama) { // Ollama's options as given
        const OllamaConfig &o = *c.ollama;
        doc.update({{"num_parallel", o.numParallel},
                    {"kv_cache_type", enumName(o.kvCacheType)},
                    {"weight_type", enumName(c.weightType)}});
        if (o.numCtx)
            doc["num_ctx"] = *o.numCtx;
        if (o.numGpu)
            doc["num_gpu"] = *o.numGpu;
        if (o.numBatch)
            doc["num_batch"] = *o.numBatch;
        if (o.flashAttention)
            doc["flash_attention"] = *o.flashAttention;
        if (o.gpuOverheadBytes)
            doc["gpu_overhead_bytes"] = o.gpuOverheadBytes;
        if (o.useMmap)
            doc["use_mmap"] = *o.useMmap;
        if (o.mainGpu)
            doc["main_gpu"] = *o.mainGpu;
        doc["requests"] = requests;
        return doc;
    }
    switch (c.engine) {
    case Engine::Vllm:
        doc.update({{"gpu_memory_utilization", c.gpuMemoryUtilization},
                    {"max_model_len", c.maxModelLen},
                    {"max_num_seqs", c.maxNumSeqs},
                    {"max_num_batched_tokens", c.maxNumBatchedTokens},
                    {"kv_cache_dtype", enumName(c.kvCacheDtype)},
                    {"block_size", c.blockSize},
                    {"enforce_eager", c.enforceEager},
                    {"sampler", enumName(c.sampler)},
                    {"usage_context", enumName(c.usage)}});
        if (c.v1Engine)
            doc["v1_engine"] = *c.v1Engine;
        if (c.nonTorchMiB)
            doc["non_torch_mib"] = *c.nonTorchMiB;
        if (c.cudaGraphMiB)
            doc["cuda_graph_mib"] = *c.cudaGraphMiB;
        if (c.kvCacheMemoryBytes)
            doc["kv_cache_memory_bytes"] = *c.kvCacheMemoryBytes;
        if (c.enableLora)
            doc.update({{"enable_lora", true}, {"max_loras", c.maxLoras}, {"max_lora_rank", c.maxLoraRank},
                        {"max_cpu_loras", c.maxCpuLoras}});
        if (c.cpuOffloadGb > 0)
            doc["cpu_offload_gb"] = c.cpuOffloadGb;
        if (c.speculative)
            doc["speculative"] = detail::speculativeToJson(*c.speculative);
        if (c.totalGpuMemoryGiB)
            doc["total_gpu_memory_gib"] = *c.totalGpuMemoryGiB;
        break;
    case Engine::Sglang:
        doc.update({{"max_model_len", c.maxModelLen},
                    {"max_num_seqs", c.maxNumSeqs},
                    {"kv_cache_dtype", enumName(c.kvCacheDtype)},
                    {"chunked_prefill_size", c.chunkedPrefillSize},
                    {"page_size", c.pageSize}});
        if (c.memFractionStatic > 0) // 0: SGLang's default by tensor-parallel size (left out)
            doc["mem_fraction_static"] = c.memFractionStatic;
        if (c.cudaGraphMiB)
            doc["cuda_graph_mib"] = *c.cudaGraphMiB;
        if (c.totalGpuMemoryGiB)
            doc["total_gpu_memory_gib"] = *c.totalGpuMemoryGiB;
        break;
    case Engine::LlamaCpp:
        doc.update({{"n_ctx", c.nCtx},
                    {"n_batch", c.nBatch},
                    {"n_ubatch", c.nUbatch},
                    {"n_gpu_layers", c.nGpuLayers},
                    {"n_parallel", c.nParallel},
                    {"cache_type_k", enumName(c.cacheTypeK)},
                    {"cache_type_v", enumName(c.cacheTypeV)},
                    {"flash_attn", c.flashAttn},
                    {"kv_offload", c.kvOffload},
                    {"weight_type", enumName(c.weightType)}});
        if (c.nCpuMoe)
            doc["n_cpu_moe"] = c.nCpuMoe;
        if (c.cpuMoe)
            doc["cpu_moe"] = true;
        if (!c.overrideTensor.empty())
            doc["override_tensor"] = c.overrideTensor;
        if (!c.tensorSplit.empty()) {
            doc["tensor_split"] = c.tensorSplit;
            doc["split_mode"] = enumName(c.splitMode);
            doc["main_gpu"] = c.mainGpu;
        }
        if (c.loadMode != LlamaLoadMode::Mmap)
            doc["load_mode"] = enumName(c.loadMode);
        if (!c.opOffload)
            doc["op_offload"] = false;
        break;
    case Engine::Trtllm:
        doc.update({{"backend", enumName(c.trtllmBackend)},
                    {"free_gpu_memory_fraction", c.freeGpuMemoryFraction},
                    {"tokens_per_block", c.tokensPerBlock},
                    {"max_batch_size", c.maxBatchSize},
                    {"max_num_tokens", c.maxNumTokens},
                    {"max_seq_len", c.maxModelLen},
                    {"kv_cache_dtype", enumName(c.kvCacheDtype)},
                    {"cuda_graph", c.cudaGraph},
                    {"cuda_graph_max_batch_size", c.cudaGraphMaxBatchSize},
                    {"cuda_graph_padding", c.cudaGraphPadding}});
        if (c.maxTokens)
            doc["max_tokens"] = *c.maxTokens;
        if (c.nonTorchMiB)
            doc["non_torch_mib"] = *c.nonTorchMiB;
        if (c.cudaGraphMiB)
            doc["cuda_graph_mib"] = *c.cudaGraphMiB;
        if (c.totalGpuMemoryGiB)
            doc["total_gpu_memory_gib"] = *c.totalGpuMemoryGiB;
        break;
    case Engine::HfGenerate:
        doc.update({{"max_model_len", c.maxModelLen},
                    {"cache_implementation", enumName(c.cacheImplementation)},
                    {"cache_nbits", c.cacheNbits},
                    {"residual_length", c.residualLength},
                    {"q_group_size", c.qGroupSize}});
        break;
    }
    doc["requests"] = requests;
    return doc;
}

} // namespace headroom
