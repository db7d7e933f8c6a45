// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/sweepchart.h"
#include "chart/chartlabels.h"
#include "chart/chartlayout.h"

#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/linechartstyle.h"
#include "chart/consumerstyle.h"
#include "document/documentio.h"

#include <QAreaSeries>
#include <QChart>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <optional>

namespace headroom {

namespace {

std::uint64_t consumerBytes(const Estimate &estimate, int id)
{
    return estimate.bytes(ConsumerId(id));
}

} // namespace

SweepChart::SweepChart(QObject *parent)
    : QObject(parent), m_chart(new QChart), m_axisX(new QValueAxis), m_axisY(new QValueAxis),
      m_comparison(new QLineSeries), m_crossings(new QScatterSeries)
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);
    for (int i = 0; i < kConsumerCount; ++i) {
        auto *upper = new QLineSeries(this);
        auto *lower = i == 0 ? nullptr : new QLineSeries(this);
        auto *area = new QAreaSeries(upper, lower);
        area->setName(consumerDisplayName(ConsumerId(i)));
        m_chart->addSeries(area);
        area->attachAxis(m_axisX);
        area->attachAxis(m_axisY);
        m_areas[std::size_t(i)] = area;
    }
    for (QAbstractSeries *series :
         std::initializer_list<QAbstractSeries *>{m_comparison, m_crossings}) {
        m_chart->addSeries(series);
        series->attachAxis(m_axisX);
        series->attachAxis(m_axisY);
    }
    m_crossings->setName(tr("GPU line crossed"));
    m_axisX->setLabelFormat(QStringLiteral("%.0f"));
    m_axisY->setLabelFormat(QStringLiteral("%.0f"));
    m_chart->legend()->setAlignment(Qt::AlignLeft);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutLabels(); });
    applyTheme();
}

SweepChart::~SweepChart()
{
    if (!m_chart->scene())
        delete m_chart;
}

void SweepChart::setScale(double scale)
{
    m_scale = scale;
    applyTheme();
    updateLines();
    layoutLabels();
}

void SweepChart::applyTheme()
{
    const bool dark = m_data.dark;
    styleLineChart(m_chart, {m_axisX, m_axisY}, dark, m_scale);
    for (int i = 0; i < kConsumerCount; ++i) {
        QAreaSeries *area = m_areas[std::size_t(i)];
        area->setColor(consumerColor(ConsumerId(i), dark));
        area->setBorderColor(consumerColor(ConsumerId(i), dark).darker(115));
    }
    QPen comparison(chartTextColor(dark));
    comparison.setWidthF(2.5 * m_scale);
    comparison.setStyle(Qt::DashLine);
    m_comparison->setPen(comparison);
    m_crossings->setColor(verdictColor(false, dark));
    m_crossings->setBorderColor(chartBackground(dark));
    m_crossings->setMarkerSize(11 * m_scale);
}

void SweepChart::setData(const SweepChartData &data)
{
    const bool themeChanged = data.dark != m_data.dark;
    m_data = data;
    if (themeChanged)
        applyTheme();
    const QString title = data.subtitle.isEmpty()
                              ? data.title.toHtmlEscaped()
                              : QStringLiteral("<center>%1<br><span style=\"font-size:small; "
                                               "font-weight:normal\">%2</span></center>")
                                    .arg(data.title.toHtmlEscaped(), data.subtitle.toHtmlEscaped());
    m_chart->setTitle(title);

    // One scale for the axis and every value (GiB, or TiB when huge).
    const auto &points = data.sweep.points;
    std::uint64_t largest = 0;
    for (const SweepPoint &point : points)
        largest = std::max(largest, point.estimate.peak.deviceBytes);
    // The axis follows the scenario's own curves and GPU lines; the other attention's total is
    // drawn against it, cut at the top (an eager curve at 12,500 GiB would squash the data).
    for (const SweepCrossing &crossing : data.sweep.crossings)
        largest = std::max(largest, crossing.capacityBytes);
    if (largest == 0)
        for (const auto &[value, bytes] : data.comparison)
            largest = std::max(largest, bytes);
    m_byteScale = scaleFor(largest, data.unit);
    // Running totals, bottom (weights) to top, in place on the fixed series.
    std::vector<double> below(points.size(), 0.0);
    double top = 0;
    const auto markers = m_chart->legend()->markers();
    for (int i = 0; i < kConsumerCount; ++i) {
        QList<QPointF> upper, lower;
        bool any = false;
        for (std::size_t p = 0; p < points.size(); ++p) {
            const double x = points[p].value;
            lower.append({x, below[p]});
            const std::uint64_t bytes = consumerBytes(points[p].estimate, i);
            any = any || bytes > 0;
            below[p] += toScale(bytes, m_byteScale);
            upper.append({x, below[p]});
            top = std::max(top, below[p]);
        }
        QAreaSeries *area = m_areas[std::size_t(i)];
        area->upperSeries()->replace(upper);
        if (area->lowerSeries())
            area->lowerSeries()->replace(lower);
        area->setVisible(any);
        for (QLegendMarker *marker : m_chart->legend()->markers(area))
            marker->setVisible(any);
    }
    QList<QPointF> comparison;
    for (const auto &[value, bytes] : data.comparison)
        comparison.append({double(value), toScale(bytes, m_byteScale)});
    for (const SweepCrossing &crossing : data.sweep.crossings)
        top = std::max(top, toScale(crossing.capacityBytes, m_byteScale));
    if (points.empty())
        for (const QPointF &point : comparison)
            top = std::max(top, point.y());
    const double step = niceStep(std::max(top * 1.08, 1e-9) / 5);
    const double max = std::ceil(std::max(top * 1.08, 1e-9) / step - 1e-9) * step;
    // Cut at the top, where it leaves the axis, and the legend says from where.
    QString comparisonName = data.comparisonLabel;
    QList<QPointF> shown;
    for (int i = 0; i < comparison.size(); ++i) {
        const QPointF &point = comparison[i];
        if (point.y() <= max) {
            shown.append(point);
            continue;
        }
        if (i > 0 && comparison[i - 1].y() < max) { // where the segment meets the top
            const QPointF &before = comparison[i - 1];
            shown.append({before.x() + (point.x() - before.x()) * (max - before.y()) / (point.y() - before.y()), max});
        }
        if (comparisonName == data.comparisonLabel)
            comparisonName = tr("%1 (above the axis from %2)").arg(data.comparisonLabel, QLocale().toString(qRound64(point.x())));
        break;
    }
    m_comparison->replace(shown);
    m_comparison->setName(comparisonName);
    m_comparison->setVisible(!shown.isEmpty());
    for (QLegendMarker *marker : m_chart->legend()->markers(m_comparison))
        marker->setVisible(!shown.isEmpty());
    m_axisY->setRange(0, max);
    m_axisY->setLabelFormat(QStringLiteral("%.%1f").arg(decimalsFor(step)));
    m_axisY->setTickCount(int(std::lround(max / step)) + 1);
    m_axisY->setTitleText(QString::fromStdString(scaleName(m_byteScale)));
    // Ticks on round values (eighths of a power of two) from the first point on: an axis from 0
    // would put its "0" on the value axis's "0" in the corner.
    if (!points.empty()) {
        const double first = points.front().value, last = points.back().value;
        m_axisX->setRange(first, last);
        m_axisX->setTickType(QValueAxis::TicksDynamic);
        m_axisX->setTickAnchor(0);
        m_axisX->setTickInterval(niceStep(std::max(1.0, last / 8)));
    }
    m_axisX->setTitleText(data.axisTitle);
    updateLines();
    layoutLabels();
}

void SweepChart::updateLines()
{
    const auto &crossings = m_data.sweep.crossings;
    const auto &points = m_data.sweep.points;
    while (m_lines.size() > crossings.size()) {
        m_chart->removeSeries(m_lines.back());
        delete m_lines.back();
        m_lines.pop_back();
        delete m_lineLabels.back();
        m_lineLabels.pop_back();
        delete m_crossingLabels.back();
        m_crossingLabels.pop_back();
        delete m_crossingPatches.back();
        m_crossingPatches.pop_back();
    }
    while (m_lines.size() < crossings.size()) {
        auto *line = new QLineSeries;
        m_chart->addSeries(line);
        line->attachAxis(m_axisX);
        line->attachAxis(m_axisY);
        for (QLegendMarker *marker : m_chart->legend()->markers(line))
            marker->setVisible(false);
        m_lines.push_back(line);
        for (auto *labels : {&m_lineLabels, &m_crossingLabels}) {
            auto *label = new QGraphicsSimpleTextItem(m_chart);
            label->setZValue(20);
            labels->push_back(label);
        }
        auto *patch = new QGraphicsRectItem(m_chart);
        patch->setPen(Qt::NoPen);
        patch->setZValue(19);
        m_crossingPatches.push_back(patch);
    }
    QFont font = m_chart->font();
    font.setPointSizeF(8.5 * m_scale);
    font.setBold(true);
    QList<QPointF> marks;
    m_crossingPoints.clear();
    for (std::size_t i = 0; i < crossings.size(); ++i) {
        const SweepCrossing &crossing = crossings[i];
        const double y = toScale(crossing.capacityBytes, m_byteScale);
        QPen pen(capacityLineColor(int(i), m_data.dark));
        pen.setWidthF(2.0 * m_scale);
        pen.setStyle(capacityLineStyle(int(i)));
        m_lines[i]->setPen(pen);
        m_lines[i]->setName(QString::fromStdString(crossing.gpuName));
        if (!points.empty())
            m_lines[i]->replace(QList<QPointF>{{0, y}, {double(points.back().value), y}});
        const QString name = shortGpuName(QString::fromStdString(crossing.gpuName));
        m_lineLabels[i]->setText(
            QStringLiteral("%1\n%2").arg(name, capacityText(crossing.capacityBytes, m_data.unit)));
        m_lineLabels[i]->setFont(font);
        m_lineLabels[i]->setBrush(capacityLineColor(int(i), m_data.dark));
        QString mark;
        if (crossing.firstOver) {
            const std::size_t over = *crossing.firstOver;
            const double x1 = points[over].value,
                         y1 = toScale(points[over].estimate.peak.deviceBytes, m_byteScale);
            double x = x1;
            if (over > 0) { // where the straight segment between the points meets the line
                const double x0 = points[over - 1].value;
                const double y0 = toScale(points[over - 1].estimate.peak.deviceBytes, m_byteScale);
                x = y1 > y0 ? x0 + (x1 - x0) * (y - y0) / (y1 - y0) : x1;
            }
            marks.append({x, y});
            m_crossingPoints.push_back({x, y});
            mark = over == 0
                       ? tr("over %1 from the start").arg(name)
                       : tr("over %1 from %2").arg(name, QLocale().toString(points[over].value));
        }
        m_crossingLabels[i]->setText(mark);
        m_crossingLabels[i]->setFont(font);
        m_crossingLabels[i]->setBrush(verdictColor(false, m_data.dark));
        m_crossingLabels[i]->setVisible(!mark.isEmpty());
    }
    m_crossings->replace(marks);
    m_crossings->setVisible(!marks.isEmpty());
    for (QLegendMarker *marker : m_chart->legend()->markers(m_crossings))
        marker->setVisible(false);
}

void SweepChart::layoutLabels()
{
    const QRectF plot = m_chart->plotArea();
    if (plot.isEmpty())
        return;
    // Line names in the right margin beside their line.
    std::vector<qreal> lineY;
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        const double y = toScale(m_data.sweep.crossings[i].capacityBytes, m_byteScale);
        lineY.push_back(m_chart->mapToPosition(QPointF(0, y), m_lines[i]).y());
    }
    if (!placeMarginLabels(m_chart, m_lineLabels, lineY))
        return; // relayout: plotAreaChanged calls back here
    // Crossing marks beside their point, on a patch of background so they read over the areas;
    // below or above, right or left, further out where another mark is in the way.
    std::size_t marked = 0;
    std::vector<QRectF> placed;
    const QRectF room = plot.adjusted(2, 2, -2, -2);
    for (std::size_t i = 0; i < m_crossingLabels.size(); ++i) {
        QGraphicsSimpleTextItem *mark = m_crossingLabels[i];
        auto *patch = static_cast<QGraphicsRectItem *>(m_crossingPatches[i]);
        const bool wanted = !mark->text().isEmpty() && marked < m_crossingPoints.size();
        if (!wanted) {
            mark->setVisible(false);
            patch->setVisible(false);
            continue;
        }
        const QPointF point = m_chart->mapToPosition(m_crossingPoints[marked++], m_crossings);
        const QSizeF box = mark->boundingRect().size();
        const double gap = 8 * m_scale;
        std::optional<QRectF> chosen;
        for (int step = 0; step < 8 && !chosen; ++step)
            for (const double dy : {5 * m_scale + step * box.height(), -5 * m_scale - box.height() - step * box.height()})
                for (const double x : {point.x() + gap, point.x() - gap - box.width()}) {
                    const QRectF candidate(QPointF(x, point.y() + dy), box);
                    const QRectF padded = candidate.adjusted(-3, -1, 3, 1);
                    if (!chosen && room.contains(padded) &&
                        std::none_of(placed.begin(), placed.end(), [&](const QRectF &other) { return other.intersects(padded); }))
                        chosen = candidate;
                }
        mark->setVisible(chosen.has_value());
        patch->setVisible(chosen.has_value());
        if (!chosen)
            continue;
        mark->setPos(chosen->topLeft());
        patch->setRect(chosen->adjusted(-3, -1, 3, 1));
        patch->setBrush(chartBackground(m_data.dark));
        placed.push_back(chosen->adjusted(-3, -1, 3, 1));
    }
}

QList<QPointF> SweepChart::totals() const
{
    for (int i = kConsumerCount - 1; i >= 0; --i)
        if (m_areas[std::size_t(i)]->isVisible())
            return m_areas[std::size_t(i)]->upperSeries()->points();
    return {};
}

QStringList SweepChart::crossingMarks() const
{
    QStringList marks;
    for (const auto *label : m_crossingLabels)
        if (label->isVisible())
            marks << label->text();
    return marks;
}

} // namespace headroom
