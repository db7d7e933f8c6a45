// SPDX-License-Identifier: GPL-3.0-or-later
// TensorRT-LLM as a serving engine, hand-worked from its code (docs/serving.md): the PyTorch
// backend's pool (_util.py KvCacheCreator._cal_max_memory, resource_manager.py
// calculate_max_num_blocks), the TensorRT engine path before 1.0, the CUDA graph batch sizes
// (llm_args.py CudaGraphConfig._generate_cuda_graph_batch_sizes), a published start-up line
// (NVIDIA/TensorRT-LLM#6294) and the serving section's keys.
#include "testutil.h"

#include "serving/servingengines.h"
#include "serving/servingjson.h"

#include <nlohmann/json.hpp>

using namespace headroom;
using test::describe;
using test::scenarioFrom;
using C = ConsumerId;

namespace {

/// Llama 3 8B bf16 on one H100 80GB (CUDA total 79.18 GiB), TensorRT-LLM's defaults spelled out
/// and the two measured consumers given as a log would give them.
std::string llama8bOnH100(const std::string &extra)
{
    return R"({"task": "inference", "model": {"preset": "llama-3-8b"}, "gpus": ["h100-80gb"],
        "serving": {"engine": "trtllm", "free_gpu_memory_fraction": 0.9, "tokens_per_block": 32,
                    "max_batch_size": 2048, "max_num_tokens": 8192, "max_seq_len": 8192,
                    "non_torch_mib": 600, "cuda_graph_mib": 400)" +
           extra + R"(, "requests": {"concurrency": 4, "prompt_tokens": 7000, "output_tokens": 1000}}})";
}

std::vector<std::uint32_t> graphSizes(const std::string &keys)
{
    const Scenario s = scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
        "gpus": ["h100-80gb"], "serving": {"engine": "trtllm")" + keys + "}}");
    return detail::trtllmCudaGraphBatchSizes(*s.serving);
}

bool mentions(const std::vector<std::string> &lines, const std::string &part)
{
    for (const std::string &line : lines)
        if (line.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestServingTrtllm : public QObject
{
    Q_OBJECT
private slots:
    // PyTorch backend (1.x):
    //   total     = 79.18 GiB = 85,018,877,624 B
    //   weights   = 8,030,261,248 x 2 B = 16,060,522,496 B
    //   warm-up   = 8,192 max_num_tokens x (3 x 4,096 + 3 x 14,336) x 2 B = 905,969,664 B
    //   outside   = 600 MiB non-torch + 400 MiB graphs = 629,145,600 + 419,430,400 B
    //   peak      = 18,015,068,160 B; free = 67,003,809,464 B
    //   available = x 0.9 = 60,303,428,517.6 -> 60,303,428,518 B
    //   max_tokens = floor(/ 131,072 B) = 460,078; blocks = ceil(460,078 / 32) = 14,378
    //   tokens    = 460,096; pool = 460,096 x 131,072 = 60,305,702,912 B (56.16 GiB)
    void pytorchBackendPool()
    {
        const Estimate e = estimate(scenarioFrom(llama8bOnH100(R"(, "version": "1.0.0")")));
        QVERIFY(e.serving);
        const ServingFigures &f = *e.serving;
        QCOMPARE(f.engine, Engine::Trtllm);
        QCOMPARE(f.deviceTotalBytes, 85018877624ull);
        QCOMPARE(f.weightsBytes, 16060522496ull);
        QCOMPARE(f.activationBytes, 905969664ull);
        QCOMPARE(f.nonTorchBytes, 629145600ull);
        QCOMPARE(f.cudaGraphBytes, 419430400ull);
        QVERIFY(f.cudaGraphInBudget);
        QCOMPARE(f.kvBytesPerToken, 131072ull);
        QVERIFY2(f.blocks == 14378ull, describe(e));
        QCOMPARE(f.kvCacheTokens, 460096ull);
        QCOMPARE(f.kvCacheBytes, 60305702912ull);
        QCOMPARE(f.blockSize, 32u);
        QCOMPARE(f.maxConcurrency, 460096.0 / 8192.0);
        QCOMPARE(f.maxNumSeqs, 2048u);
        QCOMPARE(f.budgetBytes, 18015068160ull + 60305702912ull);
        QVERIFY(f.startsOk);
        // 4 requests of 8,000 tokens: 250 blocks of 32 each.
        QCOMPARE(f.requestTokens, 4ull * 8000);
        QCOMPARE(f.requestKvBytes, 4ull * 8000 * 131072);
        QVERIFY(f.requestsFit);
        QCOMPARE(e.bytes(C::KvCache) + e.bytes(C::KvCacheFree), f.kvCacheBytes);
        // Its lines: the profile summary and the C++ KV manager's allocation, two decimals.
        QVERIFY2(mentions(f.notes, "available KV cache memory when calculating max tokens: 56.16 GiB, fraction is set 0.9, "
                                   "kv size is 131072"),
                 describe(e));
        QVERIFY2(mentions(f.notes, "[MemUsageChange] Allocated 56.16 GiB for max tokens in paged KV cache (460096)."),
                 describe(e));
        // Both measured consumers given: only the warm-up forward is not TensorRT-LLM's own.
        QVERIFY(!mentions(e.warnings, "CUDA graph pool"));
        QVERIFY(mentions(e.warnings, "warm-up peak"));
        QVERIFY(!e.validated);
    }

    // The TensorRT engine path (0.13, the default before 1.0): no CUDA graphs of the PyTorch
    // runner; available = 85,018,877,624 - (16,060,522,496 + 905,969,664 + 629,145,600)
    //   = 67,423,239,864 B, x 0.9 = 60,680,915,877.6 -> 60,680,915,878 B, floor(/ 131,072)
    //   = 462,958 tokens, ceil(/ 32) = 14,468 blocks = 462,976 tokens.
    void tensorrtEnginePath()
    {
        const Estimate e = estimate(scenarioFrom(llama8bOnH100(R"(, "version": "0.13.0")")));
        const ServingFigures &f = *e.serving;
        QCOMPARE(f.cudaGraphBytes, 0ull);
        QCOMPARE(f.blocks, 14468ull);
        QCOMPARE(f.kvCacheTokens, 462976ull);
        QVERIFY(mentions(f.notes, "Memory usage when calculating max tokens in paged kv cache: total: 79.18 GiB, "
                                  "available: 62.79 GiB"));
        QVERIFY(mentions(e.warnings, "execution context"));
        // backend spelled out wins over the version.
        const Estimate py = estimate(scenarioFrom(llama8bOnH100(R"(, "version": "0.13.0", "backend": "pytorch")")));
        QCOMPARE(py.serving->blocks, 14378ull);
    }

    // NVIDIA/TensorRT-LLM#6294 (0.20.0, Llama 3.1 8B FP8 with an fp8 cache on an H100 under
    // trtllm-bench, fraction 0.8, max_tokens 860,308): "Both free_gpu_memory_fraction and
    // max_tokens are set (to 0.8 and 860308) ... The smaller value will be used", then
    // "[MemUsageChange] Allocated 52.51 GiB for max tokens in paged KV cache (860320)":
    // ceil(860,308 / 32) = 26,885 blocks = 860,320 tokens x 65,536 B (32 layers x 8 heads x 128
    // x 2 x 1 B) = 56,381,931,520 B = 52.51 GiB.
    void publishedMaxTokensCap()
    {
        const Estimate e = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3.1-8b"},
            "precision": {"weights": "fp8"}, "gpus": ["h100-80gb"],
            "serving": {"engine": "trtllm", "version": "0.20.0", "backend": "pytorch",
                        "free_gpu_memory_fraction": 0.8, "kv_cache_dtype": "fp8", "max_tokens": 860308}})"));
        const ServingFigures &f = *e.serving;
        QCOMPARE(f.kvBytesPerToken, 65536ull);
        QCOMPARE(f.blocks, 26885ull);
        QCOMPARE(f.kvCacheTokens, 860320ull);
        QCOMPARE(f.kvCacheBytes, 56381931520ull);
        QVERIFY2(mentions(f.notes, "Allocated 52.51 GiB for max tokens in paged KV cache (860320)."), describe(e));
        // Without the cap the fraction's pool is larger: the cap is what binds.
        const Estimate free = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3.1-8b"},
            "precision": {"weights": "fp8"}, "gpus": ["h100-80gb"],
            "serving": {"engine": "trtllm", "version": "0.20.0", "backend": "pytorch",
                        "free_gpu_memory_fraction": 0.8, "kv_cache_dtype": "fp8"}})"));
        QVERIFY(free.serving->kvCacheTokens > 860320ull);
    }

    // 16 GB of bf16 weights on a 12 GB card: no block fits, the engine cannot start.
    void refusesWithoutABlock()
    {
        const Estimate e = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["rtx-3060-12gb"], "serving": {"engine": "trtllm"}})"));
        QVERIFY(!e.serving->startsOk);
        QCOMPARE(e.serving->blocks, 0ull);
        QVERIFY(!e.gpus.front().fits);
        QVERIFY(mentions(e.serving->notes, "Impossible to fit in any sequence in kvCache"));
    }

    // max_batch_size bounds the concurrent requests, whatever the pool holds.
    void maxBatchSizeBounds()
    {
        std::string text = llama8bOnH100("");
        text.replace(text.find("\"max_batch_size\": 2048"), 22, "\"max_batch_size\": 2");
        const Estimate e = estimate(scenarioFrom(text));
        QVERIFY(!e.serving->requestsFit);
        QCOMPARE(e.serving->limit, ServingLimit::MaxNumSeqs);
    }

    // CudaGraphConfig._generate_cuda_graph_batch_sizes: without padding 1..31, 32, 64, 128 (34);
    // with padding [1, 2, 4] + 8..128 step 8 (19); powers of two from 256 below a larger maximum,
    // then the maximum; never above the engine's max_batch_size; none without cuda_graph or on
    // the TensorRT engine path.
    void cudaGraphBatchSizes()
    {
        QCOMPARE(graphSizes("").size(), std::size_t(34));
        QCOMPARE(graphSizes("").back(), 128u);
        QCOMPARE(graphSizes(R"(, "cuda_graph_padding": true)").size(), std::size_t(19));
        const std::vector<std::uint32_t> big = graphSizes(R"(, "cuda_graph_max_batch_size": 1024)");
        QCOMPARE(big.size(), std::size_t(37)); // + 256, 512, 1024
        QCOMPARE(big.back(), 1024u);
        QCOMPARE(graphSizes(R"(, "max_batch_size": 16)").size(), std::size_t(16));
        QVERIFY(graphSizes(R"(, "cuda_graph": false)").empty());
        QVERIFY(graphSizes(R"(, "version": "0.13.0")").empty());
        // Unmeasured, the pool is assumed and the estimate says so: 34 graphs x 32 layers x
        // 166 KiB + 340 MiB = 516.375 MiB = 541,458,432 B.
        const Estimate e = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["h100-80gb"], "serving": {"engine": "trtllm"}})"));
        QCOMPARE(e.serving->cudaGraphBytes, 541458432ull);
        QCOMPARE(e.serving->nonTorchBytes, 500ull << 20); // the CUDA context alone
        QVERIFY(mentions(e.warnings, "CUDA graph pool (34 graphs) is not sized from its code"));
        QVERIFY(mentions(e.warnings, "give non_torch_mib"));
    }

    // The serving section: its keys belong to trtllm, others' keys are refused on it, it writes
    // back what it read.
    void sectionKeys()
    {
        const auto refusal = [](const std::string &serving) -> std::string {
            try {
                scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"}, "gpus": ["h100-80gb"],
                    "serving": )" + serving + "}");
            } catch (const ScenarioError &error) {
                return error.what();
            }
            return {};
        };
        QVERIFY(refusal(R"({"engine": "vllm", "max_tokens": 100})").find("applies to engine trtllm only") !=
                std::string::npos);
        QVERIFY(refusal(R"({"engine": "trtllm", "gpu_memory_utilization": 0.9})").find("vllm") != std::string::npos);
        QVERIFY(refusal(R"({"engine": "trtllm", "version": "latest"})").find("TensorRT-LLM version") !=
                std::string::npos);
        QVERIFY(refusal(R"({"engine": "trtllm", "free_gpu_memory_fraction": 1.0})").find("free_gpu_memory_fraction") !=
                std::string::npos);
        QVERIFY(refusal(R"({"engine": "trtllm", "kv_cache_dtype": "fp8_e5m2"})").find("kv_cache_dtype") !=
                std::string::npos);
        const Scenario s = scenarioFrom(llama8bOnH100(R"(, "version": "1.0.0", "max_tokens": 5000, "backend": "tensorrt")"));
        QCOMPARE(s.serving->maxModelLen, 8192u);
        QCOMPARE(s.serving->trtllmBackend, TrtllmBackend::Tensorrt);
        const nlohmann::json written = servingToJson(*s.serving);
        QCOMPARE(written["max_tokens"], 5000);
        QCOMPARE(written["max_seq_len"], 8192);
        QCOMPARE(servingFromJson(written, s), *s.serving);
        // max_seq_len defaults to the model's positions (Llama 3: 8,192).
        const Scenario d = scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["h100-80gb"], "serving": {"engine": "trtllm"}})");
        QCOMPARE(d.serving->maxModelLen, 8192u);
        QCOMPARE(d.serving->maxBatchSize, 2048u);
        QCOMPARE(d.serving->maxNumTokens, 8192u);
    }
};

QTEST_APPLESS_MAIN(TestServingTrtllm)
#include "tst_servingtrtllm.moc"
