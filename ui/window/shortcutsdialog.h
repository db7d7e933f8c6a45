// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QString>
#include <QVector>

class QMenuBar;

namespace headroom {

/// One row of Help > Keyboard shortcuts.
struct ShortcutRow
{
    QString where; ///< the menu ("File", "Lessons") or "Presenter mode"
    QString what;  ///< the action, without its '&' and trailing "..."
    QString keys;  ///< in the platform's own words ("Ctrl+P"), alternatives joined by ", "
};

/// Every menu action with a shortcut, menu by menu, read from the menus themselves (so the list
/// cannot fall behind), then the keys presenter mode reads itself.
QVector<ShortcutRow> shortcutRows(const QMenuBar *menuBar);

/// Help > Keyboard shortcuts: shortcutRows as a table.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    ShortcutsDialog(const QMenuBar *menuBar, QWidget *parent = nullptr);
};

} // namespace headroom
