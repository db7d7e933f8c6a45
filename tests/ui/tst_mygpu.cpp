// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22, "My GPU": the first control of the panel sets the one target GPU, and the status
// bar, Solve and the serving engine's budget follow it; a typed size ("24 GiB") becomes the target
// as a GPU of that size the scenario names ("24gib"); each GPU keeps its colour and dash whichever GPUs are ticked, and the labels of two lines
// of nearly the same capacity (A100 80GB at 80 GiB, H100 at 79.6 GiB) stay apart.
#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/chartlayout.h"
#include "chart/chartmarks.h"
#include "classroom/advisorview.h"
#include "controls/controlpanel.h"
#include "controls/mygpubox.h"
#include "controls/solvepanel.h"
#include "controls/usergpus.h"
#include "displaytext.h"
#include "document/documentcontroller.h"
#include "document/scenariomodel.h"
#include "estimate/estimate.h"
#include "estimate/verdict.h"
#include "scenario/scenariojson.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include <QChartView>
#include <QComboBox>
#include <QLineSeries>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSet>
#include <QSettings>
#include <QTemporaryDir>
#include <QFile>
#include <QtTest>

using namespace headroom;

namespace {

void quiet(MainWindow &window)
{
    DocumentController &document = *window.document();
    document.setMessageHandler([](const QString &) {});
    document.setSaveQuestion([] { return QMessageBox::Discard; });
    document.setRestoreQuestion([](const QString &) { return QMessageBox::No; });
    document.setMissingFieldsPrompt([](const QString &, const std::vector<std::string> &, nlohmann::json &) { return false; });
}

/// The colour of the label drawn for the line of GPU `name` (invalid when none is drawn).
QColor labelColour(const ChartLayout &layout, const QString &name, QRectF *rect = nullptr)
{
    for (const ChartText &text : layout.texts)
        if (text.role == ChartText::LineName && text.text == shortGpuName(name)) {
            if (rect)
                *rect = text.rect;
            return text.color;
        }
    return {};
}

} // namespace

class TestMyGpu : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        test::isolateSettings("tst_mygpu");
        QSettings().clear();
    }

    // Picking H100 in My GPU: target_gpu is the H100, ticked with the next larger catalog GPU
    // (a fresh settings folder); the status bar's verdict, Solve's default GPU and a vLLM
    // engine's budget are all about it.
    void pickingAGpuMovesEveryAnswer()
    {
        MainWindow window;
        quiet(window);
        window.resize(1280, 720);
        QVERIFY(test::showActive(window));
        ScenarioModel *model = window.model();
        auto *box = window.controls()->findChild<MyGpuBox *>();
        QVERIFY(box);
        QComboBox *combo = box->combo();
        // Before a choice: the placeholder names the GPU the verdicts are about (the largest ticked).
        QVERIFY2(combo->lineEdit()->placeholderText().contains(shortGpuName(QString::fromStdString(
                     targetGpu(model->scenario())->name))), qPrintable(combo->lineEdit()->placeholderText()));
        if (const QString shots = qEnvironmentVariable("HEADROOM_SHOTS"); !shots.isEmpty())
            QVERIFY(window.grab().save(QDir(shots).filePath(QStringLiteral("mygpu-fresh.png"))));
        const int h100 = combo->findData(QStringLiteral("gpu:h100-80gb"));
        QVERIFY(h100 >= 0);
        QVERIFY(combo->itemText(h100).startsWith(QLatin1String("H100")));
        combo->setCurrentIndex(h100);
        emit combo->activated(h100); // a click on the list's row
        const Scenario &s = model->scenario();
        QCOMPARE(s.targetGpu, std::string("h100-80gb"));
        QCOMPARE(s.gpus.size(), std::size_t(2));
        QCOMPARE(s.gpus.front(), std::string("h100-80gb"));
        const Gpu *h = builtinCatalog().findGpu("h100-80gb");
        const Gpu *larger = builtinCatalog().findGpu(s.gpus.back());
        QVERIFY(larger && larger->capacityMiB > h->capacityMiB);
        for (const Gpu &gpu : builtinCatalog().gpus) // no catalog GPU between the two
            QVERIFY2(gpu.capacityMiB <= h->capacityMiB || gpu.capacityMiB >= larger->capacityMiB, gpu.id.c_str());
        QTRY_VERIFY2(window.statusText()->text().contains(shortGpuName(QString::fromStdString(h->name))),
                     qPrintable(window.statusText()->text()));
        SolvePanel *solve = window.solvePanel();
        solve->refresh();
        QCOMPARE(solve->gpu()->currentData().toString(), QStringLiteral("h100-80gb"));
        // Serving: the engine's budget is the H100's, not the larger ticked GPU's nor the first's.
        model->apply(QStringLiteral("serve"), [](Scenario &edit) {
            edit.model = builtinCatalog().findModel("llama-3.1-8b")->arch;
            edit.task = Task::Inference;
            edit.serving = ServingConfig{};
            edit.serving->maxModelLen = std::uint32_t(edit.model.maxPositions); // as the Serving group sets it
        });
        QVERIFY2(model->estimateError().isEmpty(), qPrintable(model->estimateError()));
        QVERIFY(model->estimate().serving);
        QCOMPARE(model->estimate().serving->gpuId, std::string("h100-80gb"));
        Scenario alone = model->scenario(); // the same scenario with the H100 alone
        alone.gpus = {"h100-80gb"};
        alone.targetGpu.clear();
        QCOMPARE(model->estimate().serving->budgetBytes, estimate(alone).serving->budgetBytes);
        QTRY_VERIFY2(window.statusText()->text().contains(shortGpuName(QString::fromStdString(h->name))),
                     qPrintable(window.statusText()->text()));
        if (model->scenario().serving->requests.concurrency == 1) // one user, not "1 users"
            QVERIFY2(window.statusText()->text().startsWith(QLatin1String("1 user at 2,048 tokens on H100")),
                     qPrintable(window.statusText()->text()));
        // A second choice (no longer a fresh folder) ticks the GPU and keeps the others.
        QVERIFY(box->choose(QStringLiteral("rtx 4090")));
        QCOMPARE(model->scenario().targetGpu, std::string("rtx-4090"));
        QCOMPARE(model->scenario().gpus.size(), std::size_t(3));
        // Searching: a name that matches nothing, or several GPUs, changes nothing and says why.
        QVERIFY(!box->choose(QStringLiteral("no such card")));
        QVERIFY(box->note()->text().contains(QLatin1String("No GPU matches")));
        QCOMPARE(model->scenario().targetGpu, std::string("rtx-4090"));
        if (const QString shots = qEnvironmentVariable("HEADROOM_SHOTS"); !shots.isEmpty()) {
            QVERIFY(box->choose(QStringLiteral("H100 80GB")));
            QCoreApplication::processEvents();
            QVERIFY(window.grab().save(QDir(shots).filePath(QStringLiteral("mygpu-1280.png"))));
        }
    }

    // "24 GiB" typed in My GPU: a GPU of 24 x 2^30 = 25,769,803,776 bytes (24,576 MiB) that the
    // scenario names "24gib" becomes the target; the status bar, the chart's target line, the
    // advisor and the estimate all name it, and the saved file reopens (in the window and in the
    // reader the command line uses) to the same target and the same verdict.
    void typedSizeIsTheTarget()
    {
        MainWindow window;
        quiet(window);
        window.resize(1280, 720);
        QVERIFY(test::showActive(window));
        ScenarioModel *model = window.model();
        auto *box = window.controls()->findChild<MyGpuBox *>();
        QVERIFY(box);
        box->combo()->lineEdit()->setFocus();
        box->combo()->lineEdit()->clear();
        QTest::keyClicks(box->combo()->lineEdit(), QStringLiteral("24 GiB"));
        QTest::keyClick(box->combo()->lineEdit(), Qt::Key_Return);
        QTRY_VERIFY2(model->scenario().targetGpu == "24gib",
                 qPrintable(QStringLiteral("target %1, note %2, text %3")
                                .arg(QString::fromStdString(model->scenario().targetGpu), box->note()->text(),
                                     box->combo()->currentText())));
        const auto &ids = model->scenario().gpus;
        QVERIFY(std::find(ids.begin(), ids.end(), "24gib") != ids.end());
        const Gpu *mine = targetGpu(model->scenario());
        QVERIFY(mine);
        QCOMPARE(mine->capacityMiB, std::uint64_t(24576));
        QCOMPARE(mine->capacityBytes(), std::uint64_t(25769803776ull));
        QCOMPARE(QString::fromStdString(mine->name), QStringLiteral("24 GiB GPU"));
        // Status bar.
        QTRY_VERIFY2(window.statusText()->text().contains(QLatin1String("24 GiB GPU")), qPrintable(window.statusText()->text()));
        // The chart: the target line is the 24 GiB one, and the drawn layout names it.
        const ChartData data = chartDataFor(*model);
        QVERIFY(data.targetLine >= 0 && data.targetLine < int(data.lines.size()));
        QCOMPARE(data.lines[std::size_t(data.targetLine)].name, QStringLiteral("24 GiB GPU"));
        QCOMPARE(data.lines[std::size_t(data.targetLine)].bytes, std::uint64_t(25769803776ull));
        const ChartLayout layout = layoutChart(data, QSizeF(1280, 720), 1, QFont());
        QVERIFY(labelColour(layout, QStringLiteral("24 GiB GPU")).isValid());
        // The estimate's fit on the target: the capacity less the estimator's own peak.
        const auto fit = targetFit(model->scenario(), model->estimate());
        QVERIFY(fit);
        QCOMPARE(fit->capacityBytes, std::uint64_t(25769803776ull));
        QCOMPARE(fit->headroomBytes, std::int64_t(25769803776ll) - std::int64_t(model->estimate().peak.deviceBytes));
        // The advisor's GPU is the same.
        AdvisorView *advisor = window.advisor();
        advisor->show();
        QTRY_VERIFY(advisor->isVisible());
        QCOMPARE(advisor->gpuPicker()->currentData().toString(), QStringLiteral("24gib"));
        QVERIFY2(advisor->gpuPicker()->currentText().startsWith(QLatin1String("24 GiB GPU")),
                 qPrintable(advisor->gpuPicker()->currentText()));
        advisor->hide();
        // My GPU shows it as the choice.
        box->combo()->lineEdit()->clearFocus();
        box->refresh();
        QCOMPARE(box->combo()->currentData().toString(), QStringLiteral("gpu:24gib"));
        // Save, and read the file as the command line does: the same target, the same peak.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("mine.json"));
        QVERIFY(window.document()->saveAs(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const nlohmann::json doc = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(doc.at("target_gpu").get<std::string>(), std::string("24gib"));
        const Scenario reread = scenarioFromJson(doc);
        QCOMPARE(reread.targetGpu, std::string("24gib"));
        QCOMPARE(reread.gpus, model->scenario().gpus);
        QCOMPARE(estimate(reread).peak.deviceBytes, model->estimate().peak.deviceBytes);
        // Reopened in a new window: the same target.
        MainWindow again;
        quiet(again);
        QVERIFY(again.document()->openFile(path));
        QCOMPARE(again.model()->scenario().targetGpu, std::string("24gib"));
        QTRY_VERIFY2(again.statusText()->text().contains(QLatin1String("24 GiB GPU")), qPrintable(again.statusText()->text()));
        // 20 GB: 20 x 10^9 bytes = 19,073.49 MiB, rounded down to 19,073 MiB (19,999,490,048 B).
        QVERIFY(box->choose(QStringLiteral("20 GB")));
        QCOMPARE(model->scenario().targetGpu, std::string("20gb"));
        QCOMPARE(targetGpu(model->scenario())->capacityBytes(), std::uint64_t(19073ull * 1048576ull));
        // A bare number that names a GPU is that GPU ("4090"), one that names none a size in
        // the units shown; out of range is refused and the target kept.
        QVERIFY(box->choose(QStringLiteral("4090")));
        QCOMPARE(model->scenario().targetGpu, std::string("rtx-4090"));
        QVERIFY(!box->choose(QStringLiteral("0 GiB")));
        QVERIFY(box->note()->text().contains(QLatin1String("out of range")));
        QVERIFY(!box->choose(QStringLiteral("200000 GiB")));
        QCOMPARE(model->scenario().targetGpu, std::string("rtx-4090"));
        if (const QString shots = qEnvironmentVariable("HEADROOM_SHOTS"); !shots.isEmpty()) {
            QVERIFY(box->choose(QStringLiteral("24 GiB")));
            QCoreApplication::processEvents();
            QVERIFY(window.grab().save(QDir(shots).filePath(QStringLiteral("mygpu-own.png"))));
        }
    }

    // A100 80GB (81,920 MiB = 80 GiB) and H100 (81,559 MiB = 79.65 GiB) are 361 MiB apart: on
    // a 1280 x 720 window's axis of about 90 GiB over ~400 px that is under 2 px, so one line hid
    // the other. Drawn apart now, at least 4 px centre to centre, each in its own colour, while
    // the values they stand for are the catalog's.
    void nearlyEqualLinesAreDrawnApart()
    {
        MainWindow window;
        quiet(window);
        window.resize(1280, 720);
        QVERIFY(test::showActive(window));
        window.model()->apply(QStringLiteral("two"), [](Scenario &s) {
            s.gpus = {"a100-80gb", "h100-80gb"};
            s.targetGpu = "h100-80gb";
        });
        QCoreApplication::processEvents();
        BudgetChart *chart = window.chart();
        QCOMPARE(chart->capacitySeries().size(), std::size_t(2));
        const Gpu *a100 = builtinCatalog().findGpu("a100-80gb"), *h100 = builtinCatalog().findGpu("h100-80gb");
        QCOMPARE(chart->data().lines[0].bytes, a100->capacityBytes());
        QCOMPARE(chart->data().lines[1].bytes, h100->capacityBytes());
        // Where they would be without the spread: under 2 px apart.
        const ChartLayout &layout = chart->layout();
        const auto pixelOf = [&](std::uint64_t bytes) {
            return layout.plot.bottom() - layout.plot.height() * toScale(bytes, layout.scale) / layout.axisMax;
        };
        QVERIFY2(std::abs(pixelOf(a100->capacityBytes()) - pixelOf(h100->capacityBytes())) < 2.0,
                 "the axis is not the one this test is about");
        // Where the series are drawn.
        QChart *qchart = chart->chart();
        std::vector<double> drawn;
        for (QLineSeries *line : chart->capacitySeries())
            drawn.push_back(qchart->mapToPosition(line->points().first(), line).y());
        QVERIFY2(drawn[0] <= drawn[1] - 4.0, qPrintable(QStringLiteral("A100 at %1, H100 at %2").arg(drawn[0]).arg(drawn[1])));
        QVERIFY(std::abs(drawn[0] - layout.lineY[0]) < 0.5 && std::abs(drawn[1] - layout.lineY[1]) < 0.5);
        // Each stays near its own value (within the spread) and in the plot.
        QVERIFY(std::abs(drawn[0] - pixelOf(a100->capacityBytes())) <= 3.0);
        QVERIFY(std::abs(drawn[1] - pixelOf(h100->capacityBytes())) <= 3.0);
        // Both colours are on screen: along each drawn row, pixels of that line's own colour.
        const QImage image = window.chartView()->grab().toImage();
        const QPointF origin = window.chartView()->mapFromScene(QPointF(0, 0));
        for (int i = 0; i < 2; ++i) {
            const QColor colour = capacityLineColor(capacityLineStyleIndex(chart->data().lines[std::size_t(i)].name), chart->data().dark);
            int hits = 0;
            const double dpr = image.devicePixelRatio();
            for (int dy = -1; dy <= 1; ++dy) {
                const int y = int(std::lround((drawn[std::size_t(i)] + origin.y() + dy) * dpr));
                for (int x = int(layout.plot.left() * dpr); x < int(layout.plot.right() * dpr) && y >= 0 && y < image.height(); ++x) {
                    const QColor pixel = image.pixelColor(x, y);
                    if (std::abs(pixel.red() - colour.red()) + std::abs(pixel.green() - colour.green()) +
                            std::abs(pixel.blue() - colour.blue()) < 40)
                        ++hits;
                }
            }
            QVERIFY2(hits >= 20, qPrintable(QStringLiteral("line %1: %2 pixels of its colour").arg(i).arg(hits)));
        }
        // The spread itself: a run of close lines is centred where its lines are, a far line stays.
        const std::vector<double> spread = separatedLines({100.0, 101.0, 300.0}, 4.0, 0, 720);
        QCOMPARE(spread[0], 98.5);  // mean 100.5, minus half of 4
        QCOMPARE(spread[1], 102.5);
        QCOMPARE(spread[2], 300.0);
    }

    // Two scenarios with different tick sets: each GPU's label colour and line dash are the
    // same in both; A100 80GB and H100 (80 and 79.6 GiB) differ in both and their labels do not meet.
    void coloursStayWithTheGpu()
    {
        Scenario a;
        a.gpus = {"t4", "a100-80gb", "h100-80gb"};
        Scenario b;
        b.gpus = {"h100-80gb", "rtx-4090", "a100-80gb"};
        const Estimate ea = estimate(a), eb = estimate(b);
        const QFont font;
        const ChartLayout la = layoutChart(scenarioChartData(a, ea, {}, Unit::GiB, false), QSizeF(900, 560), 1, font);
        const ChartLayout lb = layoutChart(scenarioChartData(b, eb, {}, Unit::GiB, false), QSizeF(900, 560), 1, font);
        const QString a100 = QString::fromStdString(builtinCatalog().findGpu("a100-80gb")->name);
        const QString h100 = QString::fromStdString(builtinCatalog().findGpu("h100-80gb")->name);
        QRectF a100Rect, h100Rect;
        const QColor a100Colour = labelColour(la, a100, &a100Rect), h100Colour = labelColour(la, h100, &h100Rect);
        QVERIFY(a100Colour.isValid() && h100Colour.isValid());
        QCOMPARE(labelColour(lb, a100), a100Colour);
        QCOMPARE(labelColour(lb, h100), h100Colour);
        QVERIFY(a100Colour != h100Colour);
        QVERIFY(capacityLineStyle(capacityLineStyleIndex(a100)) != capacityLineStyle(capacityLineStyleIndex(h100)));
        QVERIFY2(!a100Rect.intersects(h100Rect), "the labels of A100 80GB and H100 meet");
        // The default tick set (T4, RTX 4090, A100 80GB) draws three different colours.
        QSet<QRgb> colours;
        for (const char *id : {"t4", "rtx-4090", "a100-80gb"})
            colours.insert(capacityLineColor(capacityLineStyleIndex(QString::fromStdString(builtinCatalog().findGpu(id)->name)), false).rgb());
        QCOMPARE(colours.size(), 3);
        // A GPU of the user's own keeps its colour too (fixed by its name, not by a seed).
        QCOMPARE(capacityLineStyleIndex(QStringLiteral("24 GiB")), capacityLineStyleIndex(QStringLiteral("24 GiB")));
        QVERIFY(capacityLineStyleIndex(QStringLiteral("24 GiB")) >= int(builtinCatalog().gpus.size())); // after every catalog GPU
    }
};

QTEST_MAIN(TestMyGpu)
#include "tst_mygpu.moc"
