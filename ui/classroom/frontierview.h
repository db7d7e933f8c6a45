// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartexport.h"

#include <QDialog>

class QChartView;
class QCheckBox;
class QLabel;
class QLineEdit;

namespace headroom {

class FrontierChart;
class ScenarioModel;

/// Concurrency x context for the current serving scenario: a curve per ticked GPU (or per
/// tensor-parallel size of the first), the load marked with what limits it, paged against
/// contiguous allocation on request, and its export. Follows the scenario only while shown.
class FrontierView : public QDialog
{
    Q_OBJECT
public:
    explicit FrontierView(ScenarioModel *model, QWidget *parent = nullptr);
    /// The tensor field says "editing finished" as it is destroyed: not to a half-destroyed view.
    ~FrontierView() override;

    FrontierChart *chart() const { return m_chart; }
    /// Tensor-parallel sizes for the first GPU ("1,2,4"); empty: the scenario's.
    QLineEdit *tensorSizes() const { return m_tensor; }
    QCheckBox *contiguous() const { return m_contiguous; }
    QLabel *status() const { return m_status; }
    /// The hovered point's numbers (context, users, KV per user, engine).
    QLabel *readout() const { return m_readout; }
    /// Writes the chart (PNG, SVG, PDF) or its points (CSV, JSON) by the file's extension.
    QString exportTo(const QString &path, const ChartExportOptions &options = {});

protected:
    void showEvent(QShowEvent *event) override;

private:
    void refresh();
    void chooseExport();

    ScenarioModel *m_model;
    FrontierChart *m_chart;
    QChartView *m_view;
    QLineEdit *m_tensor;
    QCheckBox *m_contiguous;
    QLabel *m_status;
    QLabel *m_readout;
};

} // namespace headroom
