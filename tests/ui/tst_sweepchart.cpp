// SPDX-License-Identifier: GPL-3.0-or-later
// The sweep chart: each point is a single estimate of that configuration, the GPU lines are
// marked where crossed, eager grows quadratically and flash linearly, and it exports.
#include "document/scenariomodel.h"
#include "chart/sweepchart.h"
#include "classroom/sweepview.h"

#include <QAreaSeries>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLineSeries>
#include <QTemporaryDir>
#include <QChart>
#include <QValueAxis>
#include <QtTest>

using namespace headroom;

Q_DECLARE_METATYPE(headroom::SweepAxis)
Q_DECLARE_METATYPE(headroom::Attention)

namespace {

/// Llama 3.1 8B LoRA with checkpointing on 24 GB and 80 GB cards.
Scenario longContext()
{
    Scenario s;
    ScenarioModel model;
    s = model.scenario();
    s.train.microBatch = 1;
    s.train.seqLen = 4096;
    s.train.checkpointing = Checkpointing::Full;
    // A fused loss, so that the busiest moment of backward is the recomputed block with its
    // attention scores at every length (the loss's moment comes first and is then small).
    s.kernels.loss = Loss::Fused;
    s.gpus = {"rtx-4090", "a100-80gb"};
    return s;
}

} // namespace

class TestSweepChart : public QObject
{
    Q_OBJECT
private slots:
    void everyPointIsASingleEstimate_data()
    {
        QTest::addColumn<SweepAxis>("axis");
        QTest::addColumn<Attention>("attention");
        QTest::newRow("seq-len-eager") << SweepAxis::SeqLen << Attention::Eager;
        QTest::newRow("seq-len-flash") << SweepAxis::SeqLen << Attention::Flash;
        QTest::newRow("micro-batch-sdpa") << SweepAxis::MicroBatch << Attention::Sdpa;
    }

    void everyPointIsASingleEstimate()
    {
        QFETCH(SweepAxis, axis);
        QFETCH(Attention, attention);
        const Scenario scenario = longContext();
        SweepChart chart;
        chart.setData(sweepChartData(scenario, axis, attention, Unit::GB, false));
        const QList<QPointF> totals = chart.totals();
        const std::vector<std::uint32_t> values = sweepValues(scenario, axis);
        QVERIFY(values.size() >= 16);
        QCOMPARE(totals.size(), qsizetype(values.size()));
        Scenario configured = scenario;
        configured.kernels.attention = attention;
        for (qsizetype i = 0; i < totals.size(); ++i) {
            const Scenario point = withAxisValue(configured, axis, values[std::size_t(i)]);
            const Estimate single = estimate(point);
            QCOMPARE(totals[i].x(), double(values[std::size_t(i)]));
            QCOMPARE(totals[i].y(), toUnit(single.peak.deviceBytes, Unit::GB));
            // Each consumer's band is that consumer's bytes in the single estimate.
            for (int id = 0; id < kConsumerCount; ++id) {
                QAreaSeries *area = chart.area(ConsumerId(id));
                const double upper = area->upperSeries()->at(int(i)).y();
                const double lower = area->lowerSeries() ? area->lowerSeries()->at(int(i)).y() : 0.0;
                QVERIFY(qAbs((upper - lower) - toUnit(single.bytes(ConsumerId(id)), Unit::GB)) < 1e-9);
            }
        }
    }

    void crossingsAreMarked()
    {
        SweepChart chart;
        chart.setData(sweepChartData(longContext(), SweepAxis::SeqLen, Attention::Eager, Unit::GB, false));
        QCOMPARE(chart.capacitySeries().size(), std::size_t(2));
        const SweepChartData &data = chart.data();
        QCOMPARE(data.sweep.crossings.size(), std::size_t(2));
        const QStringList marks = chart.crossingMarks();
        QVERIFY(!marks.isEmpty());
        QVERIFY2(marks.first().contains(QLatin1String("RTX 4090")), qPrintable(marks.join(QLatin1Char('|'))));
        // The mark names the first point over the line.
        const std::size_t over = *data.sweep.crossings[0].firstOver;
        QVERIFY(data.sweep.points[over].estimate.peak.deviceBytes > data.sweep.crossings[0].capacityBytes);
        QVERIFY(over == 0 || data.sweep.points[over - 1].estimate.peak.deviceBytes <= data.sweep.crossings[0].capacityBytes);
        QVERIFY(marks.first().contains(QLocale().toString(data.sweep.points[over].value)));
    }

    void eagerIsQuadraticFlashIsLinear()
    {
        const auto secondDifference = [](const Sweep &sweep, ConsumerId id, std::size_t i) {
            const auto at = [&](std::size_t k) { return double(sweep.points[k].estimate.bytes(id)); };
            return at(i + 2) - 2 * at(i + 1) + at(i);
        };
        const SweepChartData eager = sweepChartData(longContext(), SweepAxis::SeqLen, Attention::Eager, Unit::GB, false);
        const SweepChartData flash = sweepChartData(longContext(), SweepAxis::SeqLen, Attention::Flash, Unit::GB, false);
        // Evenly spaced values: a constant second difference is quadratic growth, zero is linear.
        const double first = secondDifference(eager.sweep, ConsumerId::AttentionScores, 0);
        QVERIFY(first > 0);
        const std::size_t last = eager.sweep.points.size() - 3;
        QVERIFY(qAbs(secondDifference(eager.sweep, ConsumerId::AttentionScores, last) - first) < first * 0.01);
        for (const SweepPoint &point : flash.sweep.points)
            QCOMPARE(point.estimate.bytes(ConsumerId::AttentionScores), std::uint64_t(0));
        const double activations = secondDifference(flash.sweep, ConsumerId::Activations, 3);
        QVERIFY(qAbs(activations) < 0.01 * double(flash.sweep.points[3].estimate.bytes(ConsumerId::Activations)));
        // Each chart draws the other's total for comparison.
        QCOMPARE(eager.comparison.size(), flash.sweep.points.size());
        QCOMPARE(eager.comparison.back().second, flash.sweep.points.back().estimate.peak.deviceBytes);
    }

    // The axis follows the scenario's own curves: flash attention's chart does not stretch to the
    // eager comparison (quadratic, far above); that curve stops at the top and says where.
    void axisFollowsTheScenariosOwnCurves()
    {
        // 32k tokens: the sweep reaches past it, where eager's scores (quadratic) dwarf the rest.
        Scenario longer = longContext();
        longer.train.seqLen = 32768;
        const SweepChartData flash = sweepChartData(longer, SweepAxis::SeqLen, Attention::Flash, Unit::GB, false);
        std::uint64_t own = 0, other = 0;
        for (const SweepPoint &point : flash.sweep.points)
            own = std::max(own, point.estimate.peak.deviceBytes);
        for (const SweepCrossing &crossing : flash.sweep.crossings)
            own = std::max(own, crossing.capacityBytes);
        for (const auto &[value, bytes] : flash.comparison)
            other = std::max(other, bytes);
        QVERIFY2(other > 2 * own, "the eager comparison must be far above for this test");
        SweepChart chart;
        chart.setData(flash);
        auto *axis = qobject_cast<QValueAxis *>(chart.chart()->axes(Qt::Vertical).constFirst());
        QVERIFY(axis);
        const ByteScale scale = scaleFor(own, Unit::GB);
        // At most one round step (about a fifth of the range) above the tallest own value.
        QVERIFY(axis->max() >= toScale(own, scale));
        QVERIFY2(axis->max() <= toScale(own, scale) * 1.08 * 1.5, qPrintable(QString::number(axis->max())));
        // The eager curve is cut at the axis and its name says from which length on.
        QLineSeries *comparison = nullptr;
        for (QAbstractSeries *series : chart.chart()->series())
            if (series->name().startsWith(flash.comparisonLabel))
                comparison = qobject_cast<QLineSeries *>(series);
        QVERIFY(comparison);
        QVERIFY(comparison->name().contains(QLatin1String("above the axis from")));
        for (const QPointF &point : comparison->points())
            QVERIFY(point.y() <= axis->max() + 1e-9);
    }

    void exportsLikeTheBarChart()
    {
        QTemporaryDir dir;
        ScenarioModel model;
        model.assign(longContext());
        SweepView view(&model);
        view.attentionPicker()->setCurrentIndex(view.attentionPicker()->findData(int(Attention::Eager)));
        const QString png = dir.filePath(QStringLiteral("sweep.png"));
        QCOMPARE(view.exportTo(png, {QSize(800, 450), 1.5, false}), QString());
        QCOMPARE(QImage(png).size(), QSize(1200, 675));
        const QString svg = dir.filePath(QStringLiteral("sweep.svg"));
        QCOMPARE(view.exportTo(svg), QString());
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray text = svgFile.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("Attention scores"));
        const QString pdf = dir.filePath(QStringLiteral("sweep.pdf"));
        QCOMPARE(view.exportTo(pdf), QString());
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QVERIFY(pdfFile.readAll().startsWith("%PDF"));
        QVERIFY(!view.exportTo(dir.filePath(QStringLiteral("sweep.csv"))).isEmpty());
    }
};

QTEST_MAIN(TestSweepChart)
#include "tst_sweepchart.moc"
