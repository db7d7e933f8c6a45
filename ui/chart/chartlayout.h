// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/units.h"

#include <QColor>
#include <QFont>
#include <QLineF>
#include <QRectF>
#include <QString>
#include <vector>

namespace headroom {

struct ChartData;
struct CapacityLine;

/// One piece of text the budget chart draws, where and how.
struct ChartText
{
    enum Role {
        Title,
        Subtitle,
        Warning,
        Footnote,
        AxisUnit,
        Category,
        LegendHeader,
        LegendName,
        LegendSize,
        LineName,
        LineVerdict,
        FitMark,
        SegmentValue,
        Measured,
        OwnLine,  ///< the label of a bar's own capacity (the host bar's RAM share)
        AxisTick, ///< drawn by the chart itself (the waterfall), listed for the layout checks
    };
    Role role = Title;
    QString text;
    QRectF rect; ///< chart coordinates, the text's whole box
    QFont font;
    QColor color;
    QString toolTip; ///< the whole text where a label was shortened
    int column = -1; ///< the bar it belongs to (category labels, fit marks, segment values)
    int consumer = -1; ///< ConsumerId of a segment value or legend entry
    /// Texts inside the plot: they must stay in it and off the capacity lines.
    bool insidePlot() const
    {
        return role == FitMark || role == SegmentValue || role == Measured || role == OwnLine;
    }
};

/// A coloured square of the legend.
struct ChartSwatch
{
    QRectF rect;
    QColor color;
};

/// Where everything of a budget chart goes at one size: computed in one pass from the data, so
/// that the window, the exports and the tests see the same placement, and no two texts meet.
struct ChartLayout
{
    QRectF plot;
    ByteScale scale;          ///< the axis's and the values' scale (GiB, or TiB when huge)
    double axisMax = 1;       ///< in the scale
    int tickCount = 6;
    int labelDecimals = 0;    ///< of the axis labels
    double barWidth = 0.6;    ///< of a category, as QBarSeries takes it
    std::vector<ChartText> texts;
    std::vector<ChartSwatch> swatches;
    std::vector<QRectF> patches; ///< background under texts that sit on the bars
    std::vector<double> lineY; ///< the capacity lines, chart coordinates
    std::vector<double> lineWidth; ///< their pen widths
    QLineF measuredLine;       ///< null when no measured peak is drawn
    std::vector<QLineF> columnMeasured; ///< bars' own measured figures (ChartColumn::measuredBytes)
    std::vector<QLineF> ownLines; ///< bars' own capacities (the host bar's RAM share)

    /// The capacity line bands texts must keep off (a line's pen plus a pixel each side).
    std::vector<QRectF> lineBands() const;
};

/// Greedy line breaking of `pieces` (joined by `joiner`) to `width`; a piece wider than the
/// width is broken at its spaces, and a word wider still is elided.
QStringList wrapPieces(const QStringList &pieces, const QString &joiner, const QFont &font, double width);
/// At most `maxLines` lines; the last one elided when there were more.
QStringList limitLines(QStringList lines, int maxLines, const QFont &font, double width);
/// A round step (1, 2, 2.5, 5 x 10^n) of at least `raw`.
double niceStep(double raw);
/// The decimals that print every multiple of `step` exactly.
int decimalsFor(double step);
/// The width and height of a line of text in `font`, as the layout counts them.
double textWidth(const QFont &font, const QString &text);
double lineHeight(const QFont &font);

/// The largest size the axis must reach: bars, capacity lines, the measured peak and the shared
/// axis minimum. A bar's own line (the host bar's RAM share, often far above the GPUs) does not
/// stretch it: above the axis it is drawn at the top, its label saying so.
std::uint64_t largestBytes(const ChartData &data);
/// True when the axis is to the run's scale (ChartData::axisToRun) and `line` is more than
/// kOffScaleFactor times the tallest bar or measured figure: left off the axis, marked "\u2191".
bool offScale(const ChartData &data, const CapacityLine &line);
/// Lays out `data` in a chart of `size` with text scaled by `scale` from `base`.
ChartLayout layoutChart(const ChartData &data, const QSizeF &size, double scale, const QFont &base);

/// The style index of the capacity line named `name`: its GPU's place in the catalog (so a GPU
/// keeps its colour and dash whichever GPUs are ticked), else one fixed by the name (a GPU of the
/// user's own, "Custom").
int capacityLineStyleIndex(const QString &name);
/// The colour of capacity line `index` (its own, never the verdict's).
QColor capacityLineColor(int index, bool dark);
/// The dash pattern of capacity line `index`.
Qt::PenStyle capacityLineStyle(int index);
/// Green when it fits, red when it does not.
QColor verdictColor(bool fits, bool dark);
/// The chart's text colour.
QColor chartTextColor(bool dark);
/// Secondary text (subtitles, notes).
QColor chartMutedColor(bool dark);
/// The chart's background.
QColor chartBackground(bool dark);

} // namespace headroom
