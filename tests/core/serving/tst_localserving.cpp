// SPDX-License-Identifier: GPL-3.0-or-later
// Local inference, by hand from the engines' code: llama.cpp's load modes (src/llama-model.cpp
// load_tensors makes the CPU buffer from the mapping over [first, last) of its tensors,
// src/llama-model-loader.cpp load_all_data unmaps the rest and grows the mlock over the mapping),
// Ollama's defaults (server/routes.go, server/sched.go, llm/llama_server.go), unified memory.
#include "testutil.h"

#include "scenario/scenariojson.h"
#include "scenario/scenariotitle.h"
#include "serving/llamacpphost.h"
#include "serving/servingollama.h"

#include <QtTest>
#include <functional>
#include <nlohmann/json.hpp>

using namespace headroom;
using test::scenarioFrom;

namespace {

Scenario llama(const std::string &serving, const std::string &gpus = R"("rtx-4090")")
{
    return scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"}, "gpus": [)" + gpus +
                        R"(], "serving": {"engine": "llama_cpp", "n_ctx": 4096, "weight_type": "Q4_K_M")" + serving +
                        "}}");
}

// Llama 3 8B Q4_K_M (tst_llamacppdevices' arithmetic): a block is 122,716,160 B in q4_K, the 16
// use_more_bits blocks (0-3, 6, 9, ..., 27, 28-31) 16,220,160 B more; token_embd 295,501,824 B.
constexpr std::uint64_t kBlock = 122'716'160, kBump = 16'220'160, kEmbd = 295'501'824;
// f16 K and V, 8 KV heads x 128, 4,096 cells: 16,777,216 B a layer; the output buffer
// 1 x 128,256 x f32.
constexpr std::uint64_t kKvLayer = 16'777'216, kLogits = 128'256ull * 4;
// The CPU backend's compute buffer (n_ctx 4,096, n_ubatch 512, flash attention): the f16 KQ mask
// 4,096 x 512 x 2 = 4,194,304 B + the token embeddings twice 2 x 512 x 4,096 x 4 = 16,777,216 B.
constexpr std::uint64_t kHostCompute = 4'194'304 + 16'777'216;
// Block 31's tensors up to ffn_down in the file's order (by name): attn_k 4,096 x 1,024 q4_K
// (144 B per 256) 2,359,296, attn_norm (the block's two norms, 2 x 4,096 f32) 32,768, attn_output
// and attn_q 4,096 x 4,096 q4_K 9,437,184 each, attn_v in q6_K (210 B per 256) 3,440,640,
// ffn_down 14,336 x 4,096 q6_K 48,168,960.
constexpr std::uint64_t kFfnDown31 = 48'168'960;
constexpr std::uint64_t kBlock31ToFfnDown = 2'359'296 + 32'768 + 9'437'184 + 9'437'184 + 3'440'640 + kFfnDown31;

Scenario ollama(const std::string &serving, const std::string &gpus = R"("rtx-4090")",
                const std::string &model = "llama-3.1-8b")
{
    return scenarioFrom(R"({"task": "inference", "model": {"preset": ")" + model + R"("}, "gpus": [)" + gpus +
                        R"(], "serving": {"engine": "ollama")" + serving + "}}");
}

bool refusedAt(const std::function<void()> &parse, const std::string &key, const std::string &words = {})
{
    try {
        parse();
    } catch (const ScenarioError &error) {
        const std::string what = error.what();
        return what.find(key) != std::string::npos && what.find(words) != std::string::npos;
    }
    return false;
}

} // namespace

class TestLocalServing : public QObject
{
    Q_OBJECT

private slots:
    void theMappingSpansTheCpuTensors()
    {
        // A file of five tensors in llama-quantize's order: output, token_embd, blk.0 (a, b),
        // blk.1. CPU: token_embd and blk.1; the mapping left spans token_embd to blk.1's end, so
        // blk.0's 30 B (copied to the GPU) stay mapped; the output (before token_embd) is unmapped.
        const std::vector<LlamaFileTensor> tensors = {
            {1, "x", 7, true}, {0, "b", 20, false}, {-1, "token_embd.weight", 5, true},
            {0, "a", 10, false}, {-1, "output.weight", 100, false}};
        const LlamaHostWeights mmap = llamaHostWeights(tensors, LlamaLoadMode::Mmap);
        QCOMPARE(mmap.cpuBytes, std::uint64_t(12));
        QCOMPARE(mmap.mappedBytes, std::uint64_t(5 + 10 + 20 + 7));
        QCOMPARE(mmap.mappedOffloadedBytes, std::uint64_t(30));
        QCOMPARE(mmap.lockedBytes, std::uint64_t(0));
        QCOMPARE(mmap.requiredBytes, std::uint64_t(12)); // the mapped GPU tensors are reclaimable
        QCOMPARE(mmap.loadPageCacheBytes, std::uint64_t(142));
        // mmap+mlock pins the whole mapped range.
        const LlamaHostWeights locked = llamaHostWeights(tensors, LlamaLoadMode::MmapMlock);
        QCOMPARE(locked.lockedBytes, std::uint64_t(42));
        QCOMPARE(locked.requiredBytes, std::uint64_t(42));
        // none: the CPU tensors in anonymous buffers, nothing mapped; mlock locks those; dio
        // reads past the page cache.
        const LlamaHostWeights none = llamaHostWeights(tensors, LlamaLoadMode::None);
        QCOMPARE(none.mappedBytes, std::uint64_t(0));
        QCOMPARE(none.anonymousBytes, std::uint64_t(12));
        QCOMPARE(none.requiredBytes, std::uint64_t(12));
        QCOMPARE(llamaHostWeights(tensors, LlamaLoadMode::Mlock).lockedBytes, std::uint64_t(12));
        QCOMPARE(llamaHostWeights(tensors, LlamaLoadMode::Dio).loadPageCacheBytes, std::uint64_t(0));
    }

    void partialOffloadMapsOnlyTheCpuBlocks()
    {
        // -ngl 17: the output layer and blocks 16..31 on the GPU; token_embd and blocks 0..15
        // (8 of them bumped: 0-3, 6, 9, 12, 15) on the CPU. In the file's order token_embd comes
        // right before blk.0, so the mapping is exactly the CPU tensors.
        const std::uint64_t cpu = kEmbd + 16 * kBlock + 8 * kBump; // 2,388,721,664
        const Estimate e = estimate(llama(R"(, "n_gpu_layers": 17)"));
        QVERIFY(e.serving);
        const LlamaHostWeights &h = e.serving->hostLoad;
        QCOMPARE(h.mode, LlamaLoadMode::Mmap);
        QCOMPARE(h.cpuBytes, cpu);
        QCOMPARE(h.mappedBytes, cpu);
        QCOMPARE(h.mappedOffloadedBytes, std::uint64_t(0));
        // CPU RAM: the weights once (page cache), the CPU layers' cache, the output buffer, the
        // CPU's compute buffer.
        QCOMPARE(e.hostBytes, cpu + 16 * kKvLayer + kLogits + kHostCompute);
        // The same four by consumer, for the chart's CPU RAM bar and the JSON's "host".
        const auto hostOf = [&](const Estimate &est, ConsumerId id) {
            for (const Consumer &consumer : est.host)
                if (consumer.id == id)
                    return consumer.bytes;
            return std::uint64_t(0);
        };
        QCOMPARE(e.host.size(), std::size_t(4));
        QCOMPARE(hostOf(e, ConsumerId::Weights), cpu);
        QCOMPARE(hostOf(e, ConsumerId::KvCache), 16 * kKvLayer);
        QCOMPARE(hostOf(e, ConsumerId::Logits), kLogits);
        QCOMPARE(hostOf(e, ConsumerId::Activations), kHostCompute);
        // The title names the file type the weights are counted in, not precision.weights.
        const std::string title = scenarioTitle(llama(R"(, "n_gpu_layers": 17)"));
        QVERIFY2(title.find("llama.cpp \u00b7 Q4_K_M weights") != std::string::npos, title.c_str());
        QVERIFY2(title.find("bf16") == std::string::npos, title.c_str());
        // --load-mode none: the same bytes, anonymous.
        const Estimate none = estimate(llama(R"(, "n_gpu_layers": 17, "load_mode": "none")"));
        QCOMPARE(none.serving->hostLoad.anonymousBytes, cpu);
        QCOMPARE(none.serving->hostLoad.mappedBytes, std::uint64_t(0));
        QCOMPARE(none.hostBytes, e.hostBytes);
    }

    void anOverrideLateInTheFileKeepsTheMappingOpen()
    {
        // Every layer on the GPU but -ot "blk\.31\.ffn_down=CPU": the CPU tensors are token_embd
        // and blk.31.ffn_down, so the mapping spans blocks 0..30 (15 bumped) and block 31 up to
        // its ffn_down; mmap+mlock pins all of it.
        const Scenario s = llama(R"(, "override_tensor": ["blk\\.31\\.ffn_down=CPU"], "load_mode": "mmap+mlock")");
        const Estimate e = estimate(s);
        const LlamaHostWeights &h = e.serving->hostLoad;
        const std::uint64_t mapped = kEmbd + 31 * kBlock + 15 * kBump + kBlock31ToFfnDown; // 4,415,881,216
        QCOMPARE(h.cpuBytes, kEmbd + kFfnDown31);
        QCOMPARE(h.mappedBytes, mapped);
        QCOMPARE(h.mappedOffloadedBytes, mapped - kEmbd - kFfnDown31);
        QCOMPARE(h.lockedBytes, mapped);
        QCOMPARE(e.hostBytes, mapped + kLogits + kHostCompute);
        // Without the lock the mapped GPU tensors are reclaimable: only the CPU tensors count.
        const Estimate unlocked = estimate(llama(R"(, "override_tensor": ["blk\\.31\\.ffn_down=CPU"])"));
        QCOMPARE(unlocked.hostBytes, kEmbd + kFfnDown31 + kLogits + kHostCompute);
    }

    void theLoadModeRoundTripsAndRefuses()
    {
        const Scenario s = llama(R"(, "load_mode": "mlock")");
        QCOMPARE(scenarioFromJson(scenarioToJson(s)).serving->loadMode, LlamaLoadMode::Mlock);
        QVERIFY(!scenarioToJson(llama("")).at("serving").contains("load_mode")); // the default is left out
        QVERIFY(refusedAt([] { llama(R"(, "load_mode": "swap")"); }, "serving.load_mode"));
    }

    void ollamaDefaultsTheContextByVram()
    {
        // server/routes.go: the GPUs' totals less OLLAMA_GPU_OVERHEAD; 262,144 from 47 GiB, 32,768
        // from 23 GiB, else 4,096.
        QCOMPARE(ollamaDefaultNumCtx(47ull << 30), 262144u);
        QCOMPARE(ollamaDefaultNumCtx((47ull << 30) - 1), 32768u);
        QCOMPARE(ollamaDefaultNumCtx(23ull << 30), 32768u);
        QCOMPARE(ollamaDefaultNumCtx((23ull << 30) - 1), 4096u);
        // An RTX 4090 reports 23.65 GiB to CUDA: 32,768 for Llama 3.1 8B (131,072 positions);
        // llama-server gets -c 32768 -np 1, and the automatic batch for 32,768 tokens is 1,024
        // (over 4,096, not over 32,768).
        const ServingConfig one = *ollama("").serving;
        QCOMPARE(one.engine, Engine::LlamaCpp);
        QCOMPARE(one.nCtx, 32768u);
        QCOMPARE(one.nParallel, 1u);
        QCOMPARE(one.nBatch, 1024u);
        QCOMPARE(one.nUbatch, 1024u);
        QVERIFY(one.flashAttn);
        QCOMPARE(one.weightType, GgufType::Q4_K_M);
        QCOMPARE(one.loadMode, LlamaLoadMode::Mmap);
        QCOMPARE(one.nGpuLayers, -1);
        // 1 GiB of OLLAMA_GPU_OVERHEAD leaves 22.65 GiB: 4,096, batch 512.
        const ServingConfig less = *ollama(R"(, "gpu_overhead_bytes": 1073741824)").serving;
        QCOMPARE(less.nCtx, 4096u);
        QCOMPARE(less.nBatch, 512u);
        // Two RTX 3090s (23.58 GiB each, 47.16 together): 262,144, past the model's 131,072, so
        // 131,072; llama-server splits by free memory over both.
        const ServingConfig two = *ollama("", R"("rtx-3090", "rtx-3090")").serving;
        QCOMPARE(two.nCtx, 131072u);
        QCOMPARE(two.nBatch, 2048u);
        QVERIFY(two.tensorSplit == (std::vector<double>{0, 0}));
        // Llama 3 8B has 8,192 positions: 32,768 is cut to 8,192.
        QCOMPARE(ollama("", R"("rtx-4090")", "llama-3-8b").serving->nCtx, 8192u);
    }

    void ollamaMapsItsOptionsOntoLlamaServer()
    {
        // num_ctx 8,192 x OLLAMA_NUM_PARALLEL 4: -c 32768 -np 4, batch 1,024; 5 slots: 40,960
        // tokens, batch 2,048.
        const ServingConfig four = *ollama(R"(, "num_ctx": 8192, "num_parallel": 4)").serving;
        QCOMPARE(four.nCtx, 32768u);
        QCOMPARE(four.nParallel, 4u);
        QCOMPARE(four.nBatch, 1024u);
        QCOMPARE(ollama(R"(, "num_ctx": 8192, "num_parallel": 5)").serving->nBatch, 2048u);
        // server/sched.go keeps one sequence for qwen3next and nemotron_h (the presets' model_type
        // qwen3_next and nemotron_h): -c 8192 -np 1 whatever OLLAMA_NUM_PARALLEL says, and a note.
        for (const char *model : {"qwen3-next-80b-a3b", "nemotron-nano-9b-v2"}) {
            const Scenario one = ollama(R"(, "num_ctx": 8192, "num_parallel": 4)", R"("h100-80gb")", model);
            QCOMPARE(one.serving->nParallel, 1u);
            QCOMPARE(one.serving->nCtx, 8192u);
            const auto &notes = one.serving->ollama->notes;
            QVERIFY(std::any_of(notes.begin(), notes.end(),
                                [](const std::string &note) { return note.rfind("num_parallel 4 -> 1", 0) == 0; }));
        }
        QCOMPARE(ollamaFamily("qwen3_vl_moe"), std::string("qwen3vlmoe"));
        QCOMPARE(ollamaFamily("lfm2_moe"), std::string("lfm2moe"));
        QVERIFY(ollamaServesOneAtATime(ollamaFamily("qwen3_5")));
        QVERIFY(!ollamaServesOneAtATime(ollamaFamily("qwen3_moe")));
        QVERIFY(!ollamaServesOneAtATime(ollamaFamily("granitemoehybrid")));
        // OLLAMA_KV_CACHE_TYPE sets K and V; num_gpu is -ngl; num_batch -b and -ub.
        const ServingConfig q8 = *ollama(R"(, "kv_cache_type": "q8_0", "num_gpu": 20, "num_batch": 256)").serving;
        QCOMPARE(q8.cacheTypeK, EngineKvType::Q8_0);
        QCOMPARE(q8.cacheTypeV, EngineKvType::Q8_0);
        QCOMPARE(q8.nGpuLayers, 20);
        QCOMPARE(q8.nBatch, 256u);
        // Flash attention off on CUDA: 512, or 256 past 4,096 tokens on a card of at most 8 GiB
        // (an RTX 3070: 8,192 MiB less the driver's 480 MiB).
        QCOMPARE(ollama(R"(, "flash_attention": false, "num_ctx": 8192)").serving->nBatch, 512u);
        QCOMPARE(ollama(R"(, "flash_attention": false, "num_ctx": 8192)", R"("rtx-3070")").serving->nBatch, 256u);
        QCOMPARE(ollamaGenerationBatch(4096, false, true, 8ull << 30), 512u);
        // The estimate is llama.cpp's for the same flags.
        const Estimate viaOllama = estimate(ollama(R"(, "num_ctx": 8192, "num_parallel": 4)"));
        const Estimate direct = estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3.1-8b"},
            "gpus": ["rtx-4090"], "serving": {"engine": "llama_cpp", "n_ctx": 32768, "n_parallel": 4,
            "n_batch": 1024, "n_ubatch": 1024, "weight_type": "Q4_K_M"}})"));
        QCOMPARE(viaOllama.peak.deviceBytes, direct.peak.deviceBytes);
        QCOMPARE(viaOllama.hostBytes, direct.hostBytes);
        // Its per-GPU reserve: 457 MiB (512 MiB on Metal) plus OLLAMA_GPU_OVERHEAD.
        QCOMPARE(ollamaGpuReserve(*builtinCatalog().findGpu("rtx-4090"), 0), 457ull << 20);
        QCOMPARE(ollamaGpuReserve(*builtinCatalog().findGpu("apple-32gb"), 1ull << 20), 513ull << 20);
    }

    void ollamaChoosesTheLoadMode()
    {
        // server/sched.go disableMmapDefaultReason: the CPU alone and a partial offload on Metal
        // load without mmap; use_mmap decides when given; an integrated CUDA GPU (the DGX Spark)
        // loads with direct I/O (llm/llama_server.go appendLoadModeArgs).
        QCOMPARE(ollama(R"(, "num_gpu": 0)").serving->loadMode, LlamaLoadMode::None);
        QCOMPARE(ollama(R"(, "num_gpu": 10)", R"("apple-32gb")").serving->loadMode, LlamaLoadMode::None);
        QCOMPARE(ollama(R"(, "num_gpu": 33)", R"("apple-32gb")").serving->loadMode, LlamaLoadMode::Mmap);
        QCOMPARE(ollama(R"(, "use_mmap": false)").serving->loadMode, LlamaLoadMode::None);
        QCOMPARE(ollama("", R"("dgx-spark")").serving->loadMode, LlamaLoadMode::Dio);
        // Apple's working-set limit (21,845 MiB = 21.33 GiB for 32 GB) is under 23 GiB: 4,096.
        QCOMPARE(ollama("", R"("apple-32gb")").serving->nCtx, 4096u);
    }

    void ollamaRoundTripsAndRefuses()
    {
        const Scenario s = ollama(R"(, "num_ctx": 8192, "num_parallel": 2, "kv_cache_type": "q4_0", "use_mmap": false)");
        const nlohmann::json doc = scenarioToJson(s);
        QCOMPARE(doc.at("serving").at("engine").get<std::string>(), std::string("ollama"));
        QVERIFY(!doc.at("serving").contains("n_ctx")); // Ollama's options, as given
        const Scenario back = scenarioFromJson(doc);
        QVERIFY(back.serving == s.serving);
        QVERIFY(refusedAt([] { ollama(R"(, "n_ctx": 4096)"); }, "serving.n_ctx", "this section's engine is ollama"));
        QVERIFY(refusedAt([] { llama(R"(, "num_ctx": 4096)"); }, "serving.num_ctx", "engine ollama only"));
        QVERIFY(refusedAt([] { ollama(R"(, "kv_cache_type": "q8_0", "flash_attention": false)"); },
                          "serving.kv_cache_type"));
        QVERIFY(refusedAt([] { ollama(R"(, "main_gpu": 1)"); }, "serving.main_gpu"));
        QVERIFY(refusedAt([] { scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["rtx-4090"], "serving": {"engine": "lmstudio"}})"); }, "serving.engine", "ollama"));
    }

    void unifiedMemoryIsOnePool()
    {
        // Llama 3 8B Q4_K_M on a 32 GB Apple M-series: the GPU's share is Metal's working-set
        // limit, 21,845 MiB; the operating system keeps 32,768 - 21,845 = 10,923 MiB; with mmap
        // the GPU's buffers are the mapped pages (counted once).
        const Estimate e = estimate(llama("", R"("apple-32gb")"));
        QVERIFY(e.unified);
        QCOMPARE(e.unified->totalBytes, 32ull << 30);
        QCOMPARE(e.unified->gpuLimitBytes, 21845ull << 20);
        QCOMPARE(e.unified->osBytes, 10923ull << 20);
        QVERIFY(e.unified->zeroCopy);
        QCOMPARE(e.unified->poolBytes, e.peak.deviceBytes + e.hostBytes);
        // token_embd, the output buffer and the CPU backend's compute buffer
        QCOMPARE(e.unified->hostBytes, kEmbd + kLogits + kHostCompute);
        QVERIFY(e.unified->fits);
        QVERIFY(!estimate(llama("", R"("rtx-4090")")).unified);
    }

    void theWiredLimitRaisesTheGpuShareNotTheRam()
    {
        // Llama 3 8B in f16 on a 16 GB Mac: over the 10,922 MiB default; iogpu.wired_limit_mb
        // 16,000 lets the GPU take it, but the CPU side (token_embd in f16, 128,256 x 4,096 x 2 B
        // = 1,050,673,152 B, and the output buffer) does not fit in the 16 GiB besides.
        auto f16 = [](const std::string &host) {
            return scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"}, "gpus": ["apple-16gb"],)" +
                                host + R"( "serving": {"engine": "llama_cpp", "n_ctx": 4096, "weight_type": "f16"}})");
        };
        const Estimate plain = estimate(f16(""));
        QVERIFY(!plain.gpus[0].fits);
        const Estimate raised = estimate(f16(R"( "host": {"wired_limit_mb": 16000},)"));
        QVERIFY(raised.unified && raised.unified->wiredLimit);
        QCOMPARE(raised.unified->gpuLimitBytes, 16000ull << 20);
        QCOMPARE(raised.gpus[0].capacityBytes, 16000ull << 20);
        QCOMPARE(raised.unified->hostBytes, 1'050'673'152ull + kLogits + kHostCompute);
        QVERIFY(raised.unified->gpuBytes <= raised.unified->gpuLimitBytes);
        QVERIFY(raised.unified->poolBytes > (16ull << 30));
        QVERIFY(!raised.unified->fits);
        QVERIFY(!raised.gpus[0].fits); // the verdict is the pool's
        QCOMPARE(raised.gpus[0].headroomBytes, std::int64_t(16ull << 30) - std::int64_t(raised.unified->poolBytes));
        QCOMPARE(scenarioFromJson(scenarioToJson(f16(R"( "host": {"wired_limit_mb": 16000},)"))).host.wiredLimitMiB,
                 16000u);
    }

    void aCudaDeviceCopiesTheMappedWeights()
    {
        // The DGX Spark's GPU (CUDA) copies the weights: with mmap the file's pages of the
        // offloaded tensors stay in the page cache besides (reclaimable); dio reads past it.
        const Estimate mmap = estimate(llama("", R"("dgx-spark")"));
        QVERIFY(mmap.unified && !mmap.unified->zeroCopy);
        const LlamaHostWeights &h = mmap.serving->hostLoad;
        QCOMPARE(mmap.unified->pageCacheBytes, h.loadPageCacheBytes - h.cpuBytes);
        QCOMPARE(h.cpuBytes, kEmbd);
        QCOMPARE(estimate(llama(R"(, "load_mode": "dio")", R"("dgx-spark")")).unified->pageCacheBytes, std::uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestLocalServing)
#include "tst_localserving.moc"
