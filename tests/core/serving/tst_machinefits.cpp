// SPDX-License-Identifier: GPL-3.0-or-later
// "What fits my machine" (core/serving/machinefits.h), confirmed by the estimator: over random
// GPUs, engines, contexts and concurrencies, every row's largest context and concurrency fit and
// the next value does not, each checked here on a scenario built from the row's, not through the
// search's own predicate; the row's scenario estimates to the row's peak.
#include "estimate/estimate.h"
#include "estimate/verdict.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "serving/machinefits.h"

#include <QtTest>
#include <algorithm>
#include <random>

using namespace headroom;

namespace {

/// The row's scenario at a load, set here key by key (llama.cpp: n_ctx = T x C, n_parallel = C;
/// vLLM/SGLang: max_model_len = T, max_num_seqs = C), and whether the estimator says it runs.
bool runs(const FitsRow &row, std::uint32_t context, std::uint32_t concurrency, std::uint64_t target)
{
    Scenario s = row.scenario;
    s.serving->requests.concurrency = concurrency;
    s.serving->requests.classes = {RequestClass{1.0, context - context / 2, context / 2}};
    s.inference.context = context;
    if (row.engine == Engine::LlamaCpp) {
        s.serving->nCtx = context * concurrency;
        s.serving->nParallel = concurrency;
    } else {
        s.serving->maxModelLen = context;
        s.serving->maxNumSeqs = concurrency;
    }
    const Estimate e = estimate(s);
    if (!e.hostMachine.fits)
        return false;
    // Unified memory: the GPU's share and the CPU side together within the machine's RAM.
    if (e.unified && e.unified->gpuBytes + e.unified->hostBytes > e.unified->totalBytes)
        return false;
    const GpuFit &gpu = e.gpus.front();
    if (row.engine == Engine::LlamaCpp && e.serving && !e.serving->devices.empty()) {
        // Several devices: llama.cpp's fit leaves the target free on every one of them.
        for (const LlamaDevice &d : e.serving->devices)
            if (d.headroomBytes < std::int64_t(target))
                return false;
        return true;
    }
    if (row.engine == Engine::LlamaCpp)
        return gpu.headroomBytes >= std::int64_t(target);
    return gpu.fits && e.serving->requestsFit;
}

std::string what(const FitsRow &row)
{
    return row.model + " " + row.format.name + " on " + row.scenario.gpus.front() + " " + enumName(row.engine) +
           ", T " + std::to_string(row.context) + " x C " + std::to_string(row.concurrency) + ": max context " +
           std::to_string(row.maxContext) + ", max concurrency " + std::to_string(row.maxConcurrency);
}

} // namespace

class TestMachineFits : public QObject
{
    Q_OBJECT

    static void checkRow(const FitsRow &row, std::uint64_t target)
    {
        if (row.verdict.rfind("not modelled", 0) == 0)
            return;
        const std::string text = what(row);
        const char *w = text.c_str();
        // The verdict is the estimate at the load asked.
        QVERIFY2(runs(row, row.context, row.concurrency, target) == row.fits, w);
        if (row.fits) {
            QVERIFY2(row.maxContext >= row.context, w);
            QVERIFY2(row.maxConcurrency >= row.concurrency, w);
        }
        // The largest context fits at the concurrency, one token more does not (or it is the
        // model's last position).
        const std::uint32_t c = row.concurrency;
        if (row.maxContext > 0)
            QVERIFY2(runs(row, row.maxContext, c, target), w);
        if (row.maxContext < row.maxPositions && std::uint64_t(row.maxContext + 1) * c <= (16u << 20))
            QVERIFY2(!runs(row, row.maxContext + 1, c, target), w);
        // The largest concurrency at the context, the same way (or the engine's cap).
        if (row.maxConcurrency > 0)
            QVERIFY2(runs(row, row.context, row.maxConcurrency, target), w);
        if (row.maxConcurrency < row.concurrencyCap)
            QVERIFY2(!runs(row, row.context, row.maxConcurrency + 1, target), w);
        // The row's scenario is the row: its estimate's peak on the GPU.
        const Estimate e = estimate(row.scenario);
        if (e.serving && !e.serving->devices.empty()) { // several devices: the tightest one's
            const LlamaDevice *tight = &e.serving->devices.front();
            for (const LlamaDevice &d : e.serving->devices)
                if (d.headroomBytes < tight->headroomBytes)
                    tight = &d;
            QCOMPARE(row.peakBytes, tight->deviceBytes);
            QCOMPARE(row.capacityBytes, tight->capacityBytes);
            return;
        }
        QCOMPARE(row.peakBytes, e.peak.deviceBytes);
        if (!e.unified) // one card: the peak is what its capacity less the headroom leaves
            QCOMPARE(std::int64_t(row.peakBytes), std::int64_t(e.gpus.front().capacityBytes) - e.gpus.front().headroomBytes);
    }

private slots:
    void formatsPerEngine()
    {
        const Catalog &catalog = builtinCatalog();
        const ModelPreset *llama = catalog.findModel("llama-3-8b");
        const ModelPreset *oss = catalog.findModel("gpt-oss-20b");
        const ModelPreset *deepseek = catalog.findModel("deepseek-v3");
        QVERIFY(llama && oss && deepseek);
        QCOMPARE(fitsFormats(Engine::LlamaCpp, *llama).size(), std::size_t(7));
        QCOMPARE(fitsFormats(Engine::LlamaCpp, *oss).size(), std::size_t(8));
        QCOMPARE(fitsFormats(Engine::LlamaCpp, *oss).back().name, std::string("MXFP4_MOE"));
        QCOMPARE(fitsFormats(Engine::Vllm, *llama).size(), std::size_t(2));
        // gpt-oss: bf16, fp8 and its own mxfp4; DeepSeek-V3's own is its fp8.
        const std::vector<FitsFormat> own = fitsFormats(Engine::Vllm, *oss);
        QCOMPARE(own.size(), std::size_t(3));
        QVERIFY(own[2].checkpoint && own[2].weights == DType::MXFP4);
        const std::vector<FitsFormat> ds = fitsFormats(Engine::Sglang, *deepseek);
        QCOMPARE(ds.size(), std::size_t(2));
        QVERIFY(ds[1].checkpoint && ds[1].weights == DType::FP8 && !ds[0].checkpoint);
        QVERIFY_THROWS_EXCEPTION(ScenarioError, fitsFormats(Engine::HfGenerate, *llama));
    }

    void matrixHasEveryModelAndFormat()
    {
        FitsOptions options;
        options.gpu = "rtx-4090";
        options.limits = false;
        for (const Engine engine : {Engine::LlamaCpp, Engine::Vllm}) {
            options.engine = engine;
            const std::vector<FitsRow> rows = fitsMatrix(builtinCatalog(), options);
            std::size_t expected = 0, i = 0;
            for (const ModelPreset &preset : builtinCatalog().models)
                for (const FitsFormat &format : fitsFormats(engine, preset)) {
                    ++expected;
                    QVERIFY(i < rows.size());
                    QCOMPARE(rows[i].model, preset.id);
                    QCOMPARE(rows[i].format, format);
                    ++i;
                }
            QCOMPARE(rows.size(), expected);
        }
        options.gpu = "rtx-9999";
        QVERIFY_THROWS_EXCEPTION(ScenarioError, fitsMatrix(builtinCatalog(), options));
    }

    void searchFindsTheEdge()
    {
        // largestFitting against a known edge, from guesses above, below and at it.
        for (const std::int64_t edge : {0L, 1L, 7L, 255L, 256L, 1000L, 4095L}) {
            for (const std::int64_t guess : {std::int64_t(1), edge - 3, edge, edge + 1, edge * 3, std::int64_t(5000)}) {
                int calls = 0;
                const std::int64_t found = largestFitting(0, 4096, guess, [&](std::int64_t x) {
                    ++calls;
                    return x <= edge;
                });
                QCOMPARE(found, edge);
                if (guess == edge && edge > 0 && edge < 4096)
                    QCOMPARE(calls, 2); // a right guess costs two estimates
            }
        }
    }

    void limitsAreConfirmedByTheEstimator()
    {
        const std::vector<std::string> gpus{"rtx-3060-12gb", "rtx-4060-ti-16gb", "rtx-4090", "rtx-5090",
                                            "a100-40gb", "h100-80gb", "t4"};
        std::mt19937 random(20261202);
        for (int round = 0; round < 6; ++round) {
            FitsOptions options;
            options.gpu = gpus[random() % gpus.size()];
            options.engine = round % 3 == 0 ? Engine::LlamaCpp : round % 3 == 1 ? Engine::Vllm : Engine::Sglang;
            options.context = 512u << (random() % 6);
            options.concurrency = 1 + random() % 4;
            options.ramGiB = random() % 2 ? 0.0 : 32.0 + 32.0 * double(random() % 4);
            options.targetBytes = (std::uint64_t(random() % 3) * 512) << 20;
            const std::vector<FitsRow> rows = fitsMatrix(builtinCatalog(), options);
            // A sample of the rows (every row of the first round).
            for (std::size_t i = 0; i < rows.size(); ++i)
                if (round == 0 || random() % 6 == 0)
                    checkRow(rows[i], options.engine == Engine::LlamaCpp ? options.targetBytes : 0);
        }
    }

    void severalDevicesSplitEachRow()
    {
        // An RTX 4090 + an RTX 3090: each llama.cpp row is planned over both (-ts), its limits
        // confirmed on every device; the 70B in Q4_K_M (39.6 GiB of tensors) fits across the two
        // 24 GB cards though it fits neither alone.
        FitsOptions options;
        options.gpu = "rtx-4090";
        options.moreGpus = {"rtx-3090"};
        options.ramGiB = 64;
        const std::vector<FitsRow> rows = fitsMatrix(builtinCatalog(), options);
        FitsOptions alone = options;
        alone.moreGpus.clear();
        alone.limits = false;
        const std::vector<FitsRow> one = fitsMatrix(builtinCatalog(), alone);
        QCOMPARE(rows.size(), one.size());
        int checked = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const FitsRow &row = rows[i];
            if (row.model != "llama-3-70b" && row.model != "qwen3-30b-a3b" && row.model != "llama-3-8b")
                continue;
            QCOMPARE(row.scenario.gpus, (std::vector<std::string>{"rtx-4090", "rtx-3090"}));
            QVERIFY2(std::find_if(row.flags.begin(), row.flags.end(),
                                  [](const std::string &f) { return f.rfind("-ts ", 0) == 0; }) != row.flags.end(),
                     what(row).c_str());
            checkRow(row, options.targetBytes);
            ++checked;
            if (row.model == "llama-3-70b" && row.format.name == "Q4_K_M") {
                QCOMPARE(row.verdict, std::string("fits"));
                QVERIFY2(one[i].verdict != "fits", one[i].verdict.c_str());
            }
        }
        QCOMPARE(checked, 21); // three models x seven file types
        options.engine = Engine::Vllm;
        QVERIFY_THROWS_EXCEPTION(ScenarioError, fitsMatrix(builtinCatalog(), options));
    }

    void unifiedMemoryRowsAreOnePool()
    {
        // A 32 GB Apple machine (its GPU may take 21.33 GiB, the CPU side shares the same RAM),
        // and a DGX Spark said to have 64 GiB (the pool, not the GPU's 121.69 GiB, is the limit):
        // each row's verdict and limits hold for the pool, device and CPU side together, and its
        // peak is the device's (not the capacity less the pool's headroom).
        for (const auto &[gpu, ram] : {std::pair<const char *, double>{"apple-32gb", 32}, {"dgx-spark", 64}}) {
            FitsOptions options;
            options.gpu = gpu;
            options.ramGiB = ram;
            const std::vector<FitsRow> rows = fitsMatrix(builtinCatalog(), options);
            int checked = 0;
            for (const FitsRow &row : rows)
                if (row.model == "llama-3-8b" || row.model == "llama-2-13b" || row.model == "pythia-12b" ||
                    row.model == "llama-3-70b") {
                    checkRow(row, options.targetBytes);
                    QVERIFY2(row.peakBytes < 2 * row.weightBytes + (4ull << 30), what(row).c_str());
                    ++checked;
                }
            QCOMPARE(checked, 28);
        }
    }

    void aSmallModelFitsAndALargeOneDoesNot()
    {
        // Llama 3 8B in Q4_K_M (4.58 GiB of tensors) on a 24 GB card: every layer on the GPU;
        // its f16 cache is 8 KV heads x 128 x 2 (K, V) x 2 bytes x 32 layers = 128 KiB a token.
        FitsOptions options;
        options.gpu = "rtx-4090";
        const std::vector<FitsRow> rows = fitsMatrix(builtinCatalog(), options);
        const auto find = [&](const std::string &model, const std::string &format) -> const FitsRow * {
            for (const FitsRow &row : rows)
                if (row.model == model && row.format.name == format)
                    return &row;
            return nullptr;
        };
        const FitsRow *llama = find("llama-3-8b", "Q4_K_M");
        QVERIFY(llama);
        QCOMPARE(llama->verdict, std::string("fits"));
        QCOMPARE(llama->nGpuLayers, 33);
        // Llama 3's 8,192 positions (max_position_embeddings) all fit: 8192 x 128 KiB = 1 GiB.
        QCOMPARE(llama->maxContext, 8192u);
        // Sequences of 4096 tokens (512 MiB of cache each) in the card's 24,564 MiB less the
        // weights and the 1 GiB target: at most 36 (the compute buffer and CUDA context take a
        // few hundred MiB more).
        const double room = 24564.0 - double(llama->weightBytes) / (1 << 20) - 1024.0;
        QVERIFY2(llama->maxConcurrency <= std::uint32_t(room / 512.0), what(*llama).c_str());
        QVERIFY2(llama->maxConcurrency >= std::uint32_t(room / 512.0) - 3, what(*llama).c_str());
        const FitsRow *big = find("llama-3-70b", "BF16");
        QVERIFY(big);
        QVERIFY(big->verdict != "fits");
    }
};

QTEST_GUILESS_MAIN(TestMachineFits)
#include "tst_machinefits.moc"
