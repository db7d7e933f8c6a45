// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/budgetchart.h"

#include "chart/consumerstyle.h"
#include "displaytext.h"

#include <QTextDocument>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QFont>
#include <QGraphicsLayout>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <algorithm>

namespace headroom {

namespace {

/// Updates a text item only where something changed (each change relayouts the scene).
void setText(QGraphicsSimpleTextItem *item, const ChartText &text)
{
    if (item->font() != text.font)
        item->setFont(text.font);
    if (item->text() != text.text)
        item->setText(text.text);
    if (item->brush().color() != text.color)
        item->setBrush(text.color);
    if (item->pos() != text.rect.topLeft())
        item->setPos(text.rect.topLeft());
    // A tooltip is rich text when it looks like it: a pin's name is shown as text.
    const QString tip = text.toolTip.isEmpty() ? QString() : Qt::convertFromPlainText(text.toolTip);
    if (item->toolTip() != tip)
        item->setToolTip(tip);
    item->setVisible(true);
}

} // namespace

QString fitMark(std::uint64_t totalBytes, const CapacityLine &line, Unit unit, bool compact)
{
    const std::int64_t headroom = std::int64_t(line.bytes) - std::int64_t(totalBytes);
    return verdictText(line.name, headroom, unit, compact ? VerdictStyle::Compact : VerdictStyle::TwoLines);
}

BudgetChart::BudgetChart(QObject *parent)
    : QObject(parent), m_chart(new QChart), m_series(new QStackedBarSeries),
      m_axisX(new QBarCategoryAxis), m_axisY(new QValueAxis), m_lineAxisX(new QValueAxis)
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    // Hidden before anything is added: hiding it afterwards lays the chart out again around the
    // legend's markers (perf: a few milliseconds of the first frame).
    m_chart->legend()->hide();
    // The sets go in at once, before the series joins the chart: appended one by one to a
    // charted series, each would lay the chart out again (perf: about 5 ms of the first frame).
    QList<QBarSet *> sets;
    for (int i = 0; i < kConsumerCount; ++i) {
        const auto id = static_cast<ConsumerId>(i);
        auto *set = new QBarSet(consumerDisplayName(id));
        m_sets[std::size_t(i)] = set;
        sets.append(set);
        connect(set, &QBarSet::hovered, this, [this, id](bool status, int index) {
            emit segmentHovered(status ? describeSegment(id, index) : QString());
        });
    }
    m_series->append(sets);
    m_chart->addSeries(m_series);
    m_series->setBarWidth(0.6);
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);
    m_chart->addAxis(m_lineAxisX, Qt::AlignTop);
    m_lineAxisX->setVisible(false);
    m_series->attachAxis(m_axisX);
    m_series->attachAxis(m_axisY);
    // Categories, the legend, the title and the axis unit are the layout's own texts.
    m_axisX->setVisible(false);
    m_axisY->setTitleVisible(false);
    m_chart->setPlotAreaBackgroundVisible(false);
    m_measuredLine = new QGraphicsLineItem(m_chart);
    m_measuredLine->setZValue(22);
    m_measuredLine->hide();
    connect(m_chart, &QChart::geometryChanged, this, [this] { relayout(); });
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
    relayout();
}

void BudgetChart::applyTheme()
{
    if (m_themeApplied && m_darkApplied == m_data.dark)
        return;
    const bool dark = m_data.dark;
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setBackgroundBrush(chartBackground(dark));
    m_chart->setBackgroundRoundness(0);
    m_chart->legend()->hide();
    QFont font = m_chart->font();
    font.setPointSizeF(9 * m_scale);
    m_axisY->setLabelsFont(font);
    m_axisY->setLabelsColor(chartTextColor(dark));
    m_axisY->setGridLineColor(dark ? QColor(0x3A3B3F) : QColor(0xE3E3E3));
    m_axisY->setLinePenColor(dark ? QColor(0x6A6B6F) : QColor(0xB0B0B0));
    m_axisY->setTitleVisible(false);
    m_axisX->setVisible(false);
    for (int i = 0; i < kConsumerCount; ++i) {
        QBarSet *set = m_sets[std::size_t(i)];
        set->setColor(consumerColor(static_cast<ConsumerId>(i), dark));
        set->setBorderColor(chartBackground(dark));
    }
    m_themeApplied = true;
    m_darkApplied = dark;
}

void BudgetChart::setData(const ChartData &data)
{
    const std::size_t oldColumns = m_data.columns.size();
    m_data = data;
    applyTheme();
    if (!m_chart->title().isEmpty())
        m_chart->setTitle(QString());

    // The layout first: it chooses the scale (GiB, or TiB when huge) the bars are drawn in.
    relayout();
    const ByteScale scale = m_layout.scale;
    const std::size_t columns = data.columns.size();
    for (int i = 0; i < kConsumerCount; ++i) {
        QBarSet *set = m_sets[std::size_t(i)];
        for (std::size_t c = 0; c < columns; ++c) {
            const ChartColumn &column = data.columns[c];
            const double value = column.error.isEmpty() ? toScale(column.bytes[std::size_t(i)], scale) : 0;
            if (c < oldColumns && int(c) < set->count()) {
                if (set->at(int(c)) != value) // only the columns that changed: usually one
                    set->replace(int(c), value);
            } else
                set->append(value);
        }
        if (set->count() > int(columns))
            set->remove(int(columns), set->count() - int(columns));
    }
    QStringList categories;
    for (std::size_t c = 0; c < columns; ++c)
        categories << QString::number(c + 1); // unique; the labels are the layout's
    if (m_axisX->categories() != categories)
        m_axisX->setCategories(categories);
    updateLines();
}

void BudgetChart::updateLines()
{
    // Structural change only when the number of lines changes.
    while (m_lines.size() > m_data.lines.size()) {
        m_chart->removeSeries(m_lines.back());
        delete m_lines.back();
        m_lines.pop_back();
    }
    while (m_lines.size() < m_data.lines.size()) {
        auto *line = new QLineSeries;
        m_chart->addSeries(line);
        line->attachAxis(m_lineAxisX);
        line->attachAxis(m_axisY);
        m_lines.push_back(line);
    }
    // Points at -0.5 and n - 0.5 on a hidden axis of the category range: edge to edge.
    const double n = double(std::max<std::size_t>(1, m_data.columns.size()));
    if (m_lineAxisX->min() != -0.5 || m_lineAxisX->max() != n - 0.5)
        m_lineAxisX->setRange(-0.5, n - 0.5);
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        // Where the layout draws it: lines of nearly one capacity are drawn a few pixels apart.
        double y = toScale(m_data.lines[i].bytes, m_layout.scale);
        if (i < m_layout.lineY.size() && m_layout.plot.height() > 0)
            y = m_layout.axisMax * (m_layout.plot.bottom() - m_layout.lineY[i]) / m_layout.plot.height();
        QLineSeries *line = m_lines[i];
        if (line->name() != m_data.lines[i].name)
            line->setName(m_data.lines[i].name);
        const int style = capacityLineStyleIndex(m_data.lines[i].name);
        QPen pen(capacityLineColor(style, m_data.dark));
        pen.setWidthF(i < m_layout.lineWidth.size() ? m_layout.lineWidth[i] : 2 * m_scale);
        pen.setStyle(capacityLineStyle(style));
        pen.setCapStyle(Qt::FlatCap);
        if (line->pen() != pen)
            line->setPen(pen);
        const QList<QPointF> points{{-0.5, y}, {n - 0.5, y}};
        if (line->points() != points)
            line->replace(points);
    }
}

void BudgetChart::relayout()
{
    const QSizeF size = m_chart->size();
    if (size.width() < 16 || size.height() < 16)
        return;
    QFont base = m_chart->font();
    m_layout = layoutChart(m_data, size, m_scale, base);
    const ChartLayout &layout = m_layout;
    if (m_chart->plotArea() != layout.plot) {
        m_chart->setPlotArea(layout.plot);
        // Qt 6.4 moves the axis labels with a fixed plot area only when the chart's own geometry
        // changes: lay the chart out now, or the tick labels stay where the last plot was.
        if (QGraphicsLayout *chartLayout = m_chart->layout()) {
            chartLayout->invalidate();
            chartLayout->activate();
        }
    }
    if (m_axisY->min() != 0 || m_axisY->max() != layout.axisMax)
        m_axisY->setRange(0, layout.axisMax);
    if (m_axisY->tickCount() != layout.tickCount)
        m_axisY->setTickCount(layout.tickCount);
    const QString format = QStringLiteral("%.%1f").arg(layout.labelDecimals);
    if (m_axisY->labelFormat() != format)
        m_axisY->setLabelFormat(format);
    if (m_series->barWidth() != layout.barWidth)
        m_series->setBarWidth(layout.barWidth);
    // The bars follow the scale the layout chose.
    for (std::size_t c = 0; c < m_data.columns.size(); ++c)
        for (int i = 0; i < kConsumerCount; ++i) {
            QBarSet *set = m_sets[std::size_t(i)];
            const ChartColumn &column = m_data.columns[c];
            const double value = column.error.isEmpty() ? toScale(column.bytes[std::size_t(i)], layout.scale) : 0;
            if (int(c) < set->count() && set->at(int(c)) != value)
                set->replace(int(c), value);
        }

    while (m_texts.size() < layout.texts.size()) {
        auto *item = new QGraphicsSimpleTextItem(m_chart);
        item->setZValue(21);
        m_texts.push_back(item);
    }
    for (std::size_t i = 0; i < m_texts.size(); ++i) {
        if (i < layout.texts.size())
            setText(m_texts[i], layout.texts[i]);
        else if (m_texts[i]->isVisible())
            m_texts[i]->hide();
    }
    while (m_swatches.size() < layout.swatches.size()) {
        auto *item = new QGraphicsRectItem(m_chart);
        item->setZValue(21);
        m_swatches.push_back(item);
    }
    for (std::size_t i = 0; i < m_swatches.size(); ++i) {
        QGraphicsRectItem *item = m_swatches[i];
        if (i >= layout.swatches.size()) {
            item->hide();
            continue;
        }
        item->setRect(layout.swatches[i].rect);
        item->setBrush(layout.swatches[i].color);
        item->setPen(QPen(chartMutedColor(m_data.dark), 0.5));
        item->show();
    }
    while (m_patches.size() < layout.patches.size()) {
        auto *item = new QGraphicsRectItem(m_chart);
        item->setZValue(20.5);
        item->setPen(Qt::NoPen);
        m_patches.push_back(item);
    }
    for (std::size_t i = 0; i < m_patches.size(); ++i) {
        m_patches[i]->setVisible(i < layout.patches.size());
        if (i < layout.patches.size()) {
            m_patches[i]->setRect(layout.patches[i]);
            m_patches[i]->setBrush(chartBackground(m_data.dark));
        }
    }
    m_measuredLine->setVisible(!layout.measuredLine.isNull());
    if (!layout.measuredLine.isNull()) {
        QPen pen(chartTextColor(m_data.dark));
        pen.setWidthF(2.5 * m_scale);
        m_measuredLine->setPen(pen);
        m_measuredLine->setLine(layout.measuredLine);
    }
    while (m_columnMeasured.size() < layout.columnMeasured.size()) {
        auto *item = new QGraphicsLineItem(m_chart);
        item->setZValue(22);
        m_columnMeasured.push_back(item);
    }
    for (std::size_t i = 0; i < m_columnMeasured.size(); ++i) {
        m_columnMeasured[i]->setVisible(i < layout.columnMeasured.size());
        if (i >= layout.columnMeasured.size())
            continue;
        QPen pen(chartTextColor(m_data.dark));
        pen.setWidthF(2.5 * m_scale);
        m_columnMeasured[i]->setPen(pen);
        m_columnMeasured[i]->setLine(layout.columnMeasured[i]);
    }
    while (m_ownLines.size() < layout.ownLines.size()) {
        auto *item = new QGraphicsLineItem(m_chart);
        item->setZValue(22);
        m_ownLines.push_back(item);
    }
    for (std::size_t i = 0; i < m_ownLines.size(); ++i) {
        m_ownLines[i]->setVisible(i < layout.ownLines.size());
        if (i >= layout.ownLines.size())
            continue;
        QPen pen(chartTextColor(m_data.dark), 2 * m_scale, Qt::DashLine);
        pen.setCapStyle(Qt::FlatCap);
        m_ownLines[i]->setPen(pen);
        m_ownLines[i]->setLine(layout.ownLines[i]);
    }
    updateLines();
}

QString BudgetChart::measuredMark() const
{
    for (const ChartText &text : m_layout.texts)
        if (text.role == ChartText::Measured)
            return text.text;
    return {};
}

QStringList BudgetChart::ownLineMarks() const
{
    QStringList marks;
    for (const ChartText &text : m_layout.texts)
        if (text.role == ChartText::OwnLine)
            marks << text.text;
    return marks;
}

QStringList BudgetChart::fitMarks() const
{
    QStringList marks;
    for (int c = 0; c < int(m_data.columns.size()); ++c) {
        QStringList lines;
        for (const ChartText &text : m_layout.texts)
            if (text.role == ChartText::FitMark && text.column == c)
                lines << text.text;
        marks << lines.join(QLatin1Char('\n'));
    }
    return marks;
}

QList<QRectF> BudgetChart::fitMarkRects() const
{
    QList<QRectF> rects;
    for (int c = 0; c < int(m_data.columns.size()); ++c) {
        QRectF united;
        for (const ChartText &text : m_layout.texts)
            if (text.role == ChartText::FitMark && text.column == c)
                united = united.isNull() ? text.rect : united.united(text.rect);
        if (!united.isNull())
            rects << united;
    }
    return rects;
}

QStringList BudgetChart::legendEntries() const
{
    QStringList entries;
    for (const ChartText &text : m_layout.texts) {
        if (text.role == ChartText::LegendName)
            entries << text.text;
        else if (text.role == ChartText::LegendSize && !entries.isEmpty())
            entries.last() += QLatin1Char(' ') + text.text;
    }
    return entries;
}

QStringList BudgetChart::segmentValues(int column) const
{
    QStringList values;
    for (const ChartText &text : m_layout.texts)
        if (text.role == ChartText::SegmentValue && text.column == column)
            values << text.text;
    return values;
}

int BudgetChart::categoryAt(const QPointF &chartPoint) const
{
    for (const ChartText &text : m_layout.texts)
        if (text.role == ChartText::Category && text.rect.adjusted(-4, -2, 4, 2).contains(chartPoint))
            return text.column;
    return -1;
}

QString BudgetChart::describeSegment(ConsumerId id, int column) const
{
    if (column < 0 || column >= int(m_data.columns.size()))
        return {};
    const ChartColumn &c = m_data.columns[std::size_t(column)];
    const std::uint64_t bytes = c.bytes[std::size_t(id)];
    const double share = c.totalBytes ? 100.0 * double(bytes) / double(c.totalBytes) : 0;
    QString text = QStringLiteral("<b>%1</b>: %2 (%3% of %4)<br>%5")
                       .arg(consumerDisplayName(id), bytesText(bytes, m_layout.scale),
                            QString::number(share, 'f', 1), c.label.toHtmlEscaped(),
                            bytesText(c.totalBytes, m_layout.scale));
    const Consumer *consumer = nullptr;
    if (c.estimate && c.host) {
        for (const Consumer &inRam : c.estimate->host)
            if (inRam.id == id)
                consumer = &inRam;
    } else if (c.estimate) {
        consumer = c.estimate->consumer(id);
    }
    if (consumer && consumer->bytes == bytes)
        text += QStringLiteral("<br><tt>%1</tt>")
                    .arg(QString::fromStdString(consumer->formula(m_data.unit)).toHtmlEscaped());
    if (id == ConsumerId::Workspace && !c.workspaceNote.isEmpty())
        text += QStringLiteral("<br>") + c.workspaceNote.toHtmlEscaped();
    return text;
}

} // namespace headroom
