// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "solve/advisor.h"
#include "chart/chartlayout.h"
#include "scenario/units.h"

#include <QWidget>

class QPainter;

namespace headroom {

/// How the waterfall looks: theme and size of text and lines.
struct WaterfallStyle
{
    Unit unit = Unit::GiB;
    bool dark = false;
    double scale = 1; ///< text and line size
};

/// Where the waterfall's parts go in `rect`: computed once, drawn by paintWaterfall, checked by
/// the layout tests.
struct WaterfallLayout
{
    QRectF plot;
    ByteScale scale;
    double axisMax = 1;
    double step = 1;
    std::vector<QRectF> bars;
    std::vector<QColor> colours;
    std::vector<QLineF> connectors; ///< from one bar's level to the next bar
    QLineF capacity;                ///< the GPU's line
    double capacityWidth = 2;
    std::vector<ChartText> texts;   ///< ticks, unit, values, bar names, the GPU's label
};
/// Lays the advice out in `rect`.
WaterfallLayout layoutWaterfall(const QRectF &rect, const Advice &advice, const WaterfallStyle &style,
                                const QFont &base);

/// Draws the advice as a waterfall into `rect`: the current peak at the left, each step's saving
/// going down, the configuration it ends with at the right, and the GPU's capacity line across.
void paintWaterfall(QPainter &painter, const QRectF &rect, const Advice &advice, const WaterfallStyle &style);

/// A widget that paints the advisor's waterfall (the same drawing as the exports).
class WaterfallChart : public QWidget
{
    Q_OBJECT
public:
    explicit WaterfallChart(QWidget *parent = nullptr);

    void setAdvice(const Advice &advice, const WaterfallStyle &style);
    const Advice &advice() const { return m_advice; }
    QSize sizeHint() const override { return {720, 360}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    Advice m_advice;
    WaterfallStyle m_style;
};

} // namespace headroom
