// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/linechartstyle.h"

#include "chart/chartlayout.h"

#include <QAbstractAxis>
#include <QChart>
#include <QLegend>

namespace headroom {

void styleLineChart(QChart *chart, std::initializer_list<QAbstractAxis *> axes, bool dark, double scale)
{
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundBrush(chartBackground(dark));
    chart->setBackgroundRoundness(0);
    QFont font = chart->font();
    font.setPointSizeF(9 * scale);
    QFont titleFont = font;
    titleFont.setPointSizeF(13 * scale);
    titleFont.setBold(true);
    chart->setTitleFont(titleFont);
    chart->setTitleBrush(chartTextColor(dark));
    chart->legend()->setFont(font);
    chart->legend()->setLabelColor(chartTextColor(dark));
    for (QAbstractAxis *axis : axes) {
        axis->setLabelsFont(font);
        axis->setLabelsColor(chartTextColor(dark));
        axis->setTitleFont(font);
        axis->setTitleBrush(chartTextColor(dark));
        axis->setGridLineColor(dark ? QColor(0x3A3B3F) : QColor(0xE3E3E3));
    }
}

} // namespace headroom
