// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartexport.h"

#include <QDialog>

class QChartView;
class QComboBox;

namespace headroom {

class ScenarioModel;
class SweepChart;

/// Memory against sequence length or micro-batch for the current scenario, with eager or flash
/// attention, and its export. Follows the scenario only while shown.
class SweepView : public QDialog
{
    Q_OBJECT
public:
    explicit SweepView(ScenarioModel *model, QWidget *parent = nullptr);

    SweepChart *chart() const { return m_chart; }
    QComboBox *axisPicker() const { return m_axis; }
    /// As in the scenario, eager or flash.
    QComboBox *attentionPicker() const { return m_attention; }
    /// Writes the chart as PNG, SVG or PDF (by the file's extension); returns the error or "".
    QString exportTo(const QString &path, const ChartExportOptions &options = {});

protected:
    void showEvent(QShowEvent *event) override;

private:
    void refresh();
    void chooseExport();

    ScenarioModel *m_model;
    SweepChart *m_chart;
    QChartView *m_view;
    QComboBox *m_axis;
    QComboBox *m_attention;
};

} // namespace headroom
