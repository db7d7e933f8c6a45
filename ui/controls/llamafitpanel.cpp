// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/llamafitpanel.h"

#include "document/scenariomodel.h"
#include "scenario/catalog.h"
#include "scenario/units.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace headroom {

namespace {

QString freeText(std::int64_t bytes, Unit unit)
{
    return bytes >= 0 ? QString::fromStdString(formatBytes(std::uint64_t(bytes), unit))
                      : QStringLiteral("-") + QString::fromStdString(formatBytes(std::uint64_t(-bytes), unit));
}

} // namespace

LlamaFitPanel::LlamaFitPanel(ScenarioModel *model, QWidget *parent)
    : QGroupBox(tr("Fit for llama.cpp"), parent), m_model(model), m_fit(new QPushButton(tr("&Fit"), this)),
      m_plan(new QLabel(this)), m_flags(new QLineEdit(this)), m_copy(new QPushButton(tr("&Copy"), this))
{
    setObjectName(QStringLiteral("llamaFitPanel"));
    m_fit->setAccessibleName(tr("Fit for llama.cpp"));
    m_fit->setToolTip(tr("llama.cpp's --fit for this GPU (or the devices of its tensor split), leaving 1 GiB free "
                         "on each: every layer on the GPU if it fits, else experts to CPU RAM, else fewer layers"));
    m_plan->setWordWrap(true);
    m_plan->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_plan->setAccessibleName(tr("The fit plan per device"));
    m_flags->setReadOnly(true);
    m_flags->setAccessibleName(tr("llama.cpp flags"));
    m_flags->setPlaceholderText(tr("the flags appear here"));
    m_copy->setAccessibleName(tr("Copy the llama.cpp flags"));
    m_copy->setEnabled(false);
    auto *row = new QHBoxLayout;
    row->addWidget(m_flags, 1);
    row->addWidget(m_copy);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_fit, 0, Qt::AlignLeft);
    layout->addWidget(m_plan);
    layout->addLayout(row);
    connect(m_fit, &QPushButton::clicked, this, &LlamaFitPanel::runFit);
    connect(m_copy, &QPushButton::clicked, this, [this] {
        if (QClipboard *clipboard = QGuiApplication::clipboard())
            clipboard->setText(m_flags->text());
    });
    refresh();
}

void LlamaFitPanel::refresh()
{
    const Scenario &s = m_model->scenario();
    const bool llama = s.task == Task::Inference && s.serving && s.serving->engine == Engine::LlamaCpp;
    setVisible(llama);
    if (m_last && !(m_last->scenario.model == s.model && m_last->scenario.gpus == s.gpus)) {
        m_last.reset();
        m_plan->clear();
        m_flags->clear();
        m_copy->setEnabled(false);
    }
}

void LlamaFitPanel::runFit()
{
    const Scenario &s = m_model->scenario();
    m_last.reset();
    m_flags->clear();
    m_copy->setEnabled(false);
    if (!m_model->estimateError().isEmpty()) {
        m_plan->setText(tr("cannot fit: %1").arg(m_model->estimateError()));
        return;
    }
    LlamaFitOptions options;
    options.devices = s.serving && s.serving->tensorSplit.size() > 1 ? std::uint32_t(s.serving->tensorSplit.size()) : 1;
    try {
        m_last = planLlamaFit(s, options);
    } catch (const std::exception &error) {
        m_plan->setText(tr("cannot fit: %1").arg(QString::fromStdString(error.what())));
        return;
    }
    const LlamaFitPlan &plan = *m_last;
    const Unit unit = m_model->unit();
    QStringList lines;
    lines << (plan.fits ? tr("Fits with 1 GiB free on each device:") : tr("Does not fit, even with every layer in CPU RAM:"));
    if (plan.devices.empty()) {
        const Gpu *gpu = m_model->catalog().findGpu(plan.gpu);
        lines << tr("%1: %2 used, %3 free")
                     .arg(gpu ? QString::fromStdString(gpu->name) : QString::fromStdString(plan.gpu),
                          QString::fromStdString(formatBytes(plan.deviceBytes, unit)), freeText(plan.freeBytes, unit));
    }
    for (std::size_t i = 0; i < plan.devices.size(); ++i) {
        const LlamaFitDevice &d = plan.devices[i];
        const Gpu *gpu = m_model->catalog().findGpu(d.gpu);
        lines << tr("CUDA%1 %2: %3 layers, %4 used, %5 free")
                     .arg(i)
                     .arg(gpu ? QString::fromStdString(gpu->name) : QString::fromStdString(d.gpu))
                     .arg(d.layers)
                     .arg(QString::fromStdString(formatBytes(d.bytes, unit)), freeText(d.freeBytes, unit));
    }
    lines << tr("CPU RAM: %1").arg(QString::fromStdString(formatBytes(plan.hostBytes, unit)));
    m_plan->setText(lines.join(QLatin1Char('\n')));
    QStringList flags;
    for (const std::string &flag : plan.flags)
        flags << QString::fromStdString(flag);
    m_flags->setText(flags.join(QLatin1Char(' ')));
    m_copy->setEnabled(true);
}

} // namespace headroom
