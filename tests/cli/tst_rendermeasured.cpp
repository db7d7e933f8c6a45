// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom render --measured FILE` with PyTorch's memory files (issue 28): memory_summary()
// text, an export_memory_timeline() JSON and a _dump_snapshot() pickle, their peak allocated
// drawn across the estimate (the bars view's bar, the phases view's peak phase) in the exported
// SVG, and the views that draw no such line refused.
#include "processutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using headroom::test::runHeadroom;

namespace {

QString dataPath(const char *name) { return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/") + QLatin1String(name); }
const QString kScenario = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");

QString readText(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

QString gib(double bytes) { return QString::number(bytes / 1073741824.0, 'f', 2) + QStringLiteral(" GiB"); }

} // namespace

class TestRenderMeasured : public QObject
{
    Q_OBJECT
private slots:
    void timelineInThePhasesView()
    {
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("phases.svg"));
        const auto run = runHeadroom({QStringLiteral("render"), kScenario, QStringLiteral("--view"), QStringLiteral("phases"),
                                      QStringLiteral("--unit"), QStringLiteral("GiB"), QStringLiteral("--measured"),
                                      dataPath("pytorch/timeline-generated.json"), QStringLiteral("--out"), svg});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        // The timeline's peak: the largest sum of a row of categories (torch/profiler/_memory_profiler.py,
        // export_memory_timeline writes [times, sizes]).
        QFile f(dataPath("pytorch/timeline-generated.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        double peak = 0;
        const nlohmann::json timeline = nlohmann::json::parse(f.readAll().toStdString());
        for (const auto &row : timeline[1]) {
            double sum = 0;
            for (const auto &v : row)
                sum += v.get<double>();
            peak = std::max(peak, sum);
        }
        QCOMPARE(peak, 8606711808.0); // timeline-expected.json's peak_bytes
        const QString text = readText(svg);
        QVERIFY2(text.contains(QStringLiteral("export_memory_timeline()")), qPrintable(text.left(1500)));
        QVERIFY2(text.contains(gib(peak)), qPrintable(gib(peak)));
    }

    void summaryInTheBarsView()
    {
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("bars.svg"));
        const auto run = runHeadroom({QStringLiteral("render"), kScenario, QStringLiteral("--unit"), QStringLiteral("GiB"),
                                      QStringLiteral("--measured"), dataPath("pytorch/memory-summary-pytorch-issue35901.txt"),
                                      QStringLiteral("--out"), svg});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString text = readText(svg);
        // The table: "Allocated memory" peak 4877 MB (PyTorch's MB are MiB).
        QVERIFY2(text.contains(gib(4877.0 * 1048576)), qPrintable(text.left(1500)));
        QVERIFY(text.contains(QStringLiteral("memory_summary()")));
    }

    void snapshotPickle()
    {
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("phases.png"));
        const auto run = runHeadroom({QStringLiteral("render"), kScenario, QStringLiteral("--view"), QStringLiteral("phases"),
                                      QStringLiteral("--measured"), dataPath("pytorch/snapshot-protocol4.pickle"),
                                      QStringLiteral("--out"), png});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(QFile(png).size() > 1000);
    }

    void refusedWhereNoLineIsDrawn()
    {
        QTemporaryDir dir;
        const auto run = runHeadroom({QStringLiteral("render"), kScenario, QStringLiteral("--view"), QStringLiteral("ranks"),
                                      QStringLiteral("--measured"), dataPath("pytorch/timeline-generated.json"),
                                      QStringLiteral("--out"), dir.filePath(QStringLiteral("x.svg"))});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("bars or the phases view")), qPrintable(run.err));
        // A pickle that is not PyTorch's plain containers is refused naming the opcode.
        const auto refused = runHeadroom({QStringLiteral("render"), kScenario, QStringLiteral("--view"), QStringLiteral("phases"),
                                          QStringLiteral("--measured"), dataPath("pytorch/refused-torch-tensor.pickle"),
                                          QStringLiteral("--out"), dir.filePath(QStringLiteral("x.svg"))});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("refused-torch-tensor.pickle")), qPrintable(refused.err));
    }
};

QTEST_GUILESS_MAIN(TestRenderMeasured)
#include "tst_rendermeasured.moc"
