// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/lessonexport.h"

#include "chart/chartdata.h"
#include "document/documentio.h"

#include <QBuffer>
#include <QCoreApplication>
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

void paintLessonStep(QPainter &painter, const QRectF &rect, const Lesson &lesson, int index,
                     const LessonExportOptions &options)
{
    const LessonStep &step = lesson.steps.at(std::size_t(index));
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
                     tr("Step %1 / %2").arg(index + 1).arg(lesson.steps.size()));
    area.setTop(area.top() + smallLine * 1.3);

    QFont heading = small;
    heading.setPointSizeF(17 * scale);
    heading.setBold(true);
    painter.setFont(heading);
    painter.setPen(text);
    const QString title = QString::fromStdString(step.title);
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
    const QString caption = QString::fromStdString(expandCaption(step.caption, model.estimate(), options.unit));
    box = painter.boundingRect(area, Qt::AlignLeft | Qt::TextWordWrap, caption);
    painter.drawText(box, Qt::AlignLeft | Qt::TextWordWrap, caption);
    area.setTop(box.bottom() + smallLine * 0.6);

    // Laid out at 1/scale of its place on the page and drawn scaled up, so that its text matches
    // the page's.
    ChartData data = chartDataFor(model);
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
                        for (int i = 0; i < int(lesson.steps.size()); ++i) {
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
    if (step >= int(lesson.steps.size()))
        return tr("the lesson has %1 steps").arg(lesson.steps.size());
    // A step that cannot be estimated is refused, as `estimate` refuses it: no empty chart.
    for (int i = std::max(step, 0); i < (step < 0 ? int(lesson.steps.size()) : step + 1); ++i) {
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
                   QString::fromStdString(lesson.steps[std::size_t(step)].title));
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

} // namespace headroom
