// SPDX-License-Identifier: GPL-3.0-or-later
// The budget chart's texts inside the plot: the layout's second half (chartlayout.cpp is the first).
#pragma once

#include "chart/chartlayout.h"

namespace headroom {

struct ChartData;

/// The plot and what the texts inside it are drawn with, as the frame of the chart left them.
struct PlotFrame
{
    QRectF plot;
    double columnWidth = 1;
    double barPixels = 1;
    double scale = 1; ///< text scale
    QFont smallFont;
    QFont boldSmall;
    QFont valueFont;
};

/// Chooses the value axis (round steps, grown until every verdict fits above its bar) and places
/// the verdicts, the measured peak and each segment's size where it fits, off the capacity lines.
/// Fills out.axisMax, tickCount, labelDecimals, lineY, lineWidth, measuredLine, patches and the
/// texts inside the plot. A text that cannot fit is left out, never drawn over another.
void placeInPlot(const ChartData &data, const PlotFrame &frame, ChartLayout &out);

} // namespace headroom
