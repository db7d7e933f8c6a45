// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate/estimate.h"
#include "window/measurementview.h"

#include <QWidget>

class QTableWidget;
class QTextBrowser;

namespace headroom {

class ScenarioModel;

/// The breakdown table (consumer, size, share, formula) and the explanation of the selected row.
/// With a measurement that gives categories open, two more columns: the measured category beside
/// each consumer (or "not measured") and the estimate's difference from it.
class BreakdownView : public QWidget
{
    Q_OBJECT
public:
    explicit BreakdownView(ScenarioModel *model, QWidget *parent = nullptr);
    void refresh();
    /// The open measurement's categories (empty: none open, or it gives none); refresh() shows them.
    void setMeasured(std::vector<MeasuredCategory> categories) { m_measured = std::move(categories); }
    /// The table's columns: Measured and Difference only while categories are shown.
    int formulaColumn() const;
    QTableWidget *table() const { return m_table; }
    QTextBrowser *explanation() const { return m_explanation; }

private:
    void explainSelected();
    struct MeasuredCells
    {
        QString measured, difference, tip;
    };
    MeasuredCells measuredCells(const Estimate &e, ConsumerId id, const ByteScale &scale) const;

    ScenarioModel *m_model;
    QTableWidget *m_table;
    QTextBrowser *m_explanation;
    std::vector<MeasuredCategory> m_measured;
    ConsumerId m_selected = ConsumerId::Activations;
    QString m_explanationHtml;
    bool m_iconsDark = false;
};

} // namespace headroom
