// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor.h"
#include "units.h"

#include <QWidget>

class QPainter;

namespace headroom {

/// How the waterfall looks: theme and size of text and lines.
struct WaterfallStyle
{
    Unit unit = Unit::GB;
    bool dark = false;
    double scale = 1; ///< text and line size
};

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
