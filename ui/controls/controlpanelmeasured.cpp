// SPDX-License-Identifier: GPL-3.0-or-later
// The control panel's "Measured peak" group: a typed peak and its reading, compared with the
// estimate (split from controlpanel.cpp).
#include "controls/controlpanel.h"

#include "controls/formwidgets.h"
#include "controls/measurement.h"
#include "controls/panelrows.h"
#include "document/scenariomodel.h"
#include "window/plaintext.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>

namespace headroom {

using namespace panelrows;

QWidget *ControlPanel::buildMeasuredGroup()
{
    QGroupBox *box = group(tr("Measured peak"), this);
    m_measuredText = new QLineEdit(box);
    m_measuredText->setAccessibleName(tr("Measured peak"));
    m_measuredText->setPlaceholderText(tr("e.g. 21474836480 or 20.5 GB"));
    // The clear button shows only over text, and its icon costs a theme lookup at start-up (a
    // few per cent of the first frame): it is enabled with the first text.
    connect(m_measuredText, &QLineEdit::textChanged, m_measuredText,
            [field = m_measuredText] { field->setClearButtonEnabled(true); }, Qt::SingleShotConnection);
    m_measuredText->setToolTip(tr("Paste what torch.cuda.max_memory_allocated() printed (bytes), "
                                  "or type a size with its unit."));
    m_measuredReading = enumCombo<Reading>(box, tr("Measured reading"),
        {{Reading::Allocated, tr("max_memory_allocated()")},
         {Reading::Reserved, tr("max_memory_reserved()")},
         {Reading::Device, tr("nvidia-smi (with CUDA context)")}});
    m_measuredComparison = plainText(new QLabel(box));
    m_measuredComparison->setWordWrap(true);
    m_measuredComparison->setAccessibleName(tr("Measured against estimated"));
    connect(m_measuredText, &QLineEdit::textChanged, this, [this] { updateMeasured(); });
    connect(m_measuredReading, &QComboBox::activated, this, [this] { updateMeasured(); });
    addRow(box, labelled(tr("Meas&ured"), m_measuredText, box));
    addRow(box, labelled(tr("Readin&g"), m_measuredReading, box));
    addRow(box, m_measuredComparison);
    return box;
}

void ControlPanel::updateMeasured()
{
    const QString text = m_measuredText->text().trimmed();
    if (text.isEmpty()) {
        m_model->setMeasured(std::nullopt);
        return;
    }
    const auto bytes = parseMemoryText(text, m_model->unit());
    if (!bytes) {
        m_measuredComparison->setText(tr("Not a size: type bytes (22873276416) or a number with GB, GiB, MB or MiB."));
        m_model->setMeasured(std::nullopt);
        return;
    }
    m_model->setMeasured(Measurement{*bytes, comboValue<Reading>(m_measuredReading)});
}

} // namespace headroom
