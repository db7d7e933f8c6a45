// SPDX-License-Identifier: GPL-3.0-or-later
// Settings written by another version, or damaged, never stop the window from opening: the
// broken key is reset to its default and the window says which.
#include "controls/usergpus.h"
#include "document/documentcontroller.h"
#include "document/preferences.h"
#include "document/scenariomodel.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include <QFile>
#include <QSettings>
#include <QStatusBar>
#include <QtTest>

using namespace headroom;

class TestPreferences : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_preferences"); }
    void init()
    {
        QSettings().clear();
        resetPreferences().clear();
    }

    void brokenValuesAreResetAndNamed_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QVariant>("value");
        QTest::newRow("unit-from-a-newer-version") << QStringLiteral("display/unit") << QVariant(QStringLiteral("TB"));
        QTest::newRow("view-unknown") << QStringLiteral("display/view") << QVariant(QStringLiteral("waterfall"));
        QTest::newRow("dark-not-a-bool") << QStringLiteral("display/dark") << QVariant(QStringLiteral("maybe"));
        QTest::newRow("capacity-not-a-number") << QStringLiteral("display/customCapacityBytes") << QVariant(QStringLiteral("lots"));
        QTest::newRow("capacity-nan") << QStringLiteral("display/customCapacityBytes") << QVariant(std::nan(""));
        QTest::newRow("capacity-past-2^64") << QStringLiteral("display/customCapacityBytes") << QVariant(1e300);
        QTest::newRow("capacity-negative") << QStringLiteral("display/customCapacityBytes") << QVariant(-5.0);
        QTest::newRow("scenario-not-json") << QStringLiteral("session/scenario") << QVariant(QStringLiteral("{\"format\": "));
        QTest::newRow("scenario-newer-version")
            << QStringLiteral("session/scenario")
            << QVariant(QStringLiteral(R"({"format":"headroom-scenario","version":2})"));
        QTest::newRow("scenario-deep") << QStringLiteral("session/scenario")
                                       << QVariant(QStringLiteral("{\"format\":\"headroom-scenario\",\"version\":1,\"name\":") +
                                                   QString(50000, QLatin1Char('[')) + QString(50000, QLatin1Char(']')) + QLatin1Char('}'));
        QTest::newRow("scenario-too-large") << QStringLiteral("session/scenario") << QVariant(QString(2 * 1024 * 1024, QLatin1Char(' ')));
        QTest::newRow("geometry-garbage") << QStringLiteral("window/geometry") << QVariant(QByteArray("not a geometry"));
        QTest::newRow("splitters-garbage") << QStringLiteral("window/splitters") << QVariant(QByteArray("\x01\x02\x03"));
        QTest::newRow("user-gpus-not-json") << QStringLiteral("gpus/user") << QVariant(QByteArray("[{"));
        QTest::newRow("user-gpus-huge-bytes") << QStringLiteral("gpus/user")
                                              << QVariant(QByteArray(R"([{"name":"big","bytes":1e300}])"));
        QTest::newRow("user-gpus-object") << QStringLiteral("gpus/user") << QVariant(QByteArray(R"({"name":"x"})"));
        QTest::newRow("recent-files-too-many") << QStringLiteral("files/recent") << QVariant(QStringList(100, QStringLiteral("/x")));
    }
    void brokenValuesAreResetAndNamed()
    {
        QFETCH(QString, key);
        QFETCH(QVariant, value);
        QSettings().setValue(key, value);
        MainWindow window;
        window.document()->setRestoreQuestion([](const QString &) { return QMessageBox::No; });
        QVERIFY2(window.statusBar()->currentMessage().contains(key), qPrintable(window.statusBar()->currentMessage()));
        // The window works with the default in place of the broken value.
        QVERIFY(window.model()->estimateError().isEmpty());
        if (key != QLatin1String("gpus/user") && key != QLatin1String("files/recent")) {
            QVERIFY(!QSettings().contains(key));
        }
        QCOMPARE(window.model()->customCapacityBytes(), std::uint64_t(0));
    }

    void usableGpusSurviveADamagedList()
    {
        QSettings().setValue(QStringLiteral("gpus/user"),
                             QByteArray(R"([{"name":"Mine","bytes":24000000000},{"name":"","bytes":1},{"name":"x","bytes":-1}])"));
        const std::vector<UserGpu> gpus = loadUserGpus();
        QCOMPARE(gpus.size(), std::size_t(1));
        QCOMPARE(gpus[0].name, QStringLiteral("Mine"));
        QCOMPARE(gpus[0].bytes, 24000000000ull);
        QVERIFY(resetPreferences().contains(QStringLiteral("gpus/user")));
        // The list is written back without the damage.
        resetPreferences().clear();
        QCOMPARE(loadUserGpus().size(), std::size_t(1));
        QVERIFY(resetPreferences().isEmpty());
    }

    void goodValuesAreKept()
    {
        QSettings().setValue(QStringLiteral("display/unit"), QStringLiteral("GiB"));
        QSettings().setValue(QStringLiteral("display/dark"), true);
        QSettings().setValue(QStringLiteral("display/customCapacityBytes"), 24e9);
        MainWindow window;
        window.document()->setRestoreQuestion([](const QString &) { return QMessageBox::No; });
        QCOMPARE(window.model()->unit(), Unit::GiB);
        QVERIFY(window.model()->dark());
        QCOMPARE(window.model()->customCapacityBytes(), 24000000000ull);
        QVERIFY(window.statusBar()->currentMessage().isEmpty());
    }

    void aDamagedSettingsFileStillOpens()
    {
        QSettings settings;
        settings.setValue(QStringLiteral("display/unit"), QStringLiteral("GB"));
        settings.sync();
        const QString path = settings.fileName();
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray("\x00\xff[display\n unit=\x1b\x01\x02\n[[[\n=\n", 24) + QByteArray(10000, '\xfe'));
        file.close();
        MainWindow window;
        window.document()->setRestoreQuestion([](const QString &) { return QMessageBox::No; });
        QVERIFY(window.model()->estimateError().isEmpty());
        QCOMPARE(window.model()->unit(), Unit::GiB);
    }
};

QTEST_MAIN(TestPreferences)
#include "tst_preferences.moc"
