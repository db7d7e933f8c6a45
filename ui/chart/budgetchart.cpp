// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/budgetchart.h"

#include "chart/chartlabels.h"
#include "chart/consumerstyle.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QFont>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

/// A round axis maximum (1, 2, 2.5, 5 x 10^n) above `value`.
double niceCeiling(double value)
{
    if (value <= 0)
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (double step : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
        if (step * magnitude >= value)
            return step * magnitude;
    return 10 * magnitude;
}

QColor textColor(bool dark)
{
    return dark ? QColor(0xE6E6E6) : QColor(0x202020);
}
QColor lineColor(bool dark)
{
    return dark ? QColor(0xFF6B6B) : QColor(0xC0392B);
}

/// Updates a text item only where something changed (each change relayouts the scene).
void setLabel(QGraphicsSimpleTextItem *label, const QString &text, const QFont &font,
              const QColor &color)
{
    if (label->font() != font)
        label->setFont(font);
    if (label->text() != text)
        label->setText(text);
    if (label->brush().color() != color)
        label->setBrush(color);
}

} // namespace

QString shortGpuName(const QString &name)
{
    QString shortName = name;
    for (const char *prefix : {"NVIDIA ", "GeForce ", "Tesla ", "AMD ", "Instinct ", "Apple "})
        if (shortName.startsWith(QLatin1String(prefix)))
            shortName.remove(0, int(qstrlen(prefix)));
    return shortName;
}

QString fitMark(std::uint64_t totalBytes, const std::vector<CapacityLine> &lines, Unit unit, bool compact)
{
    const CapacityLine *largestMissed = nullptr;
    const CapacityLine *smallestFit = nullptr;
    for (const CapacityLine &line : lines) {
        if (totalBytes > line.bytes) {
            if (!largestMissed || line.bytes > largestMissed->bytes)
                largestMissed = &line;
        } else if (!smallestFit || line.bytes < smallestFit->bytes) {
            smallestFit = &line;
        }
    }
    if (largestMissed)
        return (compact ? BudgetChart::tr("over %1\nby %2") : BudgetChart::tr("does not fit %1\nby %2"))
            .arg(shortGpuName(largestMissed->name),
                 bytesText(totalBytes - largestMissed->bytes, unit));
    if (smallestFit)
        return BudgetChart::tr("fits %1\n%2 spare")
            .arg(shortGpuName(smallestFit->name), bytesText(smallestFit->bytes - totalBytes, unit));
    return {};
}

BudgetChart::BudgetChart(QObject *parent)
    : QObject(parent), m_chart(new QChart), m_series(new QStackedBarSeries),
      m_axisX(new QBarCategoryAxis), m_axisY(new QValueAxis), m_lineAxisX(new QValueAxis)
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->addSeries(m_series);
    for (int i = 0; i < kConsumerCount; ++i) {
        const auto id = static_cast<ConsumerId>(i);
        auto *set = new QBarSet(consumerDisplayName(id));
        m_sets[std::size_t(i)] = set;
        m_series->append(set);
        connect(set, &QBarSet::hovered, this, [this, id](bool status, int index) {
            emit segmentHovered(status ? describeSegment(id, index) : QString());
        });
    }
    m_series->setBarWidth(0.6);
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);
    m_chart->addAxis(m_lineAxisX, Qt::AlignTop);
    m_lineAxisX->setVisible(false);
    m_series->attachAxis(m_axisX);
    m_series->attachAxis(m_axisY);
    m_axisY->setLabelFormat(QStringLiteral("%.0f"));
    m_chart->legend()->setAlignment(Qt::AlignLeft);
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { layoutLabels(); });
    applyTheme();
}

BudgetChart::~BudgetChart()
{
    // A QChartView owns the chart once shown; otherwise it is ours.
    if (!m_chart->scene())
        delete m_chart;
}

void BudgetChart::setScale(double scale)
{
    m_scale = scale;
    m_themeApplied = false;
    applyTheme();
    updateLines();
    layoutLabels();
}

void BudgetChart::applyTheme()
{
    if (m_themeApplied && m_darkApplied == m_data.dark)
        return;
    const bool dark = m_data.dark;
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setBackgroundBrush(dark ? QColor(0x1E1F22) : QColor(Qt::white));
    m_chart->setBackgroundRoundness(0);
    QFont font = m_chart->font();
    font.setPointSizeF(9 * m_scale);
    QFont titleFont = font;
    titleFont.setPointSizeF(13 * m_scale);
    titleFont.setBold(true);
    m_chart->setTitleFont(titleFont);
    m_chart->setTitleBrush(textColor(dark));
    m_chart->legend()->setFont(font);
    m_chart->legend()->setLabelColor(textColor(dark));
    for (QValueAxis *axis : {m_axisY}) {
        axis->setLabelsFont(font);
        axis->setLabelsColor(textColor(dark));
        axis->setTitleFont(font);
        axis->setTitleBrush(textColor(dark));
        axis->setGridLineColor(dark ? QColor(0x3A3B3F) : QColor(0xE3E3E3));
    }
    m_axisX->setLabelsFont(font);
    m_axisX->setLabelsColor(textColor(dark));
    for (int i = 0; i < kConsumerCount; ++i) {
        QBarSet *set = m_sets[std::size_t(i)];
        const QColor color = consumerColor(static_cast<ConsumerId>(i), dark);
        set->setColor(color);
        set->setBorderColor(dark ? QColor(0x1E1F22) : QColor(Qt::white));
    }
    for (auto *label : m_lineLabels)
        label->setBrush(lineColor(dark));
    m_themeApplied = true;
    m_darkApplied = dark;
}

void BudgetChart::setData(const ChartData &data)
{
    const bool darkChanged = data.dark != m_data.dark;
    const std::size_t oldColumns = m_data.columns.size();
    m_data = data;
    if (darkChanged || !m_themeApplied)
        applyTheme();
    const QString title = data.subtitle.isEmpty()
                              ? data.title.toHtmlEscaped()
                              : QStringLiteral("<center>%1<br><span style=\"font-size:small; "
                                               "font-weight:normal\">%2</span></center>")
                                    .arg(data.title.toHtmlEscaped(), data.subtitle.toHtmlEscaped());
    if (m_chart->title() != title)
        m_chart->setTitle(title);

    // Bar values in place; the number of values changes only with the number of columns.
    const std::size_t columns = data.columns.size();
    bool legendChanged = false;
    for (int i = 0; i < kConsumerCount; ++i) {
        QBarSet *set = m_sets[std::size_t(i)];
        bool any = false;
        for (std::size_t c = 0; c < columns; ++c) {
            const double value = toUnit(data.columns[c].bytes[std::size_t(i)], data.unit);
            any = any || value > 0;
            if (c < oldColumns && int(c) < set->count()) {
                if (set->at(int(c)) != value) // only the columns that changed: usually one
                    set->replace(int(c), value);
            } else
                set->append(value);
        }
        if (set->count() > int(columns))
            set->remove(int(columns), set->count() - int(columns));
        const auto markers = m_chart->legend()->markers(m_series);
        // Tracked here: a marker reports itself hidden until the legend is on screen.
        if (i < markers.size() && m_markerShown[std::size_t(i)] != any) {
            markers[i]->setVisible(any);
            m_markerShown[std::size_t(i)] = any;
            legendChanged = true;
        }
    }
    if (legendChanged) {
        // Qt 6.4 leaves gaps for hidden markers until the legend is laid out again.
        m_chart->legend()->hide();
        m_chart->legend()->show();
    }
    QStringList categories;
    for (const ChartColumn &column : data.columns)
        categories << column.label;
    if (m_axisX->categories() != categories)
        m_axisX->setCategories(categories);

    double top = 0;
    for (const ChartColumn &column : data.columns)
        top = std::max(top, toUnit(column.totalBytes, data.unit));
    for (const CapacityLine &line : data.lines)
        top = std::max(top, toUnit(line.bytes, data.unit));
    const double max = niceCeiling(top * 1.1);
    if (m_axisY->max() != max || m_axisY->min() != 0)
        m_axisY->setRange(0, max);
    const QString unitTitle = QString::fromLatin1(unitName(data.unit));
    if (m_axisY->titleText() != unitTitle)
        m_axisY->setTitleText(unitTitle);
    const QString format = max < 10 ? QStringLiteral("%.1f") : QStringLiteral("%.0f");
    if (m_axisY->labelFormat() != format)
        m_axisY->setLabelFormat(format);
    if (m_axisY->tickCount() != 6)
        m_axisY->setTickCount(6);
    updateLines();
    layoutLabels();
}

void BudgetChart::updateLines()
{
    const bool dark = m_data.dark;
    // Structural change only when the number of lines changes.
    while (m_lines.size() > m_data.lines.size()) {
        m_chart->removeSeries(m_lines.back());
        delete m_lines.back();
        m_lines.pop_back();
        delete m_lineLabels.back();
        m_lineLabels.pop_back();
    }
    while (m_lines.size() < m_data.lines.size()) {
        auto *line = new QLineSeries;
        m_chart->addSeries(line);
        line->attachAxis(m_lineAxisX);
        line->attachAxis(m_axisY);
        const auto markers = m_chart->legend()->markers(line);
        for (QLegendMarker *marker : markers)
            marker->setVisible(false);
        m_lines.push_back(line);
        auto *label = new QGraphicsSimpleTextItem(m_chart);
        label->setZValue(20);
        m_lineLabels.push_back(label);
    }
    // Points at -0.5 and n - 0.5 on a hidden axis of the category range: edge to edge.
    const double n = double(std::max<std::size_t>(1, m_data.columns.size()));
    m_lineAxisX->setRange(-0.5, n - 0.5);
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        const double y = toUnit(m_data.lines[i].bytes, m_data.unit);
        QLineSeries *line = m_lines[i];
        if (line->name() != m_data.lines[i].name)
            line->setName(m_data.lines[i].name);
        QPen pen(lineColor(dark));
        pen.setWidthF(2.0 * m_scale);
        pen.setStyle(i == 0 ? Qt::SolidLine : (i % 2 ? Qt::DashLine : Qt::DashDotLine));
        if (line->pen() != pen)
            line->setPen(pen);
        const QList<QPointF> points{{-0.5, y}, {n - 0.5, y}};
        if (line->points() != points)
            line->replace(points);
        QFont font = m_chart->font();
        font.setPointSizeF(8.5 * m_scale);
        font.setBold(true);
        QString text = QStringLiteral("%1\n%2").arg(shortGpuName(m_data.lines[i].name),
                                                    bytesText(m_data.lines[i].bytes, m_data.unit));
        if (!m_data.lines[i].limit.isEmpty()) // the solver's answer for this GPU
            text += QLatin1Char('\n') + m_data.lines[i].limit;
        setLabel(m_lineLabels[i], text, font, lineColor(dark));
    }
}

void BudgetChart::layoutLabels()
{
    const QRectF plot = m_chart->plotArea();
    if (plot.isEmpty())
        return;
    // Line labels in the right margin, beside their line.
    std::vector<qreal> lineY;
    for (std::size_t i = 0; i < m_lineLabels.size() && i < m_data.lines.size(); ++i)
        lineY.push_back(
            m_chart
                ->mapToPosition(QPointF(0, toUnit(m_data.lines[i].bytes, m_data.unit)), m_lines[i])
                .y());
    if (!placeMarginLabels(m_chart, m_lineLabels, lineY))
        return; // relayout: plotAreaChanged calls back here
    // Fit marks above each bar.
    while (m_fitLabels.size() > m_data.columns.size()) {
        delete m_fitLabels.back();
        m_fitLabels.pop_back();
    }
    while (m_fitLabels.size() < m_data.columns.size()) {
        auto *label = new QGraphicsSimpleTextItem(m_chart);
        label->setZValue(21);
        m_fitLabels.push_back(label);
    }
    const double n = double(std::max<std::size_t>(1, m_data.columns.size()));
    QFont font = m_chart->font();
    font.setPointSizeF(8 * m_scale);
    for (std::size_t c = 0; c < m_fitLabels.size(); ++c) {
        const ChartColumn &column = m_data.columns[c];
        QGraphicsSimpleTextItem *label = m_fitLabels[c];
        const QString text = column.error.isEmpty()
                                 ? fitMark(column.totalBytes, m_data.lines, m_data.unit)
                                 : column.error;
        const bool missing = !column.error.isEmpty() || column.totalBytes > smallestLine();
        const QColor colour = missing ? lineColor(m_data.dark) : textColor(m_data.dark);
        setLabel(label, text, font, colour);
        // Narrow columns (many pins, the phases view in a small window): a shorter wording,
        // then a smaller font, so neighbouring marks never overlap.
        const double columnWidth = plot.width() / n - 4 * m_scale;
        if (column.error.isEmpty() && label->boundingRect().width() > columnWidth) {
            const QString compact = fitMark(column.totalBytes, m_data.lines, m_data.unit, true);
            QFont smaller = font;
            setLabel(label, compact, smaller, colour);
            while (label->boundingRect().width() > columnWidth && smaller.pointSizeF() > 6 * m_scale) {
                smaller.setPointSizeF(smaller.pointSizeF() - 0.5 * m_scale);
                setLabel(label, compact, smaller, colour);
            }
        }
        const QPointF top = m_chart->mapToPosition(
            QPointF(double(c), toUnit(column.totalBytes, m_data.unit)), m_series);
        const double centre = plot.left() + plot.width() * (double(c) + 0.5) / n;
        const QRectF box = label->boundingRect();
        double y = std::max(plot.top(), std::min(top.y(), plot.bottom()) - box.height() - 2);
        // Still wider than its column: lift it above the marks it would cover, or leave it out
        // (the status line and the breakdown still say whether it fits).
        label->setVisible(true);
        const double x = centre - box.width() / 2;
        for (bool moved = true; moved;) {
            moved = false;
            for (std::size_t k = 0; k < c; ++k) {
                const QGraphicsSimpleTextItem *other = m_fitLabels[k];
                const QRectF placed = other->mapRectToParent(other->boundingRect());
                if (other->isVisible() && placed.intersects(QRectF(x, y, box.width(), box.height()))) {
                    y = placed.top() - box.height() - 1;
                    moved = true;
                }
            }
        }
        label->setVisible(y >= plot.top() - 2 * box.height());
        label->setPos(x, y);
    }
    // The measured peak: a bold line across the first bar, labelled on its left.
    if (!m_measuredLine) {
        m_measuredLine = new QGraphicsLineItem(m_chart);
        m_measuredLine->setZValue(22);
        m_measuredText = new QGraphicsSimpleTextItem(m_chart);
        m_measuredText->setZValue(22);
    }
    const bool showMeasured = m_data.measuredBytes > 0 && !m_data.columns.empty();
    m_measuredLine->setVisible(showMeasured);
    m_measuredText->setVisible(showMeasured);
    if (showMeasured) {
        const double y =
            m_chart->mapToPosition(QPointF(0, toUnit(m_data.measuredBytes, m_data.unit)), m_series)
                .y();
        const double width = plot.width() / n;
        const double left = plot.left() + width * 0.15, right = plot.left() + width * 0.85;
        QPen pen(textColor(m_data.dark));
        pen.setWidthF(2.5 * m_scale);
        m_measuredLine->setPen(pen);
        m_measuredLine->setLine(left, y, right, y);
        QFont bold = font;
        bold.setBold(true);
        setLabel(m_measuredText, m_data.measuredLabel, bold, textColor(m_data.dark));
        m_measuredText->setPos(left, y + 2);
    }
}

std::uint64_t BudgetChart::smallestLine() const
{
    std::uint64_t smallest = UINT64_MAX;
    for (const CapacityLine &line : m_data.lines)
        smallest = std::min(smallest, line.bytes);
    return smallest;
}

QString BudgetChart::measuredMark() const
{
    return m_measuredText && m_measuredText->isVisible() ? m_measuredText->text() : QString();
}

QStringList BudgetChart::fitMarks() const
{
    QStringList marks;
    for (const auto *label : m_fitLabels)
        marks << label->text();
    return marks;
}

QList<QRectF> BudgetChart::fitMarkRects() const
{
    QList<QRectF> rects;
    for (const auto *label : m_fitLabels)
        if (!label->text().isEmpty() && label->isVisible())
            rects << label->mapRectToParent(label->boundingRect());
    return rects;
}

QString BudgetChart::describeSegment(ConsumerId id, int column) const
{
    if (column < 0 || column >= int(m_data.columns.size()))
        return {};
    const ChartColumn &c = m_data.columns[std::size_t(column)];
    const std::uint64_t bytes = c.bytes[std::size_t(id)];
    const double share = c.totalBytes ? 100.0 * double(bytes) / double(c.totalBytes) : 0;
    QString text = QStringLiteral("<b>%1</b>: %2 (%3% of %4)<br>%5")
                       .arg(consumerDisplayName(id), bytesText(bytes, m_data.unit),
                            QString::number(share, 'f', 1), c.label.toHtmlEscaped(),
                            bytesText(c.totalBytes, m_data.unit));
    if (c.estimate)
        if (const Consumer *consumer = c.estimate->consumer(id);
            consumer && consumer->bytes == bytes)
            text +=
                QStringLiteral("<br><tt>%1</tt>")
                    .arg(QString::fromStdString(consumer->formula(m_data.unit)).toHtmlEscaped());
    return text;
}

} // namespace headroom
