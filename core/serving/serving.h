// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The serving section of a scenario: which engine serves the model, its own settings, and the
// requests it serves. The engines' memory accounting is in servingvllm.cpp, servingsglang.cpp,
// servinghf.cpp and servingllamacpp.cpp (docs/serving.md cites the code each follows).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct ModelArch;

/// A serving engine; names as the framework key uses them (hf_generate, vllm, sglang, llama_cpp,
/// trtllm: TensorRT-LLM's trtllm-serve / LLM API).
enum class Engine { HfGenerate, Vllm, Sglang, LlamaCpp, Trtllm };

/// TensorRT-LLM's runtime: the PyTorch backend (the default from 1.0) or a built TensorRT
/// engine (the default before 1.0); auto: by the version.
enum class TrtllmBackend { Auto, Pytorch, Tensorrt };

/// A KV cache value type as an engine names it: vLLM/SGLang `kv_cache_dtype` (auto = the model
/// dtype, fp8*, nvfp4) and llama.cpp's ggml cache types (`-ctk`/`-ctv`).
enum class EngineKvType { Auto, Fp8, Fp8E4m3, Fp8E5m2, Nvfp4, F32, F16, Bf16, Q8_0, Q5_1, Q5_0, Q4_1, Q4_0, Iq4Nl };

/// The weights of a llama.cpp model: a llama.cpp file type (llama-quantize's names, `enum
/// llama_ftype`), each tensor typed as src/llama-quant.cpp `llama_tensor_get_type` types it; or a
/// ggml type that is no file type (q3_k, q4_k, q5_k): every quantizable matrix in it (`--pure`).
enum class GgufType {
    F32, F16, Bf16, Q8_0, Q6_K, Q5_K, Q5_0, Q4_K, Q4_0, Q3_K, Q2_K,
    Q4_1, Q5_1, Q2_K_S, Q3_K_S, Q3_K_M, Q3_K_L, Q4_K_S, Q4_K_M, Q5_K_S, Q5_K_M, Iq2_Xxs, Iq2_Xs,
    Iq2_S, Iq2_M, Iq3_Xxs, Iq3_Xs, Iq3_S, Iq3_M, Iq1_S, Iq1_M, Iq4_Nl, Iq4_Xs, Tq1_0, Tq2_0,
    Mxfp4_Moe,
};

/// A GGUF file's tensor bytes as llama.cpp places them: per block, the block's expert tensors
/// (ffn_*_exps), the output layer (output.weight, output_norm; a copy of token_embd when tied)
/// and the token embeddings.
struct LlamaFileBytes
{
    std::vector<std::uint64_t> layers;
    std::vector<std::uint64_t> experts;
    std::uint64_t output = 0;
    std::uint64_t embedding = 0;
    std::uint64_t total = 0; ///< every tensor of the file
    std::map<std::string, std::uint64_t> byType;
    /// Per block, the largest tensor other than the experts and the largest expert tensor (what
    /// a GPU copies to run the block's matmuls from host memory), with their names.
    std::vector<std::uint64_t> largest;
    std::vector<std::string> largestName;
    std::vector<std::uint64_t> largestExpert;
    std::vector<std::string> largestExpertName;
    std::uint64_t outputWeight = 0; ///< output.weight (token_embd.weight when tied)
    bool operator==(const LlamaFileBytes &) const = default;
};

/// llama.cpp's --split-mode: whole layers per device (layer), each layer's matrices split by
/// rows over the devices (row), or the main GPU alone (none).
enum class LlamaSplitMode { Layer, Row, None };

/// How llama.cpp loads the weights (`--load-mode`, src/llama-model-loader.cpp; before it the
/// flags --no-mmap, --mlock, --direct-io): mapped from the file (the CPU tensors live in the page
/// cache), read into anonymous buffers (none), either of them pinned (mlock), or read with direct
/// I/O past the page cache (dio).
enum class LlamaLoadMode { Mmap, None, Mlock, MmapMlock, Dio };

/// vLLM's top-k/top-p sampler: the release's default (auto: PyTorch's sort before 0.17, the
/// Triton pivot kernel from 0.17 for batches of 8 rows or more), PyTorch's sort-based one,
/// FlashInfer's kernels (its log line "Using FlashInfer for top-p & top-k sampling") or the
/// Triton kernel (vllm/v1/sample/ops/topk_topp_triton.py).
enum class Sampler { Auto, Pytorch, Flashinfer, Triton };

/// How vLLM was started: `vllm serve` (the OpenAI server) or the `LLM` class (offline); the
/// default batch sizes differ.
enum class UsageContext { Server, Offline };

/// Hugging Face generate()'s cache implementations (transformers cache_utils.py).
enum class HfCacheImpl { Dynamic, Static, Offloaded, Quantized };

/// One kind of request: tokens of prompt and of output per sequence, and its share of the load.
struct RequestClass
{
    double share = 1;                 ///< fraction of the concurrent sequences (mix only)
    std::uint32_t promptTokens = 1024;
    std::uint32_t outputTokens = 1024;
    std::uint64_t tokens() const { return std::uint64_t(promptTokens) + outputTokens; }
    bool operator==(const RequestClass &) const = default;
};

/// The load: how many sequences run at once and how long each is (one class, or a mix).
struct ServingRequests
{
    std::uint32_t concurrency = 1;
    std::vector<RequestClass> classes = std::vector<RequestClass>(1); ///< one entry, or the mix in order
    /// Sequences of each class: floor(share x concurrency), the remainder to the first classes.
    std::vector<std::uint64_t> counts() const;
    bool operator==(const ServingRequests &) const = default;
};

/// Ollama (`engine: "ollama"`): its settings as its API options and environment name them, kept
/// as given (and written back so); the llama.cpp settings of the section are derived from them as
/// Ollama launches llama-server (core/serving/servingollama.cpp, docs/serving.md "Ollama").
struct OllamaConfig
{
    std::optional<std::uint32_t> numCtx;  ///< num_ctx (OLLAMA_CONTEXT_LENGTH); absent: by total VRAM
    std::uint32_t numParallel = 1;        ///< OLLAMA_NUM_PARALLEL
    std::optional<std::int32_t> numGpu;   ///< num_gpu (-ngl); absent or -1: llama-server's own
    std::optional<std::uint32_t> numBatch; ///< num_batch (-b and -ub); absent: by context
    std::optional<bool> flashAttention;   ///< OLLAMA_FLASH_ATTENTION; absent: auto (on)
    EngineKvType kvCacheType = EngineKvType::F16; ///< OLLAMA_KV_CACHE_TYPE (K and V)
    std::uint64_t gpuOverheadBytes = 0;   ///< OLLAMA_GPU_OVERHEAD, per GPU
    std::optional<bool> useMmap;          ///< use_mmap; absent: Ollama's rule
    std::optional<std::uint32_t> mainGpu; ///< main_gpu: --split-mode none --main-gpu N
    std::vector<std::string> notes;       ///< how each llama.cpp setting was derived
    bool operator==(const OllamaConfig &) const = default;
};

/// vLLM's speculative decoding methods (vllm/config/speculative.py SpeculativeMethod) that
/// Headroom models: an EAGLE head (eagle), an EAGLE-3 head (eagle3), the target's own
/// multi-token-prediction layers (mtp: DeepSeek-V3's deepseek_mtp), a separate draft model
/// (draft_model), and the weightless n-gram and suffix proposers.
enum class SpeculativeMethod { Eagle, Eagle3, Mtp, DraftModel, Ngram, Suffix };

/// vLLM's --speculative-config (serving.speculative), names as its JSON keys.
struct SpeculativeConfig
{
    SpeculativeMethod method = SpeculativeMethod::Eagle;
    std::string methodName = "eagle";       ///< as given ("deepseek_mtp" is vLLM's older name of mtp)
    std::uint32_t numSpeculativeTokens = 1; ///< num_speculative_tokens
    /// `model`: the draft (eagle, eagle3, draft_model), immutable and shared between copies.
    std::shared_ptr<const ModelArch> draft;
    /// The draft checkpoint carries its own embed_tokens / lm_head (EagleProposer.load_model
    /// shares the target's otherwise: has_own_embed_tokens / has_own_lm_head).
    bool ownEmbedTokens = false;
    bool ownLmHead = false;
    std::uint32_t draftVocabSize = 0;       ///< EAGLE-3's draft_vocab_size (0: the target's vocabulary)
    bool operator==(const SpeculativeConfig &other) const;
};

/// The engine and its settings. 0 (or an empty optional) means "the engine's default".
struct ServingConfig
{
    Engine engine = Engine::Vllm;
    std::string version; ///< vLLM "0.10.1", SGLang/llama.cpp informative; empty: the current release

    // vLLM
    double gpuMemoryUtilization = 0.9;
    std::uint32_t maxModelLen = 0;          ///< 0: the model's max_positions
    std::uint32_t maxNumSeqs = 0;           ///< 0: 1024 on >= 70 GiB GPUs other than A100, else 256
    std::uint32_t maxNumBatchedTokens = 0;  ///< 0: the usage context's default
    EngineKvType kvCacheDtype = EngineKvType::Auto;
    std::uint32_t blockSize = 16;
    bool enforceEager = false;
    Sampler sampler = Sampler::Auto;
    UsageContext usage = UsageContext::Server;
    std::optional<bool> v1Engine;           ///< default: V1 from 0.8.0 on (VLLM_USE_V1)
    std::optional<double> nonTorchMiB;      ///< measured non-torch increase; default in docs
    std::optional<double> cudaGraphMiB;     ///< CUDA graph pool; default in docs
    std::optional<std::uint64_t> kvCacheMemoryBytes; ///< --kv-cache-memory (skips profiling)
    std::optional<double> totalGpuMemoryGiB; ///< what cudaMemGetInfo reports; default: table
    bool enableLora = false;                ///< --enable-lora
    std::uint32_t maxLoras = 1;             ///< --max-loras: GPU slots
    std::uint32_t maxLoraRank = 16;         ///< --max-lora-rank: every slot's rank
    std::uint32_t maxCpuLoras = 0;          ///< --max-cpu-loras (0: max_loras)
    double cpuOffloadGb = 0;                ///< --cpu-offload-gb: GiB of weights in CPU RAM
    std::optional<SpeculativeConfig> speculative; ///< --speculative-config

    // TensorRT-LLM (maxModelLen holds max_seq_len; kvCacheDtype auto, fp8 or nvfp4; nonTorchMiB,
    // cudaGraphMiB and totalGpuMemoryGiB as for vLLM)
    TrtllmBackend trtllmBackend = TrtllmBackend::Auto;
    double freeGpuMemoryFraction = 0.9;      ///< KvCacheConfig.free_gpu_memory_fraction
    std::uint32_t tokensPerBlock = 32;
    std::uint32_t maxBatchSize = 2048;       ///< max_batch_size (max_num_requests)
    std::uint32_t maxNumTokens = 8192;       ///< max_num_tokens: the warm-up forward's tokens
    std::optional<std::uint64_t> maxTokens;  ///< KvCacheConfig.max_tokens: a cap on the pool
    bool cudaGraph = true;                   ///< cuda_graph_config set (the 1.x default)
    std::uint32_t cudaGraphMaxBatchSize = 128; ///< CudaGraphConfig.max_batch_size (0 there: 128)
    bool cudaGraphPadding = false;           ///< CudaGraphConfig.enable_padding

    // SGLang
    double memFractionStatic = 0;           ///< 0: SGLang's default rule
    std::uint32_t chunkedPrefillSize = 0;   ///< 0: its default
    std::uint32_t pageSize = 1;

    // llama.cpp
    std::uint32_t nCtx = 4096;
    std::uint32_t nBatch = 2048;
    std::uint32_t nUbatch = 512;
    std::int32_t nGpuLayers = -1; ///< -1: all (the same as 999)
    std::uint32_t nParallel = 1;
    EngineKvType cacheTypeK = EngineKvType::F16;
    EngineKvType cacheTypeV = EngineKvType::F16;
    bool flashAttn = true;
    bool kvOffload = true; ///< false: --no-kv-offload, every layer's cache in CPU RAM
    /// false: --no-op-offload, the CPU runs the ops of the weights in CPU RAM (true: the first
    /// GPU runs them for batches of 32 tokens or more, copying each weight in).
    bool opOffload = true;
    GgufType weightType = GgufType::Q4_K;
    /// A GGUF file's own tensor bytes (--model-weights FILE.gguf), used instead of the file
    /// type's when its blocks match the model; never written to the scenario.
    std::optional<LlamaFileBytes> fileBytes;
    /// --n-cpu-moe N: the first N layers' expert tensors (ffn_*_exps) stay in CPU RAM.
    std::uint32_t nCpuMoe = 0;
    bool cpuMoe = false; ///< --cpu-moe: every layer's expert tensors in CPU RAM
    /// -ot "REGEX=BUFFER" rules, in order (the first that matches a tensor's name places it):
    /// BUFFER is CPU or CUDA0 (the GPU); checked when read.
    std::vector<std::string> overrideTensor;
    /// --tensor-split: one proportion per device, the devices being the first entries of the
    /// scenario's `gpus` in order (CUDA0, CUDA1, ...); all zero: by each device's free memory, as
    /// llama.cpp's default. Empty: one device, the first of `gpus`.
    std::vector<double> tensorSplit;
    LlamaSplitMode splitMode = LlamaSplitMode::Layer; ///< --split-mode
    std::uint32_t mainGpu = 0; ///< --main-gpu: the device of split_mode none (an index into the devices)
    LlamaLoadMode loadMode = LlamaLoadMode::Mmap; ///< --load-mode (llama.cpp's default: mmap)
    /// engine "ollama": llama.cpp as Ollama starts it (engine stays LlamaCpp; the settings above
    /// derived from these).
    std::optional<OllamaConfig> ollama;

    // Hugging Face generate()
    HfCacheImpl cacheImplementation = HfCacheImpl::Dynamic;
    std::uint32_t cacheNbits = 4;
    std::uint32_t residualLength = 128;
    std::uint32_t qGroupSize = 64;

    ServingRequests requests;
    bool operator==(const ServingConfig &) const = default;
};

/// A vLLM version as major.minor.patch for comparisons; an empty text is the current release.
struct EngineVersion
{
    int major = 0;
    int minor = 32;
    int patch = 0;
    auto operator<=>(const EngineVersion &) const = default;
};
/// Parses "0.10.1.1", "v0.6.4.post1", "0.29.1rc1.dev339": the leading numbers; nullopt otherwise.
std::optional<EngineVersion> parseEngineVersion(const std::string &text);
/// The vLLM release Headroom models when the scenario names none.
inline constexpr EngineVersion kCurrentVllm{0, 32, 0};

/// The GPU memory CUDA reports as total (torch.cuda.mem_get_info()[1]), which is what
/// gpu_memory_utilization multiplies: the catalog capacity (nvidia-smi) less what the driver
/// reserves. Published values where known (docs/serving.md), else capacity - 480 MiB.
std::uint64_t cudaTotalBytes(const std::string &gpuId, std::uint64_t capacityBytes, bool *published = nullptr);

} // namespace headroom
