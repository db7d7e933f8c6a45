// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <functional>

class QWidget;

namespace headroom {

/// Asks where to export (starting in the last folder used, with `defaultName`), writes through
/// `write` (which returns an error or nothing), says what went wrong in a message box, and
/// remembers the folder when it worked. For the chart views' Export buttons.
void exportThroughDialog(QWidget *parent, const QString &title, const QString &defaultName,
                         const QString &filters, const std::function<QString(const QString &)> &write);

} // namespace headroom
