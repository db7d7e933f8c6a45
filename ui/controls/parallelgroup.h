// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGroupBox>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace headroom {

struct Scenario;
class ScenarioModel;

/// How the run spreads over GPUs and what it keeps in the machine's RAM: the GPU count, ZeRO or
/// FSDP sharding, tensor (with sequence parallelism), pipeline (with its schedule), context and
/// expert parallelism, CPU offload, and the machine's RAM for the host bar. A line under the
/// fields says how the GPUs divide, or what the layout breaks.
class ParallelGroup : public QGroupBox
{
    Q_OBJECT
public:
    explicit ParallelGroup(ScenarioModel *model, QWidget *parent = nullptr);

    QSpinBox *gpus() const { return m_gpus; }
    QComboBox *strategy() const { return m_strategy; }
    QSpinBox *tensor() const { return m_tensor; }
    QSpinBox *pipeline() const { return m_pipeline; }
    QSpinBox *context() const { return m_context; }
    QSpinBox *expert() const { return m_expert; }
    QCheckBox *offloadOptimizer() const { return m_offloadOptimizer; }
    QComboBox *machine() const { return m_machine; }
    QDoubleSpinBox *ramGiB() const { return m_ram; }
    QLabel *layout() const { return m_layout; }

    /// Shows the model's state without emitting edits.
    void refresh();

private:
    QSpinBox *count(const QString &label, const QString &accessible, int max, void (*set)(Scenario &, int),
                    int key);
    /// A check box in its own row; its undo step is named `accessible` when on, `offText` when off.
    QCheckBox *toggle(const QString &label, const QString &accessible, const QString &offText,
                      void (*set)(Scenario &, bool));

    ScenarioModel *m_model;
    QSpinBox *m_gpus = nullptr;
    QComboBox *m_strategy = nullptr;
    QSpinBox *m_tensor = nullptr;
    QCheckBox *m_sequenceParallel = nullptr;
    QSpinBox *m_pipeline = nullptr;
    QComboBox *m_schedule = nullptr;
    QSpinBox *m_context = nullptr;
    QSpinBox *m_expert = nullptr;
    QCheckBox *m_offloadOptimizer = nullptr;
    QCheckBox *m_offloadParams = nullptr;
    QComboBox *m_machine = nullptr;
    QDoubleSpinBox *m_ram = nullptr;
    QSpinBox *m_perMachine = nullptr;
    QLabel *m_layout = nullptr;
    std::vector<QWidget *> m_trainingRows; ///< fields that only training has
};

} // namespace headroom
