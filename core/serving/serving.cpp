// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/serving.h"

#include "scenario/scenario.h"

#include "scenario/names.h"
#include "serving/servingfigures.h"

#include <cctype>
#include <cmath>

namespace headroom {

#define HEADROOM_SERVING_ENUM(Type, ...)                                                           \
    template <>                                                                                    \
    std::span<const EnumEntry<Type>> enumEntries<Type>()                                           \
    {                                                                                              \
        static constexpr EnumEntry<Type> table[] = {__VA_ARGS__};                                  \
        return table;                                                                              \
    }

HEADROOM_SERVING_ENUM(Engine, {Engine::HfGenerate, "hf_generate"}, {Engine::Vllm, "vllm"},
                      {Engine::Sglang, "sglang"}, {Engine::LlamaCpp, "llama_cpp"},
                      {Engine::Trtllm, "trtllm"})
HEADROOM_SERVING_ENUM(TrtllmBackend, {TrtllmBackend::Auto, "auto"}, {TrtllmBackend::Pytorch, "pytorch"},
                      {TrtllmBackend::Tensorrt, "tensorrt"})
HEADROOM_SERVING_ENUM(EngineKvType, {EngineKvType::Auto, "auto"}, {EngineKvType::Fp8, "fp8"},
                      {EngineKvType::Fp8E4m3, "fp8_e4m3"}, {EngineKvType::Fp8E5m2, "fp8_e5m2"},
                      {EngineKvType::Nvfp4, "nvfp4"}, {EngineKvType::F32, "f32"},
                      {EngineKvType::F16, "f16"}, {EngineKvType::Bf16, "bf16"},
                      {EngineKvType::Q8_0, "q8_0"}, {EngineKvType::Q5_1, "q5_1"},
                      {EngineKvType::Q5_0, "q5_0"}, {EngineKvType::Q4_1, "q4_1"},
                      {EngineKvType::Q4_0, "q4_0"}, {EngineKvType::Iq4Nl, "iq4_nl"})
HEADROOM_SERVING_ENUM(GgufType, {GgufType::F32, "f32"}, {GgufType::F16, "f16"},
                      {GgufType::Bf16, "bf16"}, {GgufType::Q8_0, "q8_0"}, {GgufType::Q6_K, "q6_k"},
                      {GgufType::Q5_K, "q5_k"}, {GgufType::Q5_0, "q5_0"}, {GgufType::Q4_K, "q4_k"},
                      {GgufType::Q4_0, "q4_0"}, {GgufType::Q3_K, "q3_k"}, {GgufType::Q2_K, "q2_k"},
                      {GgufType::Q4_1, "q4_1"}, {GgufType::Q5_1, "q5_1"}, {GgufType::Q2_K_S, "q2_k_s"},
                      {GgufType::Q3_K_S, "q3_k_s"}, {GgufType::Q3_K_M, "q3_k_m"}, {GgufType::Q3_K_L, "q3_k_l"},
                      {GgufType::Q4_K_S, "q4_k_s"}, {GgufType::Q4_K_M, "q4_k_m"}, {GgufType::Q5_K_S, "q5_k_s"},
                      {GgufType::Q5_K_M, "q5_k_m"}, {GgufType::Iq2_Xxs, "iq2_xxs"}, {GgufType::Iq2_Xs, "iq2_xs"},
                      {GgufType::Iq2_S, "iq2_s"}, {GgufType::Iq2_M, "iq2_m"}, {GgufType::Iq3_Xxs, "iq3_xxs"},
                      {GgufType::Iq3_Xs, "iq3_xs"}, {GgufType::Iq3_S, "iq3_s"}, {GgufType::Iq3_M, "iq3_m"},
                      {GgufType::Iq1_S, "iq1_s"}, {GgufType::Iq1_M, "iq1_m"}, {GgufType::Iq4_Nl, "iq4_nl"},
                      {GgufType::Iq4_Xs, "iq4_xs"}, {GgufType::Tq1_0, "tq1_0"}, {GgufType::Tq2_0, "tq2_0"},
                      {GgufType::Mxfp4_Moe, "mxfp4_moe"})
HEADROOM_SERVING_ENUM(LlamaSplitMode, {LlamaSplitMode::Layer, "layer"}, {LlamaSplitMode::Row, "row"},
                      {LlamaSplitMode::None, "none"})
HEADROOM_SERVING_ENUM(LlamaLoadMode, {LlamaLoadMode::Mmap, "mmap"}, {LlamaLoadMode::None, "none"},
                      {LlamaLoadMode::Mlock, "mlock"}, {LlamaLoadMode::MmapMlock, "mmap+mlock"},
                      {LlamaLoadMode::Dio, "dio"})
HEADROOM_SERVING_ENUM(Sampler, {Sampler::Auto, "auto"}, {Sampler::Pytorch, "pytorch"},
                      {Sampler::Flashinfer, "flashinfer"}, {Sampler::Triton, "triton"})
HEADROOM_SERVING_ENUM(UsageContext, {UsageContext::Server, "server"},
                      {UsageContext::Offline, "offline"})
HEADROOM_SERVING_ENUM(HfCacheImpl, {HfCacheImpl::Dynamic, "dynamic"}, {HfCacheImpl::Static, "static"},
                      {HfCacheImpl::Offloaded, "offloaded"}, {HfCacheImpl::Quantized, "quantized"})

HEADROOM_SERVING_ENUM(SpeculativeMethod, {SpeculativeMethod::Eagle, "eagle"}, {SpeculativeMethod::Eagle3, "eagle3"},
                      {SpeculativeMethod::Mtp, "mtp"}, {SpeculativeMethod::DraftModel, "draft_model"},
                      {SpeculativeMethod::Ngram, "ngram"}, {SpeculativeMethod::Suffix, "suffix"})

#undef HEADROOM_SERVING_ENUM

bool SpeculativeConfig::operator==(const SpeculativeConfig &other) const
{
    const bool sameDraft = draft == other.draft || (draft && other.draft && *draft == *other.draft);
    return method == other.method && methodName == other.methodName &&
           numSpeculativeTokens == other.numSpeculativeTokens && sameDraft && ownEmbedTokens == other.ownEmbedTokens &&
           ownLmHead == other.ownLmHead && draftVocabSize == other.draftVocabSize;
}

std::vector<std::uint64_t> ServingRequests::counts() const
{
    std::vector<std::uint64_t> out(classes.size(), 0);
    if (classes.empty())
        return out;
    if (classes.size() == 1) {
        out[0] = concurrency;
        return out;
    }
    std::uint64_t assigned = 0;
    for (std::size_t i = 0; i < classes.size(); ++i) {
        out[i] = static_cast<std::uint64_t>(std::floor(classes[i].share * double(concurrency)));
        assigned += out[i];
    }
    for (std::size_t i = 0; assigned < concurrency; i = (i + 1) % classes.size(), ++assigned)
        ++out[i];
    return out;
}

std::optional<EngineVersion> parseEngineVersion(const std::string &text)
{
    std::size_t pos = 0;
    if (pos < text.size() && (text[pos] == 'v' || text[pos] == 'V'))
        ++pos;
    int parts[3] = {0, 0, 0};
    int count = 0;
    while (count < 3 && pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
        int value = 0;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
            value = value * 10 + (text[pos] - '0');
            if (value > 100000)
                return std::nullopt;
            ++pos;
        }
        parts[count++] = value;
        if (pos < text.size() && text[pos] == '.')
            ++pos;
        else
            break;
    }
    if (count < 2)
        return std::nullopt;
    return EngineVersion{parts[0], parts[1], parts[2]};
}

namespace {

/// cudaMemGetInfo totals published in logs and PyTorch out-of-memory messages
/// ("GPU 0 has a total capacity of X GiB"); sources in docs/serving.md.
struct CudaTotal
{
    const char *gpuId;
    double gib;
};
constexpr CudaTotal kCudaTotals[] = {
    {"h100-80gb", 79.18}, // llm-d/llm-d-benchmark empirical-vllm-memory-results.md
    {"a100-80gb", 79.25}, // levihsu/OOTDiffusion#235; dennislee22 util 0.25/0.5 pair: 79.28
    {"a100-40gb", 39.50}, // TianheWu/CoSeR#10
    {"rtx-4090", 23.65},  // MotrixLab/AiOS#29, HKUDS/GraphGPT#29
    {"rtx-3090", 23.58},  // vllm-project/vllm#10517 (total_gpu_memory=23.58GiB)
    {"l40s", 44.42},      // stepfun-ai/Step-Video-T2V#8
    {"b200", 178.36},     // vllm-project/vllm#21489 (Free memory on device (177.66/178.36 GiB))
    {"t4", 14.75},        // Colab's T4 in PyTorch messages (14.75 GiB total capacity)
};

} // namespace

std::uint64_t cudaTotalBytes(const std::string &gpuId, std::uint64_t capacityBytes, bool *published)
{
    for (const CudaTotal &total : kCudaTotals)
        if (gpuId == total.gpuId) {
            if (published)
                *published = true;
            return static_cast<std::uint64_t>(std::llround(total.gib * 1073741824.0));
        }
    if (published)
        *published = false;
    // Median of what the driver keeps back on the GPUs above (nvidia-smi total - CUDA total).
    constexpr std::uint64_t kReserved = 480ull << 20;
    return capacityBytes > kReserved ? capacityBytes - kReserved : capacityBytes;
}

const char *servingLimitKey(ServingLimit limit)
{
    switch (limit) {
    case ServingLimit::KvCache: return "kv_cache";
    case ServingLimit::MaxNumSeqs: return "max_num_seqs";
    case ServingLimit::MaxModelLen: return "max_model_len";
    case ServingLimit::Memory: return "memory";
    }
    return "kv_cache";
}

} // namespace headroom
