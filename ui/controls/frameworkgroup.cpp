// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/frameworkgroup.h"

#include "controls/formwidgets.h"

#include "document/scenariomodel.h"
#include "training/framework.h"
#include "scenario/names.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace headroom {

namespace {

/// Long entries ("fp32 (prepare_model_for_kbit_training)") must not widen the whole control
/// column: the combo shows about this many characters and elides the rest.
void narrow(QComboBox *combo)
{
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(12);
}

QLabel *explanation(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setWordWrap(true);
    QFont small = label->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    label->setFont(small);
    return label;
}

} // namespace

FrameworkGroup::FrameworkGroup(ScenarioModel *model, QWidget *parent)
    : QGroupBox(tr("Framework"), parent), m_model(model)
{
    auto *layout = new QFormLayout(this);
    m_framework = new QComboBox(this);
    m_framework->setAccessibleName(tr("Framework"));
    narrow(m_framework);
    m_framework->addItem(tr("None (set the details yourself)"), int(Framework::None));
    for (const auto &entry : enumEntries<Framework>())
        if (entry.value != Framework::None)
            m_framework->addItem(QString::fromUtf8(frameworkDisplayName(entry.value)), int(entry.value));
    m_framework->setToolTip(tr("The framework that runs the training or serving: its presets set the "
                               "implementation details below (docs/frameworks.md)."));
    layout->addRow(tr("&Framework"), m_framework);
    m_version = new QLineEdit(this);
    m_version->setAccessibleName(tr("Framework version"));
    m_version->setPlaceholderText(tr("current release"));
    m_version->setToolTip(tr("Where behaviour changed between releases (Transformers' logits_to_keep, "
                             "torchtune's FSDP2, PEFT's fp32 adapters), the version selects it."));
    layout->addRow(tr("&Version"), m_version);
    m_offload = new QCheckBox(tr("Activation &offloading (saved activations to CPU RAM)"), this);
    m_offload->setAccessibleName(tr("Activation offloading"));
    m_offload->setToolTip(tr("torchtune enable_activation_offloading, Unsloth/Axolotl offloaded "
                             "checkpointing, DeepSpeed cpu_checkpointing: the GPU keeps one block in flight."));
    layout->addRow(m_offload);
    m_compile = new QCheckBox(tr("torch.&compile"), this);
    m_compile->setAccessibleName(tr("torch.compile"));
    m_compile->setToolTip(tr("Compiled blocks recompute elementwise chains instead of saving them "
                             "(an approximation of the min-cut partitioner; docs/estimator.md)."));
    layout->addRow(m_compile);
    m_keeps = explanation(QString(), this);
    m_keeps->setAccessibleName(tr("What the framework keeps"));
    layout->addRow(m_keeps);

    connect(m_framework, &QComboBox::activated, this, [this] { chooseFramework(); });
    connect(m_version, &QLineEdit::editingFinished, this, [this] { chooseFramework(); });
    connect(m_offload, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(on ? tr("Offload activations") : tr("Keep activations on the GPU"),
                       [on](Scenario &s) { s.train.offloadActivations = on; });
    });
    connect(m_compile, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(on ? tr("Compile with torch.compile") : tr("Run eagerly"),
                       [on](Scenario &s) { s.train.compile = on; });
    });
    connect(m_model, &ScenarioModel::changed, this, &FrameworkGroup::refresh);
    refresh();
}

void FrameworkGroup::chooseFramework()
{
    const auto name = static_cast<Framework>(m_framework->currentData().toInt());
    std::string version = m_version->text().trimmed().toStdString();
    if (!version.empty() && !Version::parse(version)) {
        m_version->setToolTip(tr("Not a release number: the current release is used."));
        version.clear();
    }
    if (name == m_model->scenario().framework.name && version == m_model->scenario().framework.version)
        return;
    m_model->apply(tr("Choose framework %1").arg(m_framework->currentText()), [name, version](Scenario &s) {
        s.framework = {name, name == Framework::None ? std::string() : version};
        if (name == Framework::None)
            return;
        try {
            s = withFrameworkBehaviours(s);
        } catch (const std::exception &) {
            // The framework is named; its behaviours cannot be applied to this scenario.
        }
    });
}

void FrameworkGroup::refresh()
{
    const Scenario &s = m_model->scenario();
    setComboValue(m_framework, s.framework.name);
    if (!m_version->hasFocus()) {
        const QSignalBlocker block(m_version);
        m_version->setText(QString::fromStdString(s.framework.version));
    }
    {
        const QSignalBlocker a(m_offload), b(m_compile);
        m_offload->setChecked(s.train.offloadActivations);
        m_compile->setChecked(s.train.compile);
    }
    const bool training = s.task == Task::Train;
    m_offload->setEnabled(training);
    m_compile->setEnabled(training);
    m_version->setEnabled(s.framework.name != Framework::None);
    m_keeps->setText(QString::fromStdString(frameworkLossNote(s)));
    m_keeps->setVisible(!m_keeps->text().isEmpty());
}

ImplementationDetailsGroup::ImplementationDetailsGroup(ScenarioModel *model, QWidget *parent)
    : QGroupBox(tr("Implementation details"), parent), m_model(model)
{
    setCheckable(false);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(explanation(tr("Set by the framework; change them only to describe a run the preset "
                                     "does not (docs/frameworks.md)."), this));
    auto row = [&](QWidget *field, const QString &label, const QString &why) {
        auto *form = new QFormLayout;
        form->setContentsMargins(0, 0, 0, 0);
        form->addRow(label, field);
        layout->addLayout(form);
        layout->addWidget(explanation(why, this));
    };
    m_profile = enumCombo<Profile>(this, tr("Implementation profile"),
                                   {{Profile::HuggingFace, tr("Hugging Face / torchtune eager")},
                                    {Profile::Litgpt, tr("LitGPT eager")},
                                    {Profile::Fused, tr("Fused kernels (Unsloth, Liger, serving)")}}, 12);
    row(m_profile, tr("Profile"), tr("Eager code keeps fp32 norm inputs and repeated K/V heads; fused kernels keep neither."));
    m_loss = enumCombo<Loss>(this, tr("Loss kernel"),
                             {{Loss::Standard, tr("standard (fp32 upcast)")},
                              {Loss::StandardNoUpcast, tr("standard, compute dtype")},
                              {Loss::Chunked, tr("chunked (torchtune)")},
                              {Loss::ChunkedNoUpcast, tr("chunked, compute dtype (LitGPT)")},
                              {Loss::LinearChunked, tr("linear + loss per chunk (torchtune)")},
                              {Loss::Fused, tr("fused (Liger / Cut Cross Entropy)")},
                              {Loss::Parallel, tr("loss parallel (torchtitan with tensor parallelism)")}}, 12);
    row(m_loss, tr("Loss"), tr("How many bytes per logit the loss holds in forward and when backward starts."));
    m_loraDType = enumCombo<DType>(this, tr("Adapter dtype"),
                                   {{DType::FP32, tr("fp32")}, {DType::BF16, tr("bf16")}, {DType::FP16, tr("fp16")}}, 12);
    row(m_loraDType, tr("LoRA dtype"), tr("PEFT upcasts adapters to fp32; torchtune and LitGPT build them in the compute dtype."));
    m_optimizerImpl = enumCombo<OptimizerImpl>(this, tr("Optimizer step"),
                                               {{OptimizerImpl::Auto, tr("auto")},
                                                {OptimizerImpl::Foreach, tr("foreach (one state-sized temporary)")},
                                                {OptimizerImpl::Fused, tr("fused (no temporaries)")}}, 12);
    row(m_optimizerImpl, tr("Step"), tr("torch.optim's foreach path makes temporaries the size of one state."));
    m_quantizer = enumCombo<Quantizer>(this, tr("Quantizer"),
                                       {{Quantizer::Bitsandbytes, tr("bitsandbytes")}, {Quantizer::Torchao, tr("torchao")}}, 12);
    row(m_quantizer, tr("Quantizer"), tr("bitsandbytes' 4-bit matmul keeps each layer's input for backward; torchao's does not."));
    m_unquantized = new QComboBox(this);
    m_unquantized->setAccessibleName(tr("Unquantized parameters"));
    narrow(m_unquantized);
    m_unquantized->addItem(tr("compute dtype"), -1);
    m_unquantized->addItem(tr("fp32 (prepare_model_for_kbit_training)"), int(DType::FP32));
    row(m_unquantized, tr("Not quantized"), tr("Embeddings, lm_head and norms of a 4/8-bit base."));
    m_flatParams = new QCheckBox(tr("FSDP1 flat parameters"), this);
    m_flatParams->setAccessibleName(tr("Flat parameters"));
    row(m_flatParams, QString(), tr("A FlatParameter mixing frozen and LoRA weights gives every weight a gradient."));
    m_kvCache = enumCombo<KvCache>(this, tr("KV cache layout"),
                                   {{KvCache::Preallocated, tr("preallocated")}, {KvCache::Concat, tr("concat (legacy tuples)")}}, 12);
    row(m_kvCache, tr("KV cache"), tr("Legacy tuple caches hold the previous step's cache while the next is built."));
    m_promptLogits = enumCombo<PromptLogits>(this, tr("Prompt logits"),
                                             {{PromptLogits::Last, tr("last position")}, {PromptLogits::All, tr("every position")}}, 12);
    row(m_promptLogits, tr("Prefill logits"), tr("Before logits_to_keep, generate() ran the lm_head on the whole prompt."));

    auto onCombo = [this](QComboBox *combo, const QString &what, auto set) {
        connect(combo, &QComboBox::activated, this, [this, combo, what, set] {
            const int value = combo->currentData().toInt();
            m_model->apply(what, [set, value](Scenario &s) { set(s, value); });
        });
    };
    onCombo(m_profile, tr("Change implementation profile"), [](Scenario &s, int v) { s.kernels.profile = Profile(v); });
    onCombo(m_loss, tr("Change loss kernel"), [](Scenario &s, int v) { s.kernels.loss = Loss(v); });
    onCombo(m_loraDType, tr("Change adapter dtype"), [](Scenario &s, int v) { s.train.lora.dtype = DType(v); });
    onCombo(m_optimizerImpl, tr("Change optimizer step"), [](Scenario &s, int v) { s.train.optimizerImpl = OptimizerImpl(v); });
    onCombo(m_quantizer, tr("Change quantizer"), [](Scenario &s, int v) { s.precision.quantizer = Quantizer(v); });
    onCombo(m_unquantized, tr("Change unquantized dtype"), [](Scenario &s, int v) {
        s.precision.unquantized = v < 0 ? std::nullopt : std::optional<DType>(DType(v));
    });
    onCombo(m_kvCache, tr("Change KV cache layout"), [](Scenario &s, int v) { s.inference.kvCache = KvCache(v); });
    onCombo(m_promptLogits, tr("Change prompt logits"), [](Scenario &s, int v) { s.inference.promptLogits = PromptLogits(v); });
    connect(m_flatParams, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(tr("Change flat parameters"), [on](Scenario &s) { s.parallel.flatParams = on; });
    });
    connect(m_model, &ScenarioModel::changed, this, &ImplementationDetailsGroup::refresh);
    refresh();
}

void ImplementationDetailsGroup::refresh()
{
    const Scenario &s = m_model->scenario();
    setComboValue(m_profile, s.kernels.profile);
    setComboValue(m_loss, s.kernels.loss);
    setComboValue(m_loraDType, s.train.lora.dtype);
    setComboValue(m_optimizerImpl, s.train.optimizerImpl);
    setComboValue(m_quantizer, s.precision.quantizer);
    {
        const QSignalBlocker block(m_unquantized);
        m_unquantized->setCurrentIndex(s.precision.unquantized == DType::FP32 ? 1 : 0);
    }
    {
        const QSignalBlocker block(m_flatParams);
        m_flatParams->setChecked(s.parallel.flatParams);
    }
    setComboValue(m_kvCache, s.inference.kvCache);
    setComboValue(m_promptLogits, s.inference.promptLogits);
}

} // namespace headroom
