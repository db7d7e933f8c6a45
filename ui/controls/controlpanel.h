// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>
#include <array>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace headroom {

struct Scenario;
class ScenarioModel;
class SliderField;

/// The controls: model, task, training, precision, techniques, inference, GPUs, units.
/// Every edit goes to the ScenarioModel; refresh() shows the model's state.
class ControlPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ControlPanel(ScenarioModel *model, QWidget *parent = nullptr);

    /// Shows the model's state in every control without emitting edits.
    void refresh();

    SliderField *microBatch() const { return m_microBatch; }
    SliderField *seqLen() const { return m_seqLen; }
    QComboBox *attention() const { return m_attention; }
    QComboBox *kvCache() const { return m_kvCache; }
    QComboBox *promptLogits() const { return m_promptLogits; }
    QComboBox *preset() const { return m_preset; }
    QLineEdit *measuredText() const { return m_measuredText; }
    QLabel *measuredComparison() const { return m_measuredComparison; }
    /// The GPU the verdicts are about ("Largest ticked" or one of the ticked GPUs).
    QComboBox *target() const { return m_target; }
    QDoubleSpinBox *loraDropout() const { return m_loraDropout; }
    QListWidget *gpuList() const { return m_gpus; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *buildModelGroup();
    QWidget *buildTaskGroup();
    QWidget *buildTrainingGroup();
    QWidget *buildPrecisionGroup();
    QWidget *buildTechniquesGroup();
    QWidget *buildInferenceGroup();
    QWidget *buildGpuGroup();
    QWidget *buildMeasuredGroup();
    void updateMeasured();

    SliderField *addSlider(QWidget *parent, const QString &label, double min, double max, bool log,
                           int key, void (*set)(Scenario &, double), int decimals = 0,
                           double scale = 1, const QString &suffix = {});

    ScenarioModel *m_model;
    QComboBox *m_preset = nullptr;
    QLabel *m_presetNote = nullptr;
    SliderField *m_params = nullptr;
    SliderField *m_layers = nullptr;
    SliderField *m_hidden = nullptr;
    SliderField *m_intermediate = nullptr;
    SliderField *m_heads = nullptr;
    SliderField *m_kvHeads = nullptr;
    SliderField *m_vocab = nullptr;
    QCheckBox *m_tied = nullptr;
    QComboBox *m_task = nullptr;
    QGroupBox *m_trainingGroup = nullptr;
    QGroupBox *m_inferenceGroup = nullptr;
    SliderField *m_microBatch = nullptr;
    SliderField *m_seqLen = nullptr;
    SliderField *m_gradAccum = nullptr;
    QLabel *m_effectiveBatch = nullptr;
    QComboBox *m_optimizer = nullptr;
    QCheckBox *m_masterWeights = nullptr;
    QComboBox *m_gradDType = nullptr;
    SliderField *m_loraRank = nullptr;
    std::vector<QCheckBox *> m_loraTargets;
    QDoubleSpinBox *m_loraDropout = nullptr;
    QComboBox *m_weights = nullptr;
    QComboBox *m_compute = nullptr;
    QComboBox *m_kvDType = nullptr;
    QComboBox *m_kvCache = nullptr;
    QComboBox *m_promptLogits = nullptr;
    QCheckBox *m_doubleQuant = nullptr;
    QComboBox *m_checkpointing = nullptr;
    QComboBox *m_attention = nullptr;
    QComboBox *m_loss = nullptr;
    QComboBox *m_profile = nullptr;
    QCheckBox *m_optimizerInBackward = nullptr;
    QCheckBox *m_eightBit = nullptr;
    SliderField *m_sequences = nullptr;
    SliderField *m_context = nullptr;
    QListWidget *m_gpus = nullptr;
    QComboBox *m_target = nullptr;
    QDoubleSpinBox *m_customCapacity = nullptr;
    QComboBox *m_unit = nullptr;
    QLineEdit *m_measuredText = nullptr;
    QComboBox *m_measuredReading = nullptr;
    QLabel *m_measuredComparison = nullptr;
};

} // namespace headroom
