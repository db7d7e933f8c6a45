// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/parallelgroup.h"
#include "window/plaintext.h"

#include "chart/chartlayout.h"
#include "controls/formwidgets.h"
#include "document/scenariomodel.h"
#include "parallel/host.h"
#include "parallel/parallel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>

namespace headroom {

namespace {

/// Merge keys of the counts (consecutive steps of one spin box are one undo step); clear of the
/// control panel's.
enum Key { KeyGpus = 200, KeyTensor, KeyPipeline, KeyContext, KeyExpert, KeyRam, KeyPerMachine };

void setShown(QSpinBox *box, int value)
{
    const QSignalBlocker block(box);
    box->setValue(value);
}

void setShown(QCheckBox *box, bool value)
{
    const QSignalBlocker block(box);
    box->setChecked(value);
}

QFormLayout *form(QWidget *widget) { return static_cast<QFormLayout *>(widget->layout()); }

} // namespace

ParallelGroup::ParallelGroup(ScenarioModel *model, QWidget *parent)
    : QGroupBox(tr("GPUs and parallelism"), parent), m_model(model)
{
    setObjectName(QStringLiteral("parallelGroup"));
    auto *layout = new QFormLayout(this);
    m_gpus = count(tr("G&PUs"), tr("GPU count"), 65536, [](Scenario &s, int v) { s.parallel.gpus = std::uint32_t(v); },
                   KeyGpus);
    m_gpus->setToolTip(tr("Every GPU of the run. The chart shows one GPU: the busiest rank."));

    m_strategy = enumCombo<Strategy>(this, tr("Sharding"),
        {{Strategy::None, tr("none (every GPU keeps everything)")}, {Strategy::Ddp, tr("DDP (replicas)")},
         {Strategy::Zero1, tr("ZeRO-1 (optimizer state)")}, {Strategy::Zero2, tr("ZeRO-2 (+ gradients)")},
         {Strategy::Zero3, tr("ZeRO-3 (+ parameters)")}, {Strategy::Fsdp, tr("FSDP (full shard)")}});
    m_strategy->setToolTip(tr("What the data-parallel GPUs split among themselves (\u201cMake room on your GPU\u201d)."));
    connect(m_strategy, &QComboBox::activated, this, [this] {
        const auto value = comboValue<Strategy>(m_strategy);
        m_model->apply(tr("Shard with %1").arg(m_strategy->currentText()), [value](Scenario &s) {
            s.parallel.strategy = value;
            if (value != Strategy::Zero3 && value != Strategy::Fsdp)
                s.parallel.offloadParams = false;
        });
    });
    layout->addRow(tr("&Sharding"), m_strategy);
    m_trainingRows.push_back(m_strategy);

    m_tensor = count(tr("&Tensor parallel"), tr("Tensor parallel size"), 1024,
                     [](Scenario &s, int v) { s.parallel.tensor = std::uint32_t(v); }, KeyTensor);
    m_sequenceParallel = toggle(tr("Se&quence parallel (norms and dropout split too)"), tr("Sequence parallel"),
                                tr("No sequence parallel"), [](Scenario &s, bool on) { s.parallel.sequenceParallel = on; });
    m_trainingRows.push_back(m_sequenceParallel);

    m_pipeline = count(tr("Pipe&line stages"), tr("Pipeline parallel size"), 1024,
                       [](Scenario &s, int v) { s.parallel.pipeline = std::uint32_t(v); }, KeyPipeline);
    m_schedule = enumCombo<PipelineSchedule>(this, tr("Pipeline schedule"),
        {{PipelineSchedule::OneFOneB, tr("1F1B (first stage holds p micro-batches)")},
         {PipelineSchedule::Interleaved, tr("interleaved 1F1B")},
         {PipelineSchedule::GPipe, tr("GPipe (every micro-batch of the step)")}});
    connect(m_schedule, &QComboBox::activated, this, [this] {
        const auto value = comboValue<PipelineSchedule>(m_schedule);
        m_model->apply(tr("Pipeline schedule %1").arg(m_schedule->currentText()),
                       [value](Scenario &s) { s.parallel.schedule = value; });
    });
    layout->addRow(tr("Sche&dule"), m_schedule);
    m_trainingRows.push_back(m_schedule);

    m_context = count(tr("C&ontext parallel"), tr("Context parallel size"), 1024,
                      [](Scenario &s, int v) { s.parallel.context = std::uint32_t(v); }, KeyContext);
    m_trainingRows.push_back(m_context);
    m_expert = count(tr("E&xpert parallel"), tr("Expert parallel size"), 4096,
                     [](Scenario &s, int v) { s.parallel.expert = std::uint32_t(v); }, KeyExpert);
    m_expert->setToolTip(tr("Ranks that split each MoE layer's routed experts."));

    m_offloadOptimizer = toggle(tr("Optimizer state in CPU &RAM (CPU Adam)"), tr("Offload optimizer state"),
                                tr("Optimizer on the GPU"), [](Scenario &s, bool on) { s.parallel.offloadOptimizer = on; });
    m_trainingRows.push_back(m_offloadOptimizer);
    m_offloadParams = toggle(tr("Parameters in CPU RAM (ZeRO-3 / FSDP offload)"), tr("Offload parameters"),
                             tr("Parameters on the GPU"), [](Scenario &s, bool on) { s.parallel.offloadParams = on; });
    m_trainingRows.push_back(m_offloadParams);

    m_machine = new QComboBox(this);
    m_machine->setAccessibleName(tr("Machine"));
    m_machine->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_machine->setMinimumContentsLength(14);
    m_machine->addItem(tr("none (give the RAM below)"), QString());
    for (const Machine &machine : m_model->catalog().machines) {
        m_machine->addItem(QString::fromStdString(machine.name), QString::fromStdString(machine.id));
        m_machine->setItemData(m_machine->count() - 1, QString::fromStdString(machine.source), Qt::ToolTipRole);
    }
    m_machine->setToolTip(tr("A catalog machine gives its RAM and GPUs per machine, and its GPU becomes the "
                             "verdict's capacity line."));
    connect(m_machine, &QComboBox::activated, this, [this](int index) {
        const std::string id = m_machine->itemData(index).toString().toStdString();
        const Machine *machine = m_model->catalog().findMachine(id);
        m_model->apply(tr("Machine %1").arg(m_machine->itemText(index)), [id, machine](Scenario &s) {
            s.host.machine = id;
            if (!machine)
                return;
            // Its GPU is the one the verdict is about.
            if (std::find(s.gpus.begin(), s.gpus.end(), machine->gpuId) == s.gpus.end() && s.gpus.size() < 16)
                s.gpus.push_back(machine->gpuId);
            if (std::find(s.gpus.begin(), s.gpus.end(), machine->gpuId) != s.gpus.end())
                s.targetGpu = machine->gpuId;
        });
    });
    layout->addRow(tr("Mach&ine"), m_machine);

    m_ram = new QDoubleSpinBox(this);
    m_ram->setRange(0, 1 << 24);
    m_ram->setDecimals(0);
    m_ram->setSuffix(tr(" GiB"));
    m_ram->setSpecialValueText(tr("not given"));
    m_ram->setKeyboardTracking(false);
    m_ram->setAccessibleName(tr("Machine RAM"));
    m_ram->setToolTip(tr("The CPU RAM of one machine: the host bar is measured against its share per GPU."));
    connect(m_ram, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        m_model->apply(tr("Machine RAM"), [value](Scenario &s) { s.host.ramGiB = value; }, KeyRam);
    });
    layout->addRow(tr("&Machine RAM"), m_ram);
    m_perMachine = count(tr("GPUs per machi&ne"), tr("GPUs per machine"), 1024,
                         [](Scenario &s, int v) { s.host.gpusPerMachine = std::uint32_t(v); }, KeyPerMachine);
    m_perMachine->setMinimum(0);
    m_perMachine->setSpecialValueText(tr("the machine's, or up to 8"));

    m_layout = plainText(new QLabel(this));
    m_layout->setWordWrap(true);
    m_layout->setAccessibleName(tr("How the GPUs divide"));
    m_layout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addRow(m_layout);

    connect(m_model, &ScenarioModel::changed, this, &ParallelGroup::refresh);
    refresh();
}

QSpinBox *ParallelGroup::count(const QString &label, const QString &accessible, int max,
                               void (*set)(Scenario &, int), int key)
{
    auto *box = new QSpinBox(this);
    box->setRange(1, max);
    box->setAccessibleName(accessible);
    box->setKeyboardTracking(false);
    form(this)->addRow(label, box);
    const QString what = tr("Change %1").arg(accessible.toLower());
    connect(box, &QSpinBox::valueChanged, this, [this, what, set, key](int value) {
        m_model->apply(what, [set, value](Scenario &s) { set(s, value); }, key);
    });
    return box;
}

QCheckBox *ParallelGroup::toggle(const QString &label, const QString &accessible, const QString &offText,
                                  void (*set)(Scenario &, bool))
{
    auto *box = new QCheckBox(label, this);
    box->setAccessibleName(accessible);
    form(this)->addRow(box);
    connect(box, &QCheckBox::toggled, this, [this, accessible, offText, set](bool on) {
        m_model->apply(on ? accessible : offText, [set, on](Scenario &s) { set(s, on); });
    });
    return box;
}

void ParallelGroup::refresh()
{
    const Scenario &s = m_model->scenario();
    const bool training = s.task == Task::Train;
    for (QWidget *row : m_trainingRows)
        form(this)->setRowVisible(row, training);
    setShown(m_gpus, int(s.parallel.gpus));
    setComboValue(m_strategy, s.parallel.strategy);
    setShown(m_tensor, int(s.parallel.tensor));
    setShown(m_sequenceParallel, s.parallel.sequenceParallel);
    m_sequenceParallel->setEnabled(s.parallel.tensor > 1);
    setShown(m_pipeline, int(s.parallel.pipeline));
    setComboValue(m_schedule, s.parallel.schedule);
    m_schedule->setEnabled(s.parallel.pipeline > 1);
    setShown(m_context, int(s.parallel.context));
    setShown(m_expert, int(s.parallel.expert));
    m_expert->setEnabled(s.model.experts > 1 || s.parallel.expert > 1);
    setShown(m_offloadOptimizer, s.parallel.offloadOptimizer);
    setShown(m_offloadParams, s.parallel.offloadParams);
    m_offloadParams->setEnabled(s.parallel.offloadParams || s.parallel.strategy == Strategy::Zero3 ||
                                s.parallel.strategy == Strategy::Fsdp);
    {
        const QSignalBlocker block(m_machine);
        m_machine->setCurrentIndex(std::max(0, m_machine->findData(QString::fromStdString(s.host.machine))));
    }
    {
        const QSignalBlocker block(m_ram);
        const HostConfig host = effectiveHost(s, m_model->catalog());
        m_ram->setSpecialValueText(s.host.machine.empty() || host.ramGiB <= 0
                                       ? tr("not given")
                                       : tr("the machine's %1 GiB").arg(host.ramGiB));
        m_ram->setValue(s.host.ramGiB);
    }
    setShown(m_perMachine, int(s.host.gpusPerMachine));
    try {
        checkParallel(s);
        m_layout->setText(QString::fromStdString(parallelLayout(s).describe()));
        m_layout->setPalette(QPalette());
    } catch (const std::exception &error) {
        // The same message the chart shows in place of the bar, beside the fields that cause it.
        m_layout->setText(QString::fromUtf8(error.what()));
        QPalette warning = m_layout->palette();
        warning.setColor(QPalette::WindowText, verdictColor(false, m_model->dark()));
        m_layout->setPalette(warning);
    }
}

} // namespace headroom
