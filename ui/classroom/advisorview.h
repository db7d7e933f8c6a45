// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "solve/advisor.h"
#include "scenario/units.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace headroom {

class ScenarioModel;
class WaterfallChart;

/// "What should I change?": the advisor's levers for the current scenario and a chosen GPU,
/// drawn as a waterfall and listed with their savings and costs. Apply (or a double-click)
/// makes a step's configuration the scenario, as one undoable step. Works only while shown.
class AdvisorView : public QDialog
{
    Q_OBJECT
public:
    explicit AdvisorView(ScenarioModel *model, QWidget *parent = nullptr);

    const Advice &advice() const { return m_advice; }
    WaterfallChart *waterfall() const { return m_waterfall; }
    QTableWidget *table() const { return m_table; }
    QComboBox *gpuPicker() const { return m_gpu; }
    QLabel *summary() const { return m_summary; }
    /// Why each lever the advisor looked at was not used.
    QLabel *skippedText() const { return m_skipped; }
    /// The Apply button of step `index` (null when there is none).
    QPushButton *applyButton(int index) const;
    /// Makes step `index`'s configuration the scenario (one undo step).
    void applyStep(int index);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void refresh();
    void fillGpus();

    ScenarioModel *m_model;
    QComboBox *m_gpu;
    QLabel *m_summary;
    WaterfallChart *m_waterfall;
    QTableWidget *m_table;
    QLabel *m_skipped;
    Advice m_advice;
    std::vector<std::string> m_gpuIds; ///< the picker's entries, in order
    Unit m_unit = Unit::GiB;           ///< the picker's labels' unit
};

} // namespace headroom
