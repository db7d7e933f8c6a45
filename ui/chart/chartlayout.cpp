// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/chartlayout.h"

#include "chart/budgetchart.h"
#include "chart/consumerstyle.h"
#include "displaytext.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

const QString kSeparator = QStringLiteral(" \u00b7 ");

QFont sized(const QFont &base, double points, bool bold = false)
{
    QFont font = base;
    font.setPointSizeF(points);
    font.setBold(bold);
    return font;
}

} // namespace

double textWidth(const QFont &font, const QString &text)
{
    return std::ceil(QFontMetricsF(font).horizontalAdvance(text)) + 2;
}

double lineHeight(const QFont &font) { return std::ceil(QFontMetricsF(font).height()); }

QStringList wrapPieces(const QStringList &pieces, const QString &joiner, const QFont &font, double width)
{
    QStringList lines;
    QString line;
    const QFontMetricsF metrics(font);
    const auto fits = [&](const QString &text) { return textWidth(font, text) <= width; };
    for (const QString &piece : pieces) {
        const QString joined = line.isEmpty() ? piece : line + joiner + piece;
        if (fits(joined)) {
            line = joined;
            continue;
        }
        if (!line.isEmpty())
            lines << line;
        line.clear();
        if (fits(piece)) {
            line = piece;
            continue;
        }
        // Too long for a line of its own: by words.
        for (const QString &word : piece.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString withWord = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            if (fits(withWord)) {
                line = withWord;
                continue;
            }
            if (!line.isEmpty())
                lines << line;
            line = fits(word) ? word : metrics.elidedText(word, Qt::ElideRight, width - 2);
        }
    }
    if (!line.isEmpty())
        lines << line;
    return lines;
}

QStringList limitLines(QStringList lines, int maxLines, const QFont &font, double width)
{
    if (lines.size() <= maxLines)
        return lines;
    QString last = lines.mid(maxLines - 1).join(QLatin1Char(' '));
    lines = lines.mid(0, maxLines - 1);
    lines << QFontMetricsF(font).elidedText(last, Qt::ElideRight, width - 2);
    return lines;
}

double niceStep(double raw)
{
    if (!(raw > 0))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (step * magnitude >= raw * (1 - 1e-9))
            return step * magnitude;
    return 10 * magnitude;
}

int decimalsFor(double step)
{
    for (int decimals = 0; decimals < 6; ++decimals) {
        const double scaled = step * std::pow(10.0, decimals);
        if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled))
            return decimals;
    }
    return 6;
}

namespace {

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

} // namespace

QColor capacityLineColor(int index, bool dark)
{
    // Dark tones (light ones on the dark theme) that stand apart from every consumer colour.
    static const QRgb light[] = {0x111111, 0x4B2991, 0x6B3E00, 0x2F4F4F, 0x7A0177, 0x08306B};
    static const QRgb darkTheme[] = {0xF2F2F2, 0xCBB8FF, 0xF5DEB3, 0xB2EBF2, 0xF8BBD0, 0xBBDEFB};
    const int i = index % int(std::size(light));
    return QColor(dark ? darkTheme[i] : light[i]);
}

Qt::PenStyle capacityLineStyle(int index)
{
    static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DashDotLine, Qt::DotLine,
                                          Qt::DashDotDotLine};
    return styles[std::size_t(index) % std::size(styles)];
}

QColor verdictColor(bool fits, bool dark)
{
    if (fits)
        return dark ? QColor(0x5FD17F) : QColor(0x1A7F37);
    return dark ? QColor(0xFF6B6B) : QColor(0xC0392B);
}

QColor chartTextColor(bool dark) { return dark ? QColor(0xE6E6E6) : QColor(0x202020); }
QColor chartMutedColor(bool dark) { return dark ? QColor(0xB0B0B0) : QColor(0x555555); }
QColor chartBackground(bool dark) { return dark ? QColor(0x1E1F22) : QColor(Qt::white); }

std::vector<QRectF> ChartLayout::lineBands() const
{
    std::vector<QRectF> bands;
    for (std::size_t i = 0; i < lineY.size(); ++i) {
        const double half = (i < lineWidth.size() ? lineWidth[i] : 2) / 2 + 1;
        bands.emplace_back(QPointF(plot.left(), lineY[i] - half), QPointF(plot.right(), lineY[i] + half));
    }
    return bands;
}

ChartLayout layoutChart(const ChartData &data, const QSizeF &size, double scale, const QFont &base)
{
    ChartLayout out;
    const double s = scale;
    const double width = size.width(), height = size.height();
    const double pad = 8 * s;
    const bool dark = data.dark;
    const QFont titleFont = sized(base, 13 * s, true);
    const QFont subtitleFont = sized(base, 9.5 * s);
    const QFont warningFont = sized(base, 9.5 * s, true);
    const QFont labelFont = sized(base, 9 * s);
    const QFont smallFont = sized(base, 8.5 * s);
    const QFont boldSmall = sized(base, 8.5 * s, true);
    const QFont valueFont = sized(base, 8.5 * s);
    const auto add = [&](ChartText::Role role, const QString &text, const QRectF &rect, const QFont &font,
                         const QColor &color, int column = -1, int consumer = -1) {
        out.texts.push_back({role, text, rect, font, color, QString(), column, consumer});
        return out.texts.size() - 1;
    };

    // The scale every size on the chart shares.
    std::uint64_t largest = std::max(data.axisMinimumBytes, data.measuredBytes);
    for (const ChartColumn &column : data.columns)
        largest = std::max(largest, column.totalBytes);
    for (const CapacityLine &line : data.lines)
        largest = std::max(largest, line.bytes);
    out.scale = scaleFor(largest, data.unit);
    const auto value = [&](std::uint64_t bytes) { return toScale(bytes, out.scale); };

    // Title, subtitle and warning, centred and wrapped: never elided.
    double y = pad;
    const auto addCentred = [&](ChartText::Role role, const QStringList &lines, const QFont &font, const QColor &color) {
        const double h = lineHeight(font);
        for (const QString &line : lines) {
            const double w = textWidth(font, line);
            add(role, line, QRectF((width - w) / 2, y, w, h), font, color);
            y += h;
        }
    };
    const double textArea = std::max(40.0, width - 2 * pad);
    if (!data.title.isEmpty())
        addCentred(ChartText::Title, wrapPieces(data.title.split(kSeparator), kSeparator, titleFont, textArea),
                   titleFont, chartTextColor(dark));
    if (!data.subtitle.isEmpty())
        addCentred(ChartText::Subtitle, wrapPieces(data.subtitle.split(kSeparator), kSeparator, subtitleFont, textArea),
                   subtitleFont, chartMutedColor(dark));
    if (!data.warning.isEmpty())
        addCentred(ChartText::Warning, wrapPieces({data.warning}, kSeparator, warningFont, textArea), warningFont,
                   verdictColor(false, dark));
    const double headerBottom = y + 4 * s;

    // The legend: every consumer drawn, top of the stack first, with the shown bar's sizes.
    const int n = std::max<int>(1, int(data.columns.size()));
    const int shown = std::clamp(data.legendColumn, 0, n - 1);
    struct Entry
    {
        int consumer;
        QString name;
        QString size;
    };
    std::vector<Entry> entries;
    for (int i = kConsumerCount - 1; i >= 0; --i) {
        bool any = false;
        for (const ChartColumn &column : data.columns)
            any = any || (column.error.isEmpty() && column.bytes[std::size_t(i)] > 0);
        if (!any)
            continue;
        const std::uint64_t bytes =
            std::size_t(shown) < data.columns.size() ? data.columns[std::size_t(shown)].bytes[std::size_t(i)] : 0;
        entries.push_back({i, consumerDisplayName(ConsumerId(i)), bytes ? bytesText(bytes, out.scale) : QString()});
    }
    const double swatch = std::round(10 * s);
    const double rowHeight = std::max(lineHeight(smallFont), swatch) + 3 * s;
    double nameWidth = 0, sizeWidth = 0;
    for (const Entry &entry : entries) {
        nameWidth = std::max(nameWidth, textWidth(smallFont, entry.name));
        sizeWidth = std::max(sizeWidth, textWidth(smallFont, entry.size));
    }
    const QString legendTitle = data.legendTitle;
    const double sideLegendWidth =
        entries.empty() ? 0
                        : std::max(swatch + 5 * s + nameWidth + 10 * s + sizeWidth, textWidth(boldSmall, legendTitle));

    // The value axis: its labels' width from the widest value it could show.
    const double provisionalTop = std::max(value(largest) * 1.6, 1e-9);
    const double provisionalStep = niceStep(provisionalTop / 4);
    const int provisionalDecimals = decimalsFor(provisionalStep);
    const double axisLabelWidth =
        textWidth(labelFont, QString::number(std::ceil(provisionalTop / provisionalStep) * provisionalStep, 'f', provisionalDecimals));
    const double axisWidth = axisLabelWidth + 12 * s;

    // Capacity line labels: "✓ A100 80GB" over "80 GiB", in the right margin.
    const QString fitsGlyph = QStringLiteral("\u2713 "), overGlyph = QStringLiteral("\u2717 ");
    const double glyphWidth = std::max(textWidth(boldSmall, fitsGlyph), textWidth(boldSmall, overGlyph));
    double lineLabelWidth = 0;
    for (const CapacityLine &line : data.lines)
        lineLabelWidth = std::max({lineLabelWidth, textWidth(boldSmall, shortGpuName(line.name)),
                                   textWidth(smallFont, capacityText(line.bytes, data.unit))});
    if (lineLabelWidth > 0)
        lineLabelWidth += glyphWidth;

    // Horizontal: [legend] [axis] [plot: n columns] [line labels], centred, columns at most
    // maxColumn wide so that the legend stays next to the bars.
    const double minColumn = 64 * s, maxColumn = 230 * s;
    const double legendGap = 14 * s, lineGap = lineLabelWidth > 0 ? 10 * s : 4 * s;
    const auto available = [&](double legendWidth) {
        return width - 2 * pad - (legendWidth > 0 ? legendWidth + legendGap : 0) - axisWidth - lineGap - lineLabelWidth;
    };
    const bool sideLegend = !entries.empty() && available(sideLegendWidth) / n >= minColumn;
    const double legendWidth = sideLegend ? sideLegendWidth : 0;
    const double columnWidth = std::max(8.0, std::min(available(legendWidth) / n, maxColumn));
    const double plotWidth = columnWidth * n;
    const double groupWidth = (sideLegend ? legendWidth + legendGap : 0) + axisWidth + plotWidth + lineGap + lineLabelWidth;
    const double groupLeft = std::max(pad, (width - groupWidth) / 2);
    const double plotLeft = groupLeft + (sideLegend ? legendWidth + legendGap : 0) + axisWidth;

    // Category labels, wrapped in their column (three lines at most, the whole text as a tooltip).
    std::vector<QStringList> categoryLines;
    int categoryRows = 0;
    for (const ChartColumn &column : data.columns) {
        QStringList pieces = column.label.split(kSeparator);
        QStringList lines = limitLines(wrapPieces(pieces, kSeparator, labelFont, columnWidth - 6 * s), 3, labelFont,
                                       columnWidth - 6 * s);
        categoryRows = std::max(categoryRows, int(lines.size()));
        categoryLines.push_back(lines);
    }
    const double categoryHeight = categoryRows * lineHeight(labelFont);

    // A legend below the plot when the side has no room: entries flow in rows.
    std::vector<QRectF> bottomEntries;
    double bottomLegendHeight = 0;
    if (!sideLegend && !entries.empty()) {
        double x = pad, rowTop = 0;
        const double entryGap = 14 * s;
        for (const Entry &entry : entries) {
            const double w = swatch + 5 * s + textWidth(smallFont, entry.name) +
                             (entry.size.isEmpty() ? 0 : 4 * s + textWidth(smallFont, entry.size));
            if (x + w > width - pad && x > pad) {
                x = pad;
                rowTop += rowHeight;
            }
            bottomEntries.emplace_back(x, rowTop, w, rowHeight);
            x += w + entryGap;
        }
        bottomLegendHeight = rowTop + rowHeight + 6 * s;
    }

    // The footnote, wrapped across the whole width.
    const QStringList footnoteLines =
        data.footnote.isEmpty() ? QStringList() : wrapPieces({data.footnote}, kSeparator, smallFont, textArea);
    const double footnoteHeight = footnoteLines.size() * lineHeight(smallFont) + (footnoteLines.isEmpty() ? 0 : 4 * s);

    // Vertical: header, the unit over the axis labels, the plot, categories, legend, footnote.
    const double labelHeight = lineHeight(labelFont);
    const double plotTop = headerBottom + labelHeight * 1.5 + 4 * s;
    const double plotBottom = std::max(plotTop + 40 * s, height - pad - footnoteHeight - bottomLegendHeight -
                                                             categoryHeight - 6 * s);
    out.plot = QRectF(plotLeft, plotTop, plotWidth, plotBottom - plotTop);
    const QRectF plot = out.plot;
    const double barPixels = std::min(0.62 * columnWidth, 150 * s);
    out.barWidth = barPixels / columnWidth;
    const auto columnCentre = [&](int c) { return plot.left() + columnWidth * (c + 0.5); };

    // The axis: round steps, about one tick per 40 px, grown until every verdict fits in the plot.
    const int tickTarget = std::clamp(int(plot.height() / (42 * s)), 2, 8);
    double top = std::max(value(largest) * 1.04, 1e-9);
    double step = niceStep(top / tickTarget);
    double axisMax = std::ceil(top / step - 1e-9) * step;
    const auto yOf = [&](double v) { return plot.bottom() - plot.height() * std::min(v, axisMax) / axisMax; };

    std::vector<ChartText> marks;
    QLineF measuredLine;
    for (int attempt = 0; attempt < 12; ++attempt) {
        marks.clear();
        out.lineY.clear();
        out.lineWidth.clear();
        for (int i = 0; i < int(data.lines.size()); ++i) {
            out.lineY.push_back(yOf(value(data.lines[std::size_t(i)].bytes)));
            out.lineWidth.push_back((i == data.targetLine ? 2.6 : 1.8) * s);
        }
        std::vector<QRectF> obstacles = out.lineBands();
        bool fitsInPlot = true;
        // The verdict above each bar, about the target line; lifted over lines and other marks.
        for (int c = 0; c < int(data.columns.size()); ++c) {
            const ChartColumn &column = data.columns[std::size_t(c)];
            QStringList lines;
            QColor colour = chartTextColor(dark);
            QFont font = smallFont;
            double barTop = yOf(value(column.totalBytes));
            if (!column.error.isEmpty()) {
                lines = limitLines(wrapPieces({column.error}, kSeparator, smallFont, columnWidth - 4 * s), 4, smallFont,
                                   columnWidth - 4 * s);
                colour = verdictColor(false, dark);
                barTop = plot.center().y();
            } else if (data.targetLine >= 0 && data.targetLine < int(data.lines.size())) {
                const CapacityLine &line = data.lines[std::size_t(data.targetLine)];
                lines = fitMark(column.totalBytes, line, data.unit).split(QLatin1Char('\n'));
                colour = verdictColor(column.totalBytes <= line.bytes, dark);
                const auto widest = [&](const QStringList &texts, const QFont &f) {
                    double w = 0;
                    for (const QString &text : texts)
                        w = std::max(w, textWidth(f, text));
                    return w;
                };
                if (widest(lines, font) > columnWidth - 4 * s)
                    lines = fitMark(column.totalBytes, line, data.unit, true).split(QLatin1Char('\n'));
                while (widest(lines, font) > columnWidth - 4 * s && font.pointSizeF() > 6.5 * s)
                    font.setPointSizeF(font.pointSizeF() - 0.5 * s);
                if (!column.note.isEmpty())
                    lines << wrapPieces({column.note}, kSeparator, font, std::max(columnWidth - 4 * s, 60 * s));
            }
            if (lines.isEmpty())
                continue;
            const double h = lineHeight(font);
            double blockWidth = 0;
            for (const QString &text : lines)
                blockWidth = std::max(blockWidth, textWidth(font, text));
            const double x = std::clamp(columnCentre(c) - blockWidth / 2, plot.left() + 1, plot.right() - blockWidth - 1);
            QRectF block(x, barTop - 3 * s - h * lines.size(), blockWidth, h * lines.size());
            for (bool moved = true; moved;) {
                moved = false;
                for (const QRectF &obstacle : obstacles)
                    if (obstacle.intersects(block)) {
                        block.moveBottom(obstacle.top() - 2 * s);
                        moved = true;
                    }
            }
            if (block.top() < plot.top() + 1)
                fitsInPlot = false;
            obstacles.push_back(block);
            for (int i = 0; i < lines.size(); ++i) {
                const double w = textWidth(font, lines[i]);
                marks.push_back({ChartText::FitMark, lines[i],
                                 QRectF(block.center().x() - w / 2, block.top() + i * h, w, h), font, colour,
                                 QString(), c, -1});
            }
        }
        // The measured peak: a bold line across the first bar, its label beside it.
        measuredLine = QLineF();
        if (data.measuredBytes > 0 && !data.columns.empty()) {
            const double my = yOf(value(data.measuredBytes));
            const double left = columnCentre(0) - barPixels / 2 - 4 * s, right = columnCentre(0) + barPixels / 2 + 4 * s;
            measuredLine = QLineF(left, my, right, my);
            const QRectF band(QPointF(left, my - 2 * s), QPointF(right, my + 2 * s));
            const double w = textWidth(boldSmall, data.measuredLabel), h = lineHeight(boldSmall);
            const QRectF candidates[] = {QRectF(right + 3 * s, my - h / 2, w, h), QRectF(left, my - h - 3 * s, w, h),
                                         QRectF(left, my + 3 * s, w, h), QRectF(left - w - 3 * s, my - h / 2, w, h)};
            bool placed = false;
            for (const QRectF &candidate : candidates)
                if (plot.contains(candidate) && !collides(candidate, obstacles)) {
                    marks.push_back({ChartText::Measured, data.measuredLabel, candidate, boldSmall,
                                     chartTextColor(dark), QString(), 0, -1});
                    obstacles.push_back(candidate);
                    placed = true;
                    break;
                }
            if (!placed)
                fitsInPlot = false;
            obstacles.push_back(band);
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
    out.measuredLine = measuredLine;
    for (ChartText &mark : marks)
        out.texts.push_back(mark);

    // The size on each segment tall and wide enough to hold it, off the lines and the marks.
    std::vector<QRectF> obstacles = out.lineBands();
    for (const ChartText &mark : marks)
        obstacles.push_back(mark.rect);
    if (!measuredLine.isNull())
        obstacles.emplace_back(QPointF(measuredLine.x1(), measuredLine.y1() - 2 * s),
                               QPointF(measuredLine.x2(), measuredLine.y2() + 2 * s));
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
            const double h = lineHeight(valueFont);
            if (segment.height() < h + 1)
                continue;
            QString text = bytesText(bytes, out.scale);
            if (textWidth(valueFont, text) > segment.width() - 4 * s)
                text = QString::number(value(bytes), 'f', value(bytes) >= 100 ? 0 : 1);
            const double w = textWidth(valueFont, text);
            if (w > segment.width() - 2 * s)
                continue;
            // Centred, else as high or as low as the segment allows: whichever misses the lines.
            const double x = segment.center().x() - w / 2;
            bool placed = false;
            for (const double top : {segment.center().y() - h / 2, segment.top() + 1, segment.bottom() - h - 1}) {
                const QRectF box(x, top, w, h);
                if (!segment.contains(box) || !plot.contains(box) || collides(box, obstacles))
                    continue;
                const QColor fill = consumerColor(ConsumerId(i), dark);
                add(ChartText::SegmentValue, text, box, valueFont, textOn(fill), c, i);
                obstacles.push_back(box);
                placed = true;
                break;
            }
            (void)placed;
        }
    }

    // The unit over the axis labels.
    {
        const QString unit = QString::fromStdString(scaleName(out.scale));
        const double w = textWidth(labelFont, unit);
        add(ChartText::AxisUnit, unit, QRectF(plot.left() - 8 * s - w, plot.top() - labelHeight * 1.5 - 2 * s, w, labelHeight),
            labelFont, chartTextColor(dark));
    }

    // Category labels under their bars.
    for (int c = 0; c < int(categoryLines.size()); ++c) {
        const double h = lineHeight(labelFont);
        for (int i = 0; i < categoryLines[std::size_t(c)].size(); ++i) {
            const QString &text = categoryLines[std::size_t(c)][i];
            const double w = textWidth(labelFont, text);
            const std::size_t index = add(ChartText::Category, text,
                                          QRectF(columnCentre(c) - w / 2, plot.bottom() + 4 * s + i * h, w, h),
                                          labelFont, chartTextColor(dark), c);
            out.texts[index].toolTip = data.columns[std::size_t(c)].label;
        }
    }

    // The legend: beside the bars, bottom-aligned with them, the stack's order read downwards.
    if (sideLegend) {
        const double blockHeight = rowHeight * (double(entries.size()) + (legendTitle.isEmpty() ? 0 : 1));
        double rowTop = std::max(plot.top(), plot.bottom() - blockHeight);
        if (!legendTitle.isEmpty()) {
            add(ChartText::LegendHeader, legendTitle,
                QRectF(groupLeft, rowTop, textWidth(boldSmall, legendTitle), lineHeight(boldSmall)), boldSmall,
                chartTextColor(dark));
            rowTop += rowHeight;
        }
        for (const Entry &entry : entries) {
            const double textTop = rowTop + (rowHeight - lineHeight(smallFont)) / 2;
            out.swatches.push_back({QRectF(groupLeft, rowTop + (rowHeight - swatch) / 2, swatch, swatch),
                                    consumerColor(ConsumerId(entry.consumer), dark)});
            add(ChartText::LegendName, entry.name,
                QRectF(groupLeft + swatch + 5 * s, textTop, textWidth(smallFont, entry.name), lineHeight(smallFont)),
                smallFont, chartTextColor(dark), -1, entry.consumer);
            if (!entry.size.isEmpty()) {
                const double w = textWidth(smallFont, entry.size);
                add(ChartText::LegendSize, entry.size,
                    QRectF(groupLeft + legendWidth - w, textTop, w, lineHeight(smallFont)), smallFont,
                    chartTextColor(dark), -1, entry.consumer);
            }
            rowTop += rowHeight;
        }
    } else {
        const double legendTop = plot.bottom() + 4 * s + categoryHeight + 6 * s;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const Entry &entry = entries[i];
            const QRectF row = bottomEntries[i].translated(0, legendTop);
            const double textTop = row.top() + (rowHeight - lineHeight(smallFont)) / 2;
            out.swatches.push_back({QRectF(row.left(), row.top() + (rowHeight - swatch) / 2, swatch, swatch),
                                    consumerColor(ConsumerId(entry.consumer), dark)});
            const double nameLeft = row.left() + swatch + 5 * s;
            const double nameWidth = textWidth(smallFont, entry.name);
            add(ChartText::LegendName, entry.name, QRectF(nameLeft, textTop, nameWidth, lineHeight(smallFont)), smallFont,
                chartTextColor(dark), -1, entry.consumer);
            if (!entry.size.isEmpty())
                add(ChartText::LegendSize, entry.size,
                    QRectF(nameLeft + nameWidth + 4 * s, textTop, textWidth(smallFont, entry.size), lineHeight(smallFont)),
                    smallFont, chartMutedColor(dark), -1, entry.consumer);
        }
    }

    // Line labels beside their lines, pushed apart where lines are close, kept on the chart.
    if (!data.lines.empty()) {
        const double nameHeight = lineHeight(boldSmall), capacityHeight = lineHeight(smallFont);
        const double blockHeight = nameHeight + capacityHeight;
        std::vector<std::pair<double, int>> order;
        for (int i = 0; i < int(data.lines.size()); ++i)
            order.push_back({out.lineY[std::size_t(i)], i});
        std::sort(order.begin(), order.end());
        std::vector<double> tops(data.lines.size());
        const double lowest = plot.bottom() + categoryHeight - blockHeight;
        double nextFree = headerBottom;
        for (const auto &[lineY, i] : order) {
            tops[std::size_t(i)] = std::max(lineY - nameHeight / 2, nextFree);
            nextFree = tops[std::size_t(i)] + blockHeight + 2 * s;
        }
        // Pushed past the bottom: shift the run up again.
        double limit = lowest;
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            double &lineTop = tops[std::size_t(it->second)];
            lineTop = std::min(lineTop, limit);
            limit = lineTop - blockHeight - 2 * s;
        }
        const double x = plot.right() + lineGap;
        const std::uint64_t shownBytes =
            std::size_t(shown) < data.columns.size() ? data.columns[std::size_t(shown)].totalBytes : 0;
        for (int i = 0; i < int(data.lines.size()); ++i) {
            const CapacityLine &line = data.lines[std::size_t(i)];
            const bool fits = shownBytes <= line.bytes;
            const QColor colour = capacityLineColor(i, dark);
            const double lineTop = tops[std::size_t(i)];
            const QString glyph = (fits ? fitsGlyph : overGlyph).trimmed();
            add(ChartText::LineVerdict, glyph, QRectF(x, lineTop, textWidth(boldSmall, glyph), nameHeight), boldSmall,
                verdictColor(fits, dark));
            const QString name = shortGpuName(line.name);
            add(ChartText::LineName, name, QRectF(x + glyphWidth, lineTop, textWidth(boldSmall, name), nameHeight),
                boldSmall, colour);
            const QString capacity = capacityText(line.bytes, data.unit);
            add(ChartText::LineName, capacity,
                QRectF(x + glyphWidth, lineTop + nameHeight, textWidth(smallFont, capacity), capacityHeight), smallFont,
                colour);
        }
    }

    // The footnote at the bottom.
    {
        double footTop = height - pad - footnoteHeight + 4 * s;
        for (const QString &line : footnoteLines) {
            add(ChartText::Footnote, line, QRectF(pad, footTop, textWidth(smallFont, line), lineHeight(smallFont)),
                smallFont, chartMutedColor(dark));
            footTop += lineHeight(smallFont);
        }
    }
    return out;
}

} // namespace headroom
