// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMainWindow>

class QChartView;
class QLabel;
class QSplitter;

namespace headroom {

class BudgetChart;
class BreakdownView;
class ControlPanel;
class DocumentController;
class ScenarioModel;

/// Wiring only: the controls, the chart and the breakdown around one ScenarioModel.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    ScenarioModel *model() const { return m_model; }
    BudgetChart *chart() const { return m_chart; }
    QChartView *chartView() const { return m_chartView; }
    ControlPanel *controls() const { return m_controls; }
    BreakdownView *breakdown() const { return m_breakdown; }
    QLabel *statusText() const { return m_status; }
    /// The file: open, save, recent files, import, export, modified marker.
    DocumentController *document() const { return m_document; }

    /// Saves geometry, the scenario and display settings (also done on close).
    void saveState() const;

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    void restoreState();
    void refresh();

    ScenarioModel *m_model;
    BudgetChart *m_chart;
    QChartView *m_chartView;
    ControlPanel *m_controls;
    BreakdownView *m_breakdown;
    QLabel *m_status;
    DocumentController *m_document = nullptr;
    QSplitter *m_mainSplitter;
    QSplitter *m_rightSplitter;
    bool m_darkApplied = false;
};

} // namespace headroom
