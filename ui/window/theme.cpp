// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace headroom {

void applyApplicationTheme(bool dark)
{
    static bool styled = false;
    if (!styled) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        styled = true;
    }
    if (!dark) {
        const QPalette standard = QApplication::style()->standardPalette();
        QApplication::setPalette(standard);
        QApplication::setPalette(standard, "QCheckBox");
        QApplication::setPalette(standard, "QAbstractItemView");
        return;
    }
    QPalette p;
    const QColor window(0x2B2D31), base(0x1E1F22), text(0xE6E6E6), disabled(0x7F7F7F), accent(0x4C8DD6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Link, accent.lighter(130));
    p.setColor(QPalette::Highlight, accent);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Mid, QColor(0x3A3B3F));
    p.setColor(QPalette::Dark, QColor(0x151618));
    p.setColor(QPalette::Light, QColor(0x44464B));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    QApplication::setPalette(p);
    // Fusion draws a check box's frame in the window colour made darker: on a dark window that
    // frame vanishes. A lighter window colour for check boxes and item views (whose check marks
    // Fusion draws the same way) gives unchecked boxes a visible edge.
    QPalette indicators = p;
    indicators.setColor(QPalette::Window, QColor(0x9A9DA3));
    indicators.setColor(QPalette::Base, base);
    QApplication::setPalette(indicators, "QCheckBox");
    QPalette views = p;
    views.setColor(QPalette::Window, QColor(0x9A9DA3));
    QApplication::setPalette(views, "QAbstractItemView");
}

} // namespace headroom
