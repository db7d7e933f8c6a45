// SPDX-License-Identifier: GPL-3.0-or-later
// The Lessons menu: shipped lessons, the user's own files (a bad one names its key), steps
// as undoable changes, and the title and caption above the chart.
#include "uitestutil.h"
#include "fileutil.h"
#include "displaytext.h"
#include "scenario/catalog.h"
#include "classroom/lessoncontroller.h"
#include "classroom/lessonexport.h"
#include "classroom/lessonplayer.h"
#include "classroom/presenterview.h"
#include "document/documentcontroller.h"
#include "window/mainwindow.h"
#include "document/scenariomodel.h"

#include <QAction>
#include <QFile>
#include <QRegularExpression>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

/// The caption bar's text above its verdict line.
QString captionOf(MainWindow &w)
{
    return w.lessons()->captionLabel()->text().section(QStringLiteral("\nVerdict: "), 0, 0);
}

QMenu *lessonsMenu(MainWindow &w)
{
    for (QAction *action : w.menuBar()->actions())
        if (action->menu() && action->text().remove(QLatin1Char('&')) == QLatin1String("Lessons"))
            return action->menu();
    return nullptr;
}

} // namespace

class TestLessonUi : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const char *name, const QByteArray &content)
    {
        return headroom::test::writeFile(m_dir, name, content);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        headroom::test::isolateSettings("tst_lessonui");
    }
    void init() { QSettings().clear(); }

    void menuListsEveryShippedLesson()
    {
        MainWindow w;
        QMenu *menu = lessonsMenu(w);
        QVERIFY(menu);
        QStringList ids;
        QStringList texts;
        for (QAction *action : menu->actions()) {
            if (!action->data().toString().isEmpty())
                ids << action->data().toString();
            texts << action->text();
        }
        QCOMPARE(ids.size(), int(builtinLessons().size()));
        QVERIFY(ids.contains(QLatin1String("ladder")));
        QVERIFY(texts.contains(QLatin1String("&Open lesson file...")));
        for (QAction *action : menu->actions())
            if (action->data().toString() == QLatin1String("ladder"))
                QVERIFY(action->text().startsWith(QLatin1String("The ladder")));
    }

    void openingALessonIsOneUndoableStep()
    {
        MainWindow w;
        w.show();
        const Scenario before = w.model()->scenario();
        const int undoCount = w.model()->undoStack()->count();
        QVERIFY(!w.lessons()->captionBar()->isVisible());
        for (QAction *action : lessonsMenu(w)->actions())
            if (action->data().toString() == QLatin1String("ladder"))
                action->trigger();
        const Lesson &lesson = w.lessons()->player()->lesson();
        QVERIFY(w.model()->scenario() == lesson.steps[0].scenario);
        QCOMPARE(w.model()->undoStack()->count(), undoCount + 1);
        QVERIFY(w.lessons()->captionBar()->isVisible());
        QVERIFY(w.lessons()->titleLabel()->text().contains(QString::fromStdString(lesson.steps[0].title)));
        // The caption quotes the step's own numbers in the window's unit.
        QCOMPARE(captionOf(w),
                 QString::fromStdString(expandCaption(lesson.steps[0].caption, estimate(lesson.steps[0].scenario), w.model()->unit())));
        QVERIFY(!w.lessons()->captionLabel()->text().contains(QLatin1Char('{')));
        QVERIFY(!w.lessons()->previousAction()->isEnabled());

        w.lessons()->nextAction()->trigger();
        QVERIFY(w.model()->scenario() == lesson.steps[1].scenario);
        QCOMPARE(captionOf(w),
                 QString::fromStdString(expandCaption(lesson.steps[1].caption, estimate(lesson.steps[1].scenario), w.model()->unit())));
        QVERIFY(w.lessons()->previousAction()->isEnabled());
        w.lessons()->previousAction()->trigger();
        QVERIFY(w.model()->scenario() == lesson.steps[0].scenario);
        // Undo walks back through the steps to the scenario before the lesson.
        while (w.model()->undoStack()->canUndo() && !(w.model()->scenario() == before))
            w.model()->undoStack()->undo();
        QVERIFY(w.model()->scenario() == before);
    }

    // Ctrl+P pins in presenter mode too (the window's shortcut does not reach its top-level view),
    // Ctrl+Shift+P removes the last pin.
    void ctrlPPinsInPresenterMode()
    {
        MainWindow w;
        w.show();
        w.lessons()->openBuiltin(QStringLiteral("ladder"));
        PresenterView *presenter = w.presenter();
        presenter->enter();
        QVERIFY(w.model()->pins().empty());
        QTest::keyClick(presenter, Qt::Key_P, Qt::ControlModifier);
        QCOMPARE(int(w.model()->pins().size()), 1);
        QVERIFY(w.model()->pins()[0].scenario == w.lessons()->player()->lesson().steps[0].scenario);
        QTest::keyClick(presenter, Qt::Key_Right);
        QTest::keyClick(presenter, Qt::Key_P, Qt::ControlModifier);
        QCOMPARE(int(w.model()->pins().size()), 2);
        QTest::keyClick(presenter, Qt::Key_P); // a plain P is not a pin
        QCOMPARE(int(w.model()->pins().size()), 2);
        QTest::keyClick(presenter, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(int(w.model()->pins().size()), 1);
        presenter->leave();
    }

    // Opening a scenario while a lesson is open ends the lesson: no stale caption over another
    // scenario's chart, no lesson-wide axis squashing it.
    void openingAScenarioEndsTheLesson()
    {
        const QString path = write("plain.headroom.json", R"({"format": "headroom-scenario", "version": 1,
            "model": {"preset": "llama-3-8b"}, "train": {"method": "lora", "micro_batch": 1}})");
        MainWindow w;
        w.show();
        w.lessons()->openBuiltin(QStringLiteral("ladder"));
        QVERIFY(w.lessons()->player()->isActive());
        QVERIFY(w.model()->axisMinimumBytes() > 0);
        QVERIFY(w.lessons()->captionBar()->isVisible());
        w.model()->undoStack()->clear(); // nothing unsaved to ask about
        w.document()->setSaveQuestion([] { return QMessageBox::Discard; });
        QVERIFY(w.document()->openFile(path));
        QCOMPARE(w.model()->scenario().train.microBatch, 1u);
        QVERIFY(!w.lessons()->player()->isActive());
        QCOMPARE(w.model()->axisMinimumBytes(), 0ull);
        QVERIFY(!w.lessons()->captionBar()->isVisible());
    }

    // The Lessons menu exports the open lesson as a deck: one PDF (every step and the closing
    // comparison), or one PNG per page, numbered; only while a lesson is open.
    void exportsTheLessonDeck()
    {
        MainWindow w;
        QVERIFY(!w.lessons()->exportDeckAction()->isEnabled());
        QVERIFY(!w.lessons()->exportDeck(m_dir.filePath(QStringLiteral("none.pdf"))));
        w.lessons()->openBuiltin(QStringLiteral("ladder"));
        QVERIFY(w.lessons()->exportDeckAction()->isEnabled());
        QSettings().setValue(QStringLiteral("export/size"), QSize(640, 360));
        const Lesson &lesson = w.lessons()->player()->lesson();
        const int pages = int(lesson.steps.size()) + 1; // the ladder asks for its comparison
        QString reported;
        w.lessons()->setMessageHandler([&](const QString &text) { reported = text; });
        const QString pdf = m_dir.filePath(QStringLiteral("deck.pdf"));
        QVERIFY2(w.lessons()->exportDeck(pdf), qPrintable(reported));
        QFile file(pdf);
        QVERIFY(file.open(QIODevice::ReadOnly));
        static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?!s)"));
        QCOMPARE(int(QString::fromLatin1(file.readAll()).count(page)), pages);
        QVERIFY2(w.lessons()->exportDeck(m_dir.filePath(QStringLiteral("deck.png"))), qPrintable(reported));
        for (int i = 1; i <= pages; ++i)
            QVERIFY2(!QImage(m_dir.filePath(QStringLiteral("deck-%1.png").arg(i, 2, 10, QLatin1Char('0')))).isNull(),
                     qPrintable(QString::number(i)));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("deck-%1.png").arg(pages + 1, 2, 10, QLatin1Char('0')))));
        // A name without a known extension is refused with a message, nothing written.
        QVERIFY(!w.lessons()->exportDeck(m_dir.filePath(QStringLiteral("deck.txt"))));
        QVERIFY(reported.contains(QLatin1String(".pdf")));
        QCOMPARE(lessonDeckPagePath(QStringLiteral("/a/b.png"), 11, 12), QStringLiteral("/a/b-12.png"));
    }

    // Screenshots to look at (HEADROOM_SHOTS=folder): the ladder's last step, the export dialog
    // and Help > Keyboard shortcuts. Skipped otherwise.
    void screenshots()
    {
        const QString folder = qEnvironmentVariable("HEADROOM_SHOTS");
        if (folder.isEmpty())
            QSKIP("set HEADROOM_SHOTS to a folder to write screenshots");
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        w.lessons()->openBuiltin(QStringLiteral("ladder"));
        w.lessons()->player()->goTo(5);
        QTest::qWait(200);
        QVERIFY(w.grab().save(folder + QStringLiteral("/window-ladder-last.png")));
        w.lessons()->player()->goTo(3);
        QTest::qWait(100);
        QVERIFY(w.grab().save(folder + QStringLiteral("/window-ladder-qlora.png")));
    }

    // Issue 22: the user's target GPU survives opening a lesson step, unless the step is about a
    // GPU (its scenario names target_gpu, or its set changes gpus or target_gpu).
    // Every step says its verdict on the target GPU under the caption, with the estimate's band,
    // as the status bar does: here the first step fits the RTX 4090 and the second does not.
    void theCaptionCarriesTheStepsVerdict()
    {
        const QString path = write("verdict.json", R"({"format": "headroom-lesson", "version": 1, "title": "Verdict",
            "steps": [{"title": "One", "caption": "Small.",
                       "scenario": {"format": "headroom-scenario", "version": 1, "gpus": ["rtx-4090"],
                                    "model": {"preset": "gpt2"}, "train": {"micro_batch": 1, "seq_len": 512}}},
                      {"title": "Two", "caption": "Large.", "set": {"model.preset": "llama-2-7b", "train.seq_len": 4096}}]})");
        MainWindow w;
        w.model()->apply(QStringLiteral("none"), [](Scenario &s) { s.targetGpu.clear(); });
        QVERIFY(w.lessons()->openFile(path));
        const std::uint64_t capacity = builtinCatalog().findGpu("rtx-4090")->capacityBytes();
        for (int step = 0; step < 2; ++step) {
            QVERIFY(w.lessons()->player()->goTo(step));
            const Estimate e = estimate(w.model()->scenario());
            const QString text = w.lessons()->captionLabel()->text();
            QVERIFY2(text.contains(QStringLiteral("\nVerdict: ")), qPrintable(text));
            const std::uint64_t peak = e.peak.deviceBytes;
            const QString margin = bytesText(peak <= capacity ? capacity - peak : peak - capacity, w.model()->unit());
            QCOMPARE(peak <= capacity, step == 0);
            QVERIFY2(text.contains(step == 0 ? QStringLiteral("fits RTX 4090 with %1 to spare").arg(margin)
                                             : QStringLiteral("does not fit RTX 4090 by %1").arg(margin)),
                     qPrintable(text));
        }
    }

    void theTargetGpuSurvivesALessonStep()
    {
        const QString path = write("gpus.json", R"({"format": "headroom-lesson", "version": 1, "title": "GPUs",
            "steps": [{"title": "One", "caption": "Peak {peak}.",
                       "scenario": {"format": "headroom-scenario", "version": 1, "gpus": ["t4", "a100-80gb"]}},
                      {"title": "Two", "caption": "Batch 4.", "set": {"train.micro_batch": 4}},
                      {"title": "Three", "caption": "On the A100.", "set": {"target_gpu": "a100-80gb"}},
                      {"title": "Four", "caption": "Batch 8.", "set": {"train.micro_batch": 8}}]})");
        MainWindow w;
        w.model()->apply(QStringLiteral("mine"), [](Scenario &s) {
            s.gpus = {"rtx-4090", "a100-80gb"};
            s.targetGpu = "rtx-4090";
        });
        QVERIFY(w.lessons()->openFile(path));
        const Lesson &lesson = w.lessons()->player()->lesson();
        QCOMPARE(lesson.steps.size(), std::size_t(4));
        QVERIFY(!lesson.steps[0].choosesGpu && !lesson.steps[1].choosesGpu);
        QVERIFY(lesson.steps[2].choosesGpu && lesson.steps[3].choosesGpu); // four keeps three's target_gpu
        // Step one: the lesson's GPUs, the user's RTX 4090 ticked after them and the target.
        QCOMPARE(w.model()->scenario().targetGpu, std::string("rtx-4090"));
        QCOMPARE(w.model()->scenario().gpus, (std::vector<std::string>{"t4", "a100-80gb", "rtx-4090"}));
        QVERIFY(!w.lessons()->player()->isModified());
        // Everything else is the step's own.
        Scenario own = w.model()->scenario();
        own.gpus = lesson.steps[0].scenario.gpus;
        own.targetGpu.clear();
        QVERIFY(own == lesson.steps[0].scenario);
        QCOMPARE(captionOf(w),
                 QString::fromStdString(expandCaption(lesson.steps[0].caption, estimate(w.model()->scenario()), w.model()->unit())));
        QVERIFY(w.lessons()->player()->next());
        QCOMPARE(w.model()->scenario().targetGpu, std::string("rtx-4090"));
        QCOMPARE(w.model()->scenario().train.microBatch, 4u);
        // Step three is about the A100: it wins, and so in step four, which keeps it.
        QVERIFY(w.lessons()->player()->next());
        QCOMPARE(w.model()->scenario().targetGpu, std::string("a100-80gb"));
        QVERIFY(w.lessons()->player()->next());
        QCOMPARE(w.model()->scenario().targetGpu, std::string("a100-80gb"));
        // Back to step two: the user's GPU again.
        QVERIFY(w.lessons()->player()->goTo(1));
        QCOMPARE(w.model()->scenario().targetGpu, std::string("rtx-4090"));
        // A GPU the user picks during the lesson is kept by the next step.
        w.model()->apply(QStringLiteral("h100"), [](Scenario &s) {
            s.gpus.push_back("h100-80gb");
            s.targetGpu = "h100-80gb";
        });
        QVERIFY(w.lessons()->player()->previous());
        QCOMPARE(w.model()->scenario().targetGpu, std::string("h100-80gb"));
        QVERIFY(std::find(w.model()->scenario().gpus.begin(), w.model()->scenario().gpus.end(), "h100-80gb") !=
                w.model()->scenario().gpus.end());
        // Without a target of the user's, the step is shown as written.
        MainWindow fresh;
        fresh.model()->apply(QStringLiteral("none"), [](Scenario &s) { s.targetGpu.clear(); });
        QVERIFY(fresh.lessons()->openFile(path));
        QVERIFY(fresh.model()->scenario() == fresh.lessons()->player()->lesson().steps[0].scenario);
    }

    void usersOwnLessonFile()
    {
        const QString path = write("mine.json", R"({"format": "headroom-lesson", "version": 1, "title": "Mine",
            "steps": [{"title": "One", "caption": "Batch 2.",
                       "scenario": {"format": "headroom-scenario", "version": 1, "train": {"micro_batch": 2}}},
                      {"title": "Two", "caption": "Batch 4.", "set": {"train.micro_batch": 4}}]})");
        MainWindow w;
        QVERIFY(w.lessons()->openFile(path));
        QCOMPARE(w.model()->scenario().train.microBatch, 2u);
        QCOMPARE(w.lessons()->player()->counterText(), QStringLiteral("1 / 2"));
        QVERIFY(w.lessons()->player()->next());
        QCOMPARE(w.model()->scenario().train.microBatch, 4u);
    }

    void badLessonFileKeepsTheScreenAndNamesTheKey_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("key");
        const QByteArray head = R"({"format": "headroom-lesson", "version": 1, "title": "Bad", "steps": [
            {"title": "One", "caption": "c", "scenario": {"format": "headroom-scenario", "version": 1}},)";
        QTest::newRow("unknown-set-key") << head + R"({"title": "Two", "caption": "c", "set": {"train.micro_batc": 4}}]})"
                                         << QStringLiteral("steps[1].set");
        QTest::newRow("missing-caption") << head + R"({"title": "Two", "set": {"train.micro_batch": 4}}]})"
                                         << QStringLiteral("steps[1].caption");
        QTest::newRow("bad-value") << head + R"({"title": "Two", "caption": "c", "set": {"train.micro_batch": -1}}]})"
                                   << QStringLiteral("train.micro_batch");
        QTest::newRow("not-json") << QByteArray("{ nope") << QStringLiteral("line 1");
    }

    void badLessonFileKeepsTheScreenAndNamesTheKey()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, key);
        const QString path = write("bad.json", content);
        MainWindow w;
        w.show();
        w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 3; });
        const Scenario before = w.model()->scenario();
        const int undoCount = w.model()->undoStack()->count();
        QStringList messages;
        w.lessons()->setMessageHandler([&](const QString &text) { messages << text; });
        QVERIFY(!w.lessons()->openFile(path));
        QCOMPARE(messages.size(), 1);
        QVERIFY2(messages.first().contains(key), qPrintable(messages.first()));
        QVERIFY(messages.first().contains(QLatin1String("bad.json")));
        QVERIFY(w.model()->scenario() == before);
        QCOMPARE(w.model()->undoStack()->count(), undoCount);
        QVERIFY(!w.lessons()->player()->isActive());
        QVERIFY(!w.lessons()->captionBar()->isVisible());
    }
};

QTEST_MAIN(TestLessonUi)
#include "tst_lessonui.moc"
