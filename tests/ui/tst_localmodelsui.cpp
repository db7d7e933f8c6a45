// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22 in the window: File > Models on this computer lists a fake Hugging Face hub cache
// (HF_HUB_CACHE, built here: blobs with symlinked snapshots and an interrupted download), opens
// one with Enter as File > Import model would, and the window's title names it as the command
// line does.
#include "document/documentcontroller.h"
#include "document/documentio.h"
#include "document/localmodelsdialog.h"
#include "document/scenariomodel.h"
#include "processutil.h"
#include "scenario/scenariotitle.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

bool copyTo(const QString &from, const QString &to)
{
    QDir().mkpath(QFileInfo(to).absolutePath());
    return QFile::copy(from, to);
}

} // namespace

class TestLocalModelsUi : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        test::isolateSettings("tst_localmodelsui");
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        const QString cache = m_dir.filePath(QStringLiteral("hub"));
        const QString opt = cache + QStringLiteral("/models--facebook--opt-125m");
        QVERIFY(copyTo(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/opt-125m.json"),
                       opt + QStringLiteral("/blobs/f1")));
        QVERIFY(QDir().mkpath(opt + QStringLiteral("/snapshots/27dcfa74d334bc871f3234de431e71c6eeba5dd6")));
        QVERIFY(QFile::link(QStringLiteral("../../blobs/f1"),
                            opt + QStringLiteral("/snapshots/27dcfa74d334bc871f3234de431e71c6eeba5dd6/config.json")));
        // Listed first (by name), and greyed: its config.json never arrived.
        QVERIFY(QDir().mkpath(cache + QStringLiteral("/models--aaa--Broken/snapshots/1")));
        QVERIFY(QFile::link(QStringLiteral("../../blobs/none"),
                            cache + QStringLiteral("/models--aaa--Broken/snapshots/1/config.json")));
        qputenv("HF_HUB_CACHE", QFile::encodeName(cache));
    }

    void opensOneWithEnter()
    {
        MainWindow window;
        window.document()->setMessageHandler([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(test::showActive(window));
        QAction *action = window.findChild<QAction *>(QStringLiteral("localModelsAction"));
        QVERIFY(action);
        action->trigger();
        auto *dialog = window.findChild<LocalModelsDialog *>();
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        QTreeWidget *list = dialog->list();
        QCOMPARE(list->topLevelItemCount(), 2);
        const QTreeWidgetItem *broken = list->topLevelItem(0);
        QVERIFY(!(broken->flags() & Qt::ItemIsEnabled));
        QCOMPARE(broken->text(0), QStringLiteral("Broken"));
        QVERIFY2(broken->text(6).contains(QStringLiteral("not there")), qPrintable(broken->text(6)));
        // The first model that opens is current: the keyboard alone opens it.
        const QTreeWidgetItem *opt = list->topLevelItem(1);
        QCOMPARE(list->currentItem(), opt);
        QCOMPARE(opt->text(0), QStringLiteral("opt-125m"));
        QCOMPARE(opt->text(1), QStringLiteral("125,239,296")); // facebook/opt-125m, HF num_parameters
        QCOMPARE(opt->text(2), QStringLiteral("float16"));    // its torch_dtype
        QCOMPARE(opt->text(4), QStringLiteral("27dcfa74d334"));
        QCOMPARE(opt->text(5), QStringLiteral("facebook/opt-125m"));

        // With HEADROOM_SHOTS=DIR the dialog is saved there as a PNG, to look at.
        if (qEnvironmentVariableIsSet("HEADROOM_SHOTS"))
            dialog->grab().save(QDir(qEnvironmentVariable("HEADROOM_SHOTS")).filePath(QStringLiteral("local-models.png")));
        const int undoBefore = window.model()->undoStack()->count();
        list->setFocus();
        QTest::keyClick(list, Qt::Key_Return);
        QCoreApplication::processEvents();
        // The model fields are config.json's (opt-125m: 12 layers of 768, 12 heads, vocab 50272).
        const ModelArch &arch = window.model()->scenario().model;
        QCOMPARE(arch.name, std::string("opt-125m"));
        QCOMPARE(arch.layers, 12);
        QCOMPARE(arch.hidden, 768);
        QCOMPARE(arch.heads, 12);
        QCOMPARE(arch.vocab, 50272);
        QVERIFY(arch.preset.empty());
        QCOMPARE(window.model()->undoStack()->count(), undoBefore + 1);
        QVERIFY(!dialog->isVisible()); // opening closes it

        // Saved, the name travels in model.name; the command line's title is the window's.
        const QString path = m_dir.filePath(QStringLiteral("opt.headroom.json"));
        QVERIFY(window.document()->saveAs(path));
        const ScenarioDocument reopened = readDocumentFile(path);
        QCOMPARE(reopened.current.model.name, std::string("opt-125m"));
        const std::string title = scenarioTitle(window.model()->scenario());
        QVERIFY2(title.rfind("opt-125m \u00b7 ", 0) == 0, title.c_str());
        const test::Run run = test::runHeadroom({QStringLiteral("estimate"), path});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QString::fromStdString(title)), qPrintable(run.out));

        // Undo gives the model back.
        window.model()->undoStack()->undo();
        QVERIFY(window.model()->scenario().model.name.empty());
        window.document()->setSaveQuestion([] { return QMessageBox::Discard; });
        window.close();
    }
};

QTEST_MAIN(TestLocalModelsUi)
#include "tst_localmodelsui.moc"
