// SPDX-License-Identifier: GPL-3.0-or-later
// Nothing lost on a crash: the window keeps its unsaved scenario and pins in the application's
// data folder, and the next start offers them back. Most cases reproduce a crash in-process (the
// autosave file copied aside before the window ends and put back); one runs a real window in a
// child process (this executable, started again) and kills it with SIGKILL, lock file and all.
#include "document/autosave.h"
#include "document/documentcontroller.h"
#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "testutil.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include <QApplication>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace headroom;

namespace {

/// A window that never asks modal questions; `restore` answers the restore question.
struct QuietWindow
{
    explicit QuietWindow(QMessageBox::StandardButton restore = QMessageBox::No)
    {
        window.document()->setMessageHandler([this](const QString &text) { reports << text; });
        window.document()->setSaveQuestion([] { return QMessageBox::Discard; });
        window.document()->setRestoreQuestion([this, restore](const QString &text) {
            questions << text;
            return restore;
        });
        window.document()->autosave()->setDelay(0);
    }
    MainWindow window;
    QStringList reports;
    QStringList questions;
};

/// Edits the scenario and pins one, as a user would, and waits for the autosave.
void editAndWait(MainWindow &window)
{
    window.model()->apply(QStringLiteral("micro-batch"), [](Scenario &s) { s.train.microBatch = 7; });
    window.model()->pinCurrent();
    window.model()->apply(QStringLiteral("sequence"), [](Scenario &s) { s.train.seqLen = 1234; });
}

/// Leaves the autosave file as a crashed session would: copied aside, the window ended, put back.
QByteArray crash(QuietWindow *quiet)
{
    QFile file(Autosave::filePath());
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = file.readAll();
    file.close();
    delete quiet;
    QFile back(Autosave::filePath());
    if (back.open(QIODevice::WriteOnly))
        back.write(bytes);
    return bytes;
}

/// Set in the child that aKilledWindowIsOfferedBack starts.
constexpr char kChildVariable[] = "TST_AUTOSAVE_KILLED_CHILD";

/// The child: a window with unsaved edits and a pin, written to the autosave, then SIGKILL.
[[noreturn]] void runKilledChild()
{
    auto *quiet = new QuietWindow; // never destroyed: the process is killed with it open
    editAndWait(quiet->window);
    if (!QTest::qWaitFor([] { return QFile::exists(Autosave::filePath()); }, 30000))
        std::exit(3);
    std::fputs("written\n", stdout);
    std::fflush(stdout);
    ::kill(::getpid(), SIGKILL);
    std::abort(); // not reached
}

} // namespace

class TestAutosave : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_autosave"); }
    void init() { QFile::remove(Autosave::filePath()); }

    void unsavedChangesAreWrittenAtomicallyAsTheyAre()
    {
        QuietWindow quiet;
        QVERIFY(quiet.window.document()->autosave()->active());
        QVERIFY(!QFile::exists(Autosave::filePath())); // nothing unsaved yet
        editAndWait(quiet.window);
        QTRY_VERIFY(QFile::exists(Autosave::filePath()));
        QFile file(Autosave::filePath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const AutosaveRecord record = autosaveFromJson(file.readAll());
        QCOMPARE(record.document, documentOf(*quiet.window.model()));
        QCOMPARE(record.document.current.train.seqLen, 1234u);
        QCOMPARE(record.document.pins.size(), std::size_t(1));
        QCOMPARE(record.document.pins[0].train.microBatch, 7u);
        QVERIFY(record.file.isEmpty());
    }

    void savingOrUndoingEverythingRemovesIt()
    {
        QTemporaryDir dir;
        QuietWindow quiet;
        quiet.window.model()->apply(QStringLiteral("micro-batch"), [](Scenario &s) { s.train.microBatch = 5; });
        QTRY_VERIFY(QFile::exists(Autosave::filePath()));
        quiet.window.model()->undoStack()->undo();
        QTRY_VERIFY(!QFile::exists(Autosave::filePath()));
        quiet.window.model()->undoStack()->redo();
        QTRY_VERIFY(QFile::exists(Autosave::filePath()));
        QVERIFY(quiet.window.document()->saveAs(dir.filePath(QStringLiteral("saved.headroom.json"))));
        QTRY_VERIFY(!QFile::exists(Autosave::filePath()));
    }

    void aCrashedSessionIsOfferedBackWithItsPins()
    {
        auto *first = new QuietWindow;
        editAndWait(first->window);
        QTRY_VERIFY(QFile::exists(Autosave::filePath()));
        const ScenarioDocument lost = documentOf(*first->window.model());
        QVERIFY(!crash(first).isEmpty());

        QuietWindow second(QMessageBox::Yes);
        QTRY_COMPARE(second.questions.size(), 1);
        QVERIFY2(second.questions[0].contains(QLatin1String("1 pinned")), qPrintable(second.questions[0]));
        QCOMPARE(documentOf(*second.window.model()), lost);
        // Restored, still unsaved: one undo step away from what the window had, and kept again.
        QVERIFY(second.window.document()->isModified());
        QVERIFY(second.window.model()->undoStack()->canUndo());
        QTRY_VERIFY(QFile::exists(Autosave::filePath()));
    }

    void aKilledWindowIsOfferedBack()
    {
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromLatin1(kChildVariable), QStringLiteral("1"));
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(), {});
        QVERIFY(child.waitForFinished(120000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        QCOMPARE(child.readAllStandardOutput(), QByteArray("written\n"));
        // What kill -9 leaves: the autosave and the lock of a process that no longer exists.
        QVERIFY(QFile::exists(Autosave::filePath()));
        QVERIFY(QFile::exists(QFileInfo(Autosave::filePath()).dir().filePath(QStringLiteral("autosave.lock"))));

        QuietWindow second(QMessageBox::Yes);
        QVERIFY(second.window.document()->autosave()->active()); // the dead lock was taken over
        QTRY_COMPARE(second.questions.size(), 1);
        QVERIFY2(second.questions[0].contains(QLatin1String("1 pinned")), qPrintable(second.questions[0]));
        QCOMPARE(second.window.model()->scenario().train.seqLen, 1234u);
        QCOMPARE(second.window.model()->pins().size(), std::size_t(1));
        QCOMPARE(second.window.model()->pins()[0].scenario.train.microBatch, 7u);
    }

    void decliningForgetsIt()
    {
        auto *first = new QuietWindow;
        editAndWait(first->window);
        QTRY_VERIFY(QFile::exists(Autosave::filePath()));
        crash(first);
        QuietWindow second(QMessageBox::No);
        QTRY_COMPARE(second.questions.size(), 1);
        QVERIFY(!QFile::exists(Autosave::filePath()));
        QCOMPARE(second.window.model()->pins().size(), std::size_t(0));
    }

    void aSecondWindowNeitherWritesNorOffers()
    {
        QuietWindow first;
        editAndWait(first.window);
        QTRY_VERIFY(QFile::exists(Autosave::filePath()));
        QuietWindow second(QMessageBox::Yes);
        QVERIFY(!second.window.document()->autosave()->active());
        QCoreApplication::processEvents();
        QCOMPARE(second.questions.size(), 0);
        second.window.model()->apply(QStringLiteral("x"), [](Scenario &s) { s.train.microBatch = 3; });
        QCoreApplication::processEvents();
        QFile file(Autosave::filePath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(autosaveFromJson(file.readAll()).document.current.train.seqLen, 1234u);
    }

    void aDamagedAutosaveIsDroppedAndSaidSo_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("not-json") << QByteArray("{\"format\": ");
        QTest::newRow("deep") << "{\"format\":\"headroom-autosave\",\"version\":1,\"file\":\"\",\"document\":" +
                                     QByteArray(5000, '[') + QByteArray(5000, ']') + "}";
        QTest::newRow("newer-version") << QByteArray(R"({"format":"headroom-autosave","version":2,"file":"","document":{}})");
        QTest::newRow("bad-scenario") << QByteArray(R"({"format":"headroom-autosave","version":1,"file":"","document":{"format":"headroom-scenario","version":1,"train":{"micro_batch":0}}})");
        QTest::newRow("too-large") << QByteArray(int(limits::kDocumentBytes) + 10, ' ');
    }
    void aDamagedAutosaveIsDroppedAndSaidSo()
    {
        QFETCH(QByteArray, content);
        QVERIFY(QDir().mkpath(QFileInfo(Autosave::filePath()).absolutePath()));
        QFile file(Autosave::filePath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        QuietWindow quiet(QMessageBox::Yes);
        QTRY_VERIFY(!QFile::exists(Autosave::filePath()));
        QCOMPARE(quiet.questions.size(), 0);
        QVERIFY2(quiet.window.statusBar()->currentMessage().contains(QLatin1String("could not be read")),
                 qPrintable(quiet.window.statusBar()->currentMessage()));
    }

    void anOpenedFileIsNamedAndRestoredAsThatFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("mine.headroom.json"));
        QVERIFY(writeDocumentFile(path, {Scenario{}, {}}).isEmpty());
        auto *first = new QuietWindow;
        QVERIFY(first->window.document()->openFile(path));
        first->window.model()->apply(QStringLiteral("x"), [](Scenario &s) { s.train.microBatch = 9; });
        QTRY_VERIFY(QFile::exists(Autosave::filePath()));
        crash(first);
        QuietWindow second(QMessageBox::Yes);
        QTRY_COMPARE(second.questions.size(), 1);
        QVERIFY(second.questions[0].contains(QLatin1String("mine.headroom.json")));
        QCOMPARE(second.window.document()->filePath(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(second.window.model()->scenario().train.microBatch, 9u);
        QVERIFY(second.window.document()->isModified());
    }
};

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    if (qEnvironmentVariableIsSet(kChildVariable)) {
        test::isolateSettings("tst_autosave");
        runKilledChild();
    }
    TestAutosave test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_autosave.moc"
