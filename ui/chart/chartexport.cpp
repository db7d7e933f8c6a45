// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/chartexport.h"

#include "chart/consumerstyle.h"
#include "document/documentio.h"
#include "estimate/estimatejson.h"
#include "io/inputpolicy.h"
#include "scenario/units.h"

#include <QBuffer>
#include <QChart>
#include <QCoreApplication>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsWidget>
#include <QGuiApplication>
#include <QLegend>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QScreen>
#include <QSvgGenerator>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace headroom {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("chartexport", text);
}

/// The resolution text is laid out at (the screen's; 96 without one), so vector output
/// draws fonts at the size their boxes were measured with.
int layoutDpi()
{
    if (const QScreen *screen = QGuiApplication::primaryScreen())
        return qRound(screen->logicalDotsPerInch());
    return 96;
}

/// Builds a BudgetChart for `data` in a bare scene of `size` (a never-shown QChartView
/// renders blank) and hands the laid-out scene to `paint`.
template <typename Paint> void withChartScene(const ChartData &data, QSize size, Paint paint)
{
    QGraphicsScene scene;
    BudgetChart chart;
    QChart *qchart = chart.chart();
    // In the scene before the data, as in the window: the legend hides empty consumers then.
    scene.addItem(qchart);
    scene.setSceneRect(QRectF(QPointF(0, 0), QSizeF(size)));
    // The chart's own background is inset a few pixels: the page around it takes its colour.
    scene.setBackgroundBrush(data.dark ? QColor(0x1E1F22) : QColor(Qt::white));
    qchart->setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
    chart.setScale(exportTextScale(size));
    chart.setData(data);
    settleScene(scene);
    paint(scene, QRectF(QPointF(0, 0), QSizeF(size)));
    scene.removeItem(qchart); // the chart belongs to BudgetChart again
}

} // namespace

double exportTextScale(QSize size)
{
    // Larger text and lines for large exports: a 1920 x 1080 slide at scale 1 reads from the back
    // of a room (twice the window's text), a 3840 x 2160 one likewise.
    return std::clamp(std::min(size.width() / 960.0, size.height() / 540.0), 1.0, 4.0);
}

void settleScene(QGraphicsScene &scene)
{
    // Layout requests and the label placement they trigger arrive as posted events.
    for (int pass = 0; pass < 4; ++pass) {
        for (QGraphicsItem *item : scene.items())
            if (item->isWidget() && !item->parentItem())
                if (auto *widget = static_cast<QGraphicsWidget *>(item); widget->layout())
                    widget->layout()->activate();
        QCoreApplication::sendPostedEvents();
    }
}

void paintChart(QPainter &painter, const QRectF &target, const ChartData &data, QSize size)
{
    withChartScene(data, size, [&](QGraphicsScene &scene, const QRectF &rect) {
        scene.render(&painter, target, rect);
    });
}

QString checkExportOptions(ExportFormat format, const ChartExportOptions &options)
{
    if (options.size.width() < 16 || options.size.height() < 16 || options.size.width() > 16384 ||
        options.size.height() > 16384)
        return tr("the size must be 16 to 16384 pixels each way");
    if (format == ExportFormat::Png && (!(options.scale >= 0.25 && options.scale <= 8) ||
                                        options.size.width() * options.scale > 32768 ||
                                        options.size.height() * options.scale > 32768))
        return tr("the scale must be 0.25 to 8 and the image at most 32768 pixels each way");
    // The image is held in memory (4 bytes a pixel): its area is bounded, not just its sides.
    // The message gives the exact counts: "67 million; at most 67 million" read as no reason.
    if (format == ExportFormat::Png &&
        double(options.size.width()) * options.size.height() * options.scale * options.scale >
            double(limits::kImagePixels)) {
        const qint64 wide = qRound64(options.size.width() * options.scale);
        const qint64 high = qRound64(options.size.height() * options.scale);
        return tr("the image would be %1 x %2 = %3 pixels; at most %4 (8192 x 8192), counting "
                  "width x height x scale squared")
            .arg(wide)
            .arg(high)
            .arg(QString::fromStdString(groupDigits(std::uint64_t(wide) * std::uint64_t(high))),
                 QString::fromStdString(groupDigits(limits::kImagePixels)));
    }
    return {};
}

QByteArray renderScene(QGraphicsScene &scene, QSize size, ExportFormat format,
                       const ChartExportOptions &options, const QString &title, QString &error)
{
    const QRectF rect(QPointF(0, 0), QSizeF(size));
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    if (format == ExportFormat::Png) {
        QImage image(
            QSize(qRound(size.width() * options.scale), qRound(size.height() * options.scale)),
            QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(options.scale);
        image.fill(options.dark ? QColor(0x1E1F22) : QColor(Qt::white));
        {
            QPainter painter(&image);
            painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
            scene.render(&painter, rect, rect);
        }
        if (!image.save(&buffer, "PNG"))
            error = tr("cannot encode the PNG image");
    } else if (format == ExportFormat::Svg) {
        QSvgGenerator generator;
        prepareSvg(generator, &buffer, size, title);
        QPainter painter(&generator);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        scene.render(&painter, rect, rect);
    } else if (format == ExportFormat::Pdf) {
        QPdfWriter writer(&buffer);
        preparePdf(writer, size, title);
        QPainter painter(&writer);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(writer.width(), writer.height())),
                     rect);
    } else {
        error = tr("CSV and JSON hold the breakdown, not the chart");
    }
    buffer.close();
    if (!error.isEmpty())
        return QByteArray();
    return format == ExportFormat::Svg ? xmlSafeSvg(buffer.data()) : buffer.data();
}

bool exportFormatFor(const QString &path, ExportFormat &format)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    static const std::pair<const char *, ExportFormat> known[] = {{"png", ExportFormat::Png},
                                                                  {"svg", ExportFormat::Svg},
                                                                  {"pdf", ExportFormat::Pdf},
                                                                  {"csv", ExportFormat::Csv},
                                                                  {"json", ExportFormat::Json}};
    for (const auto &[name, value] : known)
        if (suffix == QLatin1String(name)) {
            format = value;
            return true;
        }
    return false;
}

QImage renderChartImage(const ChartData &data, QSize size, double scale)
{
    QImage image(QSize(qRound(size.width() * scale), qRound(size.height() * scale)),
                 QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(data.dark ? QColor(0x1E1F22) : QColor(Qt::white));
    withChartScene(data, size, [&](QGraphicsScene &scene, const QRectF &rect) {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        scene.render(&painter, rect, rect);
    });
    return image;
}

QByteArray renderChartSvg(const ChartData &data, QSize size)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    prepareSvg(generator, &buffer, size, data.title);
    generator.setDescription(QString::fromStdString(printable(data.subtitle.toStdString())));
    withChartScene(data, size, [&](QGraphicsScene &scene, const QRectF &rect) {
        QPainter painter(&generator);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        scene.render(&painter, rect, rect);
    });
    return xmlSafeSvg(buffer.data());
}

QByteArray renderChartPdf(const ChartData &data, QSize size)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    preparePdf(writer, size, data.title);
    withChartScene(data, size, [&](QGraphicsScene &scene, const QRectF &rect) {
        QPainter painter(&writer);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(writer.width(), writer.height())),
                     rect);
    });
    return buffer.data();
}

void prepareSvg(QSvgGenerator &generator, QIODevice *device, QSize size, const QString &title)
{
    generator.setOutputDevice(device);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setResolution(layoutDpi());
    // The title as the terminal shows it: an escape from the file reads as "\x1b", not as a
    // character XML forbids.
    generator.setTitle(QString::fromStdString(printable(title.toStdString())));
}

QByteArray xmlSafeSvg(const QByteArray &svg)
{
    static const QByteArray replacement("\xEF\xBF\xBD"); // U+FFFD
    QByteArray out;
    out.reserve(svg.size());
    for (qsizetype i = 0; i < svg.size(); ++i) {
        const auto c = static_cast<unsigned char>(svg[i]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            out += replacement;
        } else if (c == 0xEF && i + 2 < svg.size() && static_cast<unsigned char>(svg[i + 1]) == 0xBF &&
                   (static_cast<unsigned char>(svg[i + 2]) == 0xBE || static_cast<unsigned char>(svg[i + 2]) == 0xBF)) {
            out += replacement; // U+FFFE, U+FFFF
            i += 2;
        } else {
            out += char(c);
        }
    }
    return out;
}

void preparePdf(QPdfWriter &writer, QSize size, const QString &title)
{
    const int dpi = layoutDpi();
    writer.setResolution(dpi);
    writer.setPageSize(
        QPageSize(QSizeF(size) * 72.0 / dpi, QPageSize::Point, QString(), QPageSize::ExactMatch));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("Headroom"));
}

QString exportChart(const QString &path, ExportFormat format, ChartData data,
                    const ChartExportOptions &options)
{
    data.dark = options.dark;
    if (QString error = checkExportOptions(format, options); !error.isEmpty())
        return error;
    QByteArray bytes;
    switch (format) {
    case ExportFormat::Png: {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!renderChartImage(data, options.size, options.scale).save(&buffer, "PNG"))
            return tr("cannot encode the PNG image");
        break;
    }
    case ExportFormat::Svg:
        bytes = renderChartSvg(data, options.size);
        break;
    case ExportFormat::Pdf:
        bytes = renderChartPdf(data, options.size);
        break;
    case ExportFormat::Csv:
    case ExportFormat::Json:
        return tr("CSV and JSON hold the breakdown, not the chart");
    }
    return writeFileAtomically(path, bytes);
}

QString exportBreakdown(const QString &path, ExportFormat format, const Estimate &estimate,
                        Unit unit)
{
    std::string text;
    if (format == ExportFormat::Csv)
        text = estimateToCsv(estimate, unit);
    else if (format == ExportFormat::Json)
        text = estimateToJson(estimate, unit).dump(2) + "\n";
    else
        return tr("the breakdown exports as CSV or JSON");
    return writeFileAtomically(path, QByteArray::fromStdString(text));
}

} // namespace headroom
