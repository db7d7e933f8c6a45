// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/sliderfield.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <utility>

namespace headroom {

namespace {
constexpr int kSteps = 1000;
}

SliderField::SliderField(const QString &label, double minimum, double maximum, bool logarithmic,
                         int decimals, double scale, const QString &suffix, QWidget *parent)
    : QWidget(parent), m_slider(new QSlider(Qt::Horizontal, this)), m_field(new QDoubleSpinBox(this)),
      m_minimum(minimum), m_maximum(maximum), m_log(logarithmic && minimum > 0), m_decimals(decimals),
      m_scale(scale), m_value(minimum)
{
    auto *caption = new QLabel(label, this);
    caption->setBuddy(m_field);
    m_slider->setRange(0, kSteps);
    m_slider->setSingleStep(m_log ? 10 : std::max(1, int(kSteps / std::max(1.0, maximum - minimum))));
    m_slider->setPageStep(100);
    m_slider->setAccessibleName(tr("%1 slider").arg(QString(label).remove(QLatin1Char('&'))));
    m_field->setRange(minimum / scale, maximum / scale);
    m_field->setDecimals(decimals);
    m_field->setSuffix(suffix);
    m_field->setAccelerated(true);
    m_field->setKeyboardTracking(false);
    m_field->setAccessibleName(QString(label).remove(QLatin1Char('&')));
    m_field->setMinimumWidth(96);
    m_field->setAlignment(Qt::AlignRight);

    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_slider, 1);
    row->addWidget(m_field);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(caption);
    layout->addLayout(row);
    setFocusProxy(m_field);

    connect(m_slider, &QSlider::valueChanged, this, [this](int position) {
        if (!m_slider->isSliderDown()) {
            applySliderPosition(position);
            return;
        }
        // A drag never queues work: when moves come faster than an estimate and a repaint,
        // only the latest is applied, once the moves already waiting have been read.
        const bool queued = m_dragPosition >= 0;
        m_dragPosition = position;
        if (!queued)
            QMetaObject::invokeMethod(this, [this] {
                const int latest = std::exchange(m_dragPosition, -1);
                if (latest >= 0)
                    applySliderPosition(latest);
            }, Qt::QueuedConnection);
    });
    connect(m_field, &QDoubleSpinBox::valueChanged, this, [this](double shown) {
        const double value = snap(shown * m_scale);
        if (value == m_value)
            return;
        m_value = value;
        const QSignalBlocker block(m_slider);
        m_slider->setValue(toSlider(value));
        emit valueEdited(value);
    });
}

void SliderField::applySliderPosition(int position)
{
    const double value = snap(fromSlider(position));
    if (value == m_value)
        return;
    m_value = value;
    const QSignalBlocker block(m_field);
    m_field->setValue(value / m_scale);
    emit valueEdited(value);
}

double SliderField::snap(double value) const
{
    value = std::clamp(value, m_minimum, m_maximum);
    if (m_decimals == 0 && m_scale == 1)
        value = std::round(value);
    return value;
}

int SliderField::toSlider(double value) const
{
    if (m_maximum <= m_minimum)
        return 0;
    const double t = m_log ? std::log(value / m_minimum) / std::log(m_maximum / m_minimum)
                           : (value - m_minimum) / (m_maximum - m_minimum);
    return int(std::lround(std::clamp(t, 0.0, 1.0) * kSteps));
}

double SliderField::fromSlider(int position) const
{
    const double t = double(position) / kSteps;
    if (m_log) {
        double value = m_minimum * std::pow(m_maximum / m_minimum, t);
        // Integer log sliders land on powers of two when close (batch 8, seq 4096).
        if (m_decimals == 0 && m_scale == 1) {
            const double power = std::exp2(std::round(std::log2(value)));
            if (std::abs(power - value) / value < 0.04)
                value = power;
        }
        return value;
    }
    return m_minimum + t * (m_maximum - m_minimum);
}

void SliderField::setValue(double value)
{
    m_dragPosition = -1; // a value set from outside wins over a drag not yet applied
    value = snap(value);
    m_value = value;
    const QSignalBlocker blockSlider(m_slider);
    const QSignalBlocker blockField(m_field);
    m_slider->setValue(toSlider(value));
    m_field->setValue(value / m_scale);
}

} // namespace headroom
