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

/// What the training optimises (train.objective: SFT, DPO, reference-free preference, GRPO, PPO,
/// distillation, reward model) and, for GRPO, its generation: completions, the reference model's
/// beta, and the engine (vLLM colocated with its memory share and sleep mode, a vLLM server, or
/// generate()); for PPO its response length and rollout chunk; for distillation the teacher.
class PostTrainingGroup : public QGroupBox
{
    Q_OBJECT
public:
    explicit PostTrainingGroup(ScenarioModel *model, QWidget *parent = nullptr);

    QComboBox *objective() const { return m_objective; }
    QComboBox *rollout() const { return m_rollout; }
    QDoubleSpinBox *utilization() const { return m_utilization; }
    QCheckBox *sleep() const { return m_sleep; }
    QSpinBox *responseLength() const { return m_response; }
    QSpinBox *rolloutBatch() const { return m_rolloutBatch; }
    QComboBox *teacher() const { return m_teacher; }
    QComboBox *teacherDType() const { return m_teacherDType; }
    QComboBox *rewardHead() const { return m_rewardHead; }

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
    QSpinBox *m_response = nullptr;
    QSpinBox *m_rolloutBatch = nullptr;
    QComboBox *m_teacher = nullptr;
    QComboBox *m_teacherDType = nullptr;
    QComboBox *m_rewardHead = nullptr;
    std::vector<QWidget *> m_grpoRows;
    std::vector<QWidget *> m_ppoRows;
    std::vector<QWidget *> m_teacherRows;
    std::vector<QWidget *> m_vllmRows;
};

} // namespace headroom
