// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace headroom {

namespace {

QString plainText(QString text)
{
    text.remove(QLatin1Char('&'));
    if (text.endsWith(QLatin1String("...")))
        text.chop(3);
    return text;
}

void addMenu(QVector<ShortcutRow> &rows, const QMenu *menu, const QString &where)
{
    for (const QAction *action : menu->actions()) {
        if (action->menu()) {
            addMenu(rows, action->menu(), where + QStringLiteral(" \u203a ") + plainText(action->text()));
            continue;
        }
        if (action->isSeparator() || action->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence &key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        rows.push_back({where, plainText(action->text()), keys.join(QStringLiteral(", "))});
    }
}

} // namespace

QVector<ShortcutRow> shortcutRows(const QMenuBar *menuBar)
{
    QVector<ShortcutRow> rows;
    for (const QAction *action : menuBar->actions())
        if (action->menu())
            addMenu(rows, action->menu(), plainText(action->text()));
    // Presenter mode reads these keys itself (PresenterView::keyPressEvent).
    const QString presenter = ShortcutsDialog::tr("Presenter mode");
    const auto key = [](QKeySequence sequence) { return sequence.toString(QKeySequence::NativeText); };
    rows.push_back({presenter, ShortcutsDialog::tr("Next step"),
                    QStringList{key(Qt::Key_Right), key(Qt::Key_Space), key(Qt::Key_PageDown), key(Qt::Key_Down)}.join(QStringLiteral(", "))});
    rows.push_back({presenter, ShortcutsDialog::tr("Previous step"),
                    QStringList{key(Qt::Key_Left), key(Qt::Key_PageUp), key(Qt::Key_Up), key(Qt::Key_Backspace)}.join(QStringLiteral(", "))});
    rows.push_back({presenter, ShortcutsDialog::tr("Back to the step's scenario"),
                    QStringList{key(Qt::Key_R), key(Qt::Key_Home)}.join(QStringLiteral(", "))});
    rows.push_back({presenter, ShortcutsDialog::tr("Show or hide the controls"), key(Qt::Key_C)});
    rows.push_back({presenter, ShortcutsDialog::tr("Pin for comparison"), key(Qt::CTRL | Qt::Key_P)});
    rows.push_back({presenter, ShortcutsDialog::tr("Remove the last pin"), key(Qt::CTRL | Qt::SHIFT | Qt::Key_P)});
    rows.push_back({presenter, ShortcutsDialog::tr("Leave presenter mode"),
                    QStringList{key(Qt::Key_Escape), key(Qt::Key_F5), key(Qt::Key_F11)}.join(QStringLiteral(", "))});
    return rows;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar *menuBar, QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Keyboard shortcuts"));
    const QVector<ShortcutRow> rows = shortcutRows(menuBar);
    auto *table = new QTableWidget(int(rows.size()), 3, this);
    table->setAccessibleName(tr("Keyboard shortcuts"));
    table->setHorizontalHeaderLabels({tr("Where"), tr("Action"), tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    for (int i = 0; i < int(rows.size()); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(rows[i].where));
        table->setItem(i, 1, new QTableWidgetItem(rows[i].what));
        table->setItem(i, 2, new QTableWidgetItem(rows[i].keys));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(table);
    layout->addWidget(buttons);
    resize(620, 520);
}

} // namespace headroom
