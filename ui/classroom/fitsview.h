// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "serving/machinefits.h"

#include <QDialog>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace headroom {

class ScenarioModel;

/// View > What fits my machine (issue 25): `headroom fits` in a table, every catalog model x
/// weight format on one GPU (the scenario's GPUs first) for llama.cpp, vLLM or SGLang, sortable
/// by any column, filtered by model name and "fits only". Enter or a double-click on a row opens
/// it as the scenario: serving, that model, that format, that context and concurrency.
class FitsView : public QDialog
{
    Q_OBJECT
public:
    explicit FitsView(ScenarioModel *model, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    QStandardItemModel *source() const { return m_source; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QComboBox *gpuBox() const { return m_gpu; }
    QComboBox *engineBox() const { return m_engine; }
    QSpinBox *contextBox() const { return m_context; }
    QSpinBox *concurrencyBox() const { return m_concurrency; }
    QDoubleSpinBox *ramBox() const { return m_ram; }
    QLineEdit *filter() const { return m_filter; }
    QCheckBox *fitsOnly() const { return m_fitsOnly; }
    QLabel *status() const { return m_status; }
    /// The rows of the table's source model, in catalog order.
    const std::vector<FitsRow> &rows() const { return m_rows; }
    /// The FitsRow behind a row of the table (a proxy index).
    const FitsRow *rowAt(int proxyRow) const;
    /// Opens a row of the table (a proxy row) as the scenario.
    void openRow(int proxyRow);
    /// Recomputes the matrix for the controls' GPU, engine and load.
    void refresh();

    enum Column { ModelColumn, Format, Weights, Verdict, MaxContext, MaxConcurrency, CpuMoe, Peak, Flags, Columns };
    static constexpr int kSortRole = Qt::UserRole + 1;

signals:
    void opened();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void fillGpus();
    void updateStatus();

    ScenarioModel *m_model;
    QComboBox *m_gpu;
    QComboBox *m_engine;
    QSpinBox *m_context;
    QSpinBox *m_concurrency;
    QDoubleSpinBox *m_ram;
    QLineEdit *m_filter;
    QCheckBox *m_fitsOnly;
    QLabel *m_status;
    QTableView *m_table;
    QStandardItemModel *m_source;
    QSortFilterProxyModel *m_proxy;
    std::vector<FitsRow> m_rows;
};

} // namespace headroom
