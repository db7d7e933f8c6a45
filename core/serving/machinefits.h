// SPDX-License-Identifier: GPL-3.0-or-later
// "What fits my machine" (issue 25): every catalog model in every weight format an engine serves,
// on one GPU (and the host RAM), with the verdict for the load asked (--context T, --concurrency
// C), the largest context and the largest concurrency that fit, the expert offload needed and the
// peak. llama.cpp rows are planned as `headroom fit` plans (llamacppfit.h); vLLM and SGLang rows
// are the engines' own serving estimates (servingvllm.cpp, servingsglang.cpp). Every limit is
// the estimator's: the answer fits and the next value does not (a search, never a formula).
#pragma once

#include "scenario/catalog.h"
#include "scenario/scenario.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// One weight format of the matrix: a llama.cpp file type, or a checkpoint dtype for vLLM/SGLang.
struct FitsFormat
{
    std::string name;                ///< "Q4_K_M", "bf16", "fp8", "mxfp4"
    std::optional<GgufType> gguf;    ///< llama.cpp rows
    DType weights = DType::BF16;     ///< vLLM/SGLang rows
    bool checkpoint = false;         ///< the released checkpoint's own format
    bool operator==(const FitsFormat &) const = default;
};

/// The formats of `preset` for `engine`. llama.cpp: bf16, Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q3_K_M,
/// IQ2_M (and MXFP4_MOE for a checkpoint stored in mxfp4). vLLM/SGLang: bf16, fp8 and the
/// checkpoint's own format when it is another (gpt-oss: mxfp4); fp8 of an fp8 checkpoint keeps
/// its block scales. Engines other than these three: refused (ScenarioError on "engine").
std::vector<FitsFormat> fitsFormats(Engine engine, const ModelPreset &preset);

/// llama.cpp's LLAMA_MAX_SEQ (src/llama-cparams.h): n_parallel is at most 256.
inline constexpr std::uint32_t kLlamaMaxSeq = 256;
/// The largest concurrency searched for vLLM/SGLang (max_num_seqs).
inline constexpr std::uint32_t kFitsMaxSeqs = 1u << 16;

struct FitsOptions
{
    Engine engine = Engine::LlamaCpp;
    std::string gpu;
    /// llama.cpp over several devices: the GPUs after `gpu` (CUDA1, CUDA2, ...), each row planned
    /// as `fit --gpu ... --gpu ...` plans it (-ts); vLLM and SGLang rows are one GPU.
    std::vector<std::string> moreGpus;
    double ramGiB = 0;                  ///< 0: the RAM is not checked
    std::uint32_t context = 4096;       ///< tokens per sequence (capped at the model's positions)
    std::uint32_t concurrency = 1;      ///< sequences at once (n_parallel, max_num_seqs)
    std::uint64_t targetBytes = 1024ull * 1024 * 1024; ///< llama.cpp: left free on the GPU (--fit-target)
    bool limits = true;                 ///< search the largest context and concurrency
};

struct FitsRow
{
    std::string model;                  ///< catalog id
    FitsFormat format;
    Engine engine = Engine::LlamaCpp;
    /// "fits", "fits, experts in CPU RAM", "partly on the GPU", "fewer sequences fit",
    /// "does not fit", "does not fit the RAM", or "not modelled: ..." (the estimator refused).
    std::string verdict;
    bool fits = false;                  ///< the load asked runs (GPU, and RAM when given)
    std::uint64_t weightBytes = 0;
    std::uint32_t context = 0;          ///< the context asked, capped at the model's positions
    std::uint32_t concurrency = 1;
    std::uint32_t maxPositions = 1;     ///< the model's
    /// The largest context per sequence at `concurrency`, and the largest concurrency at
    /// `context`, with the row's placement (its GPU layers and expert offload); 0 when none.
    std::uint32_t maxContext = 0;
    std::uint32_t maxConcurrency = 0;
    std::uint32_t concurrencyCap = 1;   ///< the most searched (kLlamaMaxSeq, kFitsMaxSeqs)
    std::int32_t nGpuLayers = 0;        ///< llama.cpp -ngl (n_layer + 1: every layer)
    std::uint32_t nCpuMoe = 0;          ///< llama.cpp --n-cpu-moe
    std::uint64_t peakBytes = 0;        ///< on the GPU: what nvidia-smi would show
    std::uint64_t capacityBytes = 0;
    std::uint64_t hostBytes = 0;
    std::vector<std::string> flags;     ///< llama.cpp "-c 4096 -ngl 33", vLLM "--max-model-len 4096 ..."
    Scenario scenario;                  ///< the row as a scenario: its estimate is the row's
};

/// Every catalog model x fitsFormats() on `options.gpu`, in catalog order. Throws ScenarioError
/// for an engine other than llama_cpp, vllm, sglang or an unknown GPU.
std::vector<FitsRow> fitsMatrix(const Catalog &catalog, const FitsOptions &options);

/// The row's scenario at `context` tokens per sequence and `concurrency` sequences, its
/// placement kept (llama.cpp: n_ctx = context x concurrency, n_parallel = concurrency; vLLM and
/// SGLang: max_model_len = context, max_num_seqs = concurrency, that many requests of it).
Scenario fitsScenarioAt(const FitsRow &row, std::uint32_t context, std::uint32_t concurrency);

/// Whether the row runs at that load: llama.cpp, the GPU keeps `targetBytes` free; vLLM and
/// SGLang, every request fits the KV pool; and the host RAM (when given) holds its part.
bool fitsAt(const FitsRow &row, std::uint32_t context, std::uint32_t concurrency, std::uint64_t targetBytes);

/// The largest x in [lo, hi] with fits(x), fits being true up to a point and false after it; lo
/// is taken to fit without a call. Starts at `guess` and gallops to the edge, so that a good
/// guess costs two calls.
template <typename Fits>
std::int64_t largestFitting(std::int64_t lo, std::int64_t hi, std::int64_t guess, Fits fits)
{
    if (hi <= lo)
        return lo;
    guess = std::max(lo + 1, std::min(hi, guess));
    std::int64_t step = 1;
    if (fits(guess)) {
        lo = guess;
        while (lo < hi) {
            const std::int64_t x = std::min(hi, lo + step);
            if (!fits(x)) {
                hi = x - 1;
                break;
            }
            lo = x;
            step *= 2;
        }
    } else {
        hi = guess - 1;
        while (hi > lo) {
            const std::int64_t x = std::max(lo, hi - step);
            if (x == lo || fits(x)) {
                lo = x;
                break;
            }
            hi = x - 1;
            step *= 2;
        }
    }
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

} // namespace headroom
