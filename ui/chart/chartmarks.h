// SPDX-License-Identifier: GPL-3.0-or-later
// The budget chart's texts inside the plot: the layout's second half (chartlayout.cpp is the first).
#pragma once

#include "chart/chartlayout.h"

#include <vector>

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

/// Capacity lines' y positions drawn apart: lines closer than `gap` (centre to centre) are
/// spread to `gap`, each run of such lines centred where its lines are (A100 80GB at 80 GiB and
/// H100 at 79.6 GiB are both seen), the order kept, the whole run kept within [`top`, `bottom`]
/// when it fits there. The values the lines stand for do not change; only where they are drawn.
std::vector<double> separatedLines(const std::vector<double> &ys, double gap, double top, double bottom);

} // namespace headroom
