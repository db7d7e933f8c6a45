// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "solve/solver.h"

#include <QString>
#include <QWidget>
#include <array>

class QComboBox;
class QGridLayout;
class QLabel;
class QPushButton;

namespace headroom {

class LlamaFitPanel;
class ScenarioModel;

/// The exact limits of the current scenario on one GPU: for each variable that applies, the
/// largest value that fits (the fewest GPUs), what grows and what stops it, and a button that
/// applies the answer. It also chooses which variable the chart's capacity lines carry.
class SolvePanel : public QWidget
{
    Q_OBJECT
public:
    explicit SolvePanel(ScenarioModel *model, QWidget *parent = nullptr);
    /// One row per variable: SolveFor's last value is MaxVllmUtilization (a seventh row written
    /// past arrays of six crashed the panel's first refresh).
    static constexpr std::size_t kVariables = std::size_t(SolveFor::MaxVllmUtilization) + 1;

    /// "Capacity lines show": none, or one variable.
    QComboBox *lineVariable() const { return m_lineVariable; }
    QComboBox *gpu() const { return m_gpu; }
    /// The answer and the Apply button of a variable.
    QLabel *answer(SolveFor what) const { return m_answers[std::size_t(what)]; }
    QPushButton *applyButton(SolveFor what) const { return m_apply[std::size_t(what)]; }
    /// The last answers (empty where the variable does not apply).
    const std::array<std::optional<Solution>, kVariables> &solutions() const { return m_solutions; }
    /// "Fit for llama.cpp", below the limits (shown for llama.cpp scenarios).
    LlamaFitPanel *llamaFit() const { return m_llamaFit; }

    void refresh();

private:
    ScenarioModel *m_model;
    QComboBox *m_lineVariable;
    QComboBox *m_gpu;
    std::array<QLabel *, kVariables> m_names{};
    std::array<QLabel *, kVariables> m_answers{};
    std::array<QPushButton *, kVariables> m_apply{};
    std::array<std::optional<Solution>, kVariables> m_solutions;
    LlamaFitPanel *m_llamaFit;
    bool m_gpuChosen = false; ///< the user picked a GPU here (else: the verdict's GPU)
    QString m_lastTarget;     ///< the verdict's GPU at the last refresh: a new one is followed
};

} // namespace headroom
