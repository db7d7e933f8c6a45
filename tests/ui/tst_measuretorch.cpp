// SPDX-License-Identifier: GPL-3.0-or-later
// File > Open measurement... of PyTorch's memory files and the probe's (issue 28): the example
// files of tests/data/pytorch beside the current scenario's estimate, refused naming the line or
// opcode, drawn across the chart, and saved as a measured case that `headroom validate` reads.
#include "chart/budgetchart.h"
#include "document/scenariomodel.h"
#include "processutil.h"
#include "scenario/scenariojson.h"
#include "uitestutil.h"
#include "window/mainwindow.h"
#include "window/measurementview.h"

#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>
#include <algorithm>

using namespace headroom;

namespace {

QString dataPath(const char *name) { return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/") + QLatin1String(name); }

/// The LoRA example the command line's torch tests compare with (tests/cli/tst_compare.cpp).
Scenario loraScenario()
{
    QFile f(QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read the example");
    return parseScenario(f.readAll().toStdString());
}

int rowOf(const QTableWidget *table, const QString &label)
{
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0) && table->item(row, 0)->text() == label)
            return row;
    return -1;
}

QString gib(std::uint64_t bytes) { return QString::fromStdString(formatBytes(bytes, Unit::GiB)); }

nlohmann::json readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return nlohmann::json::parse(f.readAll().toStdString());
}

} // namespace

class TestMeasureTorch : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_measuretorch"); }

    void summaryBesideTheEstimate()
    {
        MainWindow w;
        w.model()->setUnit(Unit::GiB);
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(w.measurements()->open(dataPath("pytorch/memory-summary-pytorch-issue35901.txt")));
        const QTableWidget *table = w.measurements()->dialog()->table();
        // The table: "Allocated memory | ... | 4877 MB" peak, "GPU reserved memory" 12420 MB
        // (PyTorch's "MB" is MiB).
        const int peak = rowOf(table, QStringLiteral("peak allocated (max_memory_allocated)"));
        QVERIFY(peak >= 0);
        QCOMPARE(table->item(peak, 1)->text(), gib(4877 * 1048576ull));
        QCOMPARE(table->item(peak, 2)->text(), gib(w.model()->estimate().peak.allocatedBytes));
        QVERIFY2(table->item(peak, 4)->text().startsWith(QStringLiteral("line ")), qPrintable(table->item(peak, 4)->text()));
        const int reserved = rowOf(table, QStringLiteral("peak reserved (max_memory_reserved)"));
        QVERIFY(reserved >= 0);
        QCOMPARE(table->item(reserved, 1)->text(), gib(12420 * 1048576ull));
        // 12,420 - 4,877 = 7,543 MiB = 7.37 GiB held by the allocator for nothing: 61% of reserved.
        const QString findings = w.measurements()->dialog()->findings()->toPlainText();
        QVERIFY2(findings.contains(QStringLiteral("Reserved is 7.37 GiB above allocated (61% of reserved)")), qPrintable(findings));
        QVERIFY(findings.contains(QStringLiteral("expandable_segments:True")));

        // Across the bars view's bar: the peak allocated, the bar the estimate.
        QCOMPARE(w.chart()->data().measuredBytes, 4877 * 1048576ull);
        QVERIFY(w.chart()->data().footnote.contains(QStringLiteral("torch.cuda.memory_summary()")));
        // Across the phases view's bar of the estimate's peak phase, the axis to the run.
        w.model()->setView(ChartView::Phases);
        const auto &phases = w.model()->estimate().phases;
        const auto &columns = w.chart()->data().columns;
        QCOMPARE(columns.size(), phases.size());
        int drawn = 0;
        for (std::size_t i = 0; i < phases.size(); ++i)
            if (columns[i].measuredBytes) {
                QCOMPARE(phases[i].id, w.model()->estimate().peak.phase);
                QCOMPARE(columns[i].measuredBytes, 4877 * 1048576ull);
                ++drawn;
            }
        QCOMPARE(drawn, 1);
        QVERIFY(w.chart()->data().axisToRun);
    }

    void timelineByCategory()
    {
        MainWindow w;
        w.model()->setUnit(Unit::GiB);
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(w.measurements()->open(dataPath("pytorch/timeline-generated.json")));
        const QTableWidget *table = w.measurements()->dialog()->table();
        // timeline-expected.json (Python's sums): the peak 8,606,711,808 bytes, 1 GiB of parameters at it.
        const nlohmann::json expected = readJson(dataPath("pytorch/timeline-expected.json"));
        const int peak = rowOf(table, QStringLiteral("peak, all categories"));
        QVERIFY(peak >= 0);
        QCOMPARE(table->item(peak, 1)->text(), gib(expected["peak_bytes"].get<std::uint64_t>()));
        const int weights = rowOf(table, QStringLiteral("weights"));
        QVERIFY(weights >= 0);
        QCOMPARE(table->item(weights, 1)->text(), gib(expected["at_peak"][0].get<std::uint64_t>()));
        const Estimate &e = w.model()->estimate();
        QCOMPARE(table->item(weights, 2)->text(), gib(e.bytes(ConsumerId::Weights) + e.bytes(ConsumerId::QuantMetadata)));
        QVERIFY(w.measurements()->dialog()->findings()->toPlainText().contains(QStringLiteral("beside the profile")));
    }

    void snapshotByItsSegments()
    {
        MainWindow w;
        w.model()->setUnit(Unit::GiB);
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        const nlohmann::json expected = readJson(dataPath("pytorch/snapshot-expected.json"));
        for (const char *name : {"pytorch/snapshot-protocol2.pickle", "pytorch/snapshot-protocol5.pickle"}) {
            QVERIFY(w.measurements()->open(dataPath(name)));
            const QTableWidget *table = w.measurements()->dialog()->table();
            const int reserved = rowOf(table, QStringLiteral("reserved at the snapshot (segments)"));
            QVERIFY(reserved >= 0);
            QCOMPARE(table->item(reserved, 1)->text(), gib(expected["reserved_bytes"].get<std::uint64_t>()));
            QCOMPARE(table->item(reserved, 4)->text(),
                     QStringLiteral("%1 segments").arg(expected["segments"].get<int>()));
            // The trace's peak (Python: 18 MiB at entry 2 of 8) drawn across the bar.
            QCOMPARE(w.chart()->data().measuredBytes, expected["trace_peak_allocated_bytes"].get<std::uint64_t>());
        }
    }

    void refusedNamingTheLineOrOpcode()
    {
        MainWindow w;
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        QStringList reported;
        w.measurements()->setReporter([&](const QString &text) { reported << text; });
        // A real torch tensor pickled: the restricted reader constructs no object.
        QVERIFY(!w.measurements()->open(dataPath("pytorch/refused-torch-tensor.pickle")));
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].startsWith(QStringLiteral("refused-torch-tensor.pickle: ")), qPrintable(reported[0]));
        QVERIFY2(reported[0].contains(QStringLiteral("GLOBAL (0x63) names a Python object")), qPrintable(reported[0]));
        QVERIFY(!w.measurements()->open(dataPath("pytorch/refused-cut.pickle")));
        QCOMPARE(reported.size(), 2);
        // A memory_summary() cut inside its "Allocated memory" row (line 8 of the table).
        QFile whole(dataPath("pytorch/memory-summary-torch-1.13-generated.txt"));
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray text = whole.readAll();
        const qsizetype row = text.indexOf("| Allocated memory");
        QVERIFY(row > 0);
        QTemporaryDir dir;
        QFile cut(dir.filePath(QStringLiteral("cut.txt")));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(text.left(row + 32));
        cut.close();
        QVERIFY(!w.measurements()->open(cut.fileName()));
        QCOMPARE(reported.size(), 3);
        QVERIFY2(reported[2].contains(QStringLiteral("line 8")) && reported[2].contains(QStringLiteral("\"Allocated memory\" has no size")),
                 qPrintable(reported[2]));
        QVERIFY(!w.measurements()->current());
    }

    void droppedSnapshotOpens()
    {
        MainWindow w;
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(dataPath("pytorch/snapshot-protocol4.pickle"))});
        QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY(w.measurements()->current());
        QVERIFY(w.measurements()->current()->torch);
        QCOMPARE(w.measurements()->current()->torch->kind, TorchFileKind::Snapshot);
    }

    void savedCasesReadBack_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("memory-summary") << QStringLiteral("pytorch/memory-summary-torch-1.13-generated.txt");
        QTest::newRow("probe") << QStringLiteral("probe/probe-tiny-llama-bf16-adamw.json");
    }
    void savedCasesReadBack()
    {
        QFETCH(QString, file);
        const bool probe = file.startsWith(QStringLiteral("probe/"));
        MainWindow w;
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(w.measurements()->open(dataPath(file.toUtf8().constData())));
        QVERIFY(w.measurements()->dialog()->saveButton()->isEnabled());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("my-run.json"));
        QCOMPARE(w.measurements()->saveCaseTo(path), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const nlohmann::json doc = nlohmann::json::parse(bytes.toStdString());
        QCOMPARE(doc["format"], "headroom-measurement");
        QCOMPARE(doc["scenario"], scenarioToJson(w.model()->scenario()));
        // The reading, from the file independently: the summary's "20593 MB" peak allocated; the
        // probe's highest peak_allocated_bytes over its readings.
        std::uint64_t measured = 20593 * 1048576ull;
        if (probe) {
            measured = 0;
            const nlohmann::json probeFile = readJson(dataPath(file.toUtf8().constData()));
            for (const nlohmann::json &r : probeFile["readings"])
                measured = std::max(measured, r["peak_allocated_bytes"].get<std::uint64_t>());
        }
        QCOMPARE(doc["measured_bytes"].get<std::uint64_t>(), measured);
        // What `headroom validate` reads: the case, its reading, and the estimate's error against it.
        const auto validate = test::runHeadroom({QStringLiteral("validate"), dir.path(), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(validate.exitCode == 0, qPrintable(validate.err));
        const nlohmann::json report = nlohmann::json::parse(validate.out.toStdString());
        QCOMPARE(report["cases"].size(), std::size_t(1));
        QCOMPARE(report["cases"][0]["id"], "my-run");
        QCOMPARE(report["cases"][0]["measured_bytes"].get<std::uint64_t>(), measured);
    }
};

QTEST_MAIN(TestMeasureTorch)
#include "tst_measuretorch.moc"
