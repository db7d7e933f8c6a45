// SPDX-License-Identifier: GPL-3.0-or-later
// Every export format, drawn by BudgetChart headless: PNG size and colours, SVG as XML with the
// names, a one-page PDF, and CSV/JSON equal to `headroom estimate` for the same file.
#include "chart/chartdata.h"
#include "chart/chartexport.h"
#include "chart/consumerstyle.h"
#include "document/documentio.h"
#include "document/exportdialog.h"
#include "document/scenariomodel.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QFontDatabase>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

const QString kExample = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");

/// The chart the window would show for the example, with one pin (two columns).
ChartData exampleData(ScenarioModel &model)
{
    loadDocument(model, readDocumentFile(kExample));
    model.pinCurrent();
    model.apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 1; });
    return chartDataFor(model);
}

int countColour(const QImage &image, QColor colour)
{
    int found = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            found += (image.pixel(x, y) & 0xFFFFFF) == (colour.rgb() & 0xFFFFFF);
    return found;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray estimateOutput(const QString &format)
{
    QProcess process;
    process.start(QStringLiteral(HEADROOM_BINARY), {QStringLiteral("estimate"), kExample,
                                                    QStringLiteral("--format"), format});
    process.waitForFinished(60000);
    return process.readAllStandardOutput();
}

} // namespace

class TestChartExport : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_chartexport"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        QVERIFY(!QFontDatabase::families().isEmpty());
    }

    void pngHasRequestedSizeAndColours_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("scale");
        QTest::newRow("default-1920x1080-x2") << QSize(1920, 1080) << 2.0;
        QTest::newRow("800x450-x1.5") << QSize(800, 450) << 1.5;
        QTest::newRow("640x640-x1") << QSize(640, 640) << 1.0;
    }

    void pngHasRequestedSizeAndColours()
    {
        QFETCH(QSize, size);
        QFETCH(double, scale);
        ScenarioModel model;
        const QString path = m_dir.filePath(QStringLiteral("chart.png"));
        QCOMPARE(exportChart(path, ExportFormat::Png, exampleData(model), {size, scale, false}), QString());
        const QImage image(path);
        QCOMPARE(image.size(), QSize(qRound(size.width() * scale), qRound(size.height() * scale)));
        for (ConsumerId id : {ConsumerId::Weights, ConsumerId::Activations, ConsumerId::Logits})
            QVERIFY2(countColour(image, consumerColor(id)) > 100, qPrintable(consumerDisplayName(id)));
        // Not blank: a good part of the image is neither the white background nor one colour.
        QCOMPARE(QColor(image.pixel(2, 2)), QColor(Qt::white));
        QVERIFY(countColour(image, Qt::white) < image.width() * image.height() / 4 * 9 / 10);
    }

    void defaultsAre1920x1080AtScale2()
    {
        const ChartExportOptions options;
        QCOMPARE(options.size, QSize(1920, 1080));
        QCOMPARE(options.scale, 2.0);
        QVERIFY(!options.dark);
    }

    void darkOnRequest()
    {
        ScenarioModel model;
        const QString path = m_dir.filePath(QStringLiteral("dark.png"));
        QCOMPARE(exportChart(path, ExportFormat::Png, exampleData(model), {{800, 450}, 1, true}), QString());
        const QImage image(path);
        QVERIFY(QColor(image.pixel(2, 2)).lightness() < 80);
        QVERIFY(countColour(image, consumerColor(ConsumerId::Weights, true)) > 100);
    }

    void svgIsXmlWithNames()
    {
        ScenarioModel model;
        const QString path = m_dir.filePath(QStringLiteral("chart.svg"));
        QCOMPARE(exportChart(path, ExportFormat::Svg, exampleData(model), {}), QString());
        const QByteArray svg = readAll(path);
        QXmlStreamReader xml(svg);
        QString text;
        bool root = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement() && xml.name() == QLatin1String("svg"))
                root = true;
            if (xml.isCharacters())
                text += xml.text().toString() + QLatin1Char(' ');
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(root);
        for (ConsumerId id : {ConsumerId::Weights, ConsumerId::Activations, ConsumerId::Logits,
                              ConsumerId::CudaContext})
            QVERIFY2(text.contains(consumerDisplayName(id)), qPrintable(consumerDisplayName(id)));
        for (const char *gpu : {"RTX 4090", "A100 80GB"})
            QVERIFY2(text.contains(QLatin1String(gpu)), gpu);
        // The title is the scenario drawn (the file's name dropped out with the edit).
        QVERIFY2(text.contains(QStringLiteral("Llama 2 7B \u00b7 LoRA r8 on q, v")), qPrintable(text.left(300)));
    }

    void pdfHasOnePage()
    {
        ScenarioModel model;
        const QString path = m_dir.filePath(QStringLiteral("chart.pdf"));
        QCOMPARE(exportChart(path, ExportFormat::Pdf, exampleData(model), {}), QString());
        const QByteArray pdf = readAll(path);
        QVERIFY(pdf.startsWith("%PDF"));
        const QString text = QString::fromLatin1(pdf);
        QCOMPARE(text.count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)"))), 1);
        QVERIFY(text.contains(QLatin1String("/FontFile2"))); // fonts embedded
    }

    void breakdownEqualsHeadroomEstimate_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("csv") << QStringLiteral("csv");
        QTest::newRow("json") << QStringLiteral("json");
    }

    void breakdownEqualsHeadroomEstimate()
    {
        QFETCH(QString, format);
        ScenarioModel model;
        loadDocument(model, readDocumentFile(kExample));
        const QString path = m_dir.filePath(QStringLiteral("breakdown.") + format);
        ExportFormat kind = ExportFormat::Png;
        QVERIFY(exportFormatFor(path, kind));
        QCOMPARE(exportBreakdown(path, kind, model.estimate(), model.unit()), QString());
        const QByteArray exported = readAll(path);
        const QByteArray expected = estimateOutput(format);
        QVERIFY(!expected.isEmpty());
        if (format == QLatin1String("json"))
            QVERIFY(nlohmann::json::parse(exported.toStdString()) == nlohmann::json::parse(expected.toStdString()));
        else
            QCOMPARE(exported, expected);
    }

    // The export dialog's presets set the size and scale, the preview draws the chart, and the
    // last choice is what the next export starts from.
    void exportPresetsPreviewAndMemory()
    {
        QCOMPARE(exportPresets().size(), std::size_t(4));
        QCOMPARE(exportPresets()[0].options.size, QSize(1920, 1080));
        // A paper column: 3.5 inches at 300 dpi is 1050 pixels wide.
        const ChartExportOptions paper = exportPresets()[2].options;
        QCOMPARE(qRound(paper.size.width() * paper.scale), 1050);
        int previews = 0;
        ScenarioModel model;
        const ChartData data = chartDataFor(model);
        ExportDialog dialog(ExportFormat::Png, ExportDialog::remembered(), [&](QSize size, double scale, bool dark) {
            ++previews;
            ChartData shown = data;
            shown.dark = dark;
            return renderChartImage(shown, size, scale);
        });
        QVERIFY(previews >= 1);
        QVERIFY(!dialog.preview()->pixmap().isNull());
        dialog.presets()->setCurrentIndex(1);
        emit dialog.presets()->activated(1);
        QCOMPARE(dialog.options().size, QSize(1440, 1080));
        QVERIFY(previews >= 2);
        ExportDialog::remember(dialog.options());
        QCOMPARE(ExportDialog::remembered().size, QSize(1440, 1080));
        // Presets are recognised when reopened at another resolution: 1920 x 1080 at scale 2 is
        // the 16:9 slide (a 3840 x 2160 image of it), not a custom size; picking it keeps scale 2.
        {
            ExportDialog again(ExportFormat::Png, {QSize(1920, 1080), 2, false}, [&](QSize size, double scale, bool dark) {
                ChartData shown = data;
                shown.dark = dark;
                return renderChartImage(shown, size, scale);
            });
            QVERIFY2(again.presets()->currentText().startsWith(QLatin1String("16:9 slide")),
                     qPrintable(again.presets()->currentText()));
            QCOMPARE(again.options().scale, 2.0);
            again.presets()->setCurrentIndex(3);
            emit again.presets()->activated(3);
            QCOMPARE(again.options().size, QSize(1080, 1080));
            QCOMPARE(again.options().scale, 2.0);
            // The paper column is 300 dpi only at its own scale: at another it is a custom size.
            ExportDialog paperAt1(ExportFormat::Png, {QSize(420, 315), 1, false});
            QVERIFY(paperAt1.presets()->currentText().startsWith(QLatin1String("Custom")));
            // The preview is the whole page at the page's aspect (16:9), inside the preview's box.
            again.presets()->setCurrentIndex(0);
            emit again.presets()->activated(0);
            again.resize(900, 500);
            again.show();
            QCoreApplication::processEvents();
            const QPixmap page = again.preview()->pixmap();
            QVERIFY(!page.isNull());
            QVERIFY(qAbs(double(page.width()) / page.height() - 16.0 / 9.0) < 0.02);
            const QSize room = again.preview()->contentsRect().size();
            QVERIFY2(page.width() <= room.width() + 1 && page.height() <= room.height() + 1,
                     qPrintable(QStringLiteral("%1x%2 in %3x%4").arg(page.width()).arg(page.height()).arg(room.width()).arg(room.height())));
            again.hide();
        }
        // 1080p at scale 1 is laid out with twice the window's text, to read when projected.
        QCOMPARE(exportTextScale(QSize(1920, 1080)), 2.0);
    }

    void badSizeIsAnError()
    {
        ScenarioModel model;
        const QString path = m_dir.filePath(QStringLiteral("tiny.png"));
        QVERIFY(!exportChart(path, ExportFormat::Png, chartDataFor(model), {{4, 4}, 1, false}).isEmpty());
        QVERIFY(!QFile::exists(path));
    }
};

QTEST_MAIN(TestChartExport)
#include "tst_chartexport.moc"
