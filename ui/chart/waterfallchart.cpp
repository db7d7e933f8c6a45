// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/waterfallchart.h"

#include "advicetext.h"
#include "chart/budgetchart.h"
#include "chart/consumerstyle.h"

#include "displaytext.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

const QColor kStartColor(0x777777);
const QColor kSavingColor(0x009E73);
const QColor kFitsColor(0x0072B2);
const QColor kMissesColor(0xD55E00);

/// One bar: its label and the range it spans, in the display scale.
struct Bar
{
    QString label;
    QString value;
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    QColor color;
};

std::vector<Bar> barsOf(const Advice &advice, ByteScale scale)
{
    std::vector<Bar> bars;
    bars.push_back({WaterfallChart::tr("Now"), bytesText(advice.startPeakDeviceBytes, scale), 0,
                    advice.startPeakDeviceBytes, kStartColor});
    std::uint64_t level = advice.startPeakDeviceBytes;
    for (const AdviceStep &step : advice.steps) {
        bars.push_back({leverDisplayName(step.lever), QStringLiteral("−") + bytesText(step.savedBytes, scale),
                        step.peakDeviceBytes, level, kSavingColor});
        level = step.peakDeviceBytes;
    }
    if (!advice.steps.empty())
        bars.push_back({advice.fits ? WaterfallChart::tr("Fits") : WaterfallChart::tr("Still over"),
                        bytesText(advice.finalPeakDeviceBytes(), scale), 0, level,
                        advice.fits ? kFitsColor : kMissesColor});
    return bars;
}

QFont sizedFont(const QFont &base, double points, bool bold = false)
{
    QFont font = base;
    font.setPointSizeF(points);
    font.setBold(bold);
    return font;
}

} // namespace

WaterfallLayout layoutWaterfall(const QRectF &rect, const Advice &advice, const WaterfallStyle &style,
                                const QFont &base)
{
    WaterfallLayout out;
    const double s = style.scale;
    const QFont font = sizedFont(base, 9 * s);
    const QFont bold = sizedFont(base, 9 * s, true);
    const double line = lineHeight(font);
    out.scale = scaleFor(std::max(advice.capacityBytes, advice.startPeakDeviceBytes), style.unit);
    const auto value = [&](std::uint64_t bytes) { return toScale(bytes, out.scale); };
    const std::vector<Bar> bars = barsOf(advice, out.scale);
    const QColor text = chartTextColor(style.dark);

    // The GPU's label in the right margin; the value axis on the left.
    const QString gpuName = shortGpuName(QString::fromStdString(advice.gpuName));
    const QString capacity = capacityText(advice.capacityBytes, style.unit);
    const double labelWidth = std::max(textWidth(bold, gpuName), textWidth(font, capacity));
    double top = std::max(value(advice.capacityBytes), value(advice.startPeakDeviceBytes)) * 1.08;
    double step = niceStep(top / 5);
    top = std::ceil(top / step - 1e-9) * step;
    const double axisWidth = textWidth(font, QString::number(top * 2, 'f', decimalsFor(step))) + 0.6 * line;
    const double slot0 = (rect.width() - axisWidth - labelWidth - 2.4 * line) / double(bars.size());
    // Bar names wrap in their slot: the plot's bottom leaves room for the tallest.
    std::vector<QStringList> names;
    int nameLines = 1;
    for (const Bar &bar : bars) {
        names.push_back(limitLines(wrapPieces({bar.label}, QString(), font, slot0 - 6 * s), 3, font, slot0 - 6 * s));
        nameLines = std::max(nameLines, int(names.back().size()));
    }
    out.plot = rect.adjusted(axisWidth + 0.8 * line, 2 * line, -labelWidth - 1.4 * line, -(nameLines + 0.8) * line);
    const QRectF plot = out.plot;
    const double slot = plot.width() / double(bars.size());
    out.capacityWidth = 2 * s;

    // Values above their bars, off the GPU's line: the axis grows until they all fit.
    for (int attempt = 0; attempt < 10; ++attempt) {
        const auto yOf = [&](double v) { return plot.bottom() - plot.height() * std::min(v, top) / top; };
        out.texts.clear();
        out.bars.clear();
        out.colours.clear();
        out.connectors.clear();
        const double capacityY = yOf(value(advice.capacityBytes));
        out.capacity = QLineF(plot.left(), capacityY, plot.right(), capacityY);
        const QRectF band(QPointF(plot.left(), capacityY - out.capacityWidth / 2 - 1),
                          QPointF(plot.right(), capacityY + out.capacityWidth / 2 + 1));
        bool fits = true;
        for (std::size_t i = 0; i < bars.size(); ++i) {
            const Bar &bar = bars[i];
            const double left = plot.left() + slot * (double(i) + 0.18);
            const QRectF box(QPointF(left, yOf(value(bar.high))), QPointF(left + slot * 0.64, yOf(value(bar.low))));
            out.bars.push_back(box);
            out.colours.push_back(bar.color);
            if (i + 1 < bars.size()) {
                const double level = yOf(value(bars[i + 1].high));
                out.connectors.emplace_back(QPointF(box.right(), level), QPointF(box.right() + slot * 0.36, level));
            }
            QString shownValue = bar.value;
            if (textWidth(bold, shownValue) > slot - 4 * s) // the number alone; the axis names the unit
                shownValue = (i > 0 && i + 1 < bars.size() ? QStringLiteral("−") : QString()) +
                             QString::number(value(i > 0 && i + 1 < bars.size() ? bar.high - bar.low : bar.high), 'f', 1);
            // Many steps on a small chart: a smaller number, down to 60%; past that the advisor's
            // table carries it.
            QFont valueFont = bold;
            double w = textWidth(valueFont, shownValue);
            if (w > slot - 2 * s) {
                valueFont.setPointSizeF(valueFont.pointSizeF() * std::max(0.6, (slot - 2 * s) / w));
                w = textWidth(valueFont, shownValue);
            }
            if (w > slot - 2 * s)
                continue;
            QRectF valueBox(plot.left() + slot * (double(i) + 0.5) - w / 2, box.top() - line - 2 * s, w, line);
            if (valueBox.intersects(band))
                valueBox.moveBottom(band.top() - 2 * s);
            if (valueBox.top() < plot.top())
                fits = false;
            out.texts.push_back({ChartText::SegmentValue, shownValue, valueBox, valueFont, text, bar.value, int(i), -1});
        }
        if (fits || attempt == 9)
            break;
        top += step;
        step = niceStep(top / 5);
        top = std::ceil(top / step - 1e-9) * step;
    }
    out.axisMax = top;
    out.step = step;
    const auto yOf = [&](double v) { return plot.bottom() - plot.height() * std::min(v, top) / top; };
    // Ticks and the unit.
    const int decimals = decimalsFor(step);
    for (int k = 0; k * step <= top + step / 2; ++k) {
        const double at = yOf(k * step);
        const QString label = QString::number(k * step, 'f', decimals);
        const double w = textWidth(font, label);
        out.texts.push_back({ChartText::AxisTick, label, QRectF(plot.left() - 0.6 * line - w, at - line / 2, w, line),
                             font, text, QString(), -1, -1});
    }
    const QString unit = QString::fromStdString(scaleName(out.scale));
    out.texts.push_back({ChartText::AxisUnit, unit,
                         QRectF(rect.left(), plot.top() - 1.9 * line, textWidth(font, unit), line), font, text,
                         QString(), -1, -1});
    // Bar names under the plot.
    for (std::size_t i = 0; i < names.size(); ++i)
        for (int k = 0; k < names[i].size(); ++k) {
            const double w = textWidth(font, names[i][k]);
            out.texts.push_back({ChartText::Category, names[i][k],
                                 QRectF(plot.left() + slot * (double(i) + 0.5) - w / 2, plot.bottom() + 0.3 * line + k * line, w, line),
                                 font, text, bars[i].label, int(i), -1});
        }
    // The GPU's label beside its line.
    const QColor lineColour = capacityLineColor(0, style.dark);
    const double capacityY = out.capacity.y1();
    const double labelTop = std::clamp(capacityY - line, rect.top(), rect.bottom() - 2 * line);
    out.texts.push_back({ChartText::LineName, gpuName,
                         QRectF(plot.right() + 0.6 * line, labelTop, textWidth(bold, gpuName), line), bold, lineColour,
                         QString(), -1, -1});
    out.texts.push_back({ChartText::LineName, capacity,
                         QRectF(plot.right() + 0.6 * line, labelTop + line, textWidth(font, capacity), line), font,
                         lineColour, QString(), -1, -1});
    return out;
}

void paintWaterfall(QPainter &painter, const QRectF &rect, const Advice &advice, const WaterfallStyle &style)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect, chartBackground(style.dark));
    const WaterfallLayout layout = layoutWaterfall(rect, advice, style, painter.font());
    const QRectF &plot = layout.plot;
    const double s = style.scale;
    // Grid.
    painter.setPen(QPen(style.dark ? QColor(0x3A3B3F) : QColor(0xE3E3E3), 1));
    for (double y = 0; y <= layout.axisMax + layout.step / 2; y += layout.step) {
        const double at = plot.bottom() - plot.height() * y / layout.axisMax;
        painter.drawLine(QPointF(plot.left(), at), QPointF(plot.right(), at));
    }
    // Bars and the steps between them.
    for (std::size_t i = 0; i < layout.bars.size(); ++i)
        painter.fillRect(layout.bars[i], layout.colours[i]);
    painter.setPen(QPen(chartTextColor(style.dark), 1 * s, Qt::DotLine));
    for (const QLineF &connector : layout.connectors)
        painter.drawLine(connector);
    // The GPU's line.
    QPen capacity(capacityLineColor(0, style.dark), layout.capacityWidth, Qt::DashLine);
    capacity.setCapStyle(Qt::FlatCap);
    painter.setPen(capacity);
    painter.drawLine(layout.capacity);
    painter.setPen(QPen(chartTextColor(style.dark), 1));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    // Every text where the layout put it.
    for (const ChartText &text : layout.texts) {
        painter.setFont(text.font);
        painter.setPen(text.color);
        painter.drawText(text.rect, Qt::AlignCenter, text.text);
    }
    painter.restore();
}

WaterfallChart::WaterfallChart(QWidget *parent) : QWidget(parent)
{
    setMinimumSize(480, 260);
    setAccessibleName(tr("Advice waterfall"));
}

void WaterfallChart::setAdvice(const Advice &advice, const WaterfallStyle &style)
{
    m_advice = advice;
    m_style = style;
    update();
}

void WaterfallChart::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    if (m_advice.gpuId.empty()) {
        painter.fillRect(rect(), palette().window());
        return;
    }
    paintWaterfall(painter, QRectF(rect()), m_advice, m_style);
}

} // namespace headroom
