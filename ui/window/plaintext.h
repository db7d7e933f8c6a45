// SPDX-License-Identifier: GPL-3.0-or-later
// Text from files (a key or value in an error, a scenario's or lesson's name, a caption, a
// config.json's folder name) is shown as text, never as HTML. A QLabel or QMessageBox left at
// Qt::AutoText renders a first line holding a tag as rich text: `<img src="/dev/zero">` in a
// scenario's key read the device until the window died of std::bad_alloc, and `<a href=...>`
// put a link in the error box that opens the browser (a message box opens links). QtCharts
// titles, axis titles and legend names are always HTML: what goes there is escaped instead.
#pragma once

#include <QLabel>
#include <QMessageBox>

namespace headroom {

/// A modal warning whose text is plain text.
inline void warnPlainText(QWidget *parent, const QString &title, const QString &text)
{
    QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Ok, parent);
    box.setTextFormat(Qt::PlainText);
    box.exec();
}

/// A modal question whose text is plain text; the button pressed.
inline QMessageBox::StandardButton askPlainText(QWidget *parent, const QString &title, const QString &text,
                                                QMessageBox::StandardButtons buttons,
                                                QMessageBox::StandardButton defaultButton)
{
    QMessageBox box(QMessageBox::Question, title, text, buttons, parent);
    box.setTextFormat(Qt::PlainText);
    box.setDefaultButton(defaultButton);
    return QMessageBox::StandardButton(box.exec());
}

/// Makes `label` show its text as plain text; returns it (for initializer lists).
inline QLabel *plainText(QLabel *label)
{
    label->setTextFormat(Qt::PlainText);
    return label;
}

} // namespace headroom
