// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "serving/llamacppfit.h"

#include <QGroupBox>
#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;

namespace headroom {

class ScenarioModel;

/// "Fit for llama.cpp", beside Solve: the core's offline --fit (planLlamaFit) for the current
/// scenario's GPU, or its devices when it has a tensor_split, with the plan per device and the
/// llama.cpp flags in a read-only line to copy. Shown only while llama.cpp serves the scenario.
class LlamaFitPanel : public QGroupBox
{
    Q_OBJECT
public:
    explicit LlamaFitPanel(ScenarioModel *model, QWidget *parent = nullptr);

    QPushButton *fitButton() const { return m_fit; }
    QPushButton *copyButton() const { return m_copy; }
    QLineEdit *flags() const { return m_flags; }
    QLabel *plan() const { return m_plan; }
    const std::optional<LlamaFitPlan> &lastPlan() const { return m_last; }

    /// Runs the fit on the current scenario and shows it.
    void runFit();
    /// Follows the scenario: shown for llama.cpp only; a changed scenario clears the old plan.
    void refresh();

private:
    ScenarioModel *m_model;
    QPushButton *m_fit;
    QLabel *m_plan;
    QLineEdit *m_flags;
    QPushButton *m_copy;
    std::optional<LlamaFitPlan> m_last;
};

} // namespace headroom
