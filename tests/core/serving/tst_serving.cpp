// SPDX-License-Identifier: GPL-3.0-or-later
// The serving engines, hand-worked: vLLM's budget, blocks, tokens and concurrency for Llama 3 8B
// on a 24 GiB card, the same with an fp8 cache, a llama.cpp q4_0 model with half its layers on
// the GPU, SGLang's token pool; and the serving section of the scenario format.
#include "processutil.h"
#include "testutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace headroom;
using test::describe;
using test::scenarioFrom;
using C = ConsumerId;

namespace {

/// Llama 3 8B bf16 under vLLM on an RTX 4090 (CUDA total 23.65 GiB), 8k context, the batch
/// defaults a < 70 GiB GPU gets from `vllm serve` spelled out.
std::string llama8bOn4090(const std::string &version, const std::string &kvDtype)
{
    return R"({"task": "inference", "model": {"preset": "llama-3-8b"}, "gpus": ["rtx-4090"],
        "serving": {"engine": "vllm", "version": ")" + version + R"(", "gpu_memory_utilization": 0.9,
                    "max_model_len": 8192, "max_num_seqs": 256, "max_num_batched_tokens": 2048,
                    "kv_cache_dtype": ")" + kvDtype + R"(", "block_size": 16, "sampler": "pytorch",
                    "requests": {"concurrency": 4, "prompt_tokens": 7168, "output_tokens": 1024}}})";
}

} // namespace

class TestServing : public QObject
{
    Q_OBJECT
private slots:
    // Hand arithmetic (docs/serving.md walks through the same numbers):
    //   total      = 23.65 GiB = 25,393,994,137.6 -> 25,393,994,138 B
    //   requested  = x 0.9 = 22,854,594,724 B
    //   weights    = 8,030,261,248 params x 2 B = 16,060,522,496 B
    //   forward    = 2,048 tokens x (3 x 4,096 + 3 x 14,336) x 2 B = 226,492,416 B
    //   sampler    = (2,048 + 2 x 256) x 4,096 x 2 B + 256 x 128,256 x 38 B
    //              = 20,971,520 + 1,247,674,368 = 1,268,645,888 B
    //   non-torch  = 128 MiB = 134,217,728 B (0.10); 256 MiB = 268,435,456 B from 0.18
    //   available  = 22,854,594,724 - 16,060,522,496 - 1,268,645,888 - 134,217,728
    //              = 5,391,208,612 B (0.10); 0.25.1 (Model Runner V2 for a dense model: no graph
    //              reservation) with 256 MiB of non-torch memory:
    //              22,854,594,724 - 16,060,522,496 - 1,268,645,888 - 268,435,456 = 5,256,990,884 B;
    //              0.22 and the current release (the CUDA graph pool reserved first; the current
    //              one prints int(concurrency x 8,192) tokens). Capture sizes for 256
    //              sequences: [1, 2, 4] + 8..248 step 8 + 256..512 step 16 = 51 piecewise graphs,
    //              35 of them up to 256 also as full decode graphs: 86 graphs x 32 layers x
    //              166 KiB + 340 MiB = 786.125 MiB = 824,311,808 B;
    //              22,854,594,724 - 16,060,522,496 - 1,268,645,888 - 268,435,456 - 824,311,808
    //              = 4,432,679,076 B
    //   per token  = 2 x 32 layers x 8 kv_heads x 128 x 2 B = 131,072 B (fp8: 65,536 B)
    //   block      = 16 tokens: 2,097,152 B (fp8: 1,048,576 B)
    //   blocks     = floor(available / block); tokens = blocks x 16; concurrency = blocks / 512
    void vllmLlama8b_data()
    {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("kvDtype");
        QTest::addColumn<qulonglong>("perToken");
        QTest::addColumn<qulonglong>("blocks");
        QTest::addColumn<qulonglong>("tokens");
        QTest::addColumn<double>("concurrency");
        QTest::newRow("v0.10-bf16") << QStringLiteral("0.10.1") << QStringLiteral("auto") << 131072ull << 2570ull
                                    << 41120ull << 5.01953125;
        QTest::newRow("v0.10-fp8") << QStringLiteral("0.10.1") << QStringLiteral("fp8") << 65536ull << 5141ull
                                   << 82256ull << 10.041015625;
        QTest::newRow("v0.22-bf16") << QStringLiteral("0.22.0") << QStringLiteral("auto") << 131072ull << 2113ull
                                    << 33808ull << 4.126953125;
        QTest::newRow("v0.22-fp8") << QStringLiteral("0.22.0") << QStringLiteral("fp8") << 65536ull << 4227ull
                                   << 67632ull << 8.255859375;
        QTest::newRow("v0.25.1-bf16") << QStringLiteral("0.25.1") << QStringLiteral("auto") << 131072ull << 2506ull
                                      << 40096ull << 4.89453125;
        QTest::newRow("v0.25.1-fp8") << QStringLiteral("0.25.1") << QStringLiteral("fp8") << 65536ull << 5013ull
                                     << 80208ull << 9.791015625;
        QTest::newRow("current-bf16") << QString() << QStringLiteral("auto") << 131072ull << 2113ull << 33808ull
                                      << 4.126953125;
        QTest::newRow("current-fp8") << QString() << QStringLiteral("fp8") << 65536ull << 4227ull << 67632ull
                                     << 8.255859375;
    }
    void vllmLlama8b()
    {
        QFETCH(QString, version);
        QFETCH(QString, kvDtype);
        QFETCH(qulonglong, perToken);
        QFETCH(qulonglong, blocks);
        QFETCH(qulonglong, tokens);
        QFETCH(double, concurrency);
        const Estimate e = estimate(scenarioFrom(llama8bOn4090(version.toStdString(), kvDtype.toStdString())));
        QVERIFY(e.serving);
        const ServingFigures &f = *e.serving;
        QCOMPARE(f.budgetBytes, 22854594724ull);
        QCOMPARE(f.weightsBytes, 16060522496ull);
        QCOMPARE(f.activationBytes, 1268645888ull);
        QCOMPARE(f.kvBytesPerToken, perToken);
        QVERIFY2(f.blocks == blocks, describe(e));
        QCOMPARE(f.kvCacheBytes, blocks * perToken * 16);
        QCOMPARE(f.kvCacheTokens, tokens);
        QCOMPARE(f.maxConcurrency, concurrency);
        QCOMPARE(f.maxConcurrencyTokens, 8192ull);
        QVERIFY(f.startsOk);
        // 4 requests of 8,192 tokens: 4 x 512 blocks, all within the pool.
        QCOMPARE(f.requestKvBytes, 4 * 512 * perToken * 16);
        QVERIFY(f.requestsFit);
        // The reservation as consumers: the pool split into used and free, nothing else grows.
        QCOMPARE(e.bytes(C::KvCache) + e.bytes(C::KvCacheFree), f.kvCacheBytes);
        QCOMPARE(e.bytes(C::Fragmentation), 0ull);
        // Allocated = what the engine holds: weights, its profile peak, non-torch memory, graphs, pool.
        QCOMPARE(e.peak.allocatedBytes, f.weightsBytes + f.activationBytes + f.nonTorchBytes + f.cudaGraphBytes +
                                            f.kvCacheBytes);
    }

    // One request of max_model_len must fit, or vLLM refuses to start and names the longest
    // length that would: 2,570 blocks x 16 = 41,120 tokens.
    void vllmRefusesTooLongAModel()
    {
        std::string text = llama8bOn4090("0.10.1", "auto");
        text.replace(text.find("\"max_model_len\": 8192"), 21, "\"max_model_len\": 65536");
        const Estimate e = estimate(scenarioFrom(text));
        QVERIFY(e.serving);
        QVERIFY(!e.serving->startsOk);
        QCOMPARE(e.serving->maxLenThatFits, 41120ull);
        QVERIFY(!e.gpus.front().fits);
    }

    // A published failure (llm-d's empirical-vllm-memory-results.md): Llama-3.3-70B FP8 on one
    // H100 at 0.9 loads 67.72 GiB of weights and prints "Available KV cache memory: -1.44 GiB"
    // ("No available memory for the cache blocks"); the same model at tensor parallel 2 starts.
    void vllmPublishedFailure()
    {
        const std::string model = R"("model": {"preset": "llama-3.1-70b"}, "precision": {"weights": "fp8"},
            "task": "inference", "gpus": ["h100-80gb"],
            "serving": {"engine": "vllm", "version": "0.10.1", "max_model_len": 16000, "block_size": 128})";
        const Estimate one = estimate(scenarioFrom("{" + model + "}"));
        QVERIFY(!one.serving->startsOk);
        QCOMPARE(one.serving->blocks, 0ull);
        QVERIFY(!one.gpus.front().fits);
        const Estimate two = estimate(scenarioFrom("{" + model + R"(, "parallel": {"gpus": 2, "tensor": 2}})"));
        QVERIFY(two.serving->startsOk);
        QVERIFY(two.serving->blocks > 0);
    }

    // llama.cpp, Llama 2 7B in Q4_0 (18 B per 32 weights; llama-quantize puts output.weight in
    // q6_K, 210 B per 256), -ngl 16: the output layer and the last 15 of its 32 blocks
    // (i_gpu_start = 32 + 1 - 16 = 17), n_ctx 4096 with an f16 cache and flash attention:
    //   layer   = (4 x 4,096^2 + 3 x 4,096 x 11,008) / 32 x 18 B + 2 norms x 4,096 x 4 B
    //           = 113,836,032 + 32,768 = 113,868,800 B
    //   output  = 4,096 x 32,000 / 256 x 210 + 4,096 x 4 = 107,536,384 B
    //   GPU weights 15 x 113,868,800 + 107,536,384 = 1,815,568,384 B
    //   KV/GPU  = 15 layers x 4,096 cells x (K 4,096 + V 4,096 values) x 2 B = 1,006,632,960 B
    //   compute = max(FA 512 x 96 x 128 x 4, FFN 512 x 11,008 x 12, logits 512 x 32,000 x 4)
    //             + residual 512 x 4,096 x 12 = 67,633,152 + 25,165,824 = 92,798,976 B, plus
    //             what the GPU copies to run the 17 CPU blocks' ops (op offload): one CPU
    //             layer's K and V, 4,096 cells x 8,192 values x 2 B = 67,108,864 B (above the
    //             largest CPU weight, ffn_down 4,096 x 11,008 / 32 x 18 = 25,362,432 B)
    //             = 159,907,840 B
    //   file    = token_embd 4,096 x 32,000 / 32 x 18 = 73,728,000 + 32 blocks + output
    //           = 3,825,065,984 B; CPU RAM = file - GPU weights + KV of 17 layers 1,140,850,688
    //             + output buffer 32,000 x 4 B + the CPU's compute buffer (f16 KQ mask
    //             4,096 x 512 x 2 = 4,194,304 + token embeddings 2 x 512 x 4,096 x 4 = 16,777,216)
    void llamaCppHalfOffloaded()
    {
        const Estimate e = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-2-7b"},
            "gpus": ["rtx-3060-12gb"], "serving": {"engine": "llama_cpp", "n_ctx": 4096, "n_gpu_layers": 16,
            "weight_type": "q4_0", "cache_type_k": "f16", "cache_type_v": "f16", "flash_attn": true,
            "requests": {"concurrency": 1, "prompt_tokens": 3000, "output_tokens": 1000}}})"));
        QVERIFY(e.serving);
        const ServingFigures &f = *e.serving;
        QCOMPARE(f.gpuLayers, 15u);
        QCOMPARE(f.weightsBytes, 1815568384ull);
        QCOMPARE(f.kvCacheBytes, 1006632960ull);
        QCOMPARE(f.kvCacheTokens, 4096ull);
        QCOMPARE(f.activationBytes, 92798976ull + 67108864ull);
        QCOMPARE(e.hostBytes, 3825065984ull - 1815568384ull + 1140850688ull + 128000ull + 4194304ull + 16777216ull);
        // 4,000 cells in use of 4,096: their share of the GPU's part of the cache.
        QCOMPARE(f.requestKvBytes, 4000ull * (1006632960ull / 4096));
        QCOMPARE(e.bytes(C::Weights), f.weightsBytes);
        QCOMPARE(e.bytes(C::Activations), f.activationBytes);
    }

    // Every layer on the GPU, q8_0 K and V (34 B per 32 values): the cache shrinks to 17/32 of f16.
    void llamaCppQuantizedCache()
    {
        const Estimate e = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-2-7b"},
            "gpus": ["rtx-4090"], "serving": {"engine": "llama_cpp", "n_ctx": 4096, "n_gpu_layers": -1,
            "cache_type_k": "q8_0", "cache_type_v": "q8_0"}})"));
        // 32 layers x 4,096 cells x 8,192 values / 32 x 34 B
        QCOMPARE(e.serving->kvCacheBytes, 32ull * 4096 * 8192 / 32 * 34);
        QCOMPARE(e.serving->gpuLayers, 32u);
    }

    // SGLang: mem_fraction_static x (CUDA total - context) - weights = the pool, in cells of
    // cell_size = 32 layers x 8 kv_heads x 128 x 2 x 2 B = 131,072 B, plus one padding page:
    //   total  = 79.18 GiB = 85,018,877,624.32 -> 85,018,877,624 B; less the 500 MiB context
    //          = 84,494,589,624 B; x 0.8 = 67,595,671,699 B
    //   tokens = (67,595,671,699 - 16,060,522,496) / 131,072 = 393,181; pool (393,181 + 1) x 131,072
    void sglangPool()
    {
        const Estimate e = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["h100-80gb"], "serving": {"engine": "sglang", "mem_fraction_static": 0.8,
            "max_model_len": 8192}})"));
        const ServingFigures &f = *e.serving;
        QCOMPARE(f.budgetBytes, 67595671699ull);
        QCOMPARE(f.kvCacheTokens, 393181ull);
        QCOMPARE(f.kvCacheBytes, 393182ull * 131072ull);
        QCOMPARE(f.maxConcurrency, 393181.0 / 8192.0);
    }

    // generate() caches: static preallocates max_cache_len, offloaded keeps two layers, quantized
    // stores 4 bits plus a scale and zero-point per 64 values.
    void hfCaches_data()
    {
        QTest::addColumn<QString>("cache");
        QTest::addColumn<qulonglong>("gpuCache");
        // 2 sequences x 4,000 tokens x 131,072 B = 1,048,576,000 B of cache (dynamic adds one layer
        // of torch.cat copy while decoding: 1/32 of it).
        QTest::newRow("dynamic") << QStringLiteral("dynamic") << 1048576000ull + 1048576000ull / 32;
        // max_cache_len 8,192: 2 x 8,192 x 131,072
        QTest::newRow("static") << QStringLiteral("static") << 2147483648ull;
        // 2 of 32 layers on the GPU
        QTest::newRow("offloaded") << QStringLiteral("offloaded") << 1048576000ull / 16;
        // 524,288,000 values x 4 bits + 8,192,000 groups x 2 x 2 B + 128-token residual
        // (2 x 128 x 131,072) + one dequantised layer (1,048,576,000 / 32)
        QTest::newRow("quantized") << QStringLiteral("quantized")
                                   << 262144000ull + 32768000ull + 33554432ull + 32768000ull;
    }
    void hfCaches()
    {
        QFETCH(QString, cache);
        QFETCH(qulonglong, gpuCache);
        const Estimate e = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["a100-80gb"], "serving": {"engine": "hf_generate", "max_model_len": 8192,
            "cache_implementation": ")" + cache.toStdString() + R"(",
            "requests": {"concurrency": 2, "prompt_tokens": 3000, "output_tokens": 1000}}})"));
        QVERIFY(e.serving);
        QVERIFY2(test::maxOverPhases(e, C::KvCache) == gpuCache, describe(e));
        QCOMPARE(e.serving->kvCacheTokens, 8000ull);
        // generate() reserves nothing up front: the largest batch that fits was searched.
        QVERIFY(e.serving->maxConcurrency >= 2);
    }

    // The serving section: every error names its key.
    void sectionErrors_data()
    {
        QTest::addColumn<QString>("doc");
        QTest::addColumn<QString>("key");
        const QString base = QStringLiteral(R"({"task": "inference", "gpus": ["rtx-4090"], "serving": %1})");
        QTest::newRow("train-task") << QStringLiteral(R"({"serving": {"engine": "vllm"}})") << QStringLiteral("serving");
        QTest::newRow("no-engine") << base.arg(QStringLiteral(R"({})")) << QStringLiteral("serving.engine");
        QTest::newRow("unknown-engine") << base.arg(QStringLiteral(R"({"engine": "tgi"})")) << QStringLiteral("serving.engine");
        QTest::newRow("other-engines-key") << base.arg(QStringLiteral(R"({"engine": "vllm", "n_ctx": 4096})"))
                                           << QStringLiteral("serving.n_ctx");
        QTest::newRow("utilization-range") << base.arg(QStringLiteral(R"({"engine": "vllm", "gpu_memory_utilization": 1.5})"))
                                           << QStringLiteral("serving.gpu_memory_utilization");
        QTest::newRow("sglang-nvfp4") << base.arg(QStringLiteral(R"({"engine": "sglang", "kv_cache_dtype": "nvfp4"})"))
                                      << QStringLiteral("serving.kv_cache_dtype");
        QTest::newRow("quantized-v-without-fa")
            << base.arg(QStringLiteral(R"({"engine": "llama_cpp", "cache_type_v": "q8_0", "flash_attn": false})"))
            << QStringLiteral("serving.cache_type_v");
        QTest::newRow("mix-shares") << base.arg(QStringLiteral(R"({"engine": "vllm", "requests": {"mix": [
            {"share": 0.5, "prompt_tokens": 100}, {"share": 0.4, "prompt_tokens": 1000}]}})"))
                                    << QStringLiteral("serving.requests.mix");
        QTest::newRow("bad-version") << base.arg(QStringLiteral(R"({"engine": "vllm", "version": "latest"})"))
                                     << QStringLiteral("serving.version");
        QTest::newRow("no-gpu") << QStringLiteral(R"({"task": "inference", "gpus": [], "serving": {"engine": "vllm"}})")
                                << QStringLiteral("gpus");
    }
    void sectionErrors()
    {
        QFETCH(QString, doc);
        QFETCH(QString, key);
        try {
            scenarioFrom(doc.toStdString());
            QFAIL("accepted");
        } catch (const ScenarioError &error) {
            QVERIFY2(error.key == key.toStdString(), error.what());
        }
    }

    // Written back, the section reads back to the same scenario, for every engine.
    void roundTrip_data()
    {
        QTest::addColumn<QString>("serving");
        QTest::newRow("vllm") << QStringLiteral(R"({"engine": "vllm", "version": "0.10.1", "kv_cache_memory_bytes": 1000000000,
            "requests": {"concurrency": 3, "mix": [{"share": 0.25, "prompt_tokens": 9000, "output_tokens": 10},
                                                  {"share": 0.75, "prompt_tokens": 100, "output_tokens": 200}]}})");
        QTest::newRow("sglang") << QStringLiteral(R"({"engine": "sglang", "mem_fraction_static": 0.85, "page_size": 16})");
        QTest::newRow("llama-cpp") << QStringLiteral(R"({"engine": "llama_cpp", "n_gpu_layers": 20, "cache_type_k": "q4_0"})");
        QTest::newRow("hf-generate") << QStringLiteral(R"({"engine": "hf_generate", "cache_implementation": "quantized", "cache_nbits": 2})");
    }
    void roundTrip()
    {
        QFETCH(QString, serving);
        const Scenario s = scenarioFrom(R"({"task": "inference", "gpus": ["a100-80gb"], "serving": )" +
                                        serving.toStdString() + "}");
        QVERIFY(s.serving);
        QCOMPARE(scenarioFromJson(scenarioToJson(s)), s);
    }

    // A mix of requests: floor(share x concurrency), the remainder to the first kinds.
    void mixCounts()
    {
        ServingRequests requests;
        requests.concurrency = 10;
        requests.classes = {{0.25, 100, 0}, {0.25, 100, 0}, {0.5, 100, 0}};
        QCOMPARE(requests.counts(), (std::vector<std::uint64_t>{3, 2, 5}));
    }

    // `headroom estimate` of a serving scenario prints the engine's own figures (the same hand
    // arithmetic as vllmLlama8b: 2,570 blocks = 41,120 tokens, 5.02x at 8,192 tokens) and puts
    // them under "serving" in its JSON.
    void cliEstimate()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("serve.headroom.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        std::string doc = llama8bOn4090("0.10.1", "auto");
        doc.insert(1, R"("format": "headroom-scenario", "version": 1, )");
        file.write(doc.c_str());
        file.close();
        const test::Run text = test::runHeadroom({QStringLiteral("estimate"), path});
        QCOMPARE(text.exitCode, 0);
        for (const char *expected : {"as the engine computes it", "41,120 tokens", "5.02x", "they run at once"})
            QVERIFY2(text.out.contains(QLatin1String(expected)), qPrintable(QLatin1String(expected) + QLatin1Char('\n') + text.out));
        const test::Run json = test::runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--format"),
                                                  QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const nlohmann::json serving = nlohmann::json::parse(json.out.toStdString()).at("serving");
        QCOMPARE(serving.at("engine").get<std::string>(), std::string("vllm"));
        QCOMPARE(serving.at("budget_bytes").get<std::uint64_t>(), 22854594724ull);
        QCOMPARE(serving.at("kv_cache_tokens").get<std::uint64_t>(), 41120ull);
        QCOMPARE(serving.at("blocks").get<std::uint64_t>(), 2570ull);
        QVERIFY(serving.at("requests_fit").get<bool>());
    }
};

QTEST_GUILESS_MAIN(TestServing)
#include "tst_serving.moc"
