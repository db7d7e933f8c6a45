// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/budgetchart.h"

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>

class QGraphicsScene;
class QIODevice;
class QPdfWriter;
class QSvgGenerator;
class QPainter;

namespace headroom {

/// The files the chart and its breakdown export to.
enum class ExportFormat { Png, Svg, Pdf, Csv, Json };

/// Size and theme of an exported chart.
struct ChartExportOptions
{
    QSize size{1920, 1080}; ///< logical pixels
    double scale = 2;       ///< PNG pixels per logical pixel
    bool dark = false;      ///< light (print) unless asked
};

/// The format a file name asks for (by extension); false when it names none.
bool exportFormatFor(const QString &path, ExportFormat &format);
/// The chart drawn by BudgetChart into an image of size x scale pixels.
QImage renderChartImage(const ChartData &data, QSize size, double scale);
/// The chart as an SVG document of `size` logical pixels.
QByteArray renderChartSvg(const ChartData &data, QSize size);
/// The chart as a one-page vector PDF (fonts embedded) of `size` logical pixels.
QByteArray renderChartPdf(const ChartData &data, QSize size);
/// Draws the chart, laid out at `size` logical pixels, into `target` of any painter (pages).
void paintChart(QPainter &painter, const QRectF &target, const ChartData &data, QSize size);
/// Text and line scale of an export of `size` (1 at 1280 x 720, larger for larger images).
double exportTextScale(QSize size);
/// An SVG generator writing `size` logical pixels to `device`, fonts at the layout resolution.
void prepareSvg(QSvgGenerator &generator, QIODevice *device, QSize size, const QString &title);
/// SVG text as XML 1.0 allows it: a character it forbids (a C0 control other than tab, line
/// feed and carriage return, or U+FFFE/U+FFFF), which QSvgGenerator writes as it is from a
/// scenario's name or a step's title, becomes U+FFFD. Every SVG the product writes goes through
/// here, so browsers and Inkscape open it.
QByteArray xmlSafeSvg(const QByteArray &svg);
/// A PDF writer whose page is `size` logical pixels with no margins, fonts at the layout
/// resolution.
void preparePdf(QPdfWriter &writer, QSize size, const QString &title);
/// Lays out pending changes of the charts in a bare scene (a never-shown view renders blank).
void settleScene(QGraphicsScene &scene);
/// A laid-out scene of `size` as PNG, SVG or PDF bytes: the one way every chart exports.
/// Returns an empty array and sets `error` when it cannot.
QByteArray renderScene(QGraphicsScene &scene, QSize size, ExportFormat format,
                       const ChartExportOptions &options, const QString &title, QString &error);
/// Checks an export's size and scale; returns an empty string or what is wrong.
QString checkExportOptions(ExportFormat format, const ChartExportOptions &options);
/// Writes the chart as PNG, SVG or PDF (by `format`) atomically; returns an empty string or
/// the error. The theme of `options` replaces the data's.
QString exportChart(const QString &path, ExportFormat format, ChartData data,
                    const ChartExportOptions &options);
/// Writes the breakdown as CSV or JSON (the v1 estimate format) atomically.
QString exportBreakdown(const QString &path, ExportFormat format, const Estimate &estimate,
                        Unit unit);

} // namespace headroom
