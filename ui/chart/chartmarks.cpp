// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/chartmarks.h"

#include "chart/budgetchart.h"
#include "chart/consumerstyle.h"
#include "displaytext.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

const QString kSeparator = QStringLiteral(" \u00b7 ");

bool collides(const QRectF &rect, const std::vector<QRectF> &others)
{
    return std::any_of(others.begin(), others.end(), [&](const QRectF &other) { return other.intersects(rect); });
}

/// Black or white, whichever reads on `background`.
QColor textOn(const QColor &background)
{
    const double luminance = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return luminance > 0.5 ? QColor(0x111111) : QColor(Qt::white);
}

double widest(const QStringList &texts, const QFont &font)
{
    double w = 0;
    for (const QString &text : texts)
        w = std::max(w, textWidth(font, text));
    return w;
}

/// The capacity a column's verdict is about: the host bar's own RAM share, else the target GPU.
const CapacityLine *verdictLine(const ChartData &data, const ChartColumn &column)
{
    if (column.host || column.ownVerdict)
        return column.ownLine.bytes ? &column.ownLine : nullptr;
    if (data.targetLine < 0 || data.targetLine >= int(data.lines.size()))
        return nullptr;
    return &data.lines[std::size_t(data.targetLine)];
}

/// The verdict lines of a column and their font: the full wording, else the compact one, else a
/// smaller font; empty when even that is wider than `room`.
QStringList verdictLines(const ChartData &data, const ChartColumn &column, double room, double s, QFont &font)
{
    if (!column.error.isEmpty())
        return limitLines(wrapPieces({column.error}, kSeparator, font, room), 4, font, room);
    if (!column.verdict.isEmpty()) {
        QStringList lines = column.verdict.split(QLatin1Char('\n'));
        while (widest(lines, font) > room && font.pointSizeF() > 6.5 * s)
            font.setPointSizeF(font.pointSizeF() - 0.5 * s);
        if (widest(lines, font) > room)
            lines = limitLines(wrapPieces(QString(column.verdict).replace(QLatin1Char('\n'), QLatin1Char(' ')).split(QLatin1Char(' ')),
                                          QStringLiteral(" "), font, room), 4, font, room);
        return lines;
    }
    const CapacityLine *line = verdictLine(data, column);
    if (!line)
        return {};
    const std::int64_t headroom = std::int64_t(line->bytes) - std::int64_t(column.totalBytes);
    const QString name = column.host ? QCoreApplication::translate("chart", "its RAM share") : line->name;
    QStringList lines;
    for (const VerdictStyle style : {VerdictStyle::TwoLines, VerdictStyle::Compact, VerdictStyle::Tiny}) {
        // The verdict knows its band: a borderline column says "may not fit (±N%)".
        const int band = column.host ? 0 : column.estimate ? column.estimate->errorBandPercent : column.bandPercent;
        lines = verdictText(name, headroom, data.unit, style, band, column.totalBytes).split(QLatin1Char('\n'));
        if (widest(lines, font) <= room)
            break;
    }
    while (widest(lines, font) > room && font.pointSizeF() > 6.5 * s)
        font.setPointSizeF(font.pointSizeF() - 0.5 * s);
    if (widest(lines, font) > room)
        return {};
    if (!column.note.isEmpty()) {
        const QStringList note = wrapPieces({column.note}, kSeparator, font, room);
        if (widest(note, font) <= room)
            lines << note;
    }
    return lines;
}

} // namespace

std::vector<double> separatedLines(const std::vector<double> &ys, double gap, double top, double bottom)
{
    std::vector<std::size_t> order(ys.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ys[a] < ys[b]; });
    std::vector<double> out = ys;
    // Runs of lines closer than the gap, top to bottom; each run spread to the gap around the
    // mean of its lines, and merged with the run above when the two then meet.
    struct Run
    {
        std::size_t first, count;
        double sum;
        double start() const { return sum / double(count) - gap * double(count - 1) / 2; }
        double gap;
    };
    std::vector<Run> runs;
    for (std::size_t k = 0; k < order.size(); ++k) {
        runs.push_back({k, 1, ys[order[k]], gap});
        while (runs.size() > 1) {
            const Run &below = runs.back(), &above = runs[runs.size() - 2];
            if (below.start() - (above.start() + gap * double(above.count - 1)) >= gap - 1e-9)
                break;
            Run merged{above.first, above.count + below.count, above.sum + below.sum, gap};
            runs.pop_back();
            runs.back() = merged;
        }
    }
    for (const Run &run : runs) {
        if (run.count == 1)
            continue;
        double start = run.start();
        const double length = gap * double(run.count - 1);
        if (length <= bottom - top)
            start = std::clamp(start, top, bottom - length);
        for (std::size_t j = 0; j < run.count; ++j)
            out[order[run.first + j]] = start + gap * double(j);
    }
    return out;
}

void placeInPlot(const ChartData &data, const PlotFrame &frame, ChartLayout &out)
{
    const QRectF &plot = frame.plot;
    const double s = frame.scale;
    const bool dark = data.dark;
    const double columnWidth = frame.columnWidth, barPixels = frame.barPixels;
    const auto value = [&](std::uint64_t bytes) { return toScale(bytes, out.scale); };
    const auto columnCentre = [&](int c) { return plot.left() + columnWidth * (c + 0.5); };

    const std::uint64_t largest = largestBytes(data);

    // The axis: round steps, about one tick per 42 px, grown until every verdict fits in the plot.
    const int tickTarget = std::clamp(int(plot.height() / (42 * s)), 2, 8);
    double top = std::max(value(largest) * 1.04, 1e-9);
    double step = niceStep(top / tickTarget);
    double axisMax = std::ceil(top / step - 1e-9) * step;
    const auto yOf = [&](double v) { return plot.bottom() - plot.height() * std::min(v, axisMax) / axisMax; };

    std::vector<ChartText> marks;
    std::vector<QRectF> obstacles;
    const int attempts = 12;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        const bool last = attempt + 1 == attempts;
        marks.clear();
        out.lineY.clear();
        out.lineWidth.clear();
        for (int i = 0; i < int(data.lines.size()); ++i) {
            out.lineY.push_back(yOf(value(data.lines[std::size_t(i)].bytes)));
            out.lineWidth.push_back((i == data.targetLine ? 2.6 : 1.8) * s);
        }
        // Lines of nearly one capacity (A100 80GB and H100: 0.35 GiB apart, under 2 px at
        // 1280 x 720) drawn a pen and a gap apart, so both colours and dashes show.
        out.lineY = separatedLines(out.lineY, 4.5 * s, plot.top(), plot.bottom());
        obstacles = out.lineBands();
        // Bars' own capacities (the host bar's RAM share): a short line across the bar.
        out.ownLines.clear();
        for (int c = 0; c < int(data.columns.size()); ++c)
            if (const CapacityLine &own = data.columns[std::size_t(c)].ownLine; own.bytes) {
                const double y = yOf(value(own.bytes));
                out.ownLines.emplace_back(columnCentre(c) - barPixels / 2 - 6 * s, y, columnCentre(c) + barPixels / 2 + 6 * s, y);
                obstacles.emplace_back(QPointF(out.ownLines.back().x1(), y - 2 * s), QPointF(out.ownLines.back().x2(), y + 2 * s));
            }
        bool fitsInPlot = true;
        // A shared axis (a lesson) keeps room for the verdict of its tallest bar, so that every
        // step gets the same axis, whichever step is shown.
        if (data.axisMinimumBytes > 0 && data.targetLine >= 0 &&
            yOf(value(data.axisMinimumBytes)) - 3 * lineHeight(frame.smallFont) - 3 * s < plot.top() + 1)
            fitsInPlot = false;
        // The verdict above each bar, about the target line; lifted over lines and other marks.
        for (int c = 0; c < int(data.columns.size()); ++c) {
            const ChartColumn &column = data.columns[std::size_t(c)];
            QFont font = frame.smallFont;
            const double room = std::min(columnWidth - 4 * s, plot.width() - 2);
            const QStringList lines = verdictLines(data, column, room, s, font);
            if (lines.isEmpty())
                continue;
            const bool error = !column.error.isEmpty();
            const CapacityLine *about = verdictLine(data, column);
            const QColor colour = verdictColor(!error && about && column.totalBytes <= about->bytes, dark);
            const double barTop = error ? plot.center().y() : yOf(value(column.totalBytes));
            const double h = lineHeight(font);
            const double blockWidth = widest(lines, font);
            const double x = std::clamp(columnCentre(c) - blockWidth / 2, plot.left() + 1,
                                        std::max(plot.left() + 1, plot.right() - blockWidth - 1));
            QRectF block(x, barTop - 3 * s - h * lines.size(), blockWidth, h * lines.size());
            for (bool moved = true; moved;) {
                moved = false;
                for (const QRectF &obstacle : obstacles)
                    if (obstacle.intersects(block)) {
                        block.moveBottom(obstacle.top() - 2 * s);
                        moved = true;
                    }
            }
            if (block.top() < plot.top() + 1) {
                fitsInPlot = false;
                if (last) // no room even on the tallest axis tried: left out, not drawn over the title
                    continue;
            }
            obstacles.push_back(block);
            for (int i = 0; i < lines.size(); ++i) {
                const double w = textWidth(font, lines[i]);
                marks.push_back({ChartText::FitMark, lines[i], QRectF(block.center().x() - w / 2, block.top() + i * h, w, h),
                                 font, colour, QString(), c, -1});
            }
        }
        if (fitsInPlot)
            break;
        // Room for the verdicts: one more step, fewer ticks when there are too many.
        top = axisMax + step;
        if (top / step > tickTarget + 2)
            step = niceStep(top / tickTarget);
        axisMax = std::ceil(top / step - 1e-9) * step;
    }
    out.axisMax = axisMax;
    out.tickCount = int(std::lround(axisMax / step)) + 1;
    out.labelDecimals = decimalsFor(step);

    // The measured peak: a bold line across the first bar, its label beside it, else over the
    // bar (on a patch of background) above or below the line, further out until it meets
    // nothing; the value alone where the words do not fit. Never a reason to grow the axis.
    out.measuredLine = QLineF();
    if (data.measuredBytes > 0 && !data.columns.empty()) {
        const double my = yOf(value(data.measuredBytes));
        const double left = columnCentre(0) - barPixels / 2 - 4 * s, right = columnCentre(0) + barPixels / 2 + 4 * s;
        out.measuredLine = QLineF(left, my, right, my);
        const QRectF band(QPointF(left, my - 2 * s), QPointF(right, my + 2 * s));
        const double h = lineHeight(frame.boldSmall);
        // The words with the value ("vLLM log 125.83 GiB"), else the words, else the value.
        const QString size = bytesText(data.measuredBytes, data.unit);
        QStringList labels;
        if (!data.measuredLabel.contains(size))
            labels << data.measuredLabel + QLatin1Char(' ') + size;
        labels << data.measuredLabel << size;
        for (const QString &label : labels) {
            const double w = textWidth(frame.boldSmall, label);
            std::vector<QRectF> candidates;
            const double xs[] = {right + 3 * s, left, columnCentre(0) - w / 2, plot.right() - w - 1, plot.left() + 1};
            for (int step = 0; step < 6; ++step)
                for (const double x : xs)
                    for (const double sign : {-1.0, 1.0}) {
                        const double top = sign < 0 ? my - h - 3 * s - step * h : my + 3 * s + step * h;
                        candidates.emplace_back(x, x == xs[0] && step == 0 ? my - h / 2 : top, w, h);
                    }
            const auto clear = std::find_if(candidates.begin(), candidates.end(), [&](const QRectF &candidate) {
                return plot.contains(candidate) && !collides(candidate, obstacles) && !band.intersects(candidate);
            });
            if (clear == candidates.end())
                continue;
            marks.push_back({ChartText::Measured, label, *clear, frame.boldSmall, chartTextColor(dark), data.measuredLabel, 0, -1});
            out.patches.push_back(clear->adjusted(-2 * s, 0, 2 * s, 0));
            obstacles.push_back(*clear);
            break;
        }
        obstacles.push_back(band);
    }
    // Each bar's own measured figure (the phases view beside a probe): a bold line across the bar
    // and its value just above it (else below), where that is clear.
    out.columnMeasured.clear();
    for (std::size_t c = 0; c < data.columns.size(); ++c) {
        const std::uint64_t bytes = data.columns[c].measuredBytes;
        if (bytes == 0)
            continue;
        const double my = yOf(value(bytes));
        const int column = int(c);
        const double left = columnCentre(column) - barPixels / 2 - 4 * s, right = columnCentre(column) + barPixels / 2 + 4 * s;
        out.columnMeasured.emplace_back(left, my, right, my);
        const QRectF band(QPointF(left, my - 2 * s), QPointF(right, my + 2 * s));
        const QString label = bytesText(bytes, data.unit);
        const double w = textWidth(frame.boldSmall, label), h = lineHeight(frame.boldSmall);
        for (int step = 0; step < 4; ++step) {
            bool placed = false;
            for (const double sign : {-1.0, 1.0}) {
                const QRectF candidate(columnCentre(column) - w / 2,
                                       sign < 0 ? my - h - 3 * s - step * h : my + 3 * s + step * h, w, h);
                if (!plot.contains(candidate) || collides(candidate, obstacles) || band.intersects(candidate))
                    continue;
                marks.push_back({ChartText::Measured, label, candidate, frame.boldSmall, chartTextColor(dark), label, column, -1});
                out.patches.push_back(candidate.adjusted(-2 * s, 0, 2 * s, 0));
                obstacles.push_back(candidate);
                placed = true;
                break;
            }
            if (placed)
                break;
        }
        obstacles.push_back(band);
    }
    // Each own line's label over its bar, above the line, else below it, further out until clear.
    for (int c = 0, own = 0; c < int(data.columns.size()); ++c) {
        const CapacityLine &line = data.columns[std::size_t(c)].ownLine;
        if (!line.bytes)
            continue;
        const QLineF &drawn = out.ownLines[std::size_t(own++)];
        const QString label = value(line.bytes) > out.axisMax ? QStringLiteral("\u2191 ") + line.name : line.name;
        const double h = lineHeight(frame.smallFont), w = textWidth(frame.smallFont, label);
        const double x = std::clamp(columnCentre(c) - w / 2, plot.left() + 1, std::max(plot.left() + 1, plot.right() - w - 1));
        for (int step = 0; step < 6; ++step) {
            const QRectF above(x, drawn.y1() - h - 3 * s - step * h, w, h), below(x, drawn.y1() + 3 * s + step * h, w, h);
            const QRectF *clear = !collides(above, obstacles) && plot.contains(above)   ? &above
                                  : !collides(below, obstacles) && plot.contains(below) ? &below
                                                                                         : nullptr;
            if (!clear)
                continue;
            marks.push_back({ChartText::OwnLine, label, *clear, frame.smallFont, chartTextColor(dark), label, c, -1});
            out.patches.push_back(clear->adjusted(-2 * s, 0, 2 * s, 0));
            obstacles.push_back(*clear);
            break;
        }
    }
    for (const ChartText &mark : marks)
        out.texts.push_back(mark);

    // The size on each segment tall and wide enough to hold it, off the lines and the marks; a
    // segment too thin for its size gets it as a callout beside the bar (a swatch of its colour
    // and the size), never dropped.
    struct Callout
    {
        int column, consumer;
        double centreY;
        QString text;
    };
    std::vector<Callout> callouts;
    // Beside one bar (a step, a scenario with its CPU RAM bar); between several bars (pins, a
    // lesson's comparison) they would sit next to the neighbour and read as its own.
    const bool calloutsShown = std::count_if(data.columns.begin(), data.columns.end(),
                                             [](const ChartColumn &column) { return !column.host; }) <= 1;
    const double valueHeight = lineHeight(frame.valueFont);
    for (int c = 0; c < int(data.columns.size()); ++c) {
        const ChartColumn &column = data.columns[std::size_t(c)];
        if (!column.error.isEmpty())
            continue;
        double below = 0;
        for (int i = 0; i < kConsumerCount; ++i) {
            const std::uint64_t bytes = column.bytes[std::size_t(i)];
            if (!bytes)
                continue;
            const double low = yOf(below), high = yOf(below + value(bytes));
            below += value(bytes);
            const QRectF segment(QPointF(columnCentre(c) - barPixels / 2, high), QPointF(columnCentre(c) + barPixels / 2, low));
            const double h = valueHeight;
            const QString full = bytesText(bytes, out.scale);
            QString text = full;
            if (textWidth(frame.valueFont, text) > segment.width() - 4 * s)
                text = QString::number(value(bytes), 'f', value(bytes) >= 100 ? 0 : 1);
            const double w = textWidth(frame.valueFont, text);
            bool placed = false;
            if (segment.height() >= h + 1 && w <= segment.width() - 2 * s) {
                // Centred, else as high or as low as the segment allows: whichever misses the lines.
                const double x = segment.center().x() - w / 2;
                for (const double boxTop : {segment.center().y() - h / 2, segment.top() + 1, segment.bottom() - h - 1}) {
                    const QRectF box(x, boxTop, w, h);
                    if (!segment.contains(box) || !plot.contains(box) || collides(box, obstacles))
                        continue;
                    out.texts.push_back({ChartText::SegmentValue, text, box, frame.valueFont,
                                         textOn(consumerColor(ConsumerId(i), dark)), QString(), c, i});
                    obstacles.push_back(box);
                    placed = true;
                    break;
                }
            }
            if (!placed && calloutsShown)
                callouts.push_back({c, i, segment.center().y(), full});
        }
    }
    // Callouts after every in-bar value, so that they step around them: beside the bar, right
    // (else left) in the gap before the next bar, in the stack's order from the bottom up, each at
    // its segment's height or just above the one below it, else stepped up or down.
    int lastColumn = -1;
    double lastTop[2] = {0, 0}; // the top of the latest callout on the right, on the left
    for (const Callout &callout : callouts) {
        if (callout.column != lastColumn) {
            lastColumn = callout.column;
            lastTop[0] = lastTop[1] = plot.bottom() + 1e6;
        }
        const double h = valueHeight, swatch = std::round(h * 0.55), gap = 2 * s;
        const double barLeft = columnCentre(callout.column) - barPixels / 2, barRight = barLeft + barPixels;
        const double rightLimit = callout.column + 1 < int(data.columns.size())
                                      ? columnCentre(callout.column + 1) - barPixels / 2 - gap
                                      : plot.right() - 1;
        const double leftLimit = callout.column > 0 ? columnCentre(callout.column - 1) + barPixels / 2 + gap : plot.left() + 1;
        // The size with its unit, else the number alone (the axis gives the unit).
        const std::uint64_t bytes = data.columns[std::size_t(callout.column)].bytes[std::size_t(callout.consumer)];
        const double number = value(bytes);
        bool done = false;
        for (const QString &text : {callout.text, QString::number(number, 'f', number >= 100 ? 0 : number >= 0.1 ? 1 : 2)}) {
            const double w = swatch + gap + textWidth(frame.valueFont, text);
            std::vector<int> sides; // 0: right of the bar, 1: left
            if (barRight + gap + w <= rightLimit)
                sides.push_back(0);
            if (barLeft - gap - w >= leftLimit)
                sides.push_back(1);
            for (int step = 0; step < 12 && !done; ++step)
                for (const double sign : {1.0, -1.0}) {
                    if (done || (step == 0 && sign < 0))
                        continue;
                    for (const int side : sides) {
                        const double x = side == 0 ? barRight + gap : barLeft - gap - w;
                        const double top = std::min(callout.centreY - h / 2, lastTop[side] - h) - sign * step * h;
                        const QRectF box(x, top, w, h);
                        if (!plot.contains(box) || collides(box, obstacles))
                            continue;
                        lastTop[side] = top;
                        // The swatch on the bar's side, the number beyond it.
                        const bool right = side == 0;
                        const QRectF swatchBox(right ? x : x + w - swatch, top + (h - swatch) / 2, swatch, swatch);
                        const QRectF textBox(right ? x + swatch + gap : x, top, w - swatch - gap, h);
                        out.texts.push_back({ChartText::SegmentValue, text, textBox, frame.valueFont,
                                             chartTextColor(dark), callout.text, callout.column, callout.consumer});
                        out.swatches.push_back({swatchBox, consumerColor(ConsumerId(callout.consumer), dark)});
                        obstacles.push_back(box);
                        done = true;
                        break;
                    }
                }
            if (done)
                break;
        }
    }
}

} // namespace headroom
