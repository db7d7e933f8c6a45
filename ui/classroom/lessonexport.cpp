// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/lessonexport.h"

#include "chart/chartdata.h"
#include "displaytext.h"
#include "document/documentio.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QScreen>
#include <QSvgGenerator>

namespace headroom {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("lessonexport", text);
}

/// The lesson's pages on one PDF writer of the page size.
template <typename PaintPages>
QByteArray pdfPages(const QString &title, QSize size, PaintPages paintPages)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    preparePdf(writer, size, title);
    {
        QPainter painter(&writer);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        paintPages(writer, painter, QRectF(0, 0, writer.width(), writer.height()));
    }
    buffer.close();
    return buffer.data();
}

} // namespace

int lessonPageCount(const Lesson &lesson)
{
    return int(lesson.steps.size()) + (lesson.comparison ? 1 : 0);
}

ChartData lessonComparisonData(const Lesson &lesson, Unit unit, bool dark)
{
    // Against the last step's GPUs and verdict, every step's device peak as its own bar.
    const Scenario &last = lesson.steps.back().scenario;
    Estimate lastEstimate;
    QString lastError;
    try {
        lastEstimate = estimate(last);
    } catch (const std::exception &error) {
        lastError = QString::fromStdString(error.what());
    }
    ChartData data = scenarioChartData(last, lastEstimate, lastError, unit, dark);
    data.title = QString::fromStdString(lesson.title);
    data.subtitle = tr("Every step's peak on the device, side by side");
    data.warning.clear();
    data.footnote.clear();
    data.measuredBytes = 0;
    data.measuredLabel.clear();
    data.axisMinimumBytes = 0;
    data.columns.clear();
    for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
        const QString label = tr("%1. %2").arg(i + 1).arg(QString::fromStdString(lesson.steps[i].title));
        try {
            data.columns.push_back(peakColumn(label, estimate(lesson.steps[i].scenario)));
        } catch (const std::exception &error) {
            data.columns.push_back(peakColumn(label, Estimate(), QString::fromStdString(error.what())));
        }
        data.columns.back().estimate = nullptr; // the estimate was a temporary
    }
    data.legendColumn = int(data.columns.size()) - 1;
    data.legendTitle = tr("Last step");
    return data;
}

void paintLessonStep(QPainter &painter, const QRectF &rect, const Lesson &lesson, int index,
                     const LessonExportOptions &options)
{
    const bool closing = lesson.comparison && index == int(lesson.steps.size());
    const LessonStep &step = lesson.steps.at(std::size_t(closing ? index - 1 : index));
    const bool dark = options.chart.dark;
    const double scale = exportTextScale(rect.size().toSize());
    const QColor text = dark ? QColor(0xE6E6E6) : QColor(0x202020);
    const QColor muted = dark ? QColor(0xA0A0A0) : QColor(0x606060);
    painter.save();
    painter.fillRect(rect, dark ? QColor(0x1E1F22) : QColor(Qt::white));
    const double margin = 24 * scale;
    QRectF area = rect.adjusted(margin, margin * 0.75, -margin, -margin * 0.5);

    QFont small = painter.font();
    small.setPointSizeF(9 * scale);
    painter.setFont(small);
    painter.setPen(muted);
    const double smallLine = QFontMetricsF(small, painter.device()).height();
    painter.drawText(QRectF(area.topLeft(), QSizeF(area.width(), smallLine)),
                     Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(lesson.title));
    painter.drawText(QRectF(area.topLeft(), QSizeF(area.width(), smallLine)),
                     Qt::AlignRight | Qt::AlignVCenter,
                     closing ? tr("All steps") : tr("Step %1 / %2").arg(index + 1).arg(lesson.steps.size()));
    area.setTop(area.top() + smallLine * 1.3);

    QFont heading = small;
    heading.setPointSizeF(17 * scale);
    heading.setBold(true);
    painter.setFont(heading);
    painter.setPen(text);
    const QString title = closing ? tr("All %1 steps compared").arg(lesson.steps.size()) : QString::fromStdString(step.title);
    QRectF box = painter.boundingRect(area, Qt::AlignLeft | Qt::TextWordWrap, title);
    painter.drawText(box, Qt::AlignLeft | Qt::TextWordWrap, title);
    area.setTop(box.bottom() + smallLine * 0.3);

    // The step's chart, as the window draws it, on the lesson's one axis.
    ScenarioModel model;
    model.assign(step.scenario);
    model.setUnit(options.unit);
    model.setView(options.view);
    model.setDark(dark);
    model.setAxisMinimumBytes(lessonAxisBytes(lesson));

    QFont body = small;
    body.setPointSizeF(11.5 * scale);
    painter.setFont(body);
    QString caption = QString::fromStdString(expandCaption(step.caption, model.estimate(), options.unit));
    if (const QString verdict = targetVerdictText(model.scenario(), model.estimate(), options.unit); !verdict.isEmpty())
        caption += tr("\nVerdict: %1").arg(verdict);
    ChartData data = chartDataFor(model);
    if (closing) {
        data = lessonComparisonData(lesson, options.unit, dark);
        // The peaks in words, from the same estimates as the bars.
        QStringList peaks;
        for (const ChartColumn &column : data.columns)
            peaks << (column.error.isEmpty() ? bytesText(column.totalBytes, options.unit) : tr("cannot be estimated"));
        caption = tr("Peak on the device, step by step: %1.").arg(peaks.join(QStringLiteral(" \u2192 ")));
    }
    box = painter.boundingRect(area, Qt::AlignLeft | Qt::TextWordWrap, caption);
    painter.drawText(box, Qt::AlignLeft | Qt::TextWordWrap, caption);
    area.setTop(box.bottom() + smallLine * 0.6);

    // Laid out at 1/scale of its place on the page and drawn scaled up, so that its text matches
    // the page's.
    data.dark = dark;
    const QRectF chartRect(rect.left(), area.top(), rect.width(), rect.bottom() - area.top());
    if (chartRect.height() > 40)
        paintChart(painter, chartRect, data, (chartRect.size() / scale).toSize());
    painter.restore();
}

QByteArray renderLessonPdf(const Lesson &lesson, const LessonExportOptions &options)
{
    return pdfPages(QString::fromStdString(lesson.title), options.chart.size,
                    [&](QPdfWriter &writer, QPainter &painter, const QRectF &page) {
                        for (int i = 0; i < lessonPageCount(lesson); ++i) {
                            if (i > 0)
                                writer.newPage();
                            paintLessonStep(painter, page, lesson, i, options);
                        }
                    });
}

QString exportLesson(const QString &path, ExportFormat format, const Lesson &lesson, int step,
                     const LessonExportOptions &options)
{
    if (QString error = checkExportOptions(format, options.chart); !error.isEmpty())
        return error;
    if (step >= lessonPageCount(lesson))
        return tr("the lesson has %1 pages").arg(lessonPageCount(lesson));
    // A step that cannot be estimated is refused, as `estimate` refuses it: no empty chart.
    for (int i = std::max(step, 0); i < std::min(int(lesson.steps.size()), step < 0 ? lessonPageCount(lesson) : step + 1); ++i) {
        try {
            estimate(lesson.steps[std::size_t(i)].scenario, Detail::BytesOnly);
        } catch (const std::exception &error) {
            return tr("step %1 cannot be estimated: %2").arg(i + 1).arg(QString::fromStdString(error.what()));
        }
    }
    const QSize size = options.chart.size;
    const QRectF page(QPointF(0, 0), QSizeF(size));
    QByteArray bytes;
    if (step < 0) {
        if (format != ExportFormat::Pdf)
            return tr("a whole lesson is written as PDF; choose one step for PNG or SVG");
        bytes = renderLessonPdf(lesson, options);
    } else if (format == ExportFormat::Pdf) {
        bytes = pdfPages(QString::fromStdString(lesson.title), size,
                         [&](QPdfWriter &, QPainter &painter, const QRectF &rect) {
                             paintLessonStep(painter, rect, lesson, step, options);
                         });
    } else if (format == ExportFormat::Svg) {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator generator;
        prepareSvg(generator, &buffer, size,
                   QString::fromStdString(lesson.steps[std::size_t(std::min(step, int(lesson.steps.size()) - 1))].title));
        QPainter painter(&generator);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        paintLessonStep(painter, page, lesson, step, options);
    } else if (format == ExportFormat::Png) {
        const double scale = options.chart.scale;
        QImage image(QSize(qRound(size.width() * scale), qRound(size.height() * scale)),
                     QImage::Format_ARGB32_Premultiplied);
        {
            // Scaled by the painter: a device pixel ratio under 1 would be ignored.
            QPainter painter(&image);
            painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
            painter.scale(scale, scale);
            paintLessonStep(painter, page, lesson, step, options);
        }
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!image.save(&buffer, "PNG"))
            return tr("cannot encode the PNG image");
    } else {
        return tr("a lesson is drawn as PNG, SVG or PDF");
    }
    return writeFileAtomically(path, format == ExportFormat::Svg ? xmlSafeSvg(bytes) : bytes);
}

QString lessonDeckPagePath(const QString &path, int index, int pageCount)
{
    const QFileInfo info(path);
    const int digits = std::max(2, int(QString::number(pageCount).size()));
    const QString suffix = info.suffix().isEmpty() ? QString() : QLatin1Char('.') + info.suffix();
    return info.dir().filePath(info.completeBaseName() + QLatin1Char('-') +
                               QStringLiteral("%1").arg(index + 1, digits, 10, QLatin1Char('0')) + suffix);
}

QString exportLessonDeck(const QString &path, ExportFormat format, const Lesson &lesson,
                         const LessonExportOptions &options, QStringList *written)
{
    if (format == ExportFormat::Pdf) {
        QString error = exportLesson(path, format, lesson, -1, options);
        if (error.isEmpty() && written)
            *written << path;
        return error;
    }
    if (format != ExportFormat::Png && format != ExportFormat::Svg)
        return tr("a lesson deck is one PDF, or one PNG or SVG per step");
    const int pages = lessonPageCount(lesson);
    for (int i = 0; i < pages; ++i) {
        const QString page = lessonDeckPagePath(path, i, pages);
        if (QString error = exportLesson(page, format, lesson, i, options); !error.isEmpty())
            return error;
        if (written)
            *written << page;
    }
    return {};
}

} // namespace headroom
