// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom compare LOG [SCENARIO]` run as a user runs it, on the published logs of
// tests/data/logs: the log's figures as printed, the estimate's as the estimator computes them for
// the same scenario in this process (never tuned to the log), the scenario filled from what the
// log states, and refusals that name what is missing or the line that is cut.
#include "estimate/estimate.h"
#include "processutil.h"
#include "scenario/scenariojson.h"

#include <QFile>
#include <algorithm>
#include <cmath>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;
using headroom::test::runHeadroom;

namespace {

constexpr double kGiB = 1073741824.0;

QString logPath(const char *name) { return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/logs/") + QLatin1String(name); }

nlohmann::json runJson(const QStringList &arguments)
{
    const auto run = runHeadroom(QStringList{QStringLiteral("compare")} + arguments + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
    if (run.exitCode != 0)
        qFatal("compare failed (%d): %s", run.exitCode, qPrintable(run.err));
    return nlohmann::json::parse(run.out.toStdString());
}

const nlohmann::json &figure(const nlohmann::json &doc, const char *key)
{
    for (const nlohmann::json &f : doc["figures"])
        if (f["key"] == key)
            return f;
    qFatal("no figure %s", key);
}

QString writeScenario(QTemporaryDir &dir, const nlohmann::json &scenario)
{
    const QString path = dir.filePath(QStringLiteral("scenario.headroom.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write the scenario");
    f.write(QByteArray::fromStdString(scenario.dump()));
    return path;
}

bool mentions(const nlohmann::json &list, const std::string &text)
{
    for (const nlohmann::json &item : list)
        if (item.get<std::string>().find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT
private slots:
    void vllmFromTheLog()
    {
        const nlohmann::json doc = runJson({logPath("vllm-v0-tp4-24gb-pr14447.log"), QStringLiteral("--model"),
                                            QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090")});
        QCOMPARE(doc["format"], "headroom-log-comparison");
        QCOMPARE(doc["engine"], "vllm");
        // The scenario states what the log stated: the utilization and the card's total.
        QCOMPARE(doc["scenario"]["serving"]["gpu_memory_utilization"].get<double>(), 0.99);
        QCOMPARE(doc["scenario"]["serving"]["total_gpu_memory_gib"].get<double>(), 23.58);
        QCOMPARE(doc["scenario"]["gpus"][0], "rtx-4090");
        // The log's figures as printed (GiB), the estimate's as the estimator gives them here.
        const Scenario scenario = scenarioFromJson(doc["scenario"]);
        const Estimate e = estimate(scenario);
        QVERIFY(e.serving);
        QCOMPARE(figure(doc, "weights")["measured"].get<double>(), 21.21 * kGiB);
        QCOMPARE(figure(doc, "weights")["estimated"].get<double>(), double(e.serving->weightsBytes));
        QCOMPARE(figure(doc, "kv_cache")["measured"].get<double>(), 1.57 * kGiB);
        QCOMPARE(figure(doc, "kv_cache")["estimated"].get<double>(), double(e.serving->kvCacheBytes));
        QCOMPARE(figure(doc, "total_gpu_memory")["estimated"].get<double>(), double(e.serving->deviceTotalBytes));
        QCOMPARE(figure(doc, "kv_cache")["line"].get<int>(), 1);
        // An 8B model's bf16 weights (about 15 GiB) are far below the log's 21.21 GiB: the KV
        // cache's difference is put on the weights.
        QVERIFY(e.serving->weightsBytes < 16 * kGiB);
        QVERIFY2(mentions(doc["findings"], "Most of it is weights"), doc["findings"].dump().c_str());
    }
    void asksForWhatTheLogDoesNotState()
    {
        const auto noGpu = runHeadroom({QStringLiteral("compare"), logPath("vllm-v0-tp4-24gb-pr14447.log"),
                                        QStringLiteral("--model"), QStringLiteral("llama-3.1-8b")});
        QCOMPARE(noGpu.exitCode, 2);
        QVERIFY2(noGpu.err.contains(QStringLiteral("vLLM does not print its name; give --gpu ID")), qPrintable(noGpu.err));
        const auto noModel = runHeadroom({QStringLiteral("compare"), logPath("vllm-v1-llama-3.1-70b-w8a8-pr12569.log"),
                                          QStringLiteral("--gpu"), QStringLiteral("h100-80gb")});
        QCOMPARE(noModel.exitCode, 2);
        QVERIFY2(noModel.err.contains(QStringLiteral("\"neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8\" (line 1) is no catalog model")),
                 qPrintable(noModel.err));
    }
    void llamaCppGpuFromTheTable()
    {
        const nlohmann::json doc = runJson({logPath("llamacpp-breakdown-3x4090-pr15860.log"), QStringLiteral("--model"),
                                            QStringLiteral("llama-3.1-8b")});
        QCOMPARE(doc["scenario"]["gpus"][0], "rtx-4090"); // "CUDA0 (RTX 4090)"
        QCOMPARE(doc["breakdown"].size(), std::size_t(4));
        // The first GPU's row: model 13,169 MiB, context 38 MiB, compute 985 MiB.
        QCOMPARE(figure(doc, "weights")["measured"].get<double>(), 13169.0 * 1048576);
        QCOMPARE(figure(doc, "kv_cache")["measured"].get<double>(), 38.0 * 1048576);
        QCOMPARE(figure(doc, "activation_peak")["measured"].get<double>(), 985.0 * 1048576);
    }
    void userScenario()
    {
        // The scenario of the published serving case for the same post (tests/data/serving).
        QFile f(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/serving/sglang-qwen3-235b-fp8-4xh100-tp4.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const nlohmann::json scenario = nlohmann::json::parse(f.readAll().toStdString())["scenario"];
        QTemporaryDir dir;
        const QString path = writeScenario(dir, scenario);
        const nlohmann::json doc = runJson({logPath("sglang-qwen3-235b-fp8-tp4-issue21348.log"), path});
        const Estimate e = estimate(scenarioFromJson(scenario));
        QCOMPARE(figure(doc, "kv_cache")["measured"].get<double>(), (8.23 + 8.23) * kGiB);
        QCOMPARE(figure(doc, "kv_cache")["estimated"].get<double>(), double(e.serving->kvCacheBytes));
        QCOMPARE(figure(doc, "kv_tokens")["estimated"].get<double>(), double(e.serving->kvCacheTokens));
        QVERIFY(doc["warnings"].empty()); // tensor 4 and 0.93, as the log ran
    }
    void disagreementsAreSaid()
    {
        QTemporaryDir dir;
        const nlohmann::json scenario = {
            {"format", "headroom-scenario"}, {"version", 1}, {"task", "inference"},
            {"model", {{"preset", "llama-3.1-70b"}}}, {"precision", {{"weights", "int8"}}},
            {"serving", {{"engine", "vllm"}, {"max_model_len", 4096}, {"gpu_memory_utilization", 0.98}}},
            {"gpus", {"h100-80gb"}}};
        const nlohmann::json doc = runJson({logPath("vllm-v1-llama-3.1-70b-w8a8-pr12569.log"), writeScenario(dir, scenario)});
        QVERIFY2(mentions(doc["warnings"], "The log ran serving.max_model_len 2048 (line 1), the scenario says 4096"),
                 doc["warnings"].dump().c_str());
        QVERIFY(!mentions(doc["warnings"], "gpu_memory_utilization"));
    }
    void otherEngineScenarioRefused()
    {
        QFile f(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/serving/sglang-qwen3-235b-fp8-4xh100-tp4.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QTemporaryDir dir;
        const QString path = writeScenario(dir, nlohmann::json::parse(f.readAll().toStdString())["scenario"]);
        const auto run = runHeadroom({QStringLiteral("compare"), logPath("vllm-qwen3-235b-fp8-tp4-issue21348.log"), path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("is a vLLM log")) && run.err.contains(QStringLiteral("engine is sglang")),
                 qPrintable(run.err));
    }
    void tensorrtShownWithoutEstimate()
    {
        const nlohmann::json doc = runJson({logPath("trtllm-0.8-a100-issue1400.log")});
        QCOMPARE(doc["engine"], "tensorrt_llm");
        QCOMPARE(figure(doc, "kv_cache")["measured"].get<double>(), 69524783104.0);
        QVERIFY(figure(doc, "kv_cache")["estimated"].is_null());
        QVERIFY(mentions(doc["warnings"], "does not model TensorRT-LLM"));
    }
    void malformedRefused()
    {
        QTemporaryDir dir;
        const auto write = [&](const char *name, const QByteArray &text) {
            QFile f(dir.filePath(QLatin1String(name)));
            if (!f.open(QIODevice::WriteOnly))
                qFatal("cannot write");
            f.write(text);
            return f.fileName();
        };
        const auto prose = runHeadroom({QStringLiteral("compare"), write("prose.log", "nothing to see\n")});
        QCOMPARE(prose.exitCode, 2);
        QVERIFY2(prose.err.contains(QStringLiteral("no line of a vLLM, SGLang, TensorRT-LLM or llama.cpp")), qPrintable(prose.err));
        const auto cut = runHeadroom({QStringLiteral("compare"),
                                      write("cut.log", "INFO start\nINFO [gpu_worker.py:349] Available KV cache memory: 2.3")});
        QCOMPARE(cut.exitCode, 2);
        QVERIFY2(cut.err.contains(QStringLiteral("line 2: \"Available KV cache memory:\" has no figure")), qPrintable(cut.err));
        const auto missing = runHeadroom({QStringLiteral("compare"), dir.filePath(QStringLiteral("absent.log"))});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.contains(QStringLiteral("absent.log")));
    }
    void torchSummaryBesideTheEstimate()
    {
        const QString scenario = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");
        const QString summary = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/pytorch/memory-summary-pytorch-issue35901.txt");
        const auto run = runHeadroom({QStringLiteral("compare"), summary, scenario, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QFile f(scenario);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const Estimate e = estimate(parseScenario(f.readAll().toStdString()));
        QCOMPARE(doc["readings"][0]["key"], "peak_allocated");
        QCOMPARE(doc["readings"][0]["measured"].get<double>(), 4877.0 * 1048576);
        QCOMPARE(doc["readings"][0]["estimated"].get<double>(), double(e.peak.allocatedBytes));
        QCOMPARE(doc["readings"][1]["measured"].get<double>(), 12420.0 * 1048576);
        // 12,420 MB reserved against 4,877 MB allocated: 7,543 MB (61%) the allocator holds for nothing.
        QVERIFY2(mentions(doc["findings"], "expandable_segments:True"), doc["findings"].dump().c_str());
        QVERIFY(mentions(doc["findings"], "Reserved is 7.37 GiB above allocated (61% of reserved)"));
        // Without the run's scenario there is nothing to estimate.
        const auto alone = runHeadroom({QStringLiteral("compare"), summary});
        QCOMPARE(alone.exitCode, 2);
        QVERIFY(alone.err.contains(QStringLiteral("give the run's SCENARIO")));
    }
    void timelineByCategory()
    {
        const QString scenario = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");
        const auto run = runHeadroom({QStringLiteral("compare"), QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/pytorch/timeline-generated.json"),
                                      scenario, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QFile f(scenario);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const Estimate e = estimate(parseScenario(f.readAll().toStdString()));
        bool weights = false;
        for (const nlohmann::json &r : doc["readings"])
            if (r["label"] == "weights") {
                weights = true;
                QCOMPARE(r["measured"].get<double>(), 1073741824.0); // the parameter category at the peak
                QCOMPARE(r["estimated"].get<double>(), double(e.bytes(ConsumerId::Weights) + e.bytes(ConsumerId::QuantMetadata)));
            }
        QVERIFY(weights);
        QVERIFY2(mentions(doc["findings"], "beside the profile"), doc["findings"].dump().c_str());
    }
    void savedCaseReadsBackInValidate()
    {
        QTemporaryDir dir;
        const QString scenario = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");
        const QString casePath = dir.filePath(QStringLiteral("my-lora-run.json"));
        const auto save = runHeadroom({QStringLiteral("compare"),
                                       QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/pytorch/memory-summary-torch-1.13-generated.txt"),
                                       scenario, QStringLiteral("--save-case"), casePath});
        QCOMPARE(save.exitCode, 0);
        const auto validate = runHeadroom({QStringLiteral("validate"), dir.path(), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(validate.exitCode == 0, qPrintable(validate.err));
        const nlohmann::json report = nlohmann::json::parse(validate.out.toStdString());
        QCOMPARE(report["cases"].size(), std::size_t(1));
        QCOMPARE(report["cases"][0]["id"], "my-lora-run");
        // 20 GiB + 113 MiB peak allocated, as PyTorch printed it ("20593 MB").
        QCOMPARE(report["cases"][0]["measured_bytes"].get<double>(), (20.0 * 1024 + 113) * 1048576);
        // A save that fails (its folder is missing) is exit 2 with nothing on stdout: the
        // comparison is not printed as if the run had gone through (issue 29's hostile pass).
        const auto failed = runHeadroom({QStringLiteral("compare"),
                                         QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/pytorch/memory-summary-torch-1.13-generated.txt"),
                                         scenario, QStringLiteral("--save-case"),
                                         dir.filePath(QStringLiteral("missing/folder/run.json"))});
        QCOMPARE(failed.exitCode, 2);
        QVERIFY2(failed.out.isEmpty(), qPrintable(failed.out));
        QVERIFY2(failed.err.contains(QStringLiteral("--save-case")), qPrintable(failed.err));
    }
    void savedProbeCaseReadsBack()
    {
        // The probe's run, with the scenario its facts state on the card it names, saved as a
        // measured case: its highest peak_allocated_bytes, read back by `headroom validate`.
        QTemporaryDir dir;
        const QString probe = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/probe/probe-tiny-llama-bf16-adamw.json");
        const QString casePath = dir.filePath(QStringLiteral("my-probe-run.json"));
        const auto save = runHeadroom({QStringLiteral("compare"), probe, QStringLiteral("--gpu"), QStringLiteral("h100-80gb"),
                                       QStringLiteral("--save-case"), casePath});
        QVERIFY2(save.exitCode == 0, qPrintable(save.err));
        QFile facts(probe);
        QVERIFY(facts.open(QIODevice::ReadOnly));
        std::uint64_t highest = 0;
        const nlohmann::json file = nlohmann::json::parse(facts.readAll().toStdString());
        for (const nlohmann::json &r : file["readings"])
            highest = std::max(highest, r["peak_allocated_bytes"].get<std::uint64_t>());
        const auto validate = runHeadroom({QStringLiteral("validate"), dir.path(), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(validate.exitCode == 0, qPrintable(validate.err));
        const nlohmann::json report = nlohmann::json::parse(validate.out.toStdString());
        QCOMPARE(report["cases"].size(), std::size_t(1));
        QCOMPARE(report["cases"][0]["id"], "my-probe-run");
        QCOMPARE(report["cases"][0]["measured_bytes"].get<std::uint64_t>(), highest);
        QFile f(casePath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const nlohmann::json doc = nlohmann::json::parse(f.readAll().toStdString());
        QCOMPARE(doc["source"]["tool"], "headroom_probe.py");
        QCOMPARE(doc["source"]["path"], "probe-tiny-llama-bf16-adamw.json");
        QVERIFY(doc["verification_note"].get<std::string>().rfind("first seen: Headroom", 0) == 0);
        // A case file that is not ID.json is refused before anything is written.
        const auto bad = runHeadroom({QStringLiteral("compare"), probe, QStringLiteral("--gpu"), QStringLiteral("h100-80gb"),
                                      QStringLiteral("--save-case"), dir.filePath(QStringLiteral("case.txt"))});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("ID.json")), qPrintable(bad.err));
        QVERIFY(bad.out.isEmpty());
    }
    void savedServingCaseReadsBack()
    {
        QTemporaryDir dir;
        const QString casePath = dir.filePath(QStringLiteral("my-vllm-run.json"));
        const auto save = runHeadroom({QStringLiteral("compare"), logPath("vllm-v0-tp4-24gb-pr14447.log"), QStringLiteral("--model"),
                                       QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                       QStringLiteral("--save-case"), casePath});
        QVERIFY2(save.exitCode == 0, qPrintable(save.err));
        const auto validate = runHeadroom({QStringLiteral("validate"), dir.path(), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(validate.exitCode == 0, qPrintable(validate.err));
        QVERIFY(validate.out.contains(QStringLiteral("my-vllm-run")));
        QFile f(casePath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const nlohmann::json doc = nlohmann::json::parse(f.readAll().toStdString());
        QCOMPARE(doc["format"], "headroom-serving-log");
        // "the rest of the memory reserved for KV Cache is 1.57GiB" x 2^30, rounded.
        QCOMPARE(doc["measured"]["kv_cache_bytes"].get<std::uint64_t>(), std::uint64_t(std::llround(1.57 * kGiB)));
        QCOMPARE(doc["verified"], false);
        QVERIFY(doc["verification_note"].get<std::string>().rfind("first seen: Headroom", 0) == 0);
        // TensorRT-LLM is not modelled: nothing to keep beside it.
        const auto trt = runHeadroom({QStringLiteral("compare"), logPath("trtllm-0.8-a100-issue1400.log"), QStringLiteral("--save-case"),
                                      dir.filePath(QStringLiteral("trt.json"))});
        QCOMPARE(trt.exitCode, 2);
    }
    void snapshotBesideTheEstimate()
    {
        const auto run = runHeadroom({QStringLiteral("compare"), QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/pytorch/snapshot-protocol5.pickle"),
                                      QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json"), QStringLiteral("--format"),
                                      QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(doc["tool"], "torch.cuda.memory._dump_snapshot()");
        QCOMPARE(doc["readings"][0]["measured"].get<double>(), 22.0 * 1048576); // 20 + 2 MiB of segments
        const auto refused = runHeadroom({QStringLiteral("compare"), QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/pytorch/refused-torch-tensor.pickle"),
                                          QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("GLOBAL (0x63) names a Python object")), qPrintable(refused.err));
    }
    void overlays()
    {
        // The probe's phases across the estimate's phase bars, in an SVG export.
        QTemporaryDir dir;
        const auto probe = runJson({QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/probe/probe-tiny-llama-bf16-adamw.json"),
                                    QStringLiteral("--gpu"), QStringLiteral("h100-80gb")});
        QCOMPARE(probe["phases"].size(), std::size_t(4));
        QCOMPARE(probe["phases"][0]["phase"], "load");
        // After loading, the bf16 weights alone: 2 bytes a parameter of the probe's model.
        QFile facts(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/probe/probe-tiny-llama-bf16-adamw.json"));
        QVERIFY(facts.open(QIODevice::ReadOnly));
        const std::uint64_t params = nlohmann::json::parse(facts.readAll().toStdString())["facts"]["params"].get<std::uint64_t>();
        QCOMPARE(probe["phases"][0]["measured_peak_bytes"].get<std::uint64_t>(), 2 * params);
        const QString scenario = writeScenario(dir, probe["scenario"]);
        const QString svg = dir.filePath(QStringLiteral("phases.svg"));
        const auto render = runHeadroom({QStringLiteral("render"), scenario, QStringLiteral("--view"), QStringLiteral("phases"),
                                         QStringLiteral("--measured"),
                                         QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/probe/probe-tiny-llama-bf16-adamw.json"),
                                         QStringLiteral("--out"), svg});
        QVERIFY2(render.exitCode == 0, qPrintable(render.err));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY(text.contains(QStringLiteral("the probe")));
        // The tiny run's axis is to its own scale: the H100's line is marked above it ("↑ 79.65 GiB").
        QVERIFY2(text.contains(QStringLiteral("\u2191 ")), qPrintable(text.left(2000)));
        // The bars view refuses the probe, the phases view a log.
        const auto wrongView = runHeadroom({QStringLiteral("render"), scenario, QStringLiteral("--measured"),
                                            QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/probe/probe-tiny-llama-bf16-adamw.json"),
                                            QStringLiteral("--out"), svg});
        QCOMPARE(wrongView.exitCode, 2);
        QVERIFY(wrongView.err.contains(QStringLiteral("add --view phases")));
        // A start-up log that printed the engine's budget, across the bars view's bar.
        const auto vllm = runJson({logPath("vllm-v0-tp4-24gb-pr14447.log"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
                                   QStringLiteral("--gpu"), QStringLiteral("rtx-4090")});
        const QString servingScenario = writeScenario(dir, vllm["scenario"]);
        const auto bars = runHeadroom({QStringLiteral("render"), servingScenario, QStringLiteral("--measured"),
                                       logPath("vllm-v0-tp4-24gb-pr14447.log"), QStringLiteral("--out"), svg});
        QVERIFY2(bars.exitCode == 0, qPrintable(bars.err));
        QVERIFY(f.open(QIODevice::ReadOnly) || f.isOpen());
        f.close();
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(f.readAll()).contains(QStringLiteral("budget as the vLLM log printed it")));
        // A log without a total is not drawn.
        const auto partial = runHeadroom({QStringLiteral("render"), servingScenario, QStringLiteral("--measured"),
                                          logPath("vllm-v1-kimi-linear-tp2-issue28228.log"), QStringLiteral("--out"), svg});
        QCOMPARE(partial.exitCode, 2);
        QVERIFY(partial.err.contains(QStringLiteral("no total to draw")));
    }
    void text()
    {
        const auto run = runHeadroom({QStringLiteral("compare"), logPath("vllm-v0-tp4-24gb-pr14447.log"), QStringLiteral("--model"),
                                      QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(QStringLiteral("vLLM log:")));
        QVERIFY(run.out.contains(QStringLiteral("21.21 GiB")));
        QVERIFY(run.out.contains(QStringLiteral("What explains the difference:")));
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
