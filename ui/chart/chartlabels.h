// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>
#include <vector>

class QChart;
class QGraphicsSimpleTextItem;

namespace headroom {

/// Places capacity-line labels in the chart's right margin beside their lines (`lineY` in
/// chart coordinates, one per label), pushed apart where lines are close, and widens the
/// margin to fit the widest. Returns false when the margin changed: the chart lays out again
/// and the caller is called back through plotAreaChanged.
bool placeMarginLabels(QChart *chart, const std::vector<QGraphicsSimpleTextItem *> &labels,
                       const std::vector<qreal> &lineY);

} // namespace headroom
