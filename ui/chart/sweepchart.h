// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartexport.h"
#include "scenario/scenario.h"
#include "solve/sweep.h"
#include "scenario/units.h"

#include <QObject>
#include <QString>
#include <array>
#include <optional>
#include <vector>

class QAreaSeries;
class QChart;
class QGraphicsItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace headroom {

/// Everything a sweep chart draws: the sweep, and the total of another configuration to
/// compare with (eager against flash attention), as a dashed line.
struct SweepChartData
{
    QString title;
    QString subtitle;
    QString axisTitle; ///< "Sequence length (tokens)"
    Sweep sweep;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> comparison; ///< value, device bytes
    QString comparisonLabel;
    Unit unit = Unit::GiB;
    bool dark = false;
};

/// Memory against one axis as stacked areas (one per consumer, fixed colours), with the
/// capacity lines and a mark where each one is crossed. Series are made once and updated.
class SweepChart : public QObject
{
    Q_OBJECT
public:
    explicit SweepChart(QObject *parent = nullptr);
    ~SweepChart() override;

    /// The chart, for a QChartView (which takes ownership) or a QGraphicsScene.
    QChart *chart() const { return m_chart; }
    void setData(const SweepChartData &data);
    const SweepChartData &data() const { return m_data; }
    /// Larger fonts and thicker lines.
    void setScale(double scale);

    /// The area of a consumer; its upper line is the running total up to that consumer.
    QAreaSeries *area(ConsumerId id) const { return m_areas[std::size_t(id)]; }
    /// The top of the stack at each point, in the data's unit.
    QList<QPointF> totals() const;
    const std::vector<QLineSeries *> &capacitySeries() const { return m_lines; }
    /// The text of each crossing mark ("RTX 4090 24 GB: over from 9,216").
    QStringList crossingMarks() const;

private:
    void applyTheme();
    void updateLines();
    void layoutLabels();

    QChart *m_chart;
    QValueAxis *m_axisX;
    QValueAxis *m_axisY;
    std::array<QAreaSeries *, kConsumerCount> m_areas{};
    QLineSeries *m_comparison;
    QScatterSeries *m_crossings;
    std::vector<QLineSeries *> m_lines;
    std::vector<QGraphicsSimpleTextItem *> m_lineLabels;
    std::vector<QGraphicsSimpleTextItem *> m_crossingLabels;
    std::vector<QGraphicsItem *> m_crossingPatches; ///< the background behind each crossing label
    std::vector<QPointF> m_crossingPoints;
    SweepChartData m_data;
    double m_scale = 1;
    ByteScale m_byteScale; ///< of the axis and every value
};

/// Evenly spaced values of an axis around a scenario's own value (32 to 64 points), so that
/// linear growth draws a straight line and quadratic growth a curve.
std::vector<std::uint32_t> sweepValues(const Scenario &scenario, SweepAxis axis);
/// A sweep of the scenario; `attention` replaces its kernel when set, and the other of eager
/// and flash is drawn for comparison.
SweepChartData sweepChartData(const Scenario &scenario, SweepAxis axis, std::optional<Attention> attention,
                              Unit unit, bool dark);
/// Writes a sweep chart as PNG, SVG or PDF (drawn by SweepChart in a bare scene, as the bar
/// chart exports); returns an empty string or the error.
QString exportSweep(const QString &path, ExportFormat format, SweepChartData data, const ChartExportOptions &options);
/// The sweep chart drawn into an image of size x scale pixels.
QImage renderSweepImage(const SweepChartData &data, QSize size, double scale);

} // namespace headroom
