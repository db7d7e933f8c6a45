// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/chartlabels.h"

#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <algorithm>
#include <cmath>

namespace headroom {

bool placeMarginLabels(QChart *chart, const std::vector<QGraphicsSimpleTextItem *> &labels,
                       const std::vector<qreal> &lineY)
{
    const QRectF plot = chart->plotArea();
    qreal labelWidth = 0;
    std::vector<std::pair<qreal, std::size_t>> order;
    for (std::size_t i = 0; i < labels.size() && i < lineY.size(); ++i) {
        order.push_back({lineY[i], i});
        labelWidth = std::max(labelWidth, labels[i]->boundingRect().width());
    }
    std::sort(order.begin(), order.end());
    qreal nextFree = plot.top() - 1e9;
    std::vector<qreal> tops(labels.size());
    for (const auto &[y, i] : order) {
        const qreal height = labels[i]->boundingRect().height();
        tops[i] = std::max(y - height / 2, nextFree);
        nextFree = tops[i] + height + 2;
    }
    // Never below the plot: the axis's last tick label is there.
    qreal limit = plot.bottom();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const qreal height = labels[it->second]->boundingRect().height();
        tops[it->second] = std::min(tops[it->second], limit - height);
        limit = tops[it->second] - 2;
    }
    for (const auto &[y, i] : order)
        labels[i]->setPos(plot.right() + 6, tops[i]);
    const int wanted = int(labelWidth) + 14;
    if (std::abs(chart->margins().right() - wanted) <= 2)
        return true;
    QMargins margins = chart->margins();
    margins.setRight(wanted);
    chart->setMargins(margins);
    return false;
}

} // namespace headroom
