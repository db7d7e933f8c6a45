// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/waterfallchart.h"

#include "advicetext.h"
#include "chart/budgetchart.h"
#include "chart/consumerstyle.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

QColor textColor(bool dark) { return dark ? QColor(0xE6E6E6) : QColor(0x202020); }
QColor gridColor(bool dark) { return dark ? QColor(0x3A3B3F) : QColor(0xE3E3E3); }
QColor lineColor(bool dark) { return dark ? QColor(0xFF6B6B) : QColor(0xC0392B); }
const QColor kStartColor(0x777777);
const QColor kSavingColor(0x009E73);
const QColor kFitsColor(0x0072B2);
const QColor kMissesColor(0xD55E00);

/// A round axis step (1, 2, 2.5, 5 x 10^n) giving about `ticks` intervals up to `top`.
double niceStep(double top, int ticks)
{
    const double raw = top / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (step * magnitude >= raw)
            return step * magnitude;
    return 10 * magnitude;
}

/// One bar: its label and the range it spans, in the display unit.
struct Bar
{
    QString label;
    QString value;
    double low = 0;
    double high = 0;
    QColor color;
};

std::vector<Bar> barsOf(const Advice &advice, Unit unit)
{
    std::vector<Bar> bars;
    const double start = toUnit(advice.startPeakDeviceBytes, unit);
    bars.push_back({WaterfallChart::tr("Now"), bytesText(advice.startPeakDeviceBytes, unit), 0, start, kStartColor});
    double level = start;
    for (std::size_t i = 0; i < advice.steps.size(); ++i) {
        const AdviceStep &step = advice.steps[i];
        const double after = toUnit(step.peakDeviceBytes, unit);
        bars.push_back({leverDisplayName(step.lever),
                        QStringLiteral("−") + bytesText(step.savedBytes, unit), after, level, kSavingColor});
        level = after;
    }
    if (!advice.steps.empty())
        bars.push_back({advice.fits ? WaterfallChart::tr("Fits") : WaterfallChart::tr("Still over"),
                        bytesText(advice.finalPeakDeviceBytes(), unit), 0, level,
                        advice.fits ? kFitsColor : kMissesColor});
    return bars;
}

} // namespace

void paintWaterfall(QPainter &painter, const QRectF &rect, const Advice &advice, const WaterfallStyle &style)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect, style.dark ? QColor(0x1E1F22) : QColor(Qt::white));
    QFont font = painter.font();
    font.setPointSizeF(9 * style.scale);
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF metrics(font);
    const double line = metrics.height();
    const std::vector<Bar> bars = barsOf(advice, style.unit);

    double top = std::max(toUnit(advice.capacityBytes, style.unit), bars.front().high) * 1.08;
    const double step = niceStep(top, 5);
    top = std::ceil(top / step) * step;
    const QString unitName = QString::fromLatin1(headroom::unitName(style.unit));
    const double axisWidth = metrics.horizontalAdvance(QString::number(top, 'f', step < 1 ? 1 : 0)) + line;
    // The capacity line's label sits in the right margin, beside its line.
    const QString capacityLabel = QStringLiteral("%1\n%2").arg(shortGpuName(QString::fromStdString(advice.gpuName)),
                                                               bytesText(advice.capacityBytes, style.unit));
    const double labelWidth = QFontMetricsF(bold).boundingRect(QRectF(0, 0, 1e4, 1e4), 0, capacityLabel).width();
    const QRectF plot = rect.adjusted(axisWidth + line, 2 * line, -labelWidth - 1.2 * line, -4.2 * line);

    // Grid and y labels.
    painter.setFont(font);
    for (double y = 0; y <= top + step / 2; y += step) {
        const double at = plot.bottom() - plot.height() * y / top;
        painter.setPen(QPen(gridColor(style.dark), 1));
        painter.drawLine(QPointF(plot.left(), at), QPointF(plot.right(), at));
        painter.setPen(textColor(style.dark));
        painter.drawText(QRectF(rect.left(), at - line / 2, axisWidth, line), Qt::AlignRight | Qt::AlignVCenter,
                         QString::number(y, 'f', step < 1 ? 1 : 0));
    }
    painter.drawText(QRectF(rect.left(), plot.top() - 1.8 * line, axisWidth + line, line),
                     Qt::AlignLeft | Qt::AlignVCenter, unitName);

    // Bars, joined by thin steps from one level to the next.
    const double slot = plot.width() / double(bars.size());
    const auto yOf = [&](double value) { return plot.bottom() - plot.height() * std::min(value, top) / top; };
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const Bar &bar = bars[i];
        const double left = plot.left() + slot * (double(i) + 0.18);
        const QRectF box(QPointF(left, yOf(bar.high)), QPointF(left + slot * 0.64, yOf(bar.low)));
        painter.fillRect(box, bar.color);
        if (i + 1 < bars.size()) {
            painter.setPen(QPen(textColor(style.dark), 1 * style.scale, Qt::DotLine));
            const double level = yOf(bars[i + 1].high);
            painter.drawLine(QPointF(box.right(), level), QPointF(box.right() + slot * 0.36, level));
        }
        painter.setFont(font);
        painter.drawText(QRectF(plot.left() + slot * double(i) + 2, plot.bottom() + 0.3 * line, slot - 4, 3.8 * line),
                         Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, bar.label);
    }

    // The GPU's capacity line, labelled in the right margin.
    const double capacity = yOf(toUnit(advice.capacityBytes, style.unit));
    painter.setPen(QPen(lineColor(style.dark), 2 * style.scale, Qt::DashLine));
    painter.drawLine(QPointF(plot.left(), capacity), QPointF(plot.right(), capacity));
    painter.setFont(bold);
    painter.setPen(lineColor(style.dark));
    painter.drawText(QRectF(plot.right() + 0.6 * line, capacity - line, labelWidth + line, 2 * line),
                     Qt::AlignLeft | Qt::AlignVCenter, capacityLabel);
    // Each value above its bar, on a patch of background so that the line stays out of the way.
    painter.setFont(bold);
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const QRectF valueBox(plot.left() + slot * double(i), yOf(bars[i].high) - 1.3 * line, slot, line);
        const QRectF textBox = painter.boundingRect(valueBox, Qt::AlignHCenter | Qt::AlignBottom, bars[i].value);
        painter.fillRect(textBox.adjusted(-3, 0, 3, 0), style.dark ? QColor(0x1E1F22) : QColor(Qt::white));
        painter.setPen(textColor(style.dark));
        painter.drawText(valueBox, Qt::AlignHCenter | Qt::AlignBottom, bars[i].value);
    }
    painter.setPen(QPen(textColor(style.dark), 1));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
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
