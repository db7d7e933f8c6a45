// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/exportdialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSpinBox>

namespace headroom {

ExportDialog::ExportDialog(ExportFormat format, const ChartExportOptions &options, QWidget *parent)
    : QDialog(parent), m_width(new QSpinBox(this)), m_height(new QSpinBox(this)),
      m_scale(new QDoubleSpinBox(this)), m_dark(new QCheckBox(tr("&Dark theme"), this))
{
    setWindowTitle(tr("Export chart"));
    auto *form = new QFormLayout(this);
    for (QSpinBox *spin : {m_width, m_height}) {
        spin->setRange(16, 16384);
        spin->setSuffix(tr(" px"));
    }
    m_width->setValue(options.size.width());
    m_width->setAccessibleName(tr("Width"));
    m_height->setValue(options.size.height());
    m_height->setAccessibleName(tr("Height"));
    m_scale->setRange(0.25, 8);
    m_scale->setDecimals(2);
    m_scale->setSingleStep(0.5);
    m_scale->setValue(options.scale);
    m_scale->setAccessibleName(tr("Scale"));
    m_scale->setEnabled(format == ExportFormat::Png);
    m_dark->setChecked(options.dark);
    form->addRow(tr("&Width (logical pixels)"), m_width);
    form->addRow(tr("&Height (logical pixels)"), m_height);
    form->addRow(tr("&Scale (PNG pixels per logical pixel)"), m_scale);
    form->addRow(QString(), m_dark);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

ChartExportOptions ExportDialog::options() const
{
    return {QSize(m_width->value(), m_height->value()), m_scale->value(), m_dark->isChecked()};
}

} // namespace headroom
