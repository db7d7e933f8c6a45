// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/chartlayout.h"

#include "chart/budgetchart.h"
#include "chart/chartmarks.h"
#include "chart/consumerstyle.h"
#include "displaytext.h"
#include "scenario/catalog.h"

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

int capacityLineStyleIndex(const QString &name)
{
    // The GPUs most often ticked together first (the default set, then the data-centre ladder),
    // so that they get six different colours; then the rest in catalog order. Neighbours in
    // capacity (A100 80GB and H100, RTX 4090 and 3090) differ in colour.
    static const char *const first[] = {"t4",   "rtx-4090", "a100-80gb", "h100-80gb", "h200",
                                        "b200", "rtx-3090", "a100-40gb", "l4",        "rtx-5090"};
    const std::vector<Gpu> &gpus = builtinCatalog().gpus;
    for (std::size_t i = 0; i < gpus.size(); ++i)
        if (QString::fromStdString(gpus[i].name) == name) {
            for (std::size_t k = 0; k < std::size(first); ++k)
                if (gpus[i].id == first[k])
                    return int(k);
            return int(std::size(first) + i);
        }
    std::uint32_t hash = 2166136261u; // FNV-1a: the same index in every run (qHash is seeded)
    for (const QChar c : name)
        hash = (hash ^ c.unicode()) * 16777619u;
    return int(std::size(first) + gpus.size() + hash % 30);
}

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

std::uint64_t largestBytes(const ChartData &data)
{
    std::uint64_t largest = std::max(data.axisMinimumBytes, data.measuredBytes);
    for (const ChartColumn &column : data.columns)
        largest = std::max({largest, column.totalBytes, column.measuredBytes});
    for (const CapacityLine &line : data.lines)
        if (!offScale(data, line))
            largest = std::max(largest, line.bytes);
    return largest;
}

bool offScale(const ChartData &data, const CapacityLine &line)
{
    if (!data.axisToRun)
        return false;
    std::uint64_t run = std::max(data.axisMinimumBytes, data.measuredBytes);
    for (const ChartColumn &column : data.columns)
        run = std::max({run, column.totalBytes, column.measuredBytes});
    return run > 0 && line.bytes / kOffScaleFactor > run;
}

std::vector<QRectF> ChartLayout::lineBands() const
{
    std::vector<QRectF> bands;
    for (std::size_t i = 0; i < lineY.size(); ++i) {
        const double half = (i < lineWidth.size() ? lineWidth[i] : 2) / 2 + 1;
        bands.emplace_back(QPointF(plot.left(), lineY[i] - half), QPointF(plot.right(), lineY[i] + half));
    }
    return bands;
}

namespace {

/// One legend row: a consumer and the shown bar's size of it.
struct LegendEntry
{
    int consumer;
    QString name;
    QString size;
};

/// Where the columns go across the chart.
struct Across
{
    bool sideLegend = false;
    double legendWidth = 0;
    double columnWidth = 1;
    double groupLeft = 0;
    double plotLeft = 0;
    double plotWidth = 1;
    double lineGap = 0;
    double lineLabelWidth = 0;
};

/// What goes under the plot, and what is left of the height for it.
struct Down
{
    std::vector<QStringList> categories;
    double categoryHeight = 0;
    std::vector<QRectF> legendRows; ///< entry boxes of a legend below the plot, from its top
    double legendHeight = 0;
    QStringList footnote;
    double footnoteHeight = 0;
    double plotTop = 0;
    double plotBottom = 0;
};

} // namespace

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
    const auto add = [&](ChartText::Role role, const QString &text, const QRectF &rect, const QFont &font,
                         const QColor &color, int column = -1, int consumer = -1) {
        out.texts.push_back({role, text, rect, font, color, QString(), column, consumer});
        return out.texts.size() - 1;
    };

    // The scale every size on the chart shares.
    const std::uint64_t largest = largestBytes(data);
    out.scale = scaleFor(largest, data.unit);

    // The header, wrapped between phrases (never elided unless the chart is tiny).
    const double textArea = std::max(40.0, width - 2 * pad);
    const QStringList titleLines =
        data.title.isEmpty() ? QStringList() : wrapPieces(data.title.split(kSeparator), kSeparator, titleFont, textArea);
    QStringList subtitleLines = data.subtitle.isEmpty()
                                    ? QStringList()
                                    : wrapPieces(data.subtitle.split(kSeparator), kSeparator, subtitleFont, textArea);
    QStringList warningLines =
        data.warning.isEmpty() ? QStringList() : wrapPieces({data.warning}, kSeparator, warningFont, textArea);
    const auto headerBottom = [&] {
        return pad + titleLines.size() * lineHeight(titleFont) + subtitleLines.size() * lineHeight(subtitleFont) +
               warningLines.size() * lineHeight(warningFont) + 4 * s;
    };

    // The legend: every consumer drawn, top of the stack first, with the shown bar's sizes.
    const int n = std::max<int>(1, int(data.columns.size()));
    const int shown = std::clamp(data.legendColumn, 0, n - 1);
    std::vector<LegendEntry> entries;
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
    for (const LegendEntry &entry : entries) {
        nameWidth = std::max(nameWidth, textWidth(smallFont, entry.name));
        sizeWidth = std::max(sizeWidth, textWidth(smallFont, entry.size));
    }
    const double sideLegendWidth = entries.empty() ? 0
                                                   : std::max(swatch + 5 * s + nameWidth + 10 * s + sizeWidth,
                                                              textWidth(boldSmall, data.legendTitle));

    // The value axis: its labels' width from the widest value it could show.
    const double provisionalTop = std::max(toScale(largest, out.scale) * 1.6, 1e-9);
    const double provisionalStep = niceStep(provisionalTop / 4);
    const double axisWidth =
        textWidth(labelFont, QString::number(std::ceil(provisionalTop / provisionalStep) * provisionalStep, 'f',
                                             decimalsFor(provisionalStep))) + 12 * s;
    const double labelHeight = lineHeight(labelFont);

    // Capacity line labels: "✓ A100 80GB" over "80 GiB" in the right margin, or on one line
    // ("✓ A100 80GB · 80 GiB") when there are too many lines for the height.
    const QString fitsGlyph = QStringLiteral("\u2713"), overGlyph = QStringLiteral("\u2717");
    const double glyphWidth = std::max(textWidth(boldSmall, fitsGlyph), textWidth(boldSmall, overGlyph)) + 3 * s;
    // The capacity, and the solver's answer for that GPU when the Solve panel asked one.
    // A line above the axis (a small run's scale) is drawn at the plot's top, marked off-scale.
    const auto capacityOf = [&](const CapacityLine &line) {
        QString text = capacityText(line.bytes, data.unit);
        if (offScale(data, line))
            text = QStringLiteral("\u2191 ") + text;
        if (!line.limit.isEmpty())
            text += kSeparator + line.limit;
        return text;
    };
    const auto lineLabelWidthFor = [&](bool oneLine) {
        double w = 0;
        for (const CapacityLine &line : data.lines) {
            const QString name = shortGpuName(line.name), capacity = capacityOf(line);
            w = oneLine ? std::max(w, textWidth(boldSmall, name) + textWidth(smallFont, kSeparator + capacity))
                        : std::max({w, textWidth(boldSmall, name), textWidth(smallFont, capacity)});
        }
        return data.lines.empty() ? 0.0 : w + glyphWidth;
    };

    // Across: [legend] [axis] [plot: n columns, at most maxColumn each] [line labels], centred.
    const auto across = [&](bool oneLineLabels) {
        Across a;
        a.lineLabelWidth = lineLabelWidthFor(oneLineLabels);
        a.lineGap = a.lineLabelWidth > 0 ? 10 * s : 4 * s;
        const double legendGap = 14 * s;
        const auto available = [&](double legendWidth) {
            return width - 2 * pad - (legendWidth > 0 ? legendWidth + legendGap : 0) - axisWidth - a.lineGap - a.lineLabelWidth;
        };
        // Beside the bars while they keep a readable width, else below them.
        a.sideLegend = !entries.empty() && available(sideLegendWidth) / n >= (n == 1 ? 160 * s : 90 * s);
        a.legendWidth = a.sideLegend ? sideLegendWidth : 0;
        a.columnWidth = std::max(8.0, std::min(available(a.legendWidth) / n, 230 * s));
        a.plotWidth = a.columnWidth * n;
        const double group = (a.sideLegend ? a.legendWidth + legendGap : 0) + axisWidth + a.plotWidth + a.lineGap + a.lineLabelWidth;
        a.groupLeft = std::max(pad, (width - group) / 2);
        a.plotLeft = a.groupLeft + (a.sideLegend ? a.legendWidth + legendGap : 0) + axisWidth;
        return a;
    };

    // Down: header, the unit over the axis, the plot, categories, a legend below, the footnote.
    int categoryLineLimit = 3;
    bool footnoteShown = !data.footnote.isEmpty();
    const auto down = [&](const Across &a) {
        Down d;
        for (const ChartColumn &column : data.columns) {
            const double room = a.columnWidth - 6 * s;
            d.categories.push_back(limitLines(wrapPieces(column.label.split(kSeparator), kSeparator, labelFont, room),
                                              categoryLineLimit, labelFont, room));
            d.categoryHeight = std::max(d.categoryHeight, d.categories.back().size() * labelHeight);
        }
        if (!a.sideLegend && !entries.empty()) {
            double x = pad, rowTop = 0;
            for (const LegendEntry &entry : entries) {
                const double w = swatch + 5 * s + textWidth(smallFont, entry.name) +
                                 (entry.size.isEmpty() ? 0 : 4 * s + textWidth(smallFont, entry.size));
                if (x + w > width - pad && x > pad) {
                    x = pad;
                    rowTop += rowHeight;
                }
                d.legendRows.emplace_back(x, rowTop, w, rowHeight);
                x += w + 14 * s;
            }
            d.legendHeight = rowTop + rowHeight + 6 * s;
        }
        if (footnoteShown) {
            d.footnote = wrapPieces({data.footnote}, kSeparator, smallFont, textArea);
            d.footnoteHeight = d.footnote.size() * lineHeight(smallFont) + 4 * s;
        }
        d.plotTop = headerBottom() + labelHeight * 2 + 4 * s;
        d.plotBottom = height - pad - d.footnoteHeight - d.legendHeight - d.categoryHeight - 6 * s;
        return d;
    };
    Across a = across(false);
    Down d = down(a);
    // Too many lines for two-line labels in the height: one line each.
    const double labelRun = double(data.lines.size()) * (lineHeight(boldSmall) + lineHeight(smallFont) + 2 * s);
    if (labelRun > d.plotBottom + d.categoryHeight - headerBottom()) {
        a = across(true);
        d = down(a);
    }
    const bool oneLineLabels = labelRun > d.plotBottom + d.categoryHeight - headerBottom();
    // A small chart keeps the plot: the footnote goes, then long subtitles, categories and warnings shorten.
    const double minPlot = std::min(140 * s, 0.4 * height);
    for (int shrink = 0; d.plotBottom - d.plotTop < minPlot && shrink < 5; ++shrink) {
        switch (shrink) {
        case 0: footnoteShown = false; break;
        case 1: subtitleLines = limitLines(subtitleLines, 2, subtitleFont, textArea); break;
        case 2: categoryLineLimit = 2; break;
        case 3: warningLines = limitLines(warningLines, 1, warningFont, textArea); break;
        case 4: subtitleLines = limitLines(subtitleLines, 1, subtitleFont, textArea); categoryLineLimit = 1; break;
        }
        d = down(a);
    }
    d.plotBottom = std::max(d.plotBottom, d.plotTop + 30 * s);
    out.plot = QRectF(a.plotLeft, d.plotTop, a.plotWidth, d.plotBottom - d.plotTop);
    const QRectF plot = out.plot;
    const double barPixels = std::min(0.62 * a.columnWidth, 150 * s);
    out.barWidth = barPixels / a.columnWidth;
    const auto columnCentre = [&](int c) { return plot.left() + a.columnWidth * (c + 0.5); };

    // The header.
    double y = pad;
    const auto addCentred = [&](ChartText::Role role, const QStringList &lines, const QFont &font, const QColor &color) {
        const double h = lineHeight(font);
        for (const QString &line : lines) {
            const double w = std::min(textWidth(font, line), textArea);
            add(role, line, QRectF((width - w) / 2, y, w, h), font, color);
            y += h;
        }
    };
    addCentred(ChartText::Title, titleLines, titleFont, chartTextColor(dark));
    addCentred(ChartText::Subtitle, subtitleLines, subtitleFont, chartMutedColor(dark));
    addCentred(ChartText::Warning, warningLines, warningFont, verdictColor(false, dark));
    const double top = headerBottom();

    // Inside the plot: the axis, the verdicts, the measured peak, the segments' sizes.
    placeInPlot(data, {plot, a.columnWidth, barPixels, s, smallFont, boldSmall, smallFont}, out);

    // The unit over the axis labels, clear of the top tick's label.
    {
        const QString unit = QString::fromStdString(scaleName(out.scale));
        const double w = textWidth(labelFont, unit);
        add(ChartText::AxisUnit, unit, QRectF(plot.left() - 8 * s - w, plot.top() - labelHeight * 2, w, labelHeight),
            labelFont, chartTextColor(dark));
    }

    // Category labels under their bars, the whole label as a tooltip.
    for (int c = 0; c < int(d.categories.size()); ++c)
        for (int i = 0; i < d.categories[std::size_t(c)].size(); ++i) {
            const QString &text = d.categories[std::size_t(c)][i];
            const double w = std::min(textWidth(labelFont, text), a.columnWidth - 2 * s);
            const std::size_t index = add(ChartText::Category, text,
                                          QRectF(columnCentre(c) - w / 2, plot.bottom() + 4 * s + i * labelHeight, w, labelHeight),
                                          labelFont, chartTextColor(dark), c);
            out.texts[index].toolTip = data.columns[std::size_t(c)].label;
        }

    // The legend: beside the bars, bottom-aligned with them, the stack's order read downwards;
    // or in rows below the categories.
    const auto addEntry = [&](const LegendEntry &entry, double left, double rowTop, double sizeRight) {
        const double textTop = rowTop + (rowHeight - lineHeight(smallFont)) / 2;
        out.swatches.push_back({QRectF(left, rowTop + (rowHeight - swatch) / 2, swatch, swatch),
                                consumerColor(ConsumerId(entry.consumer), dark)});
        const double nameLeft = left + swatch + 5 * s, entryNameWidth = textWidth(smallFont, entry.name);
        add(ChartText::LegendName, entry.name, QRectF(nameLeft, textTop, entryNameWidth, lineHeight(smallFont)), smallFont,
            chartTextColor(dark), -1, entry.consumer);
        if (entry.size.isEmpty())
            return;
        const double w = textWidth(smallFont, entry.size);
        const double x = sizeRight > 0 ? sizeRight - w : nameLeft + entryNameWidth + 4 * s;
        add(ChartText::LegendSize, entry.size, QRectF(x, textTop, w, lineHeight(smallFont)), smallFont,
            sizeRight > 0 ? chartTextColor(dark) : chartMutedColor(dark), -1, entry.consumer);
    };
    if (a.sideLegend) {
        const double blockHeight = rowHeight * (double(entries.size()) + (data.legendTitle.isEmpty() ? 0 : 1));
        double rowTop = std::max(top, plot.bottom() - blockHeight);
        if (!data.legendTitle.isEmpty()) {
            add(ChartText::LegendHeader, data.legendTitle,
                QRectF(a.groupLeft, rowTop, textWidth(boldSmall, data.legendTitle), lineHeight(boldSmall)), boldSmall,
                chartTextColor(dark));
            rowTop += rowHeight;
        }
        for (const LegendEntry &entry : entries) {
            addEntry(entry, a.groupLeft, rowTop, a.groupLeft + a.legendWidth);
            rowTop += rowHeight;
        }
    } else {
        const double legendTop = plot.bottom() + 4 * s + d.categoryHeight + 6 * s;
        for (std::size_t i = 0; i < entries.size(); ++i)
            addEntry(entries[i], d.legendRows[i].left(), d.legendRows[i].top() + legendTop, 0);
    }

    // Line labels beside their lines, pushed apart where lines are close, kept between the
    // header and the categories' bottom.
    if (!data.lines.empty()) {
        const double nameHeight = lineHeight(boldSmall), capacityHeight = lineHeight(smallFont);
        const double blockHeight = oneLineLabels ? nameHeight : nameHeight + capacityHeight;
        std::vector<std::pair<double, int>> order;
        for (int i = 0; i < int(data.lines.size()); ++i)
            order.push_back({out.lineY[std::size_t(i)], i});
        std::sort(order.begin(), order.end());
        std::vector<double> tops(data.lines.size());
        double nextFree = top;
        for (const auto &[lineY, i] : order) {
            tops[std::size_t(i)] = std::max(lineY - nameHeight / 2, nextFree);
            nextFree = tops[std::size_t(i)] + blockHeight + 2 * s;
        }
        // Pushed past the bottom: shift the run up again, never above the header.
        double limit = plot.bottom() + d.categoryHeight - blockHeight;
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            double &lineTop = tops[std::size_t(it->second)];
            lineTop = std::max(top, std::min(lineTop, limit));
            limit = lineTop - blockHeight - 2 * s;
        }
        const double x = plot.right() + a.lineGap;
        const std::uint64_t shownBytes =
            std::size_t(shown) < data.columns.size() ? data.columns[std::size_t(shown)].totalBytes : 0;
        double previousBottom = -1;
        for (const auto &[lineY, i] : order) {
            const CapacityLine &line = data.lines[std::size_t(i)];
            const double lineTop = tops[std::size_t(i)];
            if (lineTop < previousBottom) // no room left in the height: the line speaks for itself
                continue;
            previousBottom = lineTop + blockHeight;
            const bool fits = shownBytes <= line.bytes;
            const QColor colour = capacityLineColor(capacityLineStyleIndex(line.name), dark);
            const QString glyph = fits ? fitsGlyph : overGlyph;
            add(ChartText::LineVerdict, glyph, QRectF(x, lineTop, textWidth(boldSmall, glyph), nameHeight), boldSmall,
                verdictColor(fits, dark));
            const QString name = shortGpuName(line.name), capacity = capacityOf(line);
            const double nameW = textWidth(boldSmall, name);
            add(ChartText::LineName, name, QRectF(x + glyphWidth, lineTop, nameW, nameHeight), boldSmall, colour);
            if (oneLineLabels)
                add(ChartText::LineName, kSeparator.trimmed() + QLatin1Char(' ') + capacity,
                    QRectF(x + glyphWidth + nameW + 2 * s, lineTop + (nameHeight - capacityHeight) / 2,
                           textWidth(smallFont, kSeparator.trimmed() + QLatin1Char(' ') + capacity), capacityHeight),
                    smallFont, colour);
            else
                add(ChartText::LineName, capacity,
                    QRectF(x + glyphWidth, lineTop + nameHeight, textWidth(smallFont, capacity), capacityHeight), smallFont,
                    colour);
        }
    }

    // The footnote at the bottom.
    double footTop = height - pad - d.footnoteHeight + 4 * s;
    for (const QString &line : d.footnote) {
        add(ChartText::Footnote, line, QRectF(pad, footTop, textWidth(smallFont, line), lineHeight(smallFont)), smallFont,
            chartMutedColor(dark));
        footTop += lineHeight(smallFont);
    }
    return out;
}

} // namespace headroom
