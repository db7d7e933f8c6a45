// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartlayout.h"
#include "estimate/estimate.h"
#include "scenario/units.h"

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
class QGraphicsRectItem;
class QGraphicsLineItem;

namespace headroom {

/// A horizontal capacity line across the plot.
struct CapacityLine
{
    QString name;
    std::uint64_t bytes = 0;
    QString limit; ///< the chosen solve variable's limit on this GPU ("micro-batch <= 3"), or empty
};

/// One stacked bar: a scenario (or one phase, or one rank of it) split into consumers.
struct ChartColumn
{
    QString label;
    std::array<std::uint64_t, kConsumerCount> bytes{};
    std::uint64_t totalBytes = 0;
    const Estimate *estimate = nullptr; ///< for hover formulas; may be null
    QString error;                      ///< shown instead of a bar when the estimate failed
    QString note; ///< a last line under the verdict ("would fit 4 x A100 80GB (FSDP)")
    /// Said instead of "fits X, N spare" (an engine's headline: "10 users at 8,192 tokens on H100
    /// 80GB (vLLM reserves 90%)"; what the engine leaves free is not spare room). Empty: the verdict.
    QString verdict;
    QString workspaceNote; ///< what this bar's workspace holds, for its tooltip
    /// A bar of CPU RAM (the host bar): its verdict is about `ownLine`, never about a GPU.
    bool host = false;
    /// A capacity drawn across this bar only (the machine's RAM share per GPU); bytes 0: none.
    CapacityLine ownLine;
    /// The verdict is about `ownLine`, not the target GPU (a llama.cpp device's own card).
    bool ownVerdict = false;
    /// The band of an ownVerdict column without an estimate of its own (a device of a
    /// multi-device estimate carries the estimate's): its verdict says "may not fit (\u00b1N%)" too.
    int bandPercent = 0;
    int pin = -1; ///< the pin this bar shows (its index), or -1
    /// A measured figure drawn across this bar (a phase's peak from the probe); 0: none.
    std::uint64_t measuredBytes = 0;
};

/// Everything the chart draws.
struct ChartData
{
    QString title;
    QString subtitle;  ///< phrases joined by " · "; wrapped between phrases
    QString warning;   ///< drawn under the subtitle in the warning colour (empty: none)
    QString footnote;  ///< under the chart (what a phase's bar holds that needs a word)
    std::vector<ChartColumn> columns;
    std::vector<CapacityLine> lines;
    int targetLine = -1;   ///< the line the verdicts above the bars are about (-1: none)
    int legendColumn = 0;  ///< the bar whose sizes the legend lists
    QString legendTitle;   ///< which bar that is ("Current", "Backward (peak)")
    Unit unit = Unit::GiB;
    bool dark = false;
    std::uint64_t axisMinimumBytes = 0; ///< the axis reaches at least this (a lesson's largest step)
    std::uint64_t measuredBytes = 0; ///< a measured peak drawn on the first column (0 = none)
    QString measuredLabel;
    /// The axis to the run's scale (a small run's measured phases): a capacity line more than
    /// kOffScaleFactor times the tallest bar or measured figure is left above the axis, drawn at
    /// the plot's top and labelled "\u2191 80 GiB".
    bool axisToRun = false;
};

/// How far above the run a capacity line may be before axisToRun leaves it off the axis.
inline constexpr std::uint64_t kOffScaleFactor = 4;

/// The one chart class: stacked consumer bars against GPU capacity lines, with each segment's
/// size written on it where it fits, a legend of the shown bar's sizes beside the bars, and one
/// verdict per bar about the target GPU. The window, the exports and the command line all draw
/// through it. Values are updated in place; series are only added or removed when the number of
/// capacity lines changes. Every text is placed by layoutChart() in one pass.
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
    /// Where everything went at the chart's current size.
    const ChartLayout &layout() const { return m_layout; }

    /// The bar set of a consumer (fixed for the chart's lifetime).
    QBarSet *barSet(ConsumerId id) const { return m_sets[std::size_t(id)]; }
    const std::vector<QLineSeries *> &capacitySeries() const { return m_lines; }
    QValueAxis *valueAxis() const { return m_axisY; }
    /// The verdict above each column ("does not fit RTX 4090\nby 3.2 GiB").
    QStringList fitMarks() const;
    /// Where the verdicts are drawn, in chart coordinates (for layout checks).
    QList<QRectF> fitMarkRects() const;
    /// The legend's lines ("Weights 12.55 GiB"), top to bottom.
    QStringList legendEntries() const;
    /// The values written on the segments of `column`.
    QStringList segmentValues(int column) const;
    /// The measured-peak marker's text, empty when none is drawn.
    QString measuredMark() const;
    /// The labels of bars' own capacities (the host bar's RAM share), left to right.
    QStringList ownLineMarks() const;
    /// Tooltip text for a segment.
    QString describeSegment(ConsumerId id, int column) const;
    /// The column whose category label is at `chartPoint` (chart coordinates), or -1.
    int categoryAt(const QPointF &chartPoint) const;

signals:
    /// Hover over a segment: its description, or empty when the pointer leaves.
    void segmentHovered(const QString &text);

private:
    void applyTheme();
    void updateLines();
    void relayout();

    QChart *m_chart;
    QStackedBarSeries *m_series;
    std::array<QBarSet *, kConsumerCount> m_sets{};
    QBarCategoryAxis *m_axisX;
    QValueAxis *m_axisY;
    QValueAxis *m_lineAxisX;
    std::vector<QLineSeries *> m_lines;
    std::vector<QGraphicsSimpleTextItem *> m_texts; ///< a pool: one per ChartText, extras hidden
    std::vector<QGraphicsRectItem *> m_swatches;
    std::vector<QGraphicsRectItem *> m_patches;
    QGraphicsLineItem *m_measuredLine = nullptr;
    std::vector<QGraphicsLineItem *> m_ownLines; ///< a pool: one per ChartLayout::ownLines
    std::vector<QGraphicsLineItem *> m_columnMeasured; ///< a pool: one per ChartLayout::columnMeasured
    ChartData m_data;
    ChartLayout m_layout;
    bool m_themeApplied = false;
    bool m_darkApplied = false;
    double m_scale = 1.0;
};

/// The verdict above a bar about one line: "does not fit RTX 4090\nby 36.97 GiB" or "fits A100
/// 80GB\n12.1 GiB spare"; `compact` says "over RTX 4090" for narrow columns.
QString fitMark(std::uint64_t totalBytes, const CapacityLine &line, Unit unit, bool compact = false);

} // namespace headroom
