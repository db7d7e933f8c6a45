// SPDX-License-Identifier: GPL-3.0-or-later
// The Breakdown view beside an open measurement (issue 28): the measured category next to each
// consumer where the source gives categories, the estimate's difference from it, "not measured"
// where it gives none, and the view as before without a measurement. The figures are read from
// the files in the test itself (the timeline's rows summed here, the log's printed numbers).
#include "displaytext.h"
#include "document/scenariomodel.h"
#include "scenario/scenariojson.h"
#include "uitestutil.h"
#include "window/breakdownview.h"
#include "window/mainwindow.h"
#include "window/measurementview.h"

#include <QFile>
#include <QTableWidget>
#include <QtTest>
#include <cmath>

using namespace headroom;

namespace {

constexpr double kGiB = 1073741824.0;

QString dataPath(const char *name) { return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/") + QLatin1String(name); }

nlohmann::json readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return nlohmann::json::parse(f.readAll().toStdString());
}

Scenario loraScenario()
{
    QFile f(QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read the example");
    return parseScenario(f.readAll().toStdString());
}

Scenario vllmScenario()
{
    return scenarioFromJson(readJson(dataPath("serving/vllm-0.10-llama-3.1-8b-h100.json"))["scenario"]);
}

int rowOf(const QTableWidget *table, ConsumerId id)
{
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0) && table->item(row, 0)->data(Qt::UserRole).toInt() == int(id))
            return row;
    return -1;
}

QString cell(const QTableWidget *table, ConsumerId id, int column)
{
    const int row = rowOf(table, id);
    return row >= 0 && table->item(row, column) ? table->item(row, column)->text() : QStringLiteral("(no row)");
}

QString signedText(double estimated, double measured, ByteScale scale)
{
    const double d = estimated - measured;
    const QString sign = d >= 0 ? QStringLiteral("+") : QStringLiteral("-");
    return sign + bytesText(std::uint64_t(std::llround(std::abs(d))), scale);
}

} // namespace

class TestBreakdownMeasured : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_breakdownmeasured"); }

    void withoutMeasurementAsBefore()
    {
        MainWindow w;
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        const QTableWidget *table = w.breakdown()->table();
        QCOMPARE(table->columnCount(), 4);
        QCOMPARE(table->horizontalHeaderItem(3)->text(), QStringLiteral("Formula"));
    }

    void timelineCategoriesBesideConsumers()
    {
        MainWindow w;
        w.model()->setUnit(Unit::GiB);
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(w.measurements()->open(dataPath("pytorch/timeline-generated.json")));
        const QTableWidget *table = w.breakdown()->table();
        QCOMPARE(table->columnCount(), 6);
        QCOMPARE(table->horizontalHeaderItem(3)->text(), QStringLiteral("Measured"));
        QCOMPARE(table->horizontalHeaderItem(4)->text(), QStringLiteral("Difference"));
        QCOMPARE(table->horizontalHeaderItem(5)->text(), QStringLiteral("Formula"));

        // The file's rows: a zero baseline, then PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY,
        // ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, unknown (torch/profiler/_memory_profiler.py,
        // export_memory_timeline). The peak is the row of the largest sum.
        const nlohmann::json rows = readJson(dataPath("pytorch/timeline-generated.json"))[1];
        std::size_t peak = 0;
        double best = -1;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            double sum = 0;
            for (const auto &v : rows[i])
                sum += v.get<double>();
            if (sum > best) {
                best = sum;
                peak = i;
            }
        }
        const auto at = [&](int column) { return rows[peak][std::size_t(column)].get<double>(); };
        const double parameters = at(1), optimizer = at(2), temporaries = at(4), gradients = at(6);
        const double activations = at(3) + at(5) + at(7);
        QCOMPARE(parameters, kGiB); // make_timeline.py: 1 GiB of bf16 parameters
        QCOMPARE(temporaries, 2 * kGiB); // the optimizer step's foreach temporaries

        const Estimate &e = w.model()->estimate();
        const ByteScale scale = scaleFor(e.peak.deviceBytes, Unit::GiB);
        const auto measured = [&](double bytes) { return bytesText(std::uint64_t(std::llround(bytes)), scale); };
        QCOMPARE(cell(table, ConsumerId::Weights, 3), measured(parameters));
        QCOMPARE(cell(table, ConsumerId::Weights, 4),
                 signedText(double(e.bytes(ConsumerId::Weights) + e.bytes(ConsumerId::QuantMetadata)), parameters, scale));
        QCOMPARE(cell(table, ConsumerId::Activations, 3), measured(activations));
        QCOMPARE(cell(table, ConsumerId::Activations, 4),
                 signedText(double(e.bytes(ConsumerId::Activations) + e.bytes(ConsumerId::AttentionScores) +
                                   e.bytes(ConsumerId::Logits)),
                            activations, scale));
        if (rowOf(table, ConsumerId::Gradients) >= 0)
            QCOMPARE(cell(table, ConsumerId::Gradients, 3), measured(gradients));
        if (rowOf(table, ConsumerId::OptimizerState) >= 0)
            QCOMPARE(cell(table, ConsumerId::OptimizerState, 3), measured(optimizer));
        if (rowOf(table, ConsumerId::Logits) >= 0)
            QCOMPARE(cell(table, ConsumerId::Logits, 3), QStringLiteral("in Activations above"));
        if (rowOf(table, ConsumerId::Workspace) >= 0)
            QCOMPARE(cell(table, ConsumerId::Workspace, 3), measured(temporaries));
        // The profiler has no category for the CUDA context (outside the allocator).
        QVERIFY(rowOf(table, ConsumerId::CudaContext) >= 0);
        QCOMPARE(cell(table, ConsumerId::CudaContext, 3), QStringLiteral("not measured"));
        QCOMPARE(cell(table, ConsumerId::CudaContext, 4), QString());
        // The formula moved one column on, unchanged.
        QVERIFY(cell(table, ConsumerId::Weights, 5).contains(QLatin1String(" = ")));
        if (const QByteArray shots = qgetenv("HEADROOM_SHOTS"); !shots.isEmpty()) {
            w.measurements()->dialog()->hide();
            w.resize(1280, 720);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QTest::qWait(200);
            w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/breakdown-timeline.png"));
        }
    }

    void summaryGivesNoCategories()
    {
        MainWindow w;
        w.model()->setScenario(loraScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(w.measurements()->open(dataPath("pytorch/memory-summary-pytorch-issue35901.txt")));
        QCOMPARE(w.breakdown()->table()->columnCount(), 4); // memory_summary() has no categories
    }

    void vllmLogBesideConsumers()
    {
        MainWindow w;
        w.model()->setUnit(Unit::GiB);
        w.model()->setScenario(vllmScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &) {});
        QVERIFY(w.measurements()->open(dataPath("logs/vllm-0.10.2-qwen3-next-80b-2xh200-tp2.log")));
        const QTableWidget *table = w.breakdown()->table();
        QCOMPARE(table->columnCount(), 6);
        const Estimate &e = w.model()->estimate();
        const ByteScale scale = scaleFor(e.peak.deviceBytes, Unit::GiB);
        // Line 8: "Model loading took 74.2812 GiB"; line 10: "Available KV cache memory: 44.59 GiB".
        QCOMPARE(cell(table, ConsumerId::Weights, 3), bytesText(std::uint64_t(std::llround(74.2812 * kGiB)), scale));
        QCOMPARE(cell(table, ConsumerId::KvCache, 3), bytesText(std::uint64_t(std::llround(44.59 * kGiB)), scale));
        QCOMPARE(cell(table, ConsumerId::KvCache, 4),
                 signedText(double(e.bytes(ConsumerId::KvCache) + e.bytes(ConsumerId::KvCacheFree)), 44.59 * kGiB, scale));
        if (rowOf(table, ConsumerId::KvCacheFree) >= 0)
            QCOMPARE(cell(table, ConsumerId::KvCacheFree, 3), QStringLiteral("in KV cache above"));
        QCOMPARE(cell(table, ConsumerId::CudaContext, 3), QStringLiteral("not measured"));
    }
};

QTEST_MAIN(TestBreakdownMeasured)
#include "tst_breakdownmeasured.moc"
