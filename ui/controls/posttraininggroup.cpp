// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/posttraininggroup.h"

#include "controls/formwidgets.h"

#include "document/scenariomodel.h"
#include "scenario/catalog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace headroom {

namespace {

QFormLayout *form(QWidget *widget) { return static_cast<QFormLayout *>(widget->layout()); }

void setShown(QSpinBox *box, int value)
{
    const QSignalBlocker block(box);
    box->setValue(value);
}

void setShown(QDoubleSpinBox *box, double value)
{
    const QSignalBlocker block(box);
    box->setValue(value);
}

} // namespace

PostTrainingGroup::PostTrainingGroup(ScenarioModel *model, QWidget *parent)
    : QGroupBox(tr("Objective and generation"), parent), m_model(model)
{
    auto *layout = new QFormLayout(this);
    m_objective = enumCombo<Objective>(this, tr("Objective"),
                                       {{Objective::Sft, tr("SFT (next-token prediction)")},
                                        {Objective::Dpo, tr("DPO (pairs, frozen reference)")},
                                        {Objective::Preference, tr("ORPO / SimPO / CPO (pairs, no reference)")},
                                        {Objective::Grpo, tr("GRPO (online RL with generation)")},
                                        {Objective::Ppo, tr("PPO (policy, reference, reward and value models)")},
                                        {Objective::Distillation, tr("Distillation (a frozen teacher's logits)")},
                                        {Objective::Reward, tr("Reward model (pairs, one score per sequence)")},
                                        {Objective::Kto, tr("KTO (unpaired, frozen reference)")}});
    layout->addRow(tr("&Objective"), m_objective);

    m_completion = new QSpinBox(this);
    m_completion->setAccessibleName(tr("Completion length"));
    m_completion->setRange(1, 1 << 24);
    m_completion->setToolTip(tr("TRL max_completion_length: the sequence length is the prompt and the completion."));
    layout->addRow(tr("Com&pletion tokens"), m_completion);
    m_generations = new QSpinBox(this);
    m_generations->setAccessibleName(tr("Completions per prompt"));
    m_generations->setRange(1, 1 << 16);
    m_generations->setToolTip(tr("TRL num_generations. The micro-batch counts completions, as "
                                 "per_device_train_batch_size does in TRL."));
    layout->addRow(tr("Completions per &prompt"), m_generations);
    m_beta = new QDoubleSpinBox(this);
    m_beta->setAccessibleName(tr("KL coefficient beta"));
    m_beta->setRange(0, 1000);
    m_beta->setDecimals(3);
    m_beta->setSingleStep(0.01);
    m_beta->setToolTip(tr("Above 0, a full fine-tune keeps a frozen reference copy of the model; "
                          "with LoRA the reference is the base with the adapter disabled."));
    layout->addRow(tr("&Beta (KL)"), m_beta);
    m_rollout = enumCombo<Rollout>(this, tr("Generation engine"),
                                   {{Rollout::VllmColocate, tr("vLLM in the same GPUs (colocate)")},
                                    {Rollout::VllmServer, tr("vLLM server on other GPUs")},
                                    {Rollout::HfGenerate, tr("generate() in the trainer")}});
    layout->addRow(tr("&Generation"), m_rollout);
    m_utilization = new QDoubleSpinBox(this);
    m_utilization->setAccessibleName(tr("vLLM GPU memory utilization"));
    m_utilization->setRange(0.01, 1.0);
    m_utilization->setDecimals(2);
    m_utilization->setSingleStep(0.05);
    m_utilization->setToolTip(tr("TRL vllm_gpu_memory_utilization: vLLM's share of the GPU (weights, KV pool, "
                                 "CUDA graphs). The Solve panel finds the largest that leaves room for training."));
    layout->addRow(tr("vLLM &memory share"), m_utilization);
    m_sleep = new QCheckBox(tr("vLLM &sleep mode while training"), this);
    m_sleep->setAccessibleName(tr("vLLM sleep mode"));
    m_sleep->setToolTip(tr("TRL vllm_enable_sleep_mode: the weights and KV pool are released between generations."));
    layout->addRow(m_sleep);
    m_maxModelLen = new QSpinBox(this);
    m_maxModelLen->setAccessibleName(tr("vLLM max model length"));
    m_maxModelLen->setRange(0, 1 << 24);
    m_maxModelLen->setSpecialValueText(tr("the model's"));
    m_maxModelLen->setToolTip(tr("TRL vllm_max_model_length: vLLM must hold one sequence this long; "
                                 "unset, the model's maximum position."));
    layout->addRow(tr("vLLM max &length"), m_maxModelLen);
    m_response = new QSpinBox(this);
    m_response->setAccessibleName(tr("PPO response length"));
    m_response->setRange(1, 1 << 24);
    m_response->setToolTip(tr("TRL PPOConfig response_length: the sequence length is the query and the response."));
    layout->addRow(tr("&Response tokens"), m_response);
    m_rolloutBatch = new QSpinBox(this);
    m_rolloutBatch->setAccessibleName(tr("PPO rollout chunk"));
    m_rolloutBatch->setRange(1, 1 << 20);
    m_rolloutBatch->setToolTip(tr("TRL local_rollout_forward_batch_size: queries generated and scored at once."));
    layout->addRow(tr("Rollout &chunk"), m_rolloutBatch);
    m_teacher = new QComboBox(this);
    m_teacher->setAccessibleName(tr("Teacher model"));
    m_teacher->setToolTip(tr("The frozen teacher (torchtune teacher_model). It must share the student's vocabulary."));
    for (const ModelPreset &preset : builtinCatalog().models)
        m_teacher->addItem(QString::fromStdString(preset.name), QString::fromStdString(preset.id));
    layout->addRow(tr("&Teacher"), m_teacher);
    m_teacherDType = enumCombo<DType>(this, tr("Teacher dtype"),
                                      {{DType::BF16, tr("bf16")}, {DType::FP16, tr("fp16")}, {DType::FP32, tr("fp32")}});
    layout->addRow(tr("Teacher &dtype"), m_teacherDType);
    m_rewardHead = enumCombo<RewardHead>(this, tr("Reward head"),
                                         {{RewardHead::Score, tr("Score head instead of the lm_head (TRL)")},
                                          {RewardHead::ValueHead, tr("Value head beside the lm_head (LLaMA-Factory)")}});
    m_rewardHead->setToolTip(tr("TRL's RewardTrainer replaces the lm_head with a one-label score head. "
                                "LLaMA-Factory's stage rm keeps the causal LM and adds a value head, so the "
                                "forward still computes the logits over the vocabulary."));
    layout->addRow(tr("Reward &head"), m_rewardHead);
    m_ppoRows = {m_response, m_rolloutBatch};
    m_teacherRows = {m_teacher, m_teacherDType};
    m_grpoRows = {m_completion, m_generations, m_beta, m_rollout, m_utilization, m_sleep, m_maxModelLen};
    m_vllmRows = {m_utilization, m_sleep, m_maxModelLen};

    connect(m_objective, &QComboBox::activated, this, [this] {
        const Objective objective = comboValue<Objective>(m_objective);
        m_model->apply(tr("Objective %1").arg(m_objective->currentText()), [objective](Scenario &s) {
            s.train.objective = objective;
            if (objective == Objective::Ppo && s.train.ppo.responseLength >= s.train.seqLen)
                s.train.ppo.responseLength = std::max<std::uint32_t>(1, s.train.seqLen / 2);
            // A teacher must share the student's vocabulary: until one is chosen, the student's own.
            if (objective == Objective::Distillation && (s.train.distillation.teacher == ModelArch{} ||
                                                         s.train.distillation.teacher.vocab != s.model.vocab))
                s.train.distillation.teacher = s.model;
            if (objective == Objective::Grpo && s.train.grpo.completionLength >= s.train.seqLen)
                s.train.grpo.completionLength = std::max<std::uint32_t>(1, s.train.seqLen / 2);
            // TRL refuses a generation batch that num_generations does not divide: keep a divisor.
            if (objective == Objective::Grpo) {
                const std::uint64_t batch = std::uint64_t(s.train.microBatch) * std::max<std::uint32_t>(1, s.parallel.gpus) *
                                            (s.train.grpo.stepsPerGeneration ? s.train.grpo.stepsPerGeneration
                                                                             : s.train.gradAccum);
                s.train.grpo.numGenerations =
                    static_cast<std::uint32_t>(std::gcd(batch, std::uint64_t(s.train.grpo.numGenerations)));
            }
        });
    });
    connect(m_completion, &QSpinBox::valueChanged, this, [this](int value) {
        m_model->apply(tr("Completion length"), [value](Scenario &s) {
            s.train.grpo.completionLength = static_cast<std::uint32_t>(
                std::clamp<std::int64_t>(value, 1, std::max<std::int64_t>(1, std::int64_t(s.train.seqLen) - 1)));
        }, 401);
    });
    connect(m_generations, &QSpinBox::valueChanged, this, [this](int value) {
        m_model->apply(tr("Completions per prompt"),
                       [value](Scenario &s) { s.train.grpo.numGenerations = static_cast<std::uint32_t>(value); }, 402);
    });
    connect(m_beta, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        m_model->apply(tr("GRPO beta"), [value](Scenario &s) { s.train.grpo.beta = value; }, 403);
    });
    connect(m_rollout, &QComboBox::activated, this, [this] {
        const Rollout rollout = comboValue<Rollout>(m_rollout);
        m_model->apply(tr("Generation %1").arg(m_rollout->currentText()),
                       [rollout](Scenario &s) { s.train.grpo.rollout = rollout; });
    });
    connect(m_utilization, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        m_model->apply(tr("vLLM memory share"), [value](Scenario &s) {
            s.train.grpo.vllmGpuMemoryUtilization = std::round(value * 100.0) / 100.0;
        }, 404);
    });
    connect(m_sleep, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(on ? tr("vLLM sleeps while training") : tr("vLLM stays awake"),
                       [on](Scenario &s) { s.train.grpo.vllmSleep = on; });
    });
    connect(m_maxModelLen, &QSpinBox::valueChanged, this, [this](int value) {
        m_model->apply(tr("vLLM max length"),
                       [value](Scenario &s) { s.train.grpo.vllmMaxModelLen = static_cast<std::uint32_t>(value); }, 405);
    });
    connect(m_response, &QSpinBox::valueChanged, this, [this](int value) {
        m_model->apply(tr("Response length"), [value](Scenario &s) {
            s.train.ppo.responseLength = static_cast<std::uint32_t>(
                std::clamp<std::int64_t>(value, 1, std::max<std::int64_t>(1, std::int64_t(s.train.seqLen) - 1)));
        }, 406);
    });
    connect(m_rolloutBatch, &QSpinBox::valueChanged, this, [this](int value) {
        m_model->apply(tr("Rollout chunk"),
                       [value](Scenario &s) { s.train.ppo.rolloutBatch = static_cast<std::uint32_t>(value); }, 407);
    });
    connect(m_teacher, &QComboBox::activated, this, [this] {
        const std::string id = m_teacher->currentData().toString().toStdString();
        const ModelPreset *preset = builtinCatalog().findModel(id);
        if (!preset)
            return;
        const ModelArch arch = preset->arch;
        m_model->apply(tr("Teacher %1").arg(m_teacher->currentText()),
                       [arch](Scenario &s) { s.train.distillation.teacher = arch; });
    });
    connect(m_teacherDType, &QComboBox::activated, this, [this] {
        const DType dtype = comboValue<DType>(m_teacherDType);
        m_model->apply(tr("Teacher dtype %1").arg(m_teacherDType->currentText()),
                       [dtype](Scenario &s) { s.train.distillation.teacherDType = dtype; });
    });
    connect(m_rewardHead, &QComboBox::activated, this, [this] {
        const RewardHead head = comboValue<RewardHead>(m_rewardHead);
        m_model->apply(tr("Reward head %1").arg(m_rewardHead->currentText()),
                       [head](Scenario &s) { s.train.rewardHead = head; });
    });
    connect(m_model, &ScenarioModel::changed, this, &PostTrainingGroup::refresh);
    refresh();
}

void PostTrainingGroup::refresh()
{
    const Scenario &s = m_model->scenario();
    setVisible(s.task == Task::Train);
    setComboValue(m_objective, s.train.objective);
    const bool grpo = s.train.objective == Objective::Grpo;
    const bool colocated = grpo && s.train.grpo.rollout == Rollout::VllmColocate;
    for (QWidget *row : m_grpoRows)
        form(this)->setRowVisible(row, grpo);
    for (QWidget *row : m_vllmRows)
        form(this)->setRowVisible(row, colocated);
    for (QWidget *row : m_ppoRows)
        form(this)->setRowVisible(row, s.train.objective == Objective::Ppo);
    for (QWidget *row : m_teacherRows)
        form(this)->setRowVisible(row, s.train.objective == Objective::Distillation);
    form(this)->setRowVisible(m_rewardHead, s.train.objective == Objective::Reward);
    setComboValue(m_rewardHead, s.train.rewardHead);
    setShown(m_response, int(s.train.ppo.responseLength));
    setShown(m_rolloutBatch, int(s.train.ppo.rolloutBatch));
    setComboValue(m_teacherDType, s.train.distillation.teacherDType);
    {
        const QSignalBlocker block(m_teacher);
        m_teacher->setCurrentIndex(
            m_teacher->findData(QString::fromStdString(s.train.distillation.teacher.preset)));
    }
    const GrpoConfig &g = s.train.grpo;
    setShown(m_completion, int(g.completionLength));
    setShown(m_generations, int(g.numGenerations));
    setShown(m_beta, g.beta);
    setComboValue(m_rollout, g.rollout);
    setShown(m_utilization, g.vllmGpuMemoryUtilization);
    {
        const QSignalBlocker block(m_sleep);
        m_sleep->setChecked(g.vllmSleep);
    }
    setShown(m_maxModelLen, int(g.vllmMaxModelLen));
}

} // namespace headroom
