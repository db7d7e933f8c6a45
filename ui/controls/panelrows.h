// SPDX-License-Identifier: GPL-3.0-or-later
// The control panel's group boxes and rows, shared by the files that build its groups.
#pragma once

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QVBoxLayout>

namespace headroom::panelrows {

/// A titled group whose rows stack vertically.
inline QGroupBox *group(const QString &title, QWidget *parent)
{
    auto *box = new QGroupBox(title, parent);
    auto *layout = new QVBoxLayout(box);
    layout->setSpacing(6);
    return box;
}

/// Appends `widget` as the group's next row.
inline void addRow(QGroupBox *box, QWidget *widget)
{
    static_cast<QVBoxLayout *>(box->layout())->addWidget(widget);
}

/// `field` with its label on the left; the label is the field's buddy (its mnemonic focuses it).
inline QWidget *labelled(const QString &label, QWidget *field, QWidget *parent)
{
    auto *row = new QWidget(parent);
    auto *layout = new QFormLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *caption = new QLabel(label, row);
    caption->setBuddy(field);
    layout->addRow(caption, field);
    return row;
}

} // namespace headroom::panelrows
