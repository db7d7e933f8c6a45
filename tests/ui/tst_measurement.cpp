// SPDX-License-Identifier: GPL-3.0-or-later
// A measured peak typed or pasted by the user, and its comparison with the estimate.
#include "controls/measurement.h"
#include "scenario/scenariojson.h"

#include <QtTest>

using namespace headroom;

class TestMeasurement : public QObject
{
    Q_OBJECT
private slots:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("unit"); // 0 GB, 1 GiB
        QTest::addColumn<qulonglong>("bytes"); // 0: rejected
        QTest::newRow("torch-bytes") << QStringLiteral("22873276416") << 0 << 22'873'276'416ull;
        QTest::newRow("decimal-gb") << QStringLiteral("21.3 GB") << 1 << 21'300'000'000ull;
        QTest::newRow("binary-gib") << QStringLiteral("20GiB") << 0 << 20ull * 1073741824;
        QTest::newRow("mib") << QStringLiteral("24564 MiB") << 0 << 24564ull * 1048576;
        QTest::newRow("bare-in-gb") << QStringLiteral("12.5") << 0 << 12'500'000'000ull;
        QTest::newRow("bare-in-gib") << QStringLiteral("12.5") << 1 << 12ull * 1073741824 + 536870912;
        QTest::newRow("comma-decimal") << QStringLiteral("12,5 GB") << 0 << 12'500'000'000ull;
        QTest::newRow("explicit-bytes") << QStringLiteral("1000 B") << 0 << 1000ull;

        QTest::newRow("negative") << QStringLiteral("-5 GB") << 0 << 0ull;
        QTest::newRow("zero") << QStringLiteral("0") << 0 << 0ull;
        QTest::newRow("words") << QStringLiteral("lots") << 0 << 0ull;
        QTest::newRow("nan") << QStringLiteral("nan") << 0 << 0ull;
        QTest::newRow("huge") << QStringLiteral("1e30 GB") << 0 << 0ull;
        // Past 2^63 llround overflowed (to 2^63, or worse); exact up to the last double below 2^64.
        QTest::newRow("past-2^63") << QStringLiteral("12000000000 GB") << 0 << 12000000000000000000ull;
        QTest::newRow("just-below-2^64") << QStringLiteral("18446744073709549568 B") << 0
                                         << 18446744073709549568ull;
        QTest::newRow("2^64") << QStringLiteral("18446744073709551616 B") << 0 << 0ull;
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(int, unit);
        QFETCH(qulonglong, bytes);
        const auto parsed = parseMemoryText(text, unit ? Unit::GiB : Unit::GB);
        if (bytes == 0) {
            QVERIFY(!parsed);
        } else {
            QVERIFY(parsed);
            QCOMPARE(qulonglong(*parsed), bytes);
        }
    }

    void comparesTheSameReadingKind()
    {
        Estimate e;
        e.peak.allocatedBytes = 21'000'000'000;
        e.peak.reservedBytes = 22'000'000'000;
        e.peak.deviceBytes = 23'000'000'000;
        e.errorBandPercent = 12;
        e.errorBands = {ErrorBand{"lora", "allocated", 12, 9}};
        // (21 - 20) / 20 = +5.0% for the allocated reading.
        const QString text = compareText(e, Measurement{20'000'000'000, Reading::Allocated}, Unit::GB);
        QVERIFY2(text.contains(QLatin1String("+5.0%")), qPrintable(text));
        QVERIFY(text.contains(QLatin1String("22.00 GB")));
        QVERIFY(text.contains(QLatin1String("12%")));
        QVERIFY2(text.contains(QLatin1String("9 runs first seen blind")), qPrintable(text));
        // (23 - 25) / 25 = -8.0% for nvidia-smi.
        const QString device = compareText(e, Measurement{25'000'000'000, Reading::Device}, Unit::GB);
        QVERIFY2(device.contains(QLatin1String("-8.0%")), qPrintable(device));
    }
};

QTEST_GUILESS_MAIN(TestMeasurement)
#include "tst_measurement.moc"
