// SPDX-License-Identifier: GPL-3.0-or-later
// A slider drag never queues work: when moves arrive faster than the window can estimate and
// draw, the latest is estimated and painted once, not every move in turn (issue 15).
#include "controls/controlpanel.h"
#include "controls/sliderfield.h"
#include "document/scenariomodel.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include <QChartView>
#include <QSignalSpy>
#include <QSlider>
#include <QtTest>

using namespace headroom;

namespace {

/// Counts the paint events a widget receives.
class PaintCounter : public QObject
{
public:
    int paints = 0;

protected:
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == QEvent::Paint)
            ++paints;
        return false;
    }
};

} // namespace

class TestDrag : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_drag"); }

    void burstOfMovesIsEstimatedAndPaintedOnce_data()
    {
        QTest::addColumn<int>("moves");
        QTest::newRow("one-move") << 1;
        QTest::newRow("ten-moves") << 10;
        QTest::newRow("sixty-moves") << 60;
    }

    void burstOfMovesIsEstimatedAndPaintedOnce()
    {
        QFETCH(int, moves);
        MainWindow window;
        window.resize(1600, 900);
        QVERIFY(test::showActive(window));
        QSlider *slider = window.controls()->seqLen()->slider();
        slider->setValue(slider->minimum());
        // Let the first frames settle, then count.
        QTRY_VERIFY(!window.chartView()->viewport()->visibleRegion().isEmpty());
        QCoreApplication::processEvents();
        PaintCounter counter;
        window.chartView()->viewport()->installEventFilter(&counter);
        QSignalSpy estimates(window.model(), &ScenarioModel::changed);

        // The moves of one drag arrive together, as input does while the window is busy.
        slider->setSliderDown(true);
        int position = slider->value();
        for (int i = 0; i < moves; ++i) {
            position += 7;
            QMetaObject::invokeMethod(slider, "setValue", Qt::QueuedConnection, Q_ARG(int, position));
        }
        QTRY_VERIFY(counter.paints >= 1);
        QCoreApplication::processEvents();
        // One estimate and one frame for the burst; the chart may repaint once more when the
        // burst moves its axis to a new range (60 moves do, since the chart's own layout pass).
        // What must never happen is a frame per move.
        QVERIFY2(counter.paints <= 2, qPrintable(QString::number(counter.paints)));
        QCOMPARE(estimates.count(), 1);
        QCOMPARE(slider->value(), position);
        // The model, and so the painted chart, hold the latest position's value.
        QCOMPARE(double(window.model()->scenario().train.seqLen), window.controls()->seqLen()->value());
        slider->setSliderDown(false);
    }

    void stepsOutsideADragApplyAtOnce()
    {
        MainWindow window;
        window.show();
        SliderField *seqLen = window.controls()->seqLen();
        const std::uint32_t before = window.model()->scenario().train.seqLen;
        seqLen->slider()->setValue(seqLen->slider()->value() + 50); // keyboard, wheel, a click
        QVERIFY(window.model()->scenario().train.seqLen > before);
        QCOMPARE(double(window.model()->scenario().train.seqLen), seqLen->value());
    }

    void valueSetDuringADragWins()
    {
        MainWindow window;
        window.show();
        SliderField *seqLen = window.controls()->seqLen();
        QSlider *slider = seqLen->slider();
        slider->setSliderDown(true);
        slider->setValue(slider->maximum()); // a move, applied after the waiting input
        seqLen->setValue(1024);              // e.g. undo or a lesson step in between
        QCoreApplication::processEvents();
        QCOMPARE(seqLen->value(), 1024.0);
        slider->setSliderDown(false);
    }
};

QTEST_MAIN(TestDrag)
#include "tst_drag.moc"
