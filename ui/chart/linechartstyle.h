// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <initializer_list>

class QAbstractAxis;
class QChart;

namespace headroom {

/// The look the line charts (sweeps, serving frontier) share with the budget chart: Qt Charts'
/// light or dark theme, the budget chart's background and text colours, 9 pt text and a 13 pt
/// bold title, both times `scale` (exports draw at their own scale), and quiet grid lines.
void styleLineChart(QChart *chart, std::initializer_list<QAbstractAxis *> axes, bool dark, double scale);

} // namespace headroom
