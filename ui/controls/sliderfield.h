// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QSlider;
class QDoubleSpinBox;
class QLabel;

namespace headroom {

/// A slider with a linked number field; logarithmic when the range spans orders of magnitude.
/// Emits valueEdited only for the user's changes, never for setValue(). While the slider is
/// dragged, moves that arrive together are applied once, with the latest position.
class SliderField : public QWidget
{
    Q_OBJECT
public:
    /// `scale` divides the value for display (1e9 shows parameters in billions).
    SliderField(const QString &label, double minimum, double maximum, bool logarithmic,
                int decimals = 0, double scale = 1, const QString &suffix = {},
                QWidget *parent = nullptr);

    double value() const { return m_value; }
    void setValue(double value);
    QSlider *slider() const { return m_slider; }
    QDoubleSpinBox *field() const { return m_field; }

signals:
    void valueEdited(double value);

private:
    int toSlider(double value) const;
    double fromSlider(int position) const;
    double snap(double value) const;
    void applySliderPosition(int position);

    QSlider *m_slider;
    QDoubleSpinBox *m_field;
    double m_minimum;
    double m_maximum;
    bool m_log;
    int m_decimals;
    double m_scale;
    double m_value;
    int m_dragPosition = -1; ///< the latest position of a drag not yet applied; -1 when none
};

} // namespace headroom
