// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QChartView;
class QLabel;
class QScrollArea;

namespace headroom {

class BudgetChart;
class ControlPanel;
class LessonPlayer;
class ScenarioModel;

/// Presenter mode: the chart full screen with large text and thick lines, the lesson step's
/// title, caption and counter, and the keys a presentation clicker sends. Parameters may be
/// changed while presenting (the window's controls, or C for a side panel); R or Home returns
/// to the step's own scenario. Works only while shown: it costs nothing otherwise.
class PresenterView : public QWidget
{
    Q_OBJECT
public:
    PresenterView(ScenarioModel *model, LessonPlayer *player, QWidget *parent = nullptr);
    ~PresenterView() override;

    /// Shows presenter mode full screen.
    void enter();
    /// Leaves presenter mode.
    void leave();
    /// Enters or leaves.
    void toggle();

    BudgetChart *chart() const { return m_chart; }
    QLabel *titleLabel() const { return m_title; }
    QLabel *captionLabel() const { return m_caption; }
    QLabel *verdictLabel() const { return m_verdict; }
    QLabel *counterLabel() const { return m_counter; }
    /// The side panel of controls (null until first shown with C).
    ControlPanel *controls() const { return m_controls; }

signals:
    /// Presenter mode was left (Esc, F5, F11 or closing).
    void left();

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void refresh();
    void applyScale();
    void reserveCaptionHeight();
    void toggleControls();

    ScenarioModel *m_model;
    LessonPlayer *m_player;
    BudgetChart *m_chart;
    QChartView *m_chartView;
    QLabel *m_title;
    QLabel *m_caption;
    QLabel *m_verdict; ///< the step's verdict, one line under the caption
    QLabel *m_counter;
    QLabel *m_hint;
    ControlPanel *m_controls = nullptr;
    QScrollArea *m_controlsScroll = nullptr;
    double m_scale = 0;
};

} // namespace headroom
