// SPDX-License-Identifier: GPL-3.0-or-later
// One unit story: with GiB chosen (the default) every byte figure the window, the status bar, the
// table, the tooltips, the axis, the exports, a lesson caption and the command line print is
// binary; with GB every one is decimal. Capacities read as the card's name says (80 GiB).
#include "processutil.h"
#include "testutil.h"
#include "uitestutil.h"

#include "advicetext.h"
#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/chartexport.h"
#include "classroom/advisorview.h"
#include "classroom/lessoncontroller.h"
#include "classroom/lessonplayer.h"
#include "controls/controlpanel.h"
#include "document/documentcontroller.h"
#include "displaytext.h"
#include "document/scenariomodel.h"
#include "window/breakdownview.h"
#include "window/mainwindow.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QChart>
#include <QLabel>
#include <QMessageBox>
#include <QListWidget>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

using namespace headroom;

namespace {

const QString kExample = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");

/// The units of every byte figure in `text` ("13.48 GB", "512 KiB"): a number, a space, a unit.
/// Card names ("A100 80GB") have no space, and "the 24 GB card" names a card, not a figure.
QStringList byteUnits(const QString &text)
{
    static const QRegularExpression figure(QStringLiteral(
        R"((?<![\w.])\d[\d,]*(?:\.\d+)? (B|KB|MB|GB|TB|PB|KiB|MiB|GiB|TiB|PiB)\b(?! card| line| one| GPU| unified| module))"));
    QStringList units;
    for (auto match = figure.globalMatch(text); match.hasNext();)
        units << match.next().captured(1);
    return units;
}

/// `text` without the settings a formula quotes in their own unit: "500 MiB (CUDA context and
/// kernels)" is the value of cuda_context_mib, not a figure the estimate computed.
QString withoutSettings(QString text)
{
    static const QRegularExpression setting(QStringLiteral(R"(\d[\d,]* MiB \()"));
    return text.remove(setting);
}

/// The figures of `text` that are not in `unit`'s family (bytes alone are in both).
QStringList foreign(const QString &text, Unit unit)
{
    static const QStringList binary{QStringLiteral("KiB"), QStringLiteral("MiB"), QStringLiteral("GiB"),
                                    QStringLiteral("TiB"), QStringLiteral("PiB")};
    static const QStringList decimal{QStringLiteral("KB"), QStringLiteral("MB"), QStringLiteral("GB"),
                                     QStringLiteral("TB"), QStringLiteral("PB")};
    const QStringList &wrong = unit == Unit::GiB ? decimal : binary;
    QStringList out;
    for (const QString &found : byteUnits(text))
        if (wrong.contains(found))
            out << found;
    return out;
}

/// The text of an SVG's <text> elements.
QString svgText(const QByteArray &svg)
{
    QXmlStreamReader xml(svg);
    QString text;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isCharacters())
            text += xml.text().toString() + QLatin1Char(' ');
    }
    return text;
}

} // namespace

class TestUnits : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_units"); }

    void theFinderFindsFigures()
    {
        QCOMPARE(byteUnits(withoutSettings(QStringLiteral("13.48 GB and 512 KiB, 2 B, A100 80GB, the 24 GB card, 1,024 MiB, "
                                                          "500 MiB (CUDA context)"))),
                 (QStringList{QStringLiteral("GB"), QStringLiteral("KiB"), QStringLiteral("B"), QStringLiteral("MiB")}));
    }

    void capacitiesReadAsTheirNames_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("gib");
        QTest::addColumn<QString>("gb");
        // nvidia-smi's memory.total: 81920 MiB is exactly 80 GiB; 15360 MiB is 15 GiB.
        QTest::newRow("a100-80gb") << "a100-80gb" << "80 GiB" << "85.9 GB";
        QTest::newRow("t4") << "t4" << "15 GiB" << "16.11 GB";
        QTest::newRow("rtx-4090") << "rtx-4090" << "23.99 GiB" << "25.76 GB";
    }
    void capacitiesReadAsTheirNames()
    {
        QFETCH(QString, gpu);
        QFETCH(QString, gib);
        QFETCH(QString, gb);
        const Gpu *card = builtinCatalog().findGpu(gpu.toStdString());
        QCOMPARE(capacityText(card->capacityBytes(), Unit::GiB), gib);
        QCOMPARE(capacityText(card->capacityBytes(), Unit::GB), gb);
        if (gpu == QLatin1String("a100-80gb"))
            QCOMPARE(gpuLabel(QString::fromStdString(card->name), card->capacityBytes(), Unit::GiB),
                     QStringLiteral("A100 80GB \u00b7 80 GiB"));
    }

    void gibIsTheDefault()
    {
        QVERIFY(ScenarioModel().unit() == Unit::GiB);
        QVERIFY(ChartData().unit == Unit::GiB);
        const test::Run run = test::runHeadroom({QStringLiteral("estimate"), kExample});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(foreign(run.out, Unit::GiB).isEmpty());
        QVERIFY(byteUnits(run.out).contains(QStringLiteral("GiB")));
    }

    // Every surface, in both units, after a unit switch (and the switch is remembered).
    void everySurfaceSpeaksOneUnit_data()
    {
        QTest::addColumn<QString>("unit");
        QTest::newRow("GiB") << "GiB";
        QTest::newRow("GB") << "GB";
    }
    void everySurfaceSpeaksOneUnit()
    {
        QFETCH(QString, unit);
        const Unit u = unit == QLatin1String("GB") ? Unit::GB : Unit::GiB;
        QStringList problems;
        const auto check = [&](const QString &where, const QString &text) {
            QVERIFY2(!text.trimmed().isEmpty(), qPrintable(where));
            if (const QStringList wrong = foreign(text, u); !wrong.isEmpty())
                problems << QStringLiteral("%1: %2 in \"%3\"").arg(where, wrong.join(QLatin1Char(',')), text.left(300));
        };
        {
            MainWindow window;
            window.resize(1600, 1000);
            window.show();
            window.document()->setSaveQuestion([] { return QMessageBox::Discard; });
            ScenarioModel *model = window.model();
            model->setUnit(u == Unit::GB ? Unit::GiB : Unit::GB); // switch from the other one
            model->setUnit(u);
            model->pinCurrent();
            model->apply(QStringLiteral("full"), [](Scenario &s) { s.train.method = Method::Full; });
            QCoreApplication::processEvents();
            check(QStringLiteral("status bar"), window.statusText()->text());
            QStringList chartTexts;
            for (const ChartText &text : window.chart()->layout().texts)
                chartTexts << text.text;
            check(QStringLiteral("chart"), chartTexts.join(QLatin1Char('\n')));
            QVERIFY(chartTexts.contains(QString::fromStdString(scaleName(scaleFor(1, u)))));
            check(QStringLiteral("tooltip"), window.chart()->describeSegment(ConsumerId::Weights, 0));
            QTableWidget *table = window.breakdown()->table();
            // A formula quotes its inputs in their own units (cuda_context_mib is in MiB); the
            // figure it computes is in the chosen unit.
            for (int row = 0; row < table->rowCount(); ++row) {
                check(QStringLiteral("table size"), table->item(row, 1)->text());
                check(QStringLiteral("table formula"), table->item(row, 3)->toolTip().section(QStringLiteral(" = "), -1));
            }
            QStringList gpuList;
            for (int i = 0; i < window.controls()->gpuList()->count(); ++i)
                gpuList << window.controls()->gpuList()->item(i)->text();
            check(QStringLiteral("GPU list"), gpuList.join(QLatin1Char('\n')));
            AdvisorView *advisor = window.advisor();
            advisor->show();
            check(QStringLiteral("advisor"), advisor->summary()->text());
            for (int row = 0; row < advisor->table()->rowCount(); ++row)
                for (int column = 1; column < 4; ++column)
                    if (advisor->table()->item(row, column))
                        check(QStringLiteral("advisor table"), advisor->table()->item(row, column)->text() + QStringLiteral(" 0 B"));
            advisor->hide();
            // A lesson's caption quotes the step's numbers in the chosen unit.
            window.lessons()->openBuiltin(QStringLiteral("ladder"));
            check(QStringLiteral("caption"), window.lessons()->captionLabel()->text());
            QVERIFY(window.lessons()->captionLabel()->text().contains(QString::fromStdString(
                formatBytes(estimate(window.lessons()->player()->currentStep()->scenario).peak.deviceBytes, u))));
            // The export draws the same texts.
            const QByteArray svg = renderChartSvg(chartDataFor(*model), QSize(1600, 900));
            check(QStringLiteral("svg"), svgText(svg));
            window.close();
        }
        // The choice is remembered.
        MainWindow again;
        QVERIFY(again.model()->unit() == u);
        // The command line prints the same rule with --unit.
        for (const QString &command : {QStringLiteral("estimate"), QStringLiteral("advise")}) {
            const test::Run run = test::runHeadroom({command, kExample, QStringLiteral("--unit"), unit});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            check(QStringLiteral("headroom ") + command, withoutSettings(run.out));
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // Axis and table share one scale: no "15000000" on a GB axis, no TB beside GB in a column.
    void oneScalePerAxisAndColumn()
    {
        QCOMPARE(scaleFor(9'000ull << 30, Unit::GiB).power, 3);
        QCOMPARE(scaleFor(20'000ull << 30, Unit::GiB).power, 4);
        QCOMPARE(QString::fromStdString(formatBytesIn(512ull << 30, scaleFor(20'000ull << 30, Unit::GiB))),
                 QStringLiteral("0.500 TiB"));
        ScenarioModel model;
        model.assign(test::scenarioFrom(R"({"model": {"preset": "llama-3-70b"}, "train": {"micro_batch": 64,
            "seq_len": 65536}, "kernels": {"attention": "eager"}})"));
        BudgetChart chart;
        chart.chart()->resize(1280, 720);
        chart.setData(chartDataFor(model));
        const ChartLayout &layout = chart.layout();
        QVERIFY2(layout.scale.power > 3, qPrintable(QString::number(layout.scale.power)));
        // The axis speaks the unit the peak is printed in, with ticks of a few digits.
        const QString peak = bytesText(model.estimate().peak.deviceBytes, Unit::GiB);
        QVERIFY2(peak.endsWith(QString::fromStdString(scaleName(layout.scale))), qPrintable(peak));
        QVERIFY(layout.axisMax < 100'000);
        for (const ChartText &text : layout.texts)
            if (text.role == ChartText::LegendSize || text.role == ChartText::SegmentValue)
                QVERIFY2(!text.text.contains(QLatin1String(" GiB")), qPrintable(text.text));
        // The table's size column and the command line's: one scale, no GiB beside TiB.
        MainWindow window;
        window.model()->assign(model.scenario());
        QTableWidget *table = window.breakdown()->table();
        for (int row = 0; row < table->rowCount(); ++row)
            QVERIFY2(!table->item(row, 1)->text().endsWith(QLatin1String(" GiB")), qPrintable(table->item(row, 1)->text()));
        const QString path = QDir(QDir::tempPath()).filePath(QStringLiteral("tst_units_huge.headroom.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(scenarioToJson(model.scenario()).dump()));
        file.close();
        const test::Run run = test::runHeadroom({QStringLiteral("estimate"), path});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        for (const QString &line : run.out.split(QLatin1Char('\n')))
            if (line.startsWith(QLatin1String("Weights")) || line.startsWith(QLatin1String("Logits")))
                QVERIFY2(line.section(QLatin1String("  "), 1).trimmed().section(QLatin1Char(' '), 1, 1) == QLatin1String("TiB"),
                         qPrintable(line));
        QFile::remove(path);
    }
};

QTEST_MAIN(TestUnits)
#include "tst_units.moc"
