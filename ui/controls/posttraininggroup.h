// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGroupBox>

#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace headroom {

class ScenarioModel;

/// What the training optimises (train.objective: SFT, DPO, reference-free preference, GRPO) and,
/// for GRPO, its generation: completions, the reference model's beta, and the engine (vLLM
/// colocated with its memory share and sleep mode, a vLLM server, or generate()).
class PostTrainingGroup : public QGroupBox
{
    Q_OBJECT
public:
    explicit PostTrainingGroup(ScenarioModel *model, QWidget *parent = nullptr);

    QComboBox *objective() const { return m_objective; }
    QComboBox *rollout() const { return m_rollout; }
    QDoubleSpinBox *utilization() const { return m_utilization; }
    QCheckBox *sleep() const { return m_sleep; }

    /// Shows the model's state without emitting edits.
    void refresh();

private:
    ScenarioModel *m_model;
    QComboBox *m_objective = nullptr;
    QSpinBox *m_completion = nullptr;
    QSpinBox *m_generations = nullptr;
    QDoubleSpinBox *m_beta = nullptr;
    QComboBox *m_rollout = nullptr;
    QDoubleSpinBox *m_utilization = nullptr;
    QCheckBox *m_sleep = nullptr;
    QSpinBox *m_maxModelLen = nullptr;
    std::vector<QWidget *> m_grpoRows;
    std::vector<QWidget *> m_vllmRows;
};

} // namespace headroom
