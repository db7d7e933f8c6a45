// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22 on the command line: one target GPU (the serving engine's budget is computed on the
// GPU the verdict is about) and a refusal that is never read as an answer (`headroom solve` on a
// scenario the estimator refuses exits 2 with the reason).
#include "testutil.h"

#include "processutil.h"
#include <QTemporaryDir>

using headroom::test::Run;
using headroom::test::runHeadroom;
using nlohmann::json;

namespace {

/// Llama 3 8B bf16 under vLLM 0.10 (gpu_memory_utilization 0.9), the GPUs and target given.
QByteArray vllmScenario(const std::vector<std::string> &gpus, const std::string &target)
{
    json doc = {{"format", "headroom-scenario"}, {"version", 1}, {"task", "inference"},
                {"model", {{"preset", "llama-3-8b"}}}, {"gpus", gpus},
                {"serving", {{"engine", "vllm"}, {"version", "0.10.1"}, {"gpu_memory_utilization", 0.9},
                             {"max_model_len", 8192},
                             {"requests", {{"concurrency", 4}, {"prompt_tokens", 7168}, {"output_tokens", 1024}}}}}};
    if (!target.empty())
        doc["target_gpu"] = target;
    return QByteArray::fromStdString(doc.dump());
}

/// GPT-2 small (1,024 learned positions), full fine-tune at micro-batch 1.
QByteArray gpt2(int seqLen)
{
    const json doc = {{"format", "headroom-scenario"}, {"version", 1}, {"model", {{"preset", "gpt2"}}},
                      {"train", {{"method", "full"}, {"micro_batch", 1}, {"seq_len", seqLen}}},
                      {"gpus", {"h100-80gb"}}};
    return QByteArray::fromStdString(doc.dump());
}

std::vector<std::string> ids(const QStringList &list)
{
    std::vector<std::string> out;
    for (const QString &id : list)
        out.push_back(id.toStdString());
    return out;
}

} // namespace

class TestOneAnswer : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_files = 0;

    QString write(const QString &name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(content);
        return path;
    }

    json estimateJson(const QString &path)
    {
        const Run run = runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--format"), QStringLiteral("json")});
        if (run.exitCode != 0)
            qWarning("estimate exited %d: %s", run.exitCode, qPrintable(run.err));
        return run.exitCode == 0 ? json::parse(run.out.toStdString()) : json();
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // The engine's budget is gpu_memory_utilization x the CUDA total of the target GPU, whatever
    // the order of `gpus`. The CUDA totals are the published ones (docs/serving.md):
    //   H100 80GB: 79.18 GiB = 85,018,877,624.32 -> 85,018,877,624 B; x 0.9 = 76,516,989,861.6 -> 76,516,989,862 B
    //   T4:        14.75 GiB = 15,837,691,904 B;                       x 0.9 = 14,253,922,713.6 -> 14,253,922,714 B
    void servingBudgetOnTheTargetGpu_data()
    {
        QTest::addColumn<QStringList>("gpus");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<qulonglong>("total");
        QTest::addColumn<qulonglong>("budget");
        QTest::newRow("t4 first, target h100") << QStringList{QStringLiteral("t4"), QStringLiteral("h100-80gb")} << QStringLiteral("h100-80gb")
                                               << QStringLiteral("h100-80gb") << 85018877624ull << 76516989862ull;
        QTest::newRow("no target: the largest") << QStringList{QStringLiteral("t4"), QStringLiteral("h100-80gb")} << QString()
                                                << QStringLiteral("h100-80gb") << 85018877624ull << 76516989862ull;
        QTest::newRow("target t4, listed last") << QStringList{QStringLiteral("h100-80gb"), QStringLiteral("t4")} << QStringLiteral("t4")
                                                << QStringLiteral("t4") << 15837691904ull << 14253922714ull;
        // A GPU of a typed size (My GPU's "48 GiB"): 48 x 2^30 = 51,539,607,552 B as nvidia-smi's
        // total, no published CUDA total, so 480 MiB (503,316,480 B) less: 51,036,291,072 B;
        // x 0.9 = 45,932,661,964.8 -> 45,932,661,965 B.
        QTest::newRow("target a size GPU") << QStringList{QStringLiteral("t4"), QStringLiteral("48gib")} << QStringLiteral("48gib")
                                           << QStringLiteral("48gib") << 51036291072ull << 45932661965ull;
    }
    void servingBudgetOnTheTargetGpu()
    {
        QFETCH(QStringList, gpus);
        QFETCH(QString, target);
        QFETCH(QString, gpu);
        QFETCH(qulonglong, total);
        QFETCH(qulonglong, budget);
        const QString path = write(QStringLiteral("vllm-%1.headroom.json").arg(++m_files),
                                   vllmScenario(ids(gpus), target.toStdString()));
        const json doc = estimateJson(path);
        QVERIFY(doc.is_object());
        const json &serving = doc.at("serving");
        QCOMPARE(QString::fromStdString(serving.at("gpu").get<std::string>()), gpu);
        QCOMPARE(serving.at("device_total_bytes").get<qulonglong>(), total);
        QCOMPARE(serving.at("budget_bytes").get<qulonglong>(), budget);
        // Llama 3 8B's 16 GB of bf16 weights leave the H100 a KV cache; on the T4 none.
        if (gpu != QLatin1String("t4"))
            QVERIFY(serving.at("kv_cache_bytes").get<qulonglong>() > 0);
        // The text says the same GPU.
        const Run text = runHeadroom({QStringLiteral("estimate"), path});
        QCOMPARE(text.exitCode, 0);
        const QLatin1String name = gpu == QLatin1String("t4")        ? QLatin1String("T4")
                                   : gpu == QLatin1String("48gib") ? QLatin1String("48 GiB GPU")
                                                                    : QLatin1String("H100");
        QVERIFY2(text.out.contains(name), qPrintable(text.out));
    }

    // A scenario the reader accepts and the estimator refuses: GPT-2 has 1,024 learned
    // positions (its config.json's n_positions), so a 2,048-token run has no position embedding
    // for half its tokens and cannot start (the window says "Cannot estimate"). Solve says so
    // and exits 2; it never prints a limit.
    void solveOnARefusedScenarioExitsTwo()
    {
        const QString path = write(QStringLiteral("refused.headroom.json"), gpt2(2048));
        for (const char *what : {"max-micro-batch", "max-seq-len", "min-gpus"}) {
            const Run run = runHeadroom({QStringLiteral("solve"), path, QStringLiteral("--for"), QString::fromLatin1(what),
                                         QStringLiteral("--gpu"), QStringLiteral("h100-80gb")});
            QVERIFY2(run.exitCode == 2, qPrintable(QStringLiteral("%1: exit %2, %3").arg(QLatin1String(what)).arg(run.exitCode).arg(run.out)));
            QVERIFY2(run.err.contains(QLatin1String("1,024 learned positions")) && run.err.contains(QLatin1String("cannot start")),
                     qPrintable(run.err));
            QVERIFY2(!run.out.contains(QLatin1String("fits")), qPrintable(run.out));
        }
        // Within the positions, the longest sequence is the last learned position (GPT-2 small
        // at micro-batch 1 is far from filling an H100), stopped by the positions, not memory.
        const Run run = runHeadroom({QStringLiteral("solve"), write(QStringLiteral("gpt2.headroom.json"), gpt2(512)),
                                     QStringLiteral("--for"), QStringLiteral("max-seq-len"), QStringLiteral("--gpu"),
                                     QStringLiteral("h100-80gb"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const json answer = json::parse(run.out.toStdString());
        QCOMPARE(answer.at("value").get<int>(), 1024);
        QCOMPARE(answer.at("limit").get<std::string>(), std::string("max_positions"));
    }

    // Without --gpu, solve answers for the target GPU: the same answer as --gpu naming it.
    void solveDefaultsToTheTargetGpu()
    {
        const QString path = write(QStringLiteral("target.headroom.json"), vllmScenario({"t4", "h100-80gb"}, "h100-80gb"));
        const QStringList base{QStringLiteral("solve"), path, QStringLiteral("--for"), QStringLiteral("max-concurrency"),
                               QStringLiteral("--format"), QStringLiteral("json")};
        const Run implicit = runHeadroom(base);
        const Run named = runHeadroom(base + QStringList{QStringLiteral("--gpu"), QStringLiteral("h100-80gb")});
        const Run other = runHeadroom(base + QStringList{QStringLiteral("--gpu"), QStringLiteral("t4")});
        QCOMPARE(implicit.exitCode, 0);
        QCOMPARE(named.exitCode, 0);
        QCOMPARE(other.exitCode, 0);
        QCOMPARE(implicit.out, named.out);
        QVERIFY(implicit.out != other.out);
        QCOMPARE(json::parse(implicit.out.toStdString()).at("gpu").get<std::string>(), std::string("h100-80gb"));
    }
};

QTEST_GUILESS_MAIN(TestOneAnswer)
#include "tst_oneanswer.moc"
