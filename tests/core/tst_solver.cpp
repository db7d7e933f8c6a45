// SPDX-License-Identifier: GPL-3.0-or-later
// The exact solvers: over a table of scenarios, the answer fits and one more does not, checked
// with the estimator directly; min-gpus; the JSON contract; the advisor's last step; the
// concurrency x context frontier.
#include "solve/advisor.h"
#include "solve/frontier.h"
#include "processutil.h"
#include "solve/solvejson.h"
#include "solve/solver.h"
#include "testutil.h"

#include <QTemporaryDir>

using namespace headroom;
using test::scenarioFrom;

namespace {

/// Whether a configuration fits a GPU, decided here from the estimate (not by the solver):
/// engines with their own budget (vLLM, SGLang) by their own figures, everything else by the
/// device peak against the whole capacity.
bool fitsGpu(const Scenario &s, const std::string &gpuId)
{
    const Estimate e = estimate(s, Detail::BytesOnly);
    const std::uint64_t capacity = builtinCatalog().findGpu(gpuId)->capacityBytes();
    if (e.serving && s.serving->engine != Engine::HfGenerate) {
        const bool engineOk = e.serving->startsOk && e.serving->requestsFit;
        if (s.serving->engine == Engine::Vllm || s.serving->engine == Engine::Sglang)
            return engineOk;
        return engineOk && e.peak.deviceBytes <= capacity;
    }
    return e.peak.deviceBytes <= capacity;
}

} // namespace

class TestSolver : public QObject
{
    Q_OBJECT
private slots:
    // The refusal for a scenario that splits across GPUs in no way is read in the window too:
    // it names the ways to split, never a command-line flag ("--strategies").
    void minGpusRefusalHasNoCommandLineFlags()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "train": {"micro_batch": 1}})");
        SolveOptions options;
        options.strategies.clear();
        try {
            solve(s, SolveFor::MinGpus, "h100-80gb", options);
            QFAIL("no refusal");
        } catch (const SolveError &error) {
            const QString text = QString::fromUtf8(error.what());
            QVERIFY2(!text.contains(QLatin1String("--")), error.what());
            QVERIFY2(text.contains(QLatin1String("FSDP")) && text.contains(QLatin1String("ZeRO-3")), error.what());
        }
    }

    void boundary_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("gpu");
        const QString lora = QStringLiteral(R"({"model": {"preset": "llama-3-8b"}, "train": {"method": "lora",
            "gradient_checkpointing": "full"}, "kernels": {"attention": "flash"}, "gpus": ["rtx-4090"]})");
        QTest::newRow("lora-8b-4090-micro-batch") << lora << "max-micro-batch" << "rtx-4090";
        QTest::newRow("lora-8b-4090-seq-len") << lora << "max-seq-len" << "rtx-4090";
        QTest::newRow("lora-8b-4090-rank") << lora << "max-lora-rank" << "rtx-4090";
        QTest::newRow("lora-8b-a100-micro-batch") << lora << "max-micro-batch" << "a100-80gb";
        QTest::newRow("qlora-7b-t4-seq-len") << QStringLiteral(R"({"model": {"preset": "llama-2-7b"},
            "train": {"method": "qlora", "micro_batch": 2}, "gpus": ["t4"]})") << "max-seq-len" << "t4";
        QTest::newRow("full-gpt2-3060-micro-batch") << QStringLiteral(R"({"model": {"preset": "gpt2"},
            "train": {"seq_len": 1024}, "kernels": {"attention": "eager"}, "gpus": ["rtx-3060-12gb"]})")
                                                   << "max-micro-batch" << "rtx-3060-12gb";
        const QString plain = QStringLiteral(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "inference": {"batch": 4, "context": 8192}, "gpus": ["a100-80gb"]})");
        QTest::newRow("inference-8b-a100-concurrency") << plain << "max-concurrency" << "a100-80gb";
        QTest::newRow("inference-8b-a100-context") << plain << "max-context" << "a100-80gb";
        const QString vllm = QStringLiteral(R"({"task": "inference", "model": {"preset": "llama-3-8b"}, "gpus": ["rtx-4090"],
            "serving": {"engine": "vllm", "max_model_len": 8192, "requests": {"concurrency": 4, "prompt_tokens": 2000,
            "output_tokens": 500}}})");
        QTest::newRow("vllm-8b-4090-concurrency") << vllm << "max-concurrency" << "rtx-4090";
        QTest::newRow("vllm-8b-4090-context") << vllm << "max-context" << "rtx-4090";
        QTest::newRow("vllm-8b-l40s-concurrency") << QString(vllm).replace(QStringLiteral("rtx-4090"), QStringLiteral("l40s"))
                                                  << "max-concurrency" << "l40s";
        QTest::newRow("sglang-qwen-h100-concurrency") << QStringLiteral(R"({"task": "inference", "model": {"preset": "qwen2.5-7b"},
            "gpus": ["h100-80gb"], "serving": {"engine": "sglang", "max_model_len": 32768,
            "requests": {"concurrency": 8, "prompt_tokens": 30000, "output_tokens": 2000}}})") << "max-concurrency" << "h100-80gb";
        const QString llama = QStringLiteral(R"({"task": "inference", "model": {"preset": "llama-2-7b"}, "gpus": ["rtx-3060-12gb"],
            "serving": {"engine": "llama_cpp", "n_ctx": 4096, "weight_type": "q4_k",
            "requests": {"concurrency": 1, "prompt_tokens": 3000, "output_tokens": 1000}}})");
        QTest::newRow("llama-cpp-7b-3060-context") << llama << "max-context" << "rtx-3060-12gb";
        QTest::newRow("llama-cpp-7b-3060-concurrency") << llama << "max-concurrency" << "rtx-3060-12gb";
        QTest::newRow("generate-1b-t4-concurrency") << QStringLiteral(R"({"task": "inference", "model": {"preset": "llama-3.2-1b"},
            "gpus": ["t4"], "serving": {"engine": "hf_generate", "requests": {"concurrency": 1, "prompt_tokens": 2000,
            "output_tokens": 2000}}})") << "max-concurrency" << "t4";
    }
    void boundary()
    {
        QFETCH(QString, scenario);
        QFETCH(QString, variable);
        QFETCH(QString, gpu);
        const Scenario s = scenarioFrom(scenario.toStdString());
        const SolveFor what = *solveForFromKey(variable.toStdString());
        const Solution answer = solve(s, what, gpu.toStdString());
        QVERIFY2(answer.value > 0, "nothing fits: the row does not test a boundary");
        QVERIFY(fitsGpu(withSolveValue(s, what, answer.value), gpu.toStdString()));
        QVERIFY(answer.nextValue);
        QCOMPARE(*answer.nextValue, answer.value + 1);
        QVERIFY(!fitsGpu(withSolveValue(s, what, answer.value + 1), gpu.toStdString()));
        QVERIFY(answer.peakBytes && answer.nextPeakBytes);
        QVERIFY(*answer.nextPeakBytes >= *answer.peakBytes);
        QCOMPARE(answer.scenario, withSolveValue(s, what, answer.value));
        // The capacity lines search several GPUs at once, with the same answers.
        const std::vector<Solution> lines = solveForGpus(s, what, {gpu.toStdString(), "h100-80gb"});
        QCOMPARE(lines.front().value, answer.value);
    }

    // Where no larger value exists (the format's maximum) there is no next peak.
    void rangeMaximum()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "pythia-14m"}, "train": {"method": "lora",
            "seq_len": 128}, "gpus": ["h200"]})");
        const Solution answer = solve(s, SolveFor::MaxLoraRank, "h200");
        QCOMPARE(answer.value, 65536ull);
        QVERIFY(!answer.nextValue);
        QVERIFY(!answer.nextPeakBytes);
        QCOMPARE(answer.limit, std::string("range"));
        const nlohmann::json doc = solutionToJson(answer);
        QVERIFY(doc["next_peak_bytes"].is_null());
    }

    // Not even the smallest value fits: value 0, no peak, the peak at 1 as the next.
    void nothingFits()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-70b"}, "gpus": ["t4"]})");
        const Solution answer = solve(s, SolveFor::MaxMicroBatch, "t4");
        QCOMPARE(answer.value, 0ull);
        QVERIFY(!answer.peakBytes);
        QVERIFY(answer.nextPeakBytes && *answer.nextPeakBytes > builtinCatalog().findGpu("t4")->capacityBytes());
    }

    // min-gpus: the fewest GPUs that fit with the strategy the scenario allows; one fewer does not.
    void minGpus_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("strategy");
        QTest::newRow("zero3-full-8b-a100-40gb") << QStringLiteral(R"({"model": {"preset": "llama-3-8b"},
            "train": {"gradient_checkpointing": "full"}, "parallel": {"gpus": 2, "strategy": "zero3"}})")
                                                << "a100-40gb" << "zero3";
        QTest::newRow("vllm-70b-h100-tensor") << QStringLiteral(R"({"task": "inference", "model": {"preset": "llama-3-70b"},
            "gpus": ["h100-80gb"], "serving": {"engine": "vllm", "max_model_len": 8192,
            "requests": {"concurrency": 16, "prompt_tokens": 4096, "output_tokens": 1024}}})") << "h100-80gb" << "tensor";
        // The per-rank layouts: GPU counts keep tensor x pipeline x context dividing them.
        QTest::newRow("fsdp-70b-context2-h100") << QStringLiteral(R"({"model": {"preset": "llama-3-70b"},
            "train": {"method": "full", "seq_len": 32768, "gradient_checkpointing": "full"},
            "kernels": {"attention": "flash", "loss": "chunked"},
            "parallel": {"gpus": 2, "context": 2, "strategy": "fsdp"}})") << "h100-80gb" << "fsdp";
        QTest::newRow("zero3-70b-tp2-pp2-h100") << QStringLiteral(R"({"model": {"preset": "llama-3-70b"},
            "train": {"method": "full", "master_weights": true, "gradient_checkpointing": "full", "grad_accum": 4},
            "kernels": {"attention": "flash"},
            "parallel": {"gpus": 4, "tensor": 2, "pipeline": 2, "strategy": "zero3"}})") << "h100-80gb" << "zero3";
    }
    void minGpus()
    {
        QFETCH(QString, scenario);
        QFETCH(QString, gpu);
        QFETCH(QString, strategy);
        const Scenario s = scenarioFrom(scenario.toStdString());
        const Solution answer = solve(s, SolveFor::MinGpus, gpu.toStdString());
        QVERIFY(answer.value > 1);
        QCOMPARE(answer.strategy, strategy.toStdString());
        QCOMPARE(answer.value % (std::uint64_t(s.parallel.tensor) * s.parallel.pipeline * s.parallel.context), 0ull);
        QVERIFY(estimate(answer.scenario).peak.deviceBytes <= builtinCatalog().findGpu(gpu.toStdString())->capacityBytes() ||
                answer.scenario.serving);
        Scenario applied = answer.scenario;
        if (applied.serving)
            applied.gpus = {gpu.toStdString()};
        QVERIFY(fitsGpu(applied, gpu.toStdString()));
        QVERIFY(answer.nextValue && *answer.nextValue < answer.value);
        Scenario fewer = applied;
        if (strategy == QLatin1String("tensor")) {
            fewer.parallel.tensor = std::uint32_t(*answer.nextValue);
            fewer.parallel.gpus = std::uint32_t(*answer.nextValue);
        } else {
            fewer.parallel.gpus = std::uint32_t(*answer.nextValue);
        }
        QVERIFY(!fitsGpu(fewer, gpu.toStdString()));
    }

    void notApplicable()
    {
        const Scenario serving = scenarioFrom(R"({"task": "inference"})");
        QVERIFY_THROWS_EXCEPTION(SolveError, solve(serving, SolveFor::MaxMicroBatch, "rtx-4090"));
        const Scenario full = scenarioFrom(R"({})");
        QVERIFY_THROWS_EXCEPTION(SolveError, solve(full, SolveFor::MaxLoraRank, "rtx-4090"));
        QVERIFY_THROWS_EXCEPTION(SolveError, solve(full, SolveFor::MaxMicroBatch, "no-such-gpu"));
    }

    // The command line prints the contract's shape, with the library's answer.
    void cliJson()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.headroom.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "headroom-scenario", "version": 1, "model": {"preset": "llama-3-8b"},
            "train": {"method": "lora"}, "kernels": {"attention": "flash"}})");
        file.close();
        const test::Run run = test::runHeadroom({QStringLiteral("solve"), path, QStringLiteral("--for"),
                                                 QStringLiteral("max-seq-len"), QStringLiteral("--gpu"),
                                                 QStringLiteral("rtx-4090"), QStringLiteral("--format"),
                                                 QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        for (const char *key : {"for", "gpu", "value", "peak_bytes", "next_peak_bytes"})
            QVERIFY2(doc.contains(key), key);
        QCOMPARE(doc["for"].get<std::string>(), std::string("max-seq-len"));
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-3-8b"}, "train": {"method": "lora"},
            "kernels": {"attention": "flash"}})");
        const Solution answer = solve(s, SolveFor::MaxSeqLen, "rtx-4090");
        QCOMPARE(doc["value"].get<std::uint64_t>(), answer.value);
        QCOMPARE(doc["peak_bytes"].get<std::uint64_t>(), *answer.peakBytes);
        // A margin lowers the answer; a bad variable is an error that names the option.
        const test::Run margin = test::runHeadroom({QStringLiteral("solve"), path, QStringLiteral("--for"),
                                                    QStringLiteral("max-seq-len"), QStringLiteral("--gpu"),
                                                    QStringLiteral("rtx-4090"), QStringLiteral("--margin"),
                                                    QStringLiteral("0.9"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(margin.exitCode, 0);
        QVERIFY(nlohmann::json::parse(margin.out.toStdString())["value"].get<std::uint64_t>() < answer.value);
        const test::Run bad = test::runHeadroom({QStringLiteral("solve"), path, QStringLiteral("--for"),
                                                 QStringLiteral("max-batch"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(QStringLiteral("--for")));
    }

    // The advisor's last step: once it fits, how far the final configuration stretches.
    void advisorThen()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-3-8b"}, "train": {"micro_batch": 8}})");
        const Advice advice = advise(s, "rtx-4090");
        QVERIFY(advice.fits);
        QVERIFY(advice.then);
        QCOMPARE(advice.then->what, SolveFor::MaxMicroBatch);
        QVERIFY(advice.then->value >= advice.final().train.microBatch);
        QVERIFY(fitsGpu(advice.then->scenario, "rtx-4090"));
    }

    // Concurrency x context: paged, a KV-limited engine halves the users when the context
    // doubles (to within one); contiguous allocation is flat at the longest length's count.
    void frontier()
    {
        const Scenario s = scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["a100-80gb", "rtx-4090"], "serving": {"engine": "vllm", "max_model_len": 16384,
            "max_num_seqs": 100000, "requests": {"concurrency": 16, "prompt_tokens": 6000, "output_tokens": 2000}}})");
        FrontierOptions options;
        options.tokens = {2048, 4096, 8192};
        options.contiguous = true;
        const Frontier f = servingFrontier(s, options);
        QCOMPARE(f.curves.size(), std::size_t(4));
        const FrontierCurve &paged = f.curves[0];
        QCOMPARE(paged.allocation, FrontierAllocation::Paged);
        for (std::size_t i = 0; i + 1 < paged.points.size(); ++i) {
            const std::uint64_t now = paged.points[i].sequences, doubled = paged.points[i + 1].sequences;
            QVERIFY2(doubled >= now / 2 - 1 && doubled <= now / 2 + 1, qPrintable(QStringLiteral("%1 -> %2").arg(now).arg(doubled)));
            QCOMPARE(paged.points[i].limit, ServingLimit::KvCache);
        }
        const FrontierCurve &contiguous = f.curves[1];
        QCOMPARE(contiguous.allocation, FrontierAllocation::Contiguous);
        // Every sequence reserves max_model_len (16,384 tokens), whatever its own length.
        const std::uint64_t reserved = solve(withTokensPerSequence(s, 16384), SolveFor::MaxConcurrency, "a100-80gb").value;
        for (const FrontierPoint &p : contiguous.points)
            QCOMPARE(p.sequences, reserved);
        QVERIFY(reserved < paged.points.front().sequences);
        QCOMPARE(f.operatingTokens, 8000ull);
        QCOMPARE(f.operatingSequences, 16ull);
        QCOMPARE(f.operatingMaxSequences, solve(withTokensPerSequence(s, 8000), SolveFor::MaxConcurrency, "a100-80gb").value);
        // The smaller card holds fewer at every length.
        for (std::size_t i = 0; i < paged.points.size(); ++i)
            QVERIFY(f.curves[2].points[i].sequences < paged.points[i].sequences);
    }
};

QTEST_GUILESS_MAIN(TestSolver)
#include "tst_solver.moc"
