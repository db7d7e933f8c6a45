// SPDX-License-Identifier: GPL-3.0-or-later
// "What should I change?": the waterfall is the advisor's advice, its last step fits, and one
// click applies a step as one undoable change.
#include "classroom/advisorview.h"
#include "lesson/lesson.h"
#include "document/scenariomodel.h"
#include "chart/waterfallchart.h"

#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTableWidget>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

/// The ladder's first step: Llama 2 7B, full fine-tune in fp32, far over a 24 GB card.
void makeItBig(ScenarioModel &model)
{
    for (const BuiltinLesson &lesson : builtinLessons())
        if (lesson.id == "ladder")
            model.setScenario(parseLesson(lesson.json).steps.front().scenario, QStringLiteral("ladder"));
    QCOMPARE(model.scenario().gpus, (std::vector<std::string>{"rtx-4090", "a100-80gb"}));
    // The lesson narrates the 24 GB card; these tests start from no picked target.
    QCOMPARE(model.scenario().targetGpu, std::string("rtx-4090"));
    model.apply(QStringLiteral("no target"), [](Scenario &s) { s.targetGpu.clear(); });
}

} // namespace

class TestAdvisorView : public QObject
{
    Q_OBJECT
private slots:
    void finalStepFitsAndNoStepRaisesThePeak()
    {
        ScenarioModel model;
        makeItBig(model);
        // The advisor is about the scenario's target GPU: here the picked 24 GB card.
        model.apply(QStringLiteral("target"), [](Scenario &s) { s.targetGpu = "rtx-4090"; });
        AdvisorView view(&model);
        view.show();
        const Advice &advice = view.advice();
        QCOMPARE(advice.gpuId, std::string("rtx-4090"));
        QVERIFY(advice == headroom::advise(model.scenario(), "rtx-4090"));
        QVERIFY(!advice.steps.empty());
        QVERIFY(advice.fits);
        QVERIFY(advice.steps.back().fits);
        QVERIFY(advice.finalPeakDeviceBytes() <= advice.capacityBytes);
        std::uint64_t previous = advice.startPeakDeviceBytes;
        for (const AdviceStep &step : advice.steps) {
            QVERIFY(step.peakDeviceBytes < previous);
            previous = step.peakDeviceBytes;
        }
        QVERIFY(view.waterfall()->advice() == advice);
        QCOMPARE(view.table()->rowCount(), int(advice.steps.size()));
        for (int row = 0; row < view.table()->rowCount(); ++row) {
            QVERIFY(!view.table()->item(row, 0)->text().isEmpty());
            QVERIFY(view.table()->item(row, 1)->text().startsWith(QStringLiteral("−")));
            QVERIFY(!view.table()->item(row, 3)->text().isEmpty()); // the cost
        }
        QVERIFY(view.summary()->text().contains(QLatin1String("fits")));
    }

    void clickingAStepAppliesItUndoably()
    {
        ScenarioModel model;
        makeItBig(model);
        model.apply(QStringLiteral("target"), [](Scenario &s) { s.targetGpu = "rtx-4090"; });
        const Scenario before = model.scenario();
        AdvisorView view(&model);
        view.show();
        const Advice advice = view.advice();
        const int last = int(advice.steps.size()) - 1;
        const int undoCount = model.undoStack()->count();
        QPushButton *apply = view.applyButton(last);
        QVERIFY(apply);
        QTest::mouseClick(apply, Qt::LeftButton);
        QVERIFY(model.scenario() == advice.steps.back().scenario);
        QCOMPARE(model.undoStack()->count(), undoCount + 1);
        QVERIFY(model.estimate().peak.deviceBytes <= advice.capacityBytes);
        // The view follows: the scenario fits now, nothing more to change.
        QVERIFY(view.advice().steps.empty());
        QVERIFY(view.advice().fits);
        model.undoStack()->undo();
        QVERIFY(model.scenario() == before);
        QCOMPARE(view.advice().steps.size(), advice.steps.size());
        // A double-click on a row applies that row's configuration.
        emit view.table()->cellDoubleClicked(0, 0);
        QVERIFY(model.scenario() == advice.steps.front().scenario);
    }

    void anotherGpu()
    {
        ScenarioModel model;
        makeItBig(model);
        AdvisorView view(&model);
        view.show();
        // By default the largest ticked GPU; picking another makes it the scenario's target.
        QCOMPARE(view.advice().gpuId, std::string("a100-80gb"));
        const int index = view.gpuPicker()->findData(QStringLiteral("rtx-4090"));
        QVERIFY(index >= 0);
        view.gpuPicker()->setCurrentIndex(index);
        emit view.gpuPicker()->activated(index);
        QCOMPARE(view.advice().gpuId, std::string("rtx-4090"));
        QCOMPARE(model.scenario().targetGpu, std::string("rtx-4090"));
        QVERIFY(model.undoStack()->canUndo());
        model.undoStack()->undo();
        QCOMPARE(view.advice().gpuId, std::string("a100-80gb"));
        QVERIFY(view.advice().fits);
        QVERIFY(view.advice().steps.size() <= headroom::advise(model.scenario(), "rtx-4090").steps.size());
        // Every lever not used says why.
        QVERIFY(!view.skippedText()->text().isEmpty());
    }

    void waterfallPaintsBarsAndTheLine()
    {
        ScenarioModel model;
        makeItBig(model);
        const Advice advice = headroom::advise(model.scenario(), "rtx-4090");
        QImage image(900, 500, QImage::Format_RGB32);
        QPainter painter(&image);
        paintWaterfall(painter, QRectF(image.rect()), advice, {});
        painter.end();
        int saving = 0, line = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                saving += (image.pixel(x, y) & 0xFFFFFF) == 0x009E73;
                line += (image.pixel(x, y) & 0xFFFFFF) == (capacityLineColor(0, false).rgb() & 0xFFFFFF);
            }
        QVERIFY(saving > 500);
        QVERIFY(line > 50);
    }
};

QTEST_MAIN(TestAdvisorView)
#include "tst_advisorview.moc"
