// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer window driven through its real widgets, offscreen.
#include "fileutil.h"
#include "testutil.h"
#include "uitestutil.h"
#include "window/breakdownview.h"
#include "chart/budgetchart.h"
#include "chart/consumerstyle.h"
#include "controls/controlpanel.h"
#include "window/explanations.h"
#include "window/mainwindow.h"
#include "classroom/lessoncontroller.h"
#include "classroom/lessonplayer.h"
#include "document/documentcontroller.h"
#include "document/scenariomodel.h"
#include "controls/sliderfield.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QLabel>
#include <QLineEdit>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStackedBarSeries>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTextBrowser>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

using headroom::test::showActive;

namespace {

double barValue(const MainWindow &w, ConsumerId id, int column = 0)
{
    return w.chart()->barSet(id)->at(column);
}

int categoryCount(const MainWindow &w)
{
    const auto axes = w.chart()->chart()->axes(Qt::Horizontal);
    for (QAbstractAxis *axis : axes)
        if (auto *categories = qobject_cast<QBarCategoryAxis *>(axis))
            return int(categories->count());
    return -1;
}

/// Chooses a combo entry the way a user does (activated is emitted only for user choices).
void choose(QComboBox *combo, int data)
{
    const int index = combo->findData(data);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}


} // namespace

class TestWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        headroom::test::isolateSettings("tst_window");
    }
    void init() { QSettings().clear(); }

    void fontsArePresent()
    {
        // Without fonts every label renders as empty boxes and Qt prints no warning.
        QVERIFY(!QFontDatabase::families().isEmpty());
    }

    void sliderMovesModelAndBars()
    {
        MainWindow w;
        w.show();
        const std::uint32_t before = w.model()->scenario().train.microBatch;
        const double activations = barValue(w, ConsumerId::Activations);
        QVERIFY(activations > 0);
        QSlider *slider = w.controls()->microBatch()->slider();
        QSignalSpy changed(w.model(), &ScenarioModel::changed);
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_PageUp); // +10% of the log range: a larger micro-batch
        QVERIFY(changed.count() >= 1);
        const std::uint32_t after = w.model()->scenario().train.microBatch;
        QVERIFY2(after > before, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));
        QVERIFY(barValue(w, ConsumerId::Activations) > activations);
        // The field shows the new value too.
        QCOMPARE(w.controls()->microBatch()->field()->value(), double(after));
    }

    void fieldEditsTheModel()
    {
        MainWindow w;
        w.show();
        QDoubleSpinBox *field = w.controls()->seqLen()->field();
        field->setValue(8192);
        QCOMPARE(w.model()->scenario().train.seqLen, 8192u);
        QCOMPARE(w.controls()->seqLen()->slider()->value(), w.controls()->seqLen()->slider()->value());
    }

    void eagerAttentionAddsScores()
    {
        MainWindow w;
        w.show();
        QCOMPARE(barValue(w, ConsumerId::AttentionScores), 0.0);
        choose(w.controls()->attention(), int(Attention::Eager));
        QVERIFY(w.model()->scenario().kernels.attention == Attention::Eager);
        QVERIFY(barValue(w, ConsumerId::AttentionScores) > 0);
        bool listed = false;
        for (const QString &entry : w.chart()->legendEntries())
            listed = listed || entry.startsWith(consumerDisplayName(ConsumerId::AttentionScores));
        QVERIFY2(listed, qPrintable(w.chart()->legendEntries().join(QLatin1String(" | "))));
    }

    // Legacy generate() from the controls: the decode phase holds two caches, and the prefill
    // the logits of every prompt position.
    void legacyGenerateControls()
    {
        MainWindow w;
        w.show();
        w.model()->apply(QStringLiteral("serve"), [](Scenario &s) { s.task = Task::Inference; });
        auto phaseBytes = [&](PhaseId id, ConsumerId consumer) {
            return test::phaseBytes(w.model()->estimate(), id, consumer);
        };
        const std::uint64_t cache = phaseBytes(PhaseId::Decode, ConsumerId::KvCache);
        const std::uint64_t logits = phaseBytes(PhaseId::Prefill, ConsumerId::Logits);
        QVERIFY(cache > 0);
        choose(w.controls()->kvCache(), int(KvCache::Concat));
        QVERIFY(w.model()->scenario().inference.kvCache == KvCache::Concat);
        QCOMPARE(phaseBytes(PhaseId::Decode, ConsumerId::KvCache), 2 * cache);
        choose(w.controls()->promptLogits(), int(PromptLogits::All));
        QVERIFY(w.model()->scenario().inference.promptLogits == PromptLogits::All);
        const Scenario &s = w.model()->scenario();
        QCOMPARE(phaseBytes(PhaseId::Prefill, ConsumerId::Logits),
                 logits + std::uint64_t(s.inference.context) * s.model.vocab * 2);
        QVERIFY(w.model()->undoStack()->canUndo());
    }

    // The explanation speaks of the task at hand: nothing is kept for backward in serving.
    void explanationsFollowTheTask()
    {
        Scenario s = test::scenarioFrom(R"({"model": {"preset": "gpt2"}})");
        QVERIFY(explainConsumer(ConsumerId::Activations, s, estimate(s), Unit::GB).contains(QLatin1String("backward pass")));
        Scenario autocast = s;
        autocast.precision.weights = DType::FP32;
        QVERIFY(explainConsumer(ConsumerId::Weights, autocast, estimate(autocast), Unit::GB)
                    .contains(QLatin1String("autocast")));
        QVERIFY(!explainConsumer(ConsumerId::Weights, s, estimate(s), Unit::GB).contains(QLatin1String("autocast")));
        s.task = Task::Inference;
        s.inference.kvCache = KvCache::Concat;
        const Estimate e = estimate(s);
        QVERIFY(explainConsumer(ConsumerId::Activations, s, e, Unit::GB).contains(QLatin1String("serving")));
        QVERIFY(explainConsumer(ConsumerId::KvCache, s, e, Unit::GB).contains(QLatin1String("preallocated")));
    }

    void pinningAddsACategory()
    {
        MainWindow w;
        QVERIFY(showActive(w));
        QCOMPARE(categoryCount(w), 1);
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
        QCOMPARE(int(w.model()->pins().size()), 1);
        QCOMPARE(categoryCount(w), 2);
        const QString label = w.model()->pinLabel(0);
        // Pinning the same scenario again says so and adds nothing.
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
        QCOMPARE(int(w.model()->pins().size()), 1);
        QVERIFY2(w.statusBar()->currentMessage().contains(QLatin1String("already pinned")),
                 qPrintable(w.statusBar()->currentMessage()));
        // Change the current scenario: the pin keeps its name.
        choose(w.controls()->attention(), int(Attention::Eager));
        QCOMPARE(w.model()->pinLabel(0), label);
        QVERIFY(barValue(w, ConsumerId::AttentionScores, 0) > 0);
        QCOMPARE(barValue(w, ConsumerId::AttentionScores, 1), 0.0);
        for (int i = 0; i < 10; ++i) {
            w.model()->apply(QStringLiteral("batch"), [i](Scenario &s) { s.train.microBatch = std::uint32_t(3 + i); });
            QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
        }
        QCOMPARE(int(w.model()->pins().size()), ScenarioModel::kMaxPins);
        QCOMPARE(categoryCount(w), ScenarioModel::kMaxPins + 1);
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(categoryCount(w), ScenarioModel::kMaxPins);
    }

    void aPinCanBeRemovedByName()
    {
        MainWindow w;
        QVERIFY(showActive(w));
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
        choose(w.controls()->attention(), int(Attention::Eager));
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
        QCOMPARE(int(w.model()->pins().size()), 2);
        QMenu *menu = nullptr;
        for (QMenu *candidate : w.findChildren<QMenu *>())
            if (candidate->title() == QLatin1String("Remove &pin"))
                menu = candidate;
        QVERIFY(menu);
        emit menu->aboutToShow();
        QCOMPARE(menu->actions().size(), 2);
        menu->actions().first()->trigger(); // the SDPA pin
        QCOMPARE(int(w.model()->pins().size()), 1);
        QVERIFY(w.model()->pins().front().scenario.kernels.attention == Attention::Eager);
        QCOMPARE(categoryCount(w), 2);
    }

    void undoAndRedo()
    {
        MainWindow w;
        QVERIFY(showActive(w));
        const std::uint32_t before = w.model()->scenario().train.seqLen;
        QSlider *slider = w.controls()->seqLen()->slider();
        // A drag of several steps is one undo step.
        for (int i = 0; i < 5; ++i)
            slider->setValue(slider->value() + 20);
        const std::uint32_t dragged = w.model()->scenario().train.seqLen;
        QVERIFY(dragged > before);
        QCOMPARE(w.model()->undoStack()->count(), 1);
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.model()->scenario().train.seqLen, before);
        QCOMPARE(w.controls()->seqLen()->field()->value(), double(before));
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(w.model()->scenario().train.seqLen, dragged);
    }

    void capacityLinesSpanThePlot()
    {
        MainWindow w;
        w.resize(1400, 900);
        QVERIFY(showActive(w));
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
        QCoreApplication::processEvents();
        QChart *chart = w.chart()->chart();
        const QRectF plot = chart->plotArea();
        QVERIFY(!plot.isEmpty());
        QCOMPARE(w.chart()->capacitySeries().size(), w.model()->scenario().gpus.size());
        for (QLineSeries *line : w.chart()->capacitySeries()) {
            const QList<QPointF> points = line->points();
            QCOMPARE(points.size(), 2);
            const QPointF left = chart->mapToPosition(points.first(), line);
            const QPointF right = chart->mapToPosition(points.last(), line);
            QVERIFY2(qAbs(left.x() - plot.left()) < 1.0, qPrintable(QString::number(left.x() - plot.left())));
            QVERIFY2(qAbs(right.x() - plot.right()) < 1.0, qPrintable(QString::number(right.x() - plot.right())));
            QCOMPARE(left.y(), right.y());
        }
    }

    void barAboveALineIsMarked()
    {
        MainWindow w;
        w.show();
        // Llama 3 8B full fine-tune does not fit a 24 GB card.
        w.model()->apply(QStringLiteral("full"), [](Scenario &s) { s.train.method = Method::Full; });
        const QStringList marks = w.chart()->fitMarks();
        QCOMPARE(marks.size(), 1);
        // About the verdict GPU, in the wording its column has room for.
        QVERIFY2(marks.first().startsWith(QLatin1String("does not fit A100 80GB")) ||
                     marks.first().startsWith(QLatin1String("over A100 80GB")),
                 qPrintable(marks.first()));
        QVERIFY(w.statusText()->text().contains(QLatin1String("does not fit"), Qt::CaseInsensitive));
        // The first-seen error band stands next to the peak, in the status line and the chart, in
        // the words of its basis (validated, few runs, never validated).
        const QString band = QString::fromStdString(errorBandText(w.model()->estimate().errorBands.front()));
        QVERIFY(band.contains(QStringLiteral("±%1%").arg(w.model()->estimate().errorBandPercent)));
        QVERIFY2(w.statusText()->text().contains(band), qPrintable(w.statusText()->text()));
        QVERIFY(w.chart()->data().subtitle.contains(QLatin1Char('(') + band + QLatin1Char(')')));
    }

    // In a small window the phases view's marks get a shorter wording and never overlap.
    void fitMarksDoNotOverlapInASmallWindow()
    {
        // After the first run: the first-run card takes a row above the chart, and in a window this
        // short its marks would not fit (a known limit of the card, which a click dismisses).
        QSettings().setValue(QStringLiteral("ui/first_run_done"), true);
        MainWindow w;
        w.resize(800, 500);
        QVERIFY(showActive(w));
        w.model()->apply(QStringLiteral("full"), [](Scenario &s) { s.train.method = Method::Full; });
        w.model()->setView(ChartView::Phases);
        QApplication::processEvents();
        const QList<QRectF> rects = w.chart()->fitMarkRects();
        QVERIFY2(rects.size() >= 2, qPrintable(w.chart()->fitMarks().join(QLatin1String(" | ")) ));
        for (int i = 0; i < rects.size(); ++i)
            for (int j = i + 1; j < rects.size(); ++j)
                QVERIFY2(!rects[i].intersects(rects[j]), qPrintable(w.chart()->fitMarks().join(QLatin1String(" | "))));
    }

    void settingsSurviveARestart()
    {
        {
            MainWindow w;
            w.show();
            w.model()->setUnit(Unit::GiB);
            w.model()->setView(ChartView::Phases);
            w.controls()->microBatch()->field()->setValue(16);
            w.resize(777, 555); // within the offscreen screen: the window never outgrows it
            w.close();
        }
        MainWindow again;
        QVERIFY(again.model()->unit() == Unit::GiB);
        QVERIFY(again.model()->view() == ChartView::Phases);
        QCOMPARE(again.model()->scenario().train.microBatch, 16u);
        QCOMPARE(again.size(), QSize(777, 555));
        QCOMPARE(categoryCount(again), 4); // load, forward, backward, optimizer
    }

    void everyControlHasAnAccessibleName()
    {
        MainWindow w;
        const auto widgets = w.controls()->findChildren<QWidget *>();
        int checked = 0;
        for (QWidget *widget : widgets) {
            if (!(qobject_cast<QSlider *>(widget) || qobject_cast<QAbstractSpinBox *>(widget) ||
                  qobject_cast<QComboBox *>(widget) || qobject_cast<QListWidget *>(widget)))
                continue;
            QVERIFY2(!widget->accessibleName().isEmpty(), widget->metaObject()->className());
            ++checked;
        }
        QVERIFY(checked > 20);
        for (QCheckBox *check : w.controls()->findChildren<QCheckBox *>())
            QVERIFY(!check->text().isEmpty());
    }

    void darkThemeRendersDark()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        w.model()->setDark(true);
        QCoreApplication::processEvents();
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 80);
        const QImage image = w.chartView()->grab().toImage();
        QVERIFY(!image.isNull());
        QVERIFY(QColor(image.pixel(5, 5)).lightness() < 80);
        w.model()->setDark(false);
        QCoreApplication::processEvents();
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 150);
    }

    void chartShowsConsumerColours()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QCoreApplication::processEvents();
        const QImage image = w.chartView()->grab().toImage();
        const QRgb weights = consumerColor(ConsumerId::Weights).rgb();
        int found = 0;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2)
                found += (image.pixel(x, y) & 0xFFFFFF) == (weights & 0xFFFFFF);
        QVERIFY2(found > 50, qPrintable(QString::number(found)));
    }

    void measuredPeakIsOverlaid()
    {
        MainWindow w;
        w.show();
        w.model()->setUnit(Unit::GB);
        QLineEdit *field = w.controls()->measuredText();
        QTest::keyClicks(field, QStringLiteral("20 GB"));
        QVERIFY(w.model()->measured());
        QCOMPARE(w.model()->measured()->bytes, 20'000'000'000ull);
        QVERIFY2(w.chart()->measuredMark().contains(QLatin1String("20.00 GB")), qPrintable(w.chart()->measuredMark()));
        const QString comparison = w.controls()->measuredComparison()->text();
        QVERIFY2(comparison.contains(QLatin1String("vs measured 20.00 GB")), qPrintable(comparison));
        field->clear();
        QVERIFY(!w.model()->measured());
        QVERIFY(w.chart()->measuredMark().isEmpty());
        QTest::keyClicks(field, QStringLiteral("lots"));
        QVERIFY(w.controls()->measuredComparison()->text().contains(QLatin1String("Not a size")));
    }

    void breakdownExplainsTheSelection()
    {
        MainWindow w;
        w.show();
        QTableWidget *table = w.breakdown()->table();
        QVERIFY(table->rowCount() >= 5);
        for (int row = 0; row < table->rowCount(); ++row)
            QVERIFY(table->item(row, 3)->text().contains(QLatin1String(" = ")));
        table->selectRow(0);
        QVERIFY(w.breakdown()->explanation()->toPlainText().contains(QLatin1String("params")));
        // LoRA + checkpointing: the enable_input_require_grads() advice appears for activations.
        w.model()->apply(QStringLiteral("ckpt"), [](Scenario &s) { s.train.checkpointing = Checkpointing::Full; });
        for (int row = 0; row < table->rowCount(); ++row)
            if (table->item(row, 0)->data(Qt::UserRole).toInt() == int(ConsumerId::Activations))
                table->selectRow(row);
        QVERIFY(w.breakdown()->explanation()->toPlainText().contains(QLatin1String("enable_input_require_grads")));
    }

    // Scrolling the panel over a field leaves its value alone; a focused field takes the wheel.
    void wheelChangesOnlyAFocusedField()
    {
        MainWindow w;
        w.resize(1280, 720);
        QVERIFY(showActive(w));
        QDoubleSpinBox *dropout = w.controls()->loraDropout();
        QVERIFY(dropout->isEnabled());
        const double before = dropout->value();
        w.controls()->measuredText()->setFocus();
        QVERIFY(!dropout->hasFocus());
        auto *scroll = qobject_cast<QScrollArea *>(w.controls()->parentWidget()->parentWidget());
        QVERIFY(scroll);
        const int scrolled = scroll->verticalScrollBar()->value();
        const auto wheel = [](QWidget *target) {
            const QPointF at(target->width() / 2.0, target->height() / 2.0);
            QWheelEvent event(at, target->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                              Qt::NoScrollPhase, false);
            QApplication::sendEvent(target, &event);
        };
        wheel(dropout);
        QCOMPARE(dropout->value(), before);
        QCOMPARE(w.model()->scenario().train.lora.dropout, before);
        QVERIFY2(scroll->verticalScrollBar()->value() > scrolled, "the panel scrolls instead");
        QSlider *slider = w.controls()->microBatch()->slider();
        const int position = slider->value();
        wheel(slider);
        QCOMPARE(slider->value(), position);
        dropout->setFocus();
        wheel(dropout);
        QVERIFY(dropout->value() != before);
    }

    // Ctrl+Z and Ctrl+Shift+Z undo and redo the scenario whichever widget has the focus.
    void undoWorksWhateverHasFocus()
    {
        MainWindow w;
        QVERIFY(showActive(w));
        const std::uint32_t before = w.model()->scenario().train.microBatch;
        w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 16; });
        QLineEdit *measured = w.controls()->measuredText();
        measured->setFocus();
        QTest::keyClicks(measured, QStringLiteral("12"));
        QTest::keyClick(measured, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.model()->scenario().train.microBatch, before);
        QDoubleSpinBox *seq = w.controls()->seqLen()->field();
        seq->setFocus();
        QTest::keyClick(seq, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(w.model()->scenario().train.microBatch, 16u);
    }

    // The window opens within the screen, and what it needs fits 1280x720 (and 200% on 2560x1600),
    // with a lesson open too.
    void windowFitsTheScreen()
    {
        MainWindow w;
        w.show();
        const QRect available = w.screen()->availableGeometry();
        QVERIFY2(w.width() <= available.width() && w.height() <= available.height(),
                 qPrintable(QStringLiteral("%1x%2 on %3x%4").arg(w.width()).arg(w.height()).arg(available.width()).arg(available.height())));
        QVERIFY2(w.minimumSizeHint().width() <= 1264 && w.minimumSizeHint().height() <= 680,
                 qPrintable(QStringLiteral("%1x%2").arg(w.minimumSizeHint().width()).arg(w.minimumSizeHint().height())));
        w.lessons()->openBuiltin(QStringLiteral("where-the-memory-actually-goes"));
        QCoreApplication::processEvents();
        QVERIFY2(w.minimumSizeHint().width() <= 1264 && w.minimumSizeHint().height() <= 680,
                 qPrintable(QStringLiteral("with a lesson: %1x%2").arg(w.minimumSizeHint().width()).arg(w.minimumSizeHint().height())));
        // At 1280x720 the status bar and the chart stay inside the window.
        w.resize(1280, 720);
        QCoreApplication::processEvents();
        for (QWidget *part : {static_cast<QWidget *>(w.statusText()), static_cast<QWidget *>(w.chartView())}) {
            const QRect inWindow(part->mapTo(&w, QPoint(0, 0)), part->size());
            QVERIFY2(w.rect().contains(inWindow), part->metaObject()->className());
        }
    }

    // "Back to the step's scenario" and "Close lesson" need a lesson.
    void lessonActionsNeedALesson()
    {
        MainWindow w;
        QVERIFY(!w.lessons()->backAction()->isEnabled());
        QVERIFY(!w.lessons()->closeAction()->isEnabled());
        w.lessons()->openBuiltin(QStringLiteral("ladder"));
        QVERIFY(w.lessons()->backAction()->isEnabled());
        QVERIFY(w.lessons()->closeAction()->isEnabled());
        w.lessons()->closeAction()->trigger();
        QVERIFY(!w.lessons()->backAction()->isEnabled());
    }

    // Opening a lesson over unsaved changes asks first; Cancel keeps everything.
    void openingALessonAsksFirst()
    {
        QTemporaryDir dir;
        MainWindow w;
        QVERIFY(w.document()->saveAs(dir.filePath(QStringLiteral("mine.headroom.json"))));
        w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 7; });
        int asked = 0;
        w.document()->setSaveQuestion([&] {
            ++asked;
            return QMessageBox::Cancel;
        });
        QAction *ladder = nullptr;
        for (QAction *action : w.menuBar()->actions())
            if (action->menu())
                for (QAction *item : action->menu()->actions())
                    if (item->data().toString() == QLatin1String("ladder"))
                        ladder = item;
        QVERIFY(ladder);
        ladder->trigger();
        QCOMPARE(asked, 1);
        QVERIFY(!w.lessons()->player()->isActive());
        QCOMPARE(w.model()->scenario().train.microBatch, 7u);
    }
};

QTEST_MAIN(TestWindow)
#include "tst_window.moc"
