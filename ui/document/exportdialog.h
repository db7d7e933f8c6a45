// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartexport.h"

#include <QDialog>

class QCheckBox;
class QDoubleSpinBox;
class QSpinBox;

namespace headroom {

/// Size, scale (PNG only) and theme of a chart export; light by default.
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    ExportDialog(ExportFormat format, const ChartExportOptions &options, QWidget *parent = nullptr);

    ChartExportOptions options() const;

private:
    QSpinBox *m_width;
    QSpinBox *m_height;
    QDoubleSpinBox *m_scale;
    QCheckBox *m_dark;
};

} // namespace headroom
