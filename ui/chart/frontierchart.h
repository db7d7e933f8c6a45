// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartexport.h"
#include "scenario/units.h"
#include "solve/frontier.h"

#include <QObject>
#include <QString>
#include <vector>

class QChart;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QGraphicsSimpleTextItem;

namespace headroom {

/// What the frontier chart draws.
struct FrontierChartData
{
    QString title;
    QString subtitle;
    Frontier frontier;
    QString engine; ///< "vLLM", "llama.cpp", ... for the hover readout
    Unit unit = Unit::GiB;
    bool dark = false;
};

/// Concurrency x context: one line per GPU (or tensor-parallel size, or allocation) of the most
/// concurrent sequences against tokens per sequence, both on log-2 axes, so that "double the
/// context, halve the users" is a straight line; the scenario's load as a point with what
/// limits it.
class FrontierChart : public QObject
{
    Q_OBJECT
public:
    explicit FrontierChart(QObject *parent = nullptr);
    ~FrontierChart() override;

    QChart *chart() const { return m_chart; }
    void setData(const FrontierChartData &data);
    const FrontierChartData &data() const { return m_data; }
    void setScale(double scale);
    const std::vector<QLineSeries *> &curves() const { return m_curves; }
    QScatterSeries *operatingPoint() const { return m_point; }
    /// The operating point's label ("16 x 8,192 tokens: 21 fit, limited by the KV cache").
    QString operatingLabel() const;
    /// What hovering point `point` of curve `curve` reads ("RTX 4090 · 8,192 tokens · 21 users ·
    /// KV 1 GiB per user · vLLM"); empty when there is no such point.
    QString readout(std::size_t curve, std::size_t point) const;
    /// The readout shown now (the last point hovered; empty when the pointer left).
    const QString &currentReadout() const { return m_readout; }
    /// The labels drawn on the first curve's points (its concurrency at each length), left to right.
    QStringList pointLabels() const;
    /// Where those labels are drawn (chart coordinates), in the same order.
    QList<QRectF> pointLabelBoxes() const;
    /// The vertical mark at max_model_len (hidden without one) and its label's text.
    QLineSeries *limitLine() const { return m_limit; }
    QString limitLabel() const;

signals:
    /// Hovering a curve: readout() of the point nearest the pointer; empty when it leaves.
    void readoutChanged(const QString &text);

private:
    void applyTheme();
    void layoutLabel();
    void hover(QLineSeries *line, const QPointF &at, bool entered);

    QChart *m_chart;
    QLogValueAxis *m_axisX;
    QLogValueAxis *m_axisY;
    std::vector<QLineSeries *> m_curves;
    QScatterSeries *m_point;
    QGraphicsSimpleTextItem *m_label;
    QLineSeries *m_limit;
    QGraphicsSimpleTextItem *m_limitText;
    std::vector<QGraphicsSimpleTextItem *> m_pointTexts; ///< a pool: one per point of the first curve
    QString m_readout;
    FrontierChartData m_data;
    double m_scale = 1;
};

/// The words for a curve ("RTX 4090", "H100 x2 TP", "... contiguous").
QString frontierCurveName(const FrontierCurve &curve);
/// The words for what limits concurrency.
QString servingLimitText(ServingLimit limit);
/// The frontier of a scenario with the window's title and subtitle.
FrontierChartData frontierChartData(const Scenario &scenario, const FrontierOptions &options, bool dark,
                                    Unit unit = Unit::GiB);
/// Writes the chart as PNG, SVG or PDF, or the points as CSV or JSON; an empty string or the error.
QString exportFrontier(const QString &path, ExportFormat format, FrontierChartData data,
                       const ChartExportOptions &options);

} // namespace headroom
