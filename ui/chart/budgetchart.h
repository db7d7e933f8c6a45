// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate.h"
#include "units.h"

#include <QObject>
#include <QString>
#include <array>
#include <vector>

class QChart;
class QBarSet;
class QStackedBarSeries;
class QBarCategoryAxis;
class QValueAxis;
class QLineSeries;
class QGraphicsSimpleTextItem;
class QGraphicsLineItem;
class QPainter;

namespace headroom {

/// One stacked bar: a scenario (or one phase of it) split into consumers.
struct ChartColumn
{
    QString label;
    std::array<std::uint64_t, kConsumerCount> bytes{};
    std::uint64_t totalBytes = 0;
    const Estimate *estimate = nullptr; ///< for hover formulas; may be null
    QString error;                      ///< shown instead of a bar when the estimate failed
};

/// A horizontal capacity line across the plot.
struct CapacityLine
{
    QString name;
    std::uint64_t bytes = 0;
    QString limit; ///< the chosen solve variable's limit on this GPU ("micro-batch <= 3"), or empty
};

/// Everything the chart draws.
struct ChartData
{
    QString title;
    QString subtitle;
    std::vector<ChartColumn> columns;
    std::vector<CapacityLine> lines;
    Unit unit = Unit::GB;
    bool dark = false;
    std::uint64_t measuredBytes = 0; ///< a measured peak drawn on the first column (0 = none)
    QString measuredLabel;
};

/// The one chart class: stacked consumer bars against GPU capacity lines. The window, the
/// exports and the command line all draw through it. Values are updated in place; series are
/// only added or removed when the set of capacity lines changes.
class BudgetChart : public QObject
{
    Q_OBJECT
public:
    explicit BudgetChart(QObject *parent = nullptr);
    ~BudgetChart() override;

    /// The chart, for a QChartView (which takes ownership) or a QGraphicsScene.
    QChart *chart() const { return m_chart; }
    void setData(const ChartData &data);
    const ChartData &data() const { return m_data; }
    /// Larger fonts and thicker lines (presenter mode and big exports).
    void setScale(double scale);

    /// The bar set of a consumer (fixed for the chart's lifetime).
    QBarSet *barSet(ConsumerId id) const { return m_sets[std::size_t(id)]; }
    const std::vector<QLineSeries *> &capacitySeries() const { return m_lines; }
    QValueAxis *valueAxis() const { return m_axisY; }
    /// The text of the fit mark above each column ("does not fit RTX 4090 by 3.2 GB").
    QStringList fitMarks() const;
    /// Where the fit marks are drawn, in chart coordinates (for layout checks).
    QList<QRectF> fitMarkRects() const;
    /// The measured-peak marker's text, empty when none is drawn.
    QString measuredMark() const;
    /// Tooltip text for a segment.
    QString describeSegment(ConsumerId id, int column) const;

signals:
    /// Hover over a segment: its description, or empty when the pointer leaves.
    void segmentHovered(const QString &text);

private:
    void applyTheme();
    void updateLines();
    void layoutLabels();
    std::uint64_t smallestLine() const;

    QChart *m_chart;
    QStackedBarSeries *m_series;
    std::array<QBarSet *, kConsumerCount> m_sets{};
    std::array<bool, kConsumerCount> m_markerShown = [] {
        std::array<bool, kConsumerCount> shown{};
        shown.fill(true); // Qt's default: every marker visible
        return shown;
    }();
    QBarCategoryAxis *m_axisX;
    QValueAxis *m_axisY;
    QValueAxis *m_lineAxisX;
    std::vector<QLineSeries *> m_lines;
    std::vector<QGraphicsSimpleTextItem *> m_lineLabels;
    std::vector<QGraphicsSimpleTextItem *> m_fitLabels;
    QGraphicsLineItem *m_measuredLine = nullptr;
    QGraphicsSimpleTextItem *m_measuredText = nullptr;
    ChartData m_data;
    bool m_themeApplied = false;
    bool m_darkApplied = false;
    double m_scale = 1.0;
};

/// "RTX 4090" for "NVIDIA GeForce RTX 4090": short enough to label lines and bars.
QString shortGpuName(const QString &name);
/// "does not fit RTX 4090\nby 36.97 GB" or "fits A100 80GB\n12.1 GB spare"; `compact` says
/// "over RTX 4090" for narrow columns.
QString fitMark(std::uint64_t totalBytes, const std::vector<CapacityLine> &lines, Unit unit,
                bool compact = false);

} // namespace headroom
