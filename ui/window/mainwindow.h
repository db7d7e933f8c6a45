// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <optional>

class QAction;
class QChartView;
class QDockWidget;
class QLabel;
class QSplitter;

namespace headroom {

class AdvisorView;
class BudgetChart;
class BreakdownView;
class ControlPanel;
class DocumentController;
class FitsView;
class FrontierView;
class SolvePanel;
class LessonController;
class MeasurementController;
class PresenterView;
class ScenarioModel;
class SweepView;

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
    /// The Lessons menu and the step's title and caption above the chart.
    LessonController *lessons() const { return m_lessons; }
    /// File > Open measurement... and Save as a measured case...; dropped logs and probe files.
    MeasurementController *measurements() const { return m_measurements; }
    /// Presenter mode (F5 or F11), made on first use.
    PresenterView *presenter();
    /// "What should I change?" (made on first use).
    AdvisorView *advisor();
    /// Memory against sequence length and micro-batch (made on first use).
    SweepView *sweeps();

    /// Concurrency x context for serving (made on first use).
    FrontierView *frontier();
    /// View > What fits my machine: every catalog model x format on one GPU (made on first use).
    FitsView *fits();
    /// The exact limits of the scenario on one GPU: the Solve panel, in its dock (made on first
    /// use; hidden until asked for).
    SolvePanel *solvePanel();

    /// Saves geometry, the scenario and display settings (also done on close).
    void saveState() const;
    /// Pins the current scenario, or says why not (already pinned, eight pins).
    void pinCurrent();
    /// Asks for a pin's new name.
    void renamePin(int index);
    /// Turns the pins into a lesson: captions in a dialog, saved as a lesson file and opened.
    void savePinsAsLesson();
    /// The status line: the verdict about the target GPU first, then the peak and any warning.
    static QString statusText(const ScenarioModel &model);

signals:
    /// The chart's first frame is painted (queued: after the paint and its flush). Start-up
    /// work that the first frame does not need waits for it.
    void firstFramePainted();

protected:
    void closeEvent(QCloseEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void buildMenus();
    /// The dock of the Solve panel (made when first shown: it is not needed for the first frame).
    QDockWidget *solveDock();
    void restoreState();
    void refresh();
    /// Sets the application style and palette when the theme changes.
    void applyTheme();
    /// At most the screen's available size, and on it.
    void fitToScreen();

    ScenarioModel *m_model;
    BudgetChart *m_chart;
    QChartView *m_chartView;
    ControlPanel *m_controls;
    BreakdownView *m_breakdown;
    QLabel *m_status;
    DocumentController *m_document = nullptr;
    LessonController *m_lessons = nullptr;
    MeasurementController *m_measurements = nullptr;
    PresenterView *m_presenter = nullptr;
    AdvisorView *m_advisor = nullptr;
    SweepView *m_sweeps = nullptr;
    QWidget *m_controlsScroll = nullptr;
    QAction *m_savePinsAsLesson = nullptr;
    QAction *m_solveAction = nullptr; ///< shows or hides the Solve dock
    bool m_painted = false;           ///< the chart has painted its first frame
    FrontierView *m_frontier = nullptr;
    FitsView *m_fits = nullptr;
    SolvePanel *m_solvePanel = nullptr;
    QSplitter *m_mainSplitter;
    QSplitter *m_rightSplitter;
    QStringList m_restoreProblems; ///< sections of the last session reset at start-up
    bool m_restoreLost = false;    ///< the last session's scenario could not be read at all
    std::optional<bool> m_darkApplied; ///< the theme the application has (dark or not)
};

} // namespace headroom
