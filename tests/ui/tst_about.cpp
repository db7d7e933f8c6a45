// SPDX-License-Identifier: GPL-3.0-or-later
// Help > About and `headroom --version` say the same: the version, the Qt it runs on, the
// licence and the Qt Charts GPL notice.
#include "processutil.h"
#include "uitestutil.h"
#include "window/aboutdialog.h"
#include "window/mainwindow.h"

#include <QApplication>
#include <QMenuBar>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QtTest>

using namespace headroom;

class TestAbout : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_about"); }

    void dialogSaysWhatVersionPrints_data()
    {
        QTest::addColumn<QString>("fact");
        const test::Run version = test::runHeadroom({QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        const QStringList lines = version.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines.size() >= 4, qPrintable(version.out));
        for (qsizetype i = 0; i < lines.size(); ++i)
            QTest::addRow("line-%lld", qlonglong(i + 1)) << lines.at(i);
    }

    void dialogSaysWhatVersionPrints()
    {
        QFETCH(QString, fact);
        const AboutDialog dialog;
        const QString shown = QTextDocumentFragment::fromHtml(dialog.text()).toPlainText();
        QVERIFY2(shown.contains(fact), qPrintable(shown + QLatin1String("\n---\n") + fact));
    }

    void versionNamesTheFacts_data()
    {
        QTest::addColumn<QString>("fact");
        QTest::newRow("version") << QStringLiteral("Headroom " HEADROOM_VERSION);
        QTest::newRow("qt-at-run-time") << QStringLiteral("Qt %1").arg(QLatin1String(qVersion()));
        QTest::newRow("licence") << QStringLiteral("GPL-3.0-or-later");
        QTest::newRow("qt-charts-notice") << QStringLiteral("Qt Charts is used under the GNU General Public License version 3");
    }

    void versionNamesTheFacts()
    {
        QFETCH(QString, fact);
        const test::Run version = test::runHeadroom({QStringLiteral("--version")});
        QVERIFY2(version.out.contains(fact), qPrintable(version.out));
    }

    void helpMenuOpensIt()
    {
        MainWindow window;
        QAction *about = nullptr;
        for (QAction *menu : window.menuBar()->actions())
            if (menu->menu() && menu->text() == QLatin1String("&Help"))
                for (QAction *action : menu->menu()->actions())
                    if (action->text() == QLatin1String("&About Headroom"))
                        about = action;
        QVERIFY(about);
        // The dialog is modal: close it as soon as it shows, and check it was this one.
        QString title;
        QTimer::singleShot(0, &window, [&title] {
            if (auto *dialog = qobject_cast<AboutDialog *>(QApplication::activeModalWidget())) {
                title = dialog->windowTitle();
                dialog->accept();
            }
        });
        about->trigger();
        QCOMPARE(title, QStringLiteral("About Headroom"));
    }
};

QTEST_MAIN(TestAbout)
#include "tst_about.moc"
