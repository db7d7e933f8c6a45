// SPDX-License-Identifier: GPL-3.0-or-later
// Presenter mode driven by the keys a presentation clicker sends, offscreen.
#include "fileutil.h"
#include "uitestutil.h"
#include "chart/budgetchart.h"
#include "classroom/lessoncontroller.h"
#include "classroom/lessonplayer.h"
#include "window/mainwindow.h"
#include "classroom/presenterview.h"
#include "document/scenariomodel.h"

#include <QApplication>
#include <QChart>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

using namespace headroom;

using headroom::test::showActive;

namespace {


} // namespace

class TestPresenter : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        headroom::test::isolateSettings("tst_presenter");
    }
    void init() { QSettings().clear(); }

    void f5AndF11EnterFullScreenAndEscLeaves_data()
    {
        QTest::addColumn<int>("key");
        QTest::newRow("f5") << int(Qt::Key_F5);
        QTest::newRow("f11") << int(Qt::Key_F11);
    }

    void f5AndF11EnterFullScreenAndEscLeaves()
    {
        QFETCH(int, key);
        MainWindow w;
        QVERIFY(showActive(w));
        QTest::keyClick(&w, Qt::Key(key));
        PresenterView *presenter = w.presenter();
        QVERIFY(presenter->isVisible());
        QVERIFY(presenter->isFullScreen());
        for (const ChartText &text : presenter->chart()->layout().texts)
            if (text.role == ChartText::Title)
                QVERIFY(text.font.pointSizeF() >= 2 * 13 * 0.75); // scaled up
        QSignalSpy left(presenter, &PresenterView::left);
        QTest::keyClick(presenter, Qt::Key_Escape);
        QVERIFY(!presenter->isVisible());
        QCOMPARE(left.count(), 1);
    }

    void clickerKeysStepThroughTheLesson()
    {
        MainWindow w;
        QVERIFY(showActive(w));
        QVERIFY(w.lessons()->openBuiltin(QStringLiteral("ladder")));
        LessonPlayer *player = w.lessons()->player();
        const Lesson lesson = player->lesson();
        QVERIFY(lesson.steps.size() >= 4);
        PresenterView *presenter = w.presenter();
        presenter->enter();
        const QString total = QString::number(lesson.steps.size());
        QCOMPARE(presenter->counterLabel()->text(), QStringLiteral("1 / ") + total);
        QCOMPARE(presenter->titleLabel()->text(), QString::fromStdString(lesson.steps[0].title));
        // The caption, then the step's verdict on its own line (tst_lessonui checks its words).
        const auto captionOnly = [&] { return presenter->captionLabel()->text(); };
        const QString firstCaption = captionOnly();
        QVERIFY2(presenter->verdictLabel()->text().startsWith(QStringLiteral("Verdict: ")),
                 qPrintable(presenter->verdictLabel()->text()));
        QVERIFY(!firstCaption.contains(QStringLiteral("Verdict: ")));
        QCOMPARE(firstCaption, QString::fromStdString(expandCaption(lesson.steps[0].caption, estimate(lesson.steps[0].scenario),
                                                                    w.model()->unit())));

        QTest::keyClick(presenter, Qt::Key_Right);
        QCOMPARE(player->stepIndex(), 1);
        QCOMPARE(presenter->counterLabel()->text(), QStringLiteral("2 / ") + total);
        QVERIFY(captionOnly() != firstCaption);
        QCOMPARE(captionOnly(),
                 QString::fromStdString(expandCaption(lesson.steps[1].caption, estimate(lesson.steps[1].scenario), w.model()->unit())));
        QVERIFY(w.model()->scenario() == lesson.steps[1].scenario);
        QTest::keyClick(presenter, Qt::Key_Space);
        QCOMPARE(player->stepIndex(), 2);
        QTest::keyClick(presenter, Qt::Key_PageDown);
        QCOMPARE(player->stepIndex(), 3);
        QCOMPARE(presenter->counterLabel()->text(), QStringLiteral("4 / ") + total);
        QCOMPARE(presenter->titleLabel()->text(), QString::fromStdString(lesson.steps[3].title));
        QVERIFY(w.model()->scenario() == lesson.steps[3].scenario);
        QTest::keyClick(presenter, Qt::Key_Left);
        QCOMPARE(player->stepIndex(), 2);
        QTest::keyClick(presenter, Qt::Key_PageUp);
        QCOMPARE(player->stepIndex(), 1);
        QCOMPARE(presenter->counterLabel()->text(), QStringLiteral("2 / ") + total);
        QVERIFY(w.model()->scenario() == lesson.steps[1].scenario);
        // The ends stay put.
        QTest::keyClick(presenter, Qt::Key_PageUp);
        QTest::keyClick(presenter, Qt::Key_PageUp);
        QCOMPARE(player->stepIndex(), 0);
        for (std::size_t i = 0; i < lesson.steps.size() + 2; ++i)
            QTest::keyClick(presenter, Qt::Key_Right);
        QCOMPARE(player->stepIndex(), int(lesson.steps.size()) - 1);
        QCOMPARE(presenter->counterLabel()->text(), total + QStringLiteral(" / ") + total);
        // The chart follows the step, drawn large.
        QCOMPARE(presenter->chart()->data().columns.size(), std::size_t(1));
        QCOMPARE(presenter->chart()->data().columns[0].totalBytes, w.model()->estimate().peak.deviceBytes);
    }

    void returnKeyRestoresTheStepAfterAChange_data()
    {
        QTest::addColumn<int>("key");
        QTest::newRow("r") << int(Qt::Key_R);
        QTest::newRow("home") << int(Qt::Key_Home);
    }

    void returnKeyRestoresTheStepAfterAChange()
    {
        QFETCH(int, key);
        MainWindow w;
        QVERIFY(showActive(w));
        QVERIFY(w.lessons()->openBuiltin(QStringLiteral("long-context")));
        PresenterView *presenter = w.presenter();
        presenter->enter();
        QTest::keyClick(presenter, Qt::Key_Right);
        const Scenario step = w.lessons()->player()->currentStep()->scenario;
        // Changing parameters while presenting is allowed, and shows.
        w.model()->apply(QStringLiteral("longer"), [](Scenario &s) { s.train.seqLen *= 2; });
        QVERIFY(!(w.model()->scenario() == step));
        QVERIFY(w.lessons()->player()->isModified());
        QVERIFY(presenter->counterLabel()->text().contains(QLatin1String("R returns")));
        const std::uint64_t changedPeak = presenter->chart()->data().columns[0].totalBytes;
        QTest::keyClick(presenter, Qt::Key(key));
        QVERIFY(w.model()->scenario() == step);
        QCOMPARE(w.lessons()->player()->stepIndex(), 1);
        QCOMPARE(presenter->counterLabel()->text(), QStringLiteral("2 / 8"));
        QVERIFY(presenter->chart()->data().columns[0].totalBytes < changedPeak);
    }

    void hiddenPresenterDoesNoWork()
    {
        MainWindow w;
        w.show();
        PresenterView *presenter = w.presenter();
        presenter->enter();
        presenter->leave();
        const ChartData before = presenter->chart()->data();
        w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch += 3; });
        QCOMPARE(presenter->chart()->data().columns[0].totalBytes, before.columns[0].totalBytes);
    }
};

QTEST_MAIN(TestPresenter)
#include "tst_presenter.moc"
