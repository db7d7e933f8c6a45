// SPDX-License-Identifier: GPL-3.0-or-later
// Nothing clipped, nothing colliding: every view laid out at the sizes people use (1280x720,
// 1600x900, 3840x2160 exports, paper and square presets, the window at 200% through a second
// run with QT_SCALE_FACTOR=2) with 1 to 8 bars. No two texts meet, none crosses a capacity line
// or leaves the plot it belongs to, none leaves the chart.
#include "testutil.h"
#include "uitestutil.h"

#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/chartexport.h"
#include "chart/sweepchart.h"
#include "chart/waterfallchart.h"
#include "classroom/lessonplayer.h"
#include "classroom/lessoncontroller.h"
#include "classroom/presenterview.h"
#include "document/scenariomodel.h"
#include "lesson/lesson.h"
#include "window/mainwindow.h"

#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QtTest>

using namespace headroom;

namespace {

struct Placed
{
    QString text;
    QRectF rect;
};

/// Every visible, non-empty text of a scene, in scene coordinates (ours and Qt's own axis labels).
QList<Placed> sceneTexts(const QGraphicsScene &scene)
{
    QList<Placed> out;
    for (QGraphicsItem *item : scene.items()) {
        if (!item->isVisible())
            continue;
        QString text;
        if (auto *simple = dynamic_cast<QGraphicsSimpleTextItem *>(item))
            text = simple->text();
        else if (auto *rich = dynamic_cast<QGraphicsTextItem *>(item))
            text = rich->toPlainText();
        if (text.trimmed().isEmpty())
            continue;
        // Glyph boxes carry a little leading: half a pixel each side is not a collision.
        out.push_back({text, item->sceneBoundingRect().adjusted(0.5, 0.5, -0.5, -0.5)});
    }
    return out;
}

/// "a" [x,y wxh] for failure messages.
QString describe(const Placed &placed)
{
    const QRectF &r = placed.rect;
    return QStringLiteral("\"%1\" [%2,%3 %4x%5]")
        .arg(QString(placed.text).replace(QLatin1Char('\n'), QLatin1Char('|')))
        .arg(r.x(), 0, 'f', 1)
        .arg(r.y(), 0, 'f', 1)
        .arg(r.width(), 0, 'f', 1)
        .arg(r.height(), 0, 'f', 1);
}

/// The first collision among `texts`, or an empty string.
QString firstOverlap(const QList<Placed> &texts)
{
    for (int i = 0; i < texts.size(); ++i)
        for (int j = i + 1; j < texts.size(); ++j)
            if (texts[i].rect.intersects(texts[j].rect))
                return describe(texts[i]) + QStringLiteral(" meets ") + describe(texts[j]);
    return {};
}

/// What a laid-out budget chart must satisfy: no overlaps in its scene, texts on the chart, plot
/// texts inside the plot and off every capacity line.
QString checkBudgetChart(const BudgetChart &chart, const QGraphicsScene &scene, const QRectF &bounds)
{
    const QList<Placed> texts = sceneTexts(scene);
    if (texts.isEmpty())
        return QStringLiteral("no text at all");
    if (const QString overlap = firstOverlap(texts); !overlap.isEmpty())
        return overlap;
    for (const Placed &placed : texts)
        if (!bounds.adjusted(-0.5, -0.5, 0.5, 0.5).contains(placed.rect))
            return QStringLiteral("off the chart: ") + describe(placed);
    const ChartLayout &layout = chart.layout();
    const std::vector<QRectF> bands = layout.lineBands();
    for (const ChartText &text : layout.texts) {
        if (!text.insidePlot())
            continue;
        const Placed placed{text.text, text.rect};
        if (!layout.plot.adjusted(-0.5, -0.5, 0.5, 0.5).contains(text.rect))
            return QStringLiteral("leaves the plot: ") + describe(placed);
        for (const QRectF &band : bands)
            if (band.intersects(text.rect))
                return QStringLiteral("crosses a capacity line: ") + describe(placed);
    }
    return {};
}

/// A scenario from JSON keys.
Scenario scenario(const char *keys) { return test::scenarioFrom(keys); }

/// The scenarios the charts are checked with: fits, over, serving, quadratic scores, beyond
/// 10,000 GiB (a TiB axis), a tiny model, close GPU lines, many GPU lines.
std::vector<std::pair<const char *, Scenario>> scenarios()
{
    return {
        {"lora-fits", scenario(R"({"model": {"preset": "llama-3-8b"}, "train": {"method": "lora", "micro_batch": 2}})")},
        {"full-over", scenario(R"({"model": {"preset": "llama-2-7b"}, "train": {"micro_batch": 4},
                                   "precision": {"weights": "fp32", "compute": "fp32"}, "gpus": ["rtx-4090", "a100-80gb"]})")},
        {"serving", scenario(R"({"model": {"preset": "llama-2-7b"}, "task": "inference",
                                 "inference": {"batch": 4, "context": 4096}})")},
        {"eager-long", scenario(R"({"model": {"preset": "llama-3-8b"}, "train": {"method": "qlora", "seq_len": 32768,
                                    "gradient_checkpointing": "full"}, "kernels": {"attention": "eager"}})")},
        {"huge", scenario(R"({"model": {"preset": "llama-3-70b"}, "train": {"micro_batch": 64, "seq_len": 65536},
                              "kernels": {"attention": "eager"}})")},
        {"tiny", scenario(R"({"model": {"preset": "gpt2"}, "train": {"seq_len": 256}})")},
        {"close-lines", scenario(R"({"model": {"preset": "llama-3.2-1b"}, "train": {"micro_batch": 8},
                                     "gpus": ["t4", "v100-16gb", "rtx-4060-ti-16gb", "rtx-3060-12gb"]})")},
        {"six-lines", scenario(R"({"model": {"preset": "llama-3-8b"}, "train": {"micro_batch": 4},
                                   "gpus": ["t4", "rtx-4090", "a100-40gb", "a100-80gb", "h200", "mi300x"],
                                   "target_gpu": "a100-40gb"})")},
    };
}

/// Variants to pin: each differs from the scenario in a way that changes the bar.
Scenario variant(const Scenario &base, int index)
{
    Scenario s = base;
    switch (index % 4) {
    case 0: s.kernels.attention = s.kernels.attention == Attention::Eager ? Attention::Flash : Attention::Eager; break;
    case 1: s.train.microBatch = std::max(1u, s.train.microBatch * 2); s.inference.batch *= 2; break;
    case 2: s.train.checkpointing = Checkpointing::Full; s.inference.context /= 2; break;
    case 3: s.kernels.loss = Loss::Fused; s.precision.compute = DType::FP32; break;
    }
    s.train.seqLen = std::max(128u, s.train.seqLen >> (index / 4));
    return s;
}

/// A model with `scenario` current and `pins` variants pinned.
void fill(ScenarioModel &model, const Scenario &s, int pins, Unit unit, ChartView view, bool measured)
{
    model.assign(s);
    model.clearPins();
    for (int i = 0; i < pins; ++i)
        model.addPin(variant(s, i));
    model.setUnit(unit);
    model.setView(view);
    if (measured)
        model.setMeasured(Measurement{model.estimate().peak.deviceBytes * 9 / 10, Reading::Device});
}

} // namespace

class TestLayout : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_layout"); }

    // Exports: the chart in a bare scene at the export's text scale.
    void exportedChartsDoNotCollide_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("pins");
        QTest::addColumn<bool>("phases");
        const QSize sizes[] = {{1280, 720}, {1600, 900}, {3840, 2160}, {1920, 1080}, {1440, 1080}, {1080, 1080}, {420, 315}};
        const auto all = scenarios();
        for (int which = 0; which < int(all.size()); ++which)
            for (const QSize &size : sizes) {
                for (int pins : {0, 1, 3, 7})
                    QTest::newRow(qPrintable(QStringLiteral("%1-%2x%3-%4-bars").arg(QLatin1String(all[std::size_t(which)].first))
                                                 .arg(size.width()).arg(size.height()).arg(pins + 1)))
                        << which << size << pins << false;
                QTest::newRow(qPrintable(QStringLiteral("%1-%2x%3-phases").arg(QLatin1String(all[std::size_t(which)].first))
                                             .arg(size.width()).arg(size.height())))
                    << which << size << 0 << true;
            }
    }
    void exportedChartsDoNotCollide()
    {
        QFETCH(int, which);
        QFETCH(QSize, size);
        QFETCH(int, pins);
        QFETCH(bool, phases);
        ScenarioModel model;
        fill(model, scenarios()[std::size_t(which)].second, pins, which % 2 ? Unit::GB : Unit::GiB,
             phases ? ChartView::Phases : ChartView::Bars, which == 0 && !phases);
        QGraphicsScene scene;
        BudgetChart chart;
        scene.addItem(chart.chart());
        scene.setSceneRect(QRectF(QPointF(0, 0), QSizeF(size)));
        chart.chart()->setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
        chart.setScale(exportTextScale(size));
        chart.setData(chartDataFor(model));
        settleScene(scene);
        const QString problem = checkBudgetChart(chart, scene, QRectF(QPointF(0, 0), QSizeF(size)));
        scene.removeItem(chart.chart());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The window's chart at the window sizes people have, 1 to 8 bars, both views.
    void windowChartDoesNotCollide_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("pins");
        QTest::addColumn<bool>("phases");
        for (const QSize &size : {QSize(1280, 720), QSize(1600, 900), QSize(1024, 640)}) {
            for (int pins : {0, 1, 3, 7})
                QTest::newRow(qPrintable(QStringLiteral("%1x%2-%3-bars").arg(size.width()).arg(size.height()).arg(pins + 1)))
                    << size << pins << false;
            QTest::newRow(qPrintable(QStringLiteral("%1x%2-phases").arg(size.width()).arg(size.height()))) << size << 0 << true;
        }
    }
    void windowChartDoesNotCollide()
    {
        QFETCH(QSize, size);
        QFETCH(int, pins);
        QFETCH(bool, phases);
        MainWindow window;
        window.resize(size);
        window.show();
        fill(*window.model(), scenarios()[1].second, pins, Unit::GiB, phases ? ChartView::Phases : ChartView::Bars, false);
        QCoreApplication::processEvents();
        settleScene(*window.chartView()->scene());
        QChartView *view = window.chartView();
        const QString problem =
            checkBudgetChart(*window.chart(), *view->scene(), window.chart()->chart()->sceneBoundingRect());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // Every step of every shipped lesson, on the lesson's one axis, as pages and in presenter mode.
    void lessonChartsDoNotCollide_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QSize>("size");
        for (const BuiltinLesson &lesson : builtinLessons())
            for (const QSize &size : {QSize(1280, 520), QSize(1920, 760), QSize(960, 420)})
                QTest::newRow(qPrintable(QStringLiteral("%1-%2x%3").arg(QString::fromUtf8(lesson.id.data(), qsizetype(lesson.id.size())))
                                             .arg(size.width()).arg(size.height())))
                    << QString::fromUtf8(lesson.id.data(), qsizetype(lesson.id.size())) << size;
    }
    void lessonChartsDoNotCollide()
    {
        QFETCH(QString, id);
        QFETCH(QSize, size);
        Lesson lesson;
        for (const BuiltinLesson &builtin : builtinLessons())
            if (id == QLatin1String(builtin.id.data(), qsizetype(builtin.id.size())))
                lesson = parseLesson(builtin.json);
        ScenarioModel model;
        LessonPlayer player(&model);
        player.start(lesson);
        for (int step = 0; step < player.stepCount(); ++step) {
            player.goTo(step);
            QGraphicsScene scene;
            BudgetChart chart;
            scene.addItem(chart.chart());
            chart.chart()->setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
            chart.setScale(exportTextScale(size));
            chart.setData(chartDataFor(model));
            settleScene(scene);
            const QString problem = checkBudgetChart(chart, scene, QRectF(QPointF(0, 0), QSizeF(size)));
            scene.removeItem(chart.chart());
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("step %1: %2").arg(step + 1).arg(problem)));
        }
    }

    void presenterDoesNotCollide_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void presenterDoesNotCollide()
    {
        QFETCH(QSize, size);
        MainWindow window;
        window.lessons()->openBuiltin(QStringLiteral("ladder"));
        PresenterView *presenter = window.presenter();
        presenter->enter();
        presenter->showNormal();
        presenter->setGeometry(QRect(QPoint(0, 0), size));
        for (int step = 0; step < window.lessons()->player()->stepCount(); ++step) {
            window.lessons()->player()->goTo(step);
            QCoreApplication::processEvents(); // the caption's new height resizes the chart
            settleScene(*presenter->chart()->chart()->scene()); // then the chart lays out its axes
            QChart *chart = presenter->chart()->chart();
            const QString problem = checkBudgetChart(*presenter->chart(), *chart->scene(), chart->sceneBoundingRect());
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("step %1: %2").arg(step + 1).arg(problem)));
        }
        presenter->leave();
    }

    void sweepDoesNotCollide_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<int>("axis");
        QTest::addColumn<QSize>("size");
        for (int which : {0, 1, 3, 6})
            for (int axis : {0, 1})
                for (const QSize &size : {QSize(1280, 720), QSize(1600, 900), QSize(3840, 2160), QSize(1100, 650)})
                    QTest::newRow(qPrintable(QStringLiteral("%1-%2-%3x%4").arg(QLatin1String(scenarios()[std::size_t(which)].first))
                                                 .arg(axis ? QStringLiteral("batch") : QStringLiteral("seq"))
                                                 .arg(size.width()).arg(size.height())))
                        << which << axis << size;
    }
    void sweepDoesNotCollide()
    {
        QFETCH(int, which);
        QFETCH(int, axis);
        QFETCH(QSize, size);
        const SweepChartData data = sweepChartData(scenarios()[std::size_t(which)].second, SweepAxis(axis),
                                                   std::nullopt, Unit::GiB, false);
        QGraphicsScene scene;
        SweepChart chart;
        scene.addItem(chart.chart());
        chart.chart()->setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
        chart.setData(data);
        chart.setScale(exportTextScale(size));
        settleScene(scene);
        const QList<Placed> texts = sceneTexts(scene);
        const QString overlap = firstOverlap(texts);
        QString outside;
        for (const Placed &placed : texts)
            if (!QRectF(QPointF(0, 0), QSizeF(size)).adjusted(-0.5, -0.5, 0.5, 0.5).contains(placed.rect))
                outside = describe(placed);
        scene.removeItem(chart.chart());
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
        QVERIFY2(outside.isEmpty(), qPrintable(QStringLiteral("off the chart: ") + outside));
    }

    void waterfallDoesNotCollide_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QSize>("size");
        for (int which : {1, 2, 4, 5})
            for (const char *gpu : {"t4", "rtx-4090", "a100-80gb"})
                for (const QSize &size : {QSize(940, 430), QSize(1280, 720), QSize(640, 360), QSize(3840, 2160)})
                    QTest::newRow(qPrintable(QStringLiteral("%1-%2-%3x%4").arg(QLatin1String(scenarios()[std::size_t(which)].first),
                                                                               QLatin1String(gpu))
                                                 .arg(size.width()).arg(size.height())))
                        << which << QString::fromLatin1(gpu) << size;
    }
    void waterfallDoesNotCollide()
    {
        QFETCH(int, which);
        QFETCH(QString, gpu);
        QFETCH(QSize, size);
        const Advice advice = advise(scenarios()[std::size_t(which)].second, gpu.toStdString());
        const QRectF rect(QPointF(0, 0), QSizeF(size));
        const WaterfallStyle style{Unit::GiB, false, exportTextScale(size)};
        const WaterfallLayout layout = layoutWaterfall(rect, advice, style, QFont());
        QList<Placed> texts;
        for (const ChartText &text : layout.texts)
            texts.push_back({text.text, text.rect.adjusted(0.5, 0.5, -0.5, -0.5)});
        const QString overlap = firstOverlap(texts);
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
        const QRectF band(QPointF(layout.plot.left(), layout.capacity.y1() - layout.capacityWidth / 2 - 1),
                          QPointF(layout.plot.right(), layout.capacity.y1() + layout.capacityWidth / 2 + 1));
        for (const Placed &placed : texts) {
            QVERIFY2(rect.contains(placed.rect), qPrintable(describe(placed)));
            QVERIFY2(!band.intersects(placed.rect), qPrintable(QStringLiteral("on the line: ") + describe(placed)));
        }
    }
};

QTEST_MAIN(TestLayout)
#include "tst_layout.moc"
