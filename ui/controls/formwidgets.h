// SPDX-License-Identifier: GPL-3.0-or-later
// Small builders the control groups share: enum combos and their values.
#pragma once

#include <QComboBox>
#include <QSignalBlocker>
#include <initializer_list>
#include <utility>

namespace headroom {

/// A combo of enum values with their display words. The closed combo never widens the panel:
/// it shows about `minimumLength` characters, and the whole choice is its tooltip.
template <typename E>
QComboBox *enumCombo(QWidget *parent, const QString &accessibleName,
                     std::initializer_list<std::pair<E, QString>> items, int minimumLength = 14)
{
    auto *combo = new QComboBox(parent);
    combo->setAccessibleName(accessibleName);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(minimumLength);
    QObject::connect(combo, &QComboBox::currentTextChanged, combo, &QWidget::setToolTip);
    for (const auto &[value, text] : items)
        combo->addItem(text, int(value));
    return combo;
}

template <typename E>
E comboValue(const QComboBox *combo)
{
    return static_cast<E>(combo->currentData().toInt());
}

/// Shows `value` without emitting the user's signals.
template <typename E>
void setComboValue(QComboBox *combo, E value)
{
    const QSignalBlocker block(combo);
    combo->setCurrentIndex(combo->findData(int(value)));
}

} // namespace headroom
