// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/controlpanel.h"
#include "window/plaintext.h"

#include "displaytext.h"
#include "controls/frameworkgroup.h"
#include "controls/posttraininggroup.h"
#include "controls/formwidgets.h"
#include "controls/mygpubox.h"
#include "controls/panelrows.h"
#include "controls/parallelgroup.h"
#include "scenario/names.h"
#include "document/scenariomodel.h"
#include "controls/servinggroup.h"
#include "controls/sliderfield.h"
#include "training/framework.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalBlocker>
#include <QScrollBar>
#include <QSlider>
#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>

namespace headroom {

using namespace panelrows;

namespace {

/// Merge keys: consecutive edits of one control form one undo step.
enum Key {
    KeyParams = 1, KeyLayers, KeyHidden, KeyIntermediate, KeyHeads, KeyKvHeads, KeyVocab,
    KeyMicroBatch, KeySeqLen, KeyGradAccum, KeyLoraRank, KeyLoraDropout, KeySequences, KeyContext,
};

/// An architecture edit drops a total that overrode the derived one; a rough model's total is its size.
void resetDerivedParams(ModelArch &model)
{
    if (!model.rough)
        model.params.reset();
}

/// Task choices shown in one combo: training methods and inference.
enum TaskChoice { TrainFull, TrainLora, TrainQlora, Inference };

TaskChoice taskChoice(const Scenario &s)
{
    if (s.task == Task::Inference)
        return Inference;
    return s.train.method == Method::Full ? TrainFull : s.train.method == Method::Lora ? TrainLora : TrainQlora;
}

const std::pair<LoraTarget, const char *> kTargets[] = {
    {LoraTarget::Q, "q"},       {LoraTarget::K, "k"},   {LoraTarget::V, "v"},
    {LoraTarget::O, "o"},       {LoraTarget::Gate, "gate"}, {LoraTarget::Up, "up"},
    {LoraTarget::Down, "down"}, {LoraTarget::LmHead, "lm_head"}};

} // namespace

ControlPanel::ControlPanel(ScenarioModel *model, QWidget *parent) : QWidget(parent), m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    layout->setSpacing(8);
    layout->addWidget(new MyGpuBox(m_model, this));
    layout->addWidget(buildModelGroup());
    layout->addWidget(buildTaskGroup());
    layout->addWidget(buildTrainingGroup());
    layout->addWidget(new PostTrainingGroup(model, this));
    layout->addWidget(buildInferenceGroup());
    layout->addWidget(new ServingGroup(m_model, this));
    layout->addWidget(buildPrecisionGroup());
    layout->addWidget(new FrameworkGroup(model, this));
    layout->addWidget(buildTechniquesGroup());
    layout->addWidget(buildGpuGroup());
    layout->addWidget(new ParallelGroup(model, this));
    layout->addWidget(buildMeasuredGroup());
    layout->addWidget(new ImplementationDetailsGroup(model, this));
    layout->addStretch(1);
    // The wheel scrolls the panel; it changes a value only in the field that has the focus.
    // Scroll bars (the GPU list's own) are left alone: the wheel over one scrolls what it belongs to.
    for (QWidget *field : findChildren<QWidget *>()) {
        if (qobject_cast<QScrollBar *>(field))
            continue;
        if (!qobject_cast<QAbstractSpinBox *>(field) && !qobject_cast<QComboBox *>(field) &&
            !qobject_cast<QAbstractSlider *>(field))
            continue;
        field->setFocusPolicy(Qt::StrongFocus);
        field->installEventFilter(this);
    }
    refresh();
}

bool ControlPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Wheel) {
        auto *field = qobject_cast<QWidget *>(watched);
        if (field && !field->hasFocus()) {
            // Not for this field: the scroll area around the panel (not one inside it, such as
            // the GPU list) scrolls instead. An event is never sent back to its own receiver.
            for (QWidget *parent = parentWidget(); parent; parent = parent->parentWidget())
                if (auto *area = qobject_cast<QAbstractScrollArea *>(parent)) {
                    QScrollBar *bar = area->verticalScrollBar();
                    if (bar && bar != watched && !bar->isAncestorOf(field))
                        QCoreApplication::sendEvent(bar, event);
                    break;
                }
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

SliderField *ControlPanel::addSlider(QWidget *parent, const QString &label, double min, double max,
                                     bool log, int key, void (*set)(Scenario &, double),
                                     int decimals, double scale, const QString &suffix)
{
    auto *field = new SliderField(label, min, max, log, decimals, scale, suffix, parent);
    const QString what = tr("Change %1").arg(QString(label).remove(QLatin1Char('&')).toLower());
    connect(field, &SliderField::valueEdited, this, [this, what, set, key](double value) {
        m_model->apply(what, [set, value](Scenario &s) { set(s, value); }, key);
    });
    return field;
}

QWidget *ControlPanel::buildModelGroup()
{
    QGroupBox *box = group(tr("Model"), this);
    m_preset = new QComboBox(box);
    m_preset->setAccessibleName(tr("Model preset"));
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_preset->setMinimumContentsLength(14);
    for (const ModelPreset &preset : m_model->catalog().models)
        m_preset->addItem(QString::fromStdString(preset.name), QString::fromStdString(preset.id));
    connect(m_preset, &QComboBox::activated, this, [this](int index) {
        const std::string id = m_preset->itemData(index).toString().toStdString();
        const ModelPreset *preset = m_model->catalog().findModel(id);
        if (!preset)
            return;
        m_model->apply(tr("Choose %1").arg(m_preset->itemText(index)),
                       [preset](Scenario &s) { s.model = preset->arch; });
    });
    addRow(box, labelled(tr("&Preset"), m_preset, box));
    m_presetNote = plainText(new QLabel(box));
    m_presetNote->setAccessibleName(tr("Model origin"));
    m_presetNote->setWordWrap(true);
    addRow(box, m_presetNote);

    m_params = addSlider(box, tr("Pa&rameters"), 1e7, 2e12, true, KeyParams,
                         [](Scenario &s, double v) { s.model.params = std::uint64_t(v); }, 2, 1e9,
                         tr(" B"));
    m_layers = addSlider(box, tr("&Layers"), 1, 256, false, KeyLayers,
                         [](Scenario &s, double v) { s.model.layers = int(v); });
    m_hidden = addSlider(box, tr("&Hidden size"), 64, 65536, true, KeyHidden, [](Scenario &s, double v) {
        s.model.hidden = int(v);
        s.model.headDim = std::max(1, s.model.hidden / s.model.heads);
        resetDerivedParams(s.model);
    });
    m_intermediate = addSlider(box, tr("&Intermediate size"), 64, 262144, true, KeyIntermediate,
                               [](Scenario &s, double v) {
                                   s.model.intermediate = int(v);
                                   resetDerivedParams(s.model);
                               });
    m_heads = addSlider(box, tr("Attention h&eads"), 1, 256, false, KeyHeads, [](Scenario &s, double v) {
        s.model.heads = int(v);
        if (s.model.heads % s.model.kvHeads != 0)
            s.model.kvHeads = s.model.heads;
        s.model.headDim = std::max(1, s.model.hidden / s.model.heads);
        resetDerivedParams(s.model);
    });
    m_kvHeads = addSlider(box, tr("&KV heads"), 1, 256, false, KeyKvHeads, [](Scenario &s, double v) {
        int kv = std::clamp(int(v), 1, s.model.heads);
        while (s.model.heads % kv != 0)
            --kv; // the nearest divisor of the head count below
        s.model.kvHeads = kv;
        resetDerivedParams(s.model);
    });
    m_vocab = addSlider(box, tr("&Vocabulary"), 1000, 524288, true, KeyVocab, [](Scenario &s, double v) {
        s.model.vocab = int(v);
        resetDerivedParams(s.model);
    });
    for (SliderField *field : {m_params, m_layers, m_hidden, m_intermediate, m_heads, m_kvHeads, m_vocab})
        addRow(box, field);
    m_tied = new QCheckBox(tr("&Tied embeddings"), box);
    m_tied->setToolTip(tr("The lm_head shares the embedding matrix (one copy of vocab x hidden)."));
    connect(m_tied, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(tr("Tie embeddings"), [on](Scenario &s) {
            s.model.tiedEmbeddings = on;
            resetDerivedParams(s.model);
        });
    });
    addRow(box, m_tied);
    return box;
}

QWidget *ControlPanel::buildTaskGroup()
{
    QGroupBox *box = group(tr("Task"), this);
    m_task = enumCombo<TaskChoice>(box, tr("Task"), {{TrainFull, tr("Training: full fine-tune")},
                                                     {TrainLora, tr("Training: LoRA")},
                                                     {TrainQlora, tr("Training: QLoRA (4-bit base)")},
                                                     {Inference, tr("Inference (serving)")}});
    connect(m_task, &QComboBox::activated, this, [this] {
        const TaskChoice choice = comboValue<TaskChoice>(m_task);
        m_model->apply(tr("Change task"), [choice](Scenario &s) {
            s.task = choice == Inference ? Task::Inference : Task::Train;
            if (choice == Inference)
                return;
            // Keys of the other task go (undo restores them): a training file has no serving
            // engine, which the reader refuses ("serving: needs task inference").
            s.serving.reset();
            if (isServingEngine(s.framework.name))
                s.framework = {};
            s.train.method = choice == TrainFull ? Method::Full : choice == TrainLora ? Method::Lora : Method::Qlora;
            if (s.train.method == Method::Qlora && dtypeBits(s.precision.weights) != 4) {
                s.precision.weights = DType::NF4;
                s.precision.doubleQuant = true;
            }
            if (s.train.method != Method::Qlora && isQuantized(s.precision.weights) &&
                s.train.method == Method::Full)
                s.precision.weights = DType::BF16;
            if (s.train.method == Method::Lora && dtypeBits(s.precision.weights) == 4)
                s.precision.weights = DType::BF16;
        });
    });
    addRow(box, m_task);
    return box;
}

QWidget *ControlPanel::buildTrainingGroup()
{
    QGroupBox *box = group(tr("Training"), this);
    m_trainingGroup = box;
    m_microBatch = addSlider(box, tr("&Micro-batch"), 1, 1024, true, KeyMicroBatch,
                             [](Scenario &s, double v) { s.train.microBatch = std::uint32_t(v); });
    m_seqLen = addSlider(box, tr("&Sequence length (tokens)"), 128, 1048576, true, KeySeqLen,
                         [](Scenario &s, double v) { s.train.seqLen = std::uint32_t(v); });
    m_gradAccum = addSlider(box, tr("Gradient &accumulation steps"), 1, 1024, true, KeyGradAccum,
                            [](Scenario &s, double v) { s.train.gradAccum = std::uint32_t(v); });
    m_effectiveBatch = new QLabel(box);
    m_effectiveBatch->setWordWrap(true);
    m_effectiveBatch->setAccessibleName(tr("Effective batch"));
    for (QWidget *w : std::initializer_list<QWidget *>{m_microBatch, m_seqLen, m_gradAccum, m_effectiveBatch})
        addRow(box, w);

    m_optimizer = enumCombo<Optimizer>(box, tr("Optimizer"),
        {{Optimizer::AdamW, tr("AdamW")}, {Optimizer::AdamW8bit, tr("AdamW 8-bit")},
         {Optimizer::PagedAdamW8bit, tr("Paged AdamW 8-bit")}, {Optimizer::Sgd, tr("SGD")},
         {Optimizer::SgdMomentum, tr("SGD with momentum")}, {Optimizer::Adafactor, tr("Adafactor")},
         {Optimizer::Lion, tr("Lion")}, {Optimizer::AdamW4bit, tr("4-bit AdamW (torchao)")}, {Optimizer::GaloreAdamW, tr("GaLore AdamW")},
         {Optimizer::GaloreAdamW8bit, tr("GaLore 8-bit AdamW")}, {Optimizer::None, tr("None (forward + backward only)")}});
    connect(m_optimizer, &QComboBox::activated, this, [this] {
        const auto value = comboValue<Optimizer>(m_optimizer);
        m_model->apply(tr("Change optimizer"), [value](Scenario &s) { s.train.optimizer = value; });
    });
    addRow(box, labelled(tr("&Optimizer"), m_optimizer, box));
    m_masterWeights = new QCheckBox(tr("fp32 &master weights"), box);
    m_masterWeights->setToolTip(tr("Mixed precision that updates an fp32 copy of the trainable parameters."));
    connect(m_masterWeights, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(tr("Master weights"), [on](Scenario &s) { s.train.masterWeights = on; });
    });
    addRow(box, m_masterWeights);
    m_gradDType = enumCombo<GradDType>(box, tr("Gradient dtype"),
        {{GradDType::Auto, tr("auto (as the parameters)")}, {GradDType::FP32, tr("fp32")},
         {GradDType::BF16, tr("bf16")}, {GradDType::FP16, tr("fp16")}});
    connect(m_gradDType, &QComboBox::activated, this, [this] {
        const auto value = comboValue<GradDType>(m_gradDType);
        m_model->apply(tr("Change gradient dtype"), [value](Scenario &s) { s.train.gradDType = value; });
    });
    addRow(box, labelled(tr("&Gradient dtype"), m_gradDType, box));

    m_loraRank = addSlider(box, tr("LoRA &rank"), 1, 1024, true, KeyLoraRank,
                           [](Scenario &s, double v) { s.train.lora.rank = int(v); });
    addRow(box, m_loraRank);
    auto *targets = new QWidget(box);
    // Two rows of four: a row of eight would set the panel's narrowest width.
    auto *targetsLayout = new QGridLayout(targets);
    targetsLayout->setContentsMargins(0, 0, 0, 0);
    targetsLayout->addWidget(new QLabel(tr("Targets:"), targets), 0, 0);
    for (const auto &[target, name] : kTargets) {
        auto *check = new QCheckBox(QString::fromLatin1(name), targets);
        check->setAccessibleName(tr("LoRA target %1").arg(QString::fromLatin1(name)));
        const LoraTarget t = target;
        connect(check, &QCheckBox::toggled, this, [this, t](bool on) {
            m_model->apply(tr("Change LoRA targets"), [t, on](Scenario &s) {
                auto &list = s.train.lora.targets;
                const auto found = std::find(list.begin(), list.end(), t);
                if (on && found == list.end())
                    list.push_back(t);
                if (!on && found != list.end() && list.size() > 1)
                    list.erase(found);
                std::sort(list.begin(), list.end());
            });
        });
        const int index = int(m_loraTargets.size());
        targetsLayout->addWidget(check, index / 4, 1 + index % 4);
        m_loraTargets.push_back(check);
    }
    targetsLayout->setColumnStretch(5, 1);
    addRow(box, targets);
    m_loraDropout = new QDoubleSpinBox(box);
    m_loraDropout->setRange(0, 0.9);
    m_loraDropout->setSingleStep(0.05);
    m_loraDropout->setAccessibleName(tr("LoRA dropout"));
    connect(m_loraDropout, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        m_model->apply(tr("Change LoRA dropout"), [value](Scenario &s) { s.train.lora.dropout = value; },
                       KeyLoraDropout);
    });
    addRow(box, labelled(tr("LoRA &dropout"), m_loraDropout, box));
    return box;
}

QWidget *ControlPanel::buildPrecisionGroup()
{
    QGroupBox *box = group(tr("Precision"), this);
    m_weights = enumCombo<DType>(box, tr("Weight precision"),
        {{DType::FP32, tr("fp32")}, {DType::BF16, tr("bf16")}, {DType::FP16, tr("fp16")},
         {DType::FP8, tr("fp8")}, {DType::INT8, tr("int8")}, {DType::NF4, tr("nf4 (4-bit)")},
         {DType::FP4, tr("fp4 (4-bit)")}, {DType::INT4, tr("int4 (GPTQ/AWQ)")},
         {DType::INT3, tr("int3 (GPTQ 3-bit)")}, {DType::INT2, tr("int2 (GPTQ 2-bit)")}});
    connect(m_weights, &QComboBox::activated, this, [this] {
        const auto value = comboValue<DType>(m_weights);
        m_model->apply(tr("Change weight precision"), [value](Scenario &s) {
            s.precision.weights = value;
            if (s.task == Task::Train && isQuantized(value) && s.train.method == Method::Full)
                s.train.method = dtypeBits(value) == 4 ? Method::Qlora : Method::Lora;
            if (s.task == Task::Train && s.train.method == Method::Qlora && dtypeBits(value) != 4)
                s.train.method = Method::Lora;
        });
    });
    addRow(box, labelled(tr("&Weights"), m_weights, box));
    m_doubleQuant = new QCheckBox(tr("Double &quantization"), box);
    m_doubleQuant->setToolTip(tr("The 4-bit format's scales stored in 8 bits (bitsandbytes bnb_4bit_use_double_quant)."));
    connect(m_doubleQuant, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(tr("Double quantization"), [on](Scenario &s) { s.precision.doubleQuant = on; });
    });
    addRow(box, m_doubleQuant);
    m_compute = enumCombo<DType>(box, tr("Compute precision"),
        {{DType::FP32, tr("fp32")}, {DType::BF16, tr("bf16")}, {DType::FP16, tr("fp16")}});
    connect(m_compute, &QComboBox::activated, this, [this] {
        const auto value = comboValue<DType>(m_compute);
        m_model->apply(tr("Change compute precision"), [value](Scenario &s) { s.precision.compute = value; });
    });
    addRow(box, labelled(tr("&Compute"), m_compute, box));
    m_kvDType = enumCombo<DType>(box, tr("KV cache precision"),
        {{DType::FP32, tr("fp32")}, {DType::BF16, tr("bf16")}, {DType::FP16, tr("fp16")},
         {DType::FP8, tr("fp8")}, {DType::INT8, tr("int8")}, {DType::INT4, tr("int4")}});
    connect(m_kvDType, &QComboBox::activated, this, [this] {
        const auto value = comboValue<DType>(m_kvDType);
        m_model->apply(tr("Change KV cache precision"), [value](Scenario &s) { s.inference.kvDType = value; });
    });
    addRow(box, labelled(tr("K&V cache"), m_kvDType, box));
    return box;
}

QWidget *ControlPanel::buildTechniquesGroup()
{
    QGroupBox *box = group(tr("Techniques"), this);
    m_checkpointing = enumCombo<Checkpointing>(box, tr("Gradient checkpointing"),
        {{Checkpointing::None, tr("none")}, {Checkpointing::Selective, tr("selective (attention only)")},
         {Checkpointing::SelectiveOp, tr("selective, op-level (torchtitan)")},
         {Checkpointing::Full, tr("full (every block)")}});
    m_checkpointing->setToolTip(tr("With LoRA, also call model.enable_input_require_grads(), or the loss never changes."));
    connect(m_checkpointing, &QComboBox::activated, this, [this] {
        const auto value = comboValue<Checkpointing>(m_checkpointing);
        m_model->apply(tr("Change checkpointing"), [value](Scenario &s) { s.train.checkpointing = value; });
    });
    addRow(box, labelled(tr("C&heckpointing"), m_checkpointing, box));
    m_attention = enumCombo<Attention>(box, tr("Attention kernel"),
        {{Attention::Eager, tr("eager (materialises scores)")}, {Attention::Sdpa, tr("SDPA")},
         {Attention::Flash, tr("FlashAttention 2")}});
    connect(m_attention, &QComboBox::activated, this, [this] {
        const auto value = comboValue<Attention>(m_attention);
        m_model->apply(tr("Change attention kernel"), [value](Scenario &s) { s.kernels.attention = value; });
    });
    addRow(box, labelled(tr("A&ttention"), m_attention, box));
    m_loss = enumCombo<Loss>(box, tr("Cross-entropy"),
        {{Loss::Standard, tr("standard")}, {Loss::Chunked, tr("chunked")},
         {Loss::Fused, tr("fused (Liger / CCE)")}});
    connect(m_loss, &QComboBox::activated, this, [this] {
        const auto value = comboValue<Loss>(m_loss);
        m_model->apply(tr("Change cross-entropy"), [value](Scenario &s) { s.kernels.loss = value; });
    });
    addRow(box, labelled(tr("Cross-&entropy"), m_loss, box));
    m_profile = enumCombo<Profile>(box, tr("Implementation profile"),
        {{Profile::HuggingFace, tr("Hugging Face (upcasts, repeat_kv)")},
         {Profile::Fused, tr("Fused kernels (torchtune/LitGPT-like)")}});
    connect(m_profile, &QComboBox::activated, this, [this] {
        const auto value = comboValue<Profile>(m_profile);
        m_model->apply(tr("Change profile"), [value](Scenario &s) { s.kernels.profile = value; });
    });
    addRow(box, labelled(tr("&Profile"), m_profile, box));
    m_optimizerInBackward = new QCheckBox(tr("Optimizer step in &backward"), box);
    connect(m_optimizerInBackward, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(tr("Optimizer in backward"), [on](Scenario &s) { s.train.optimizerInBackward = on; });
    });
    addRow(box, m_optimizerInBackward);
    m_eightBit = new QCheckBox(tr("&8-bit optimizer state"), box);
    connect(m_eightBit, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(tr("8-bit optimizer"), [on](Scenario &s) {
            s.train.optimizer = on ? Optimizer::AdamW8bit : Optimizer::AdamW;
        });
    });
    addRow(box, m_eightBit);
    return box;
}

QWidget *ControlPanel::buildInferenceGroup()
{
    QGroupBox *box = group(tr("Inference"), this);
    m_inferenceGroup = box;
    m_sequences = addSlider(box, tr("Concurrent se&quences"), 1, 1024, true, KeySequences,
                            [](Scenario &s, double v) { s.inference.batch = std::uint32_t(v); });
    m_context = addSlider(box, tr("Conte&xt length (tokens)"), 128, 1048576, true, KeyContext,
                          [](Scenario &s, double v) { s.inference.context = std::uint32_t(v); });
    addRow(box, m_sequences);
    addRow(box, m_context);
    m_kvCache = enumCombo<KvCache>(box, tr("How the KV cache grows"),
        {{KvCache::Preallocated, tr("preallocated (vLLM, LitGPT, static cache)")},
         {KvCache::Concat, tr("concatenated per step (legacy HF tuples: 2x while decoding)")}});
    connect(m_kvCache, &QComboBox::activated, this, [this] {
        const auto value = comboValue<KvCache>(m_kvCache);
        m_model->apply(tr("Change cache growth"), [value](Scenario &s) { s.inference.kvCache = value; });
    });
    addRow(box, labelled(tr("Cache growth"), m_kvCache, box));
    m_promptLogits = enumCombo<PromptLogits>(box, tr("Prefill logits"),
        {{PromptLogits::Last, tr("last token only")},
         {PromptLogits::All, tr("every prompt position (transformers before logits_to_keep)")}});
    connect(m_promptLogits, &QComboBox::activated, this, [this] {
        const auto value = comboValue<PromptLogits>(m_promptLogits);
        m_model->apply(tr("Change prefill logits"), [value](Scenario &s) { s.inference.promptLogits = value; });
    });
    addRow(box, labelled(tr("Prefill logits"), m_promptLogits, box));
    return box;
}

QWidget *ControlPanel::buildGpuGroup()
{
    QGroupBox *box = group(tr("GPUs and units"), this);
    m_gpus = new QListWidget(box);
    m_gpus->setAccessibleName(tr("GPU capacity lines"));
    m_gpus->setMinimumHeight(150);
    for (const Gpu &gpu : m_model->catalog().gpus) {
        auto *item = new QListWidgetItem(QString::fromStdString(gpu.name), m_gpus);
        item->setData(Qt::UserRole, QString::fromStdString(gpu.id));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
        item->setToolTip(QString::fromStdString(gpu.source));
    }
    connect(m_gpus, &QListWidget::itemChanged, this, [this](QListWidgetItem *item) {
        const std::string id = item->data(Qt::UserRole).toString().toStdString();
        const bool on = item->checkState() == Qt::Checked;
        m_model->apply(on ? tr("Show GPU") : tr("Hide GPU"), [id, on](Scenario &s) {
            auto found = std::find(s.gpus.begin(), s.gpus.end(), id);
            if (on && found == s.gpus.end() && s.gpus.size() < 16)
                s.gpus.push_back(id);
            if (!on && found != s.gpus.end())
                s.gpus.erase(found);
            if (!on && s.targetGpu == id) // the verdict goes back to the largest ticked GPU
                s.targetGpu.clear();
        });
    });
    addRow(box, m_gpus);
    // The one GPU the status bar, the chart's verdicts and the advisor talk about.
    m_target = new QComboBox(box);
    m_target->setAccessibleName(tr("Verdict for"));
    m_target->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_target->setMinimumContentsLength(14);
    m_target->setToolTip(tr("The GPU the status bar, the verdict above each bar and the advisor talk "
                            "about. By default the largest GPU ticked above."));
    connect(m_target, &QComboBox::activated, this, [this](int index) {
        const std::string id = m_target->itemData(index).toString().toStdString();
        m_model->apply(tr("Verdict for %1").arg(m_target->itemText(index)), [id](Scenario &s) { s.targetGpu = id; });
    });
    addRow(box, labelled(tr("&Verdict for"), m_target, box));
    m_customCapacity = new QDoubleSpinBox(box);
    m_customCapacity->setRange(0, 100000);
    m_customCapacity->setDecimals(1);
    m_customCapacity->setSpecialValueText(tr("none"));
    m_customCapacity->setAccessibleName(tr("Custom capacity"));
    connect(m_customCapacity, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        const double perUnit = m_model->unit() == Unit::GB ? 1e9 : 1073741824.0;
        m_model->setCustomCapacityBytes(std::uint64_t(value * perUnit));
    });
    addRow(box, labelled(tr("C&ustom capacity"), m_customCapacity, box));
    m_unit = enumCombo<Unit>(box, tr("Units"), {{Unit::GiB, tr("GiB (2^30 B: nvidia-smi, PyTorch)")},
                                                {Unit::GB, tr("GB (10^9 B: the articles)")}});
    connect(m_unit, &QComboBox::activated, this, [this] { m_model->setUnit(comboValue<Unit>(m_unit)); });
    addRow(box, labelled(tr("U&nits"), m_unit, box));
    return box;
}

void ControlPanel::refresh()
{
    const Scenario &s = m_model->scenario();
    const Estimate &e = m_model->estimate();
    {
        const QSignalBlocker block(m_preset);
        m_preset->setCurrentIndex(m_preset->findData(QString::fromStdString(s.model.preset)));
    }
    m_presetNote->setText(m_model->presetLabel());
    m_params->setValue(double(e.totalParams ? e.totalParams : s.model.params.value_or(0)));
    m_layers->setValue(s.model.layers);
    m_hidden->setValue(s.model.hidden);
    m_intermediate->setValue(s.model.intermediate);
    m_heads->setValue(s.model.heads);
    m_kvHeads->setValue(s.model.kvHeads);
    m_vocab->setValue(s.model.vocab);
    {
        const QSignalBlocker block(m_tied);
        m_tied->setChecked(s.model.tiedEmbeddings);
    }
    setComboValue(m_task, taskChoice(s));
    const bool training = s.task == Task::Train;
    m_trainingGroup->setVisible(training);
    m_inferenceGroup->setVisible(!training);
    // One set of request controls: with an engine, its requests (the serving group) are the
    // sequences and their length; batch x context and the cache growth are not what it runs.
    const bool engine = !training && s.serving.has_value();
    m_sequences->setVisible(!engine);
    m_context->setVisible(!engine);
    m_kvCache->parentWidget()->setVisible(!engine);
    m_microBatch->setValue(s.train.microBatch);
    m_seqLen->setValue(s.train.seqLen);
    m_gradAccum->setValue(s.train.gradAccum);
    m_effectiveBatch->setText(
        tr("Effective batch: %1 x %2 = %3 sequences per optimizer step. Activations follow the "
           "micro-batch only; accumulation keeps the gradients alive between micro-batches.")
            .arg(s.train.microBatch).arg(s.train.gradAccum)
            .arg(qulonglong(s.train.microBatch) * s.train.gradAccum));
    setComboValue(m_optimizer, s.train.optimizer);
    setComboValue(m_gradDType, s.train.gradDType);
    const bool lora = s.train.method != Method::Full;
    m_loraRank->setValue(s.train.lora.rank);
    m_loraRank->setEnabled(lora);
    for (std::size_t i = 0; i < m_loraTargets.size(); ++i) {
        const QSignalBlocker block(m_loraTargets[i]);
        const auto &targets = s.train.lora.targets;
        m_loraTargets[i]->setChecked(std::find(targets.begin(), targets.end(), kTargets[i].first) != targets.end());
        m_loraTargets[i]->setEnabled(lora);
    }
    {
        const QSignalBlocker block(m_loraDropout);
        m_loraDropout->setValue(s.train.lora.dropout);
        m_loraDropout->setEnabled(lora);
    }
    for (auto [check, value] : {std::pair{m_masterWeights, s.train.masterWeights},
                                std::pair{m_doubleQuant, s.precision.doubleQuant},
                                std::pair{m_optimizerInBackward, s.train.optimizerInBackward},
                                std::pair{m_eightBit, s.train.optimizer == Optimizer::AdamW8bit ||
                                                          s.train.optimizer == Optimizer::PagedAdamW8bit}}) {
        const QSignalBlocker block(check);
        check->setChecked(value);
    }
    m_doubleQuant->setEnabled(dtypeBits(s.precision.weights) == 4);
    setComboValue(m_weights, s.precision.weights);
    setComboValue(m_compute, s.precision.compute);
    setComboValue(m_kvDType, s.inference.kvDType);
    setComboValue(m_kvCache, s.inference.kvCache);
    setComboValue(m_promptLogits, s.inference.promptLogits);
    setComboValue(m_checkpointing, s.train.checkpointing);
    setComboValue(m_attention, s.kernels.attention);
    setComboValue(m_loss, s.kernels.loss);
    setComboValue(m_profile, s.kernels.profile);
    m_sequences->setValue(s.inference.batch);
    m_context->setValue(s.inference.context);
    {
        const QSignalBlocker block(m_gpus);
        for (int i = 0; i < m_gpus->count(); ++i) {
            QListWidgetItem *item = m_gpus->item(i);
            const std::string id = item->data(Qt::UserRole).toString().toStdString();
            item->setCheckState(std::find(s.gpus.begin(), s.gpus.end(), id) != s.gpus.end() ? Qt::Checked
                                                                                           : Qt::Unchecked);
            if (const Gpu *gpu = m_model->catalog().findGpu(id)) {
                const QString text = tr("%1 \u00b7 %2").arg(QString::fromStdString(gpu->name),
                                                             capacityText(gpu->capacityBytes(), m_model->unit()));
                if (item->text() != text) {
                    item->setText(text);
                    item->setToolTip(tr("nvidia-smi memory.total: %1 MiB\n%2")
                                         .arg(QString::fromStdString(groupDigits(gpu->capacityMiB)),
                                              QString::fromStdString(gpu->source)));
                }
            }
        }
    }
    {
        const QSignalBlocker block(m_target);
        const Gpu *largest = nullptr;
        QStringList texts;
        QStringList ids;
        for (const std::string &id : s.gpus)
            if (const Gpu *gpu = m_model->catalog().findGpu(id)) {
                if (!largest || gpu->capacityMiB > largest->capacityMiB)
                    largest = gpu;
                texts << gpuLabel(QString::fromStdString(gpu->name), gpu->capacityBytes(), m_model->unit());
                ids << QString::fromStdString(id);
            }
        texts.prepend(largest ? tr("Largest ticked (%1)").arg(shortGpuName(QString::fromStdString(largest->name)))
                              : tr("No GPU ticked"));
        ids.prepend(QString());
        bool same = m_target->count() == texts.size();
        for (int i = 0; same && i < texts.size(); ++i)
            same = m_target->itemText(i) == texts[i] && m_target->itemData(i).toString() == ids[i];
        if (!same) {
            m_target->clear();
            for (int i = 0; i < texts.size(); ++i)
                m_target->addItem(texts[i], ids[i]);
        }
        m_target->setCurrentIndex(std::max(0, m_target->findData(QString::fromStdString(s.targetGpu))));
        m_target->setEnabled(!s.gpus.empty());
    }
    setComboValue(m_unit, m_model->unit());
    // An unreadable entry keeps the message updateMeasured() showed.
    if (const auto &measured = m_model->measured(); measured && m_model->estimateError().isEmpty())
        m_measuredComparison->setText(compareText(m_model->estimate(), *measured, m_model->unit()));
    else if (m_measuredText->text().trimmed().isEmpty())
        m_measuredComparison->clear();
    {
        const QSignalBlocker block(m_customCapacity);
        m_customCapacity->setSuffix(QLatin1Char(' ') + QString::fromLatin1(unitName(m_model->unit())));
        m_customCapacity->setValue(toUnit(m_model->customCapacityBytes(), m_model->unit()));
    }
}

} // namespace headroom
