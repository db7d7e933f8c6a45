// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/solvepanel.h"

#include "controls/llamafitpanel.h"
#include "document/scenariomodel.h"
#include "estimate/verdict.h"
#include "solvetext.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace headroom {

SolvePanel::SolvePanel(ScenarioModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_lineVariable(new QComboBox(this)), m_gpu(new QComboBox(this)),
      m_llamaFit(new LlamaFitPanel(model, this))
{
    m_lineVariable->setAccessibleName(tr("Capacity lines show"));
    m_gpu->setAccessibleName(tr("Solve for GPU"));
    auto *form = new QFormLayout;
    form->addRow(tr("Capacity &lines show:"), m_lineVariable);
    form->addRow(tr("&GPU:"), m_gpu);
    auto *grid = new QGridLayout;
    for (SolveFor what : allSolveFors()) {
        const int row = int(what);
        auto *name = new QLabel(solveVariableName(what), this);
        auto *answer = new QLabel(this);
        answer->setWordWrap(true);
        answer->setAccessibleName(tr("Limit of %1").arg(solveVariableName(what)));
        answer->setTextInteractionFlags(Qt::TextSelectableByMouse);
        auto *apply = new QPushButton(tr("Apply"), this);
        apply->setAccessibleName(tr("Apply the %1 answer").arg(solveVariableName(what)));
        grid->addWidget(name, row, 0, Qt::AlignTop);
        grid->addWidget(answer, row, 1);
        grid->addWidget(apply, row, 2, Qt::AlignTop);
        grid->setColumnStretch(1, 1);
        m_names[std::size_t(row)] = name;
        m_answers[std::size_t(row)] = answer;
        m_apply[std::size_t(row)] = apply;
        connect(apply, &QPushButton::clicked, this, [this, what] {
            const auto &answer = m_solutions[std::size_t(what)];
            if (!answer || !answer->value)
                return;
            const Scenario applied = answer->scenario;
            m_model->apply(tr("Apply the largest %1 that fits").arg(solveVariableName(what)),
                           [applied](Scenario &s) { s = applied; });
        });
    }
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(grid);
    layout->addWidget(m_llamaFit);
    layout->addStretch(1);
    connect(m_lineVariable, &QComboBox::activated, this, [this] {
        const int value = m_lineVariable->currentData().toInt();
        m_model->setSolveFor(value < 0 ? std::nullopt : std::optional<SolveFor>(SolveFor(value)));
    });
    connect(m_gpu, &QComboBox::activated, this, [this] {
        m_gpuChosen = true;
        refresh();
    });
    connect(m_model, &ScenarioModel::changed, this, [this] {
        if (isVisible())
            refresh();
    });
    refresh();
}

void SolvePanel::refresh()
{
    m_llamaFit->refresh();
    const Scenario &s = m_model->scenario();
    const std::vector<SolveFor> applicable = applicableSolves(s);
    {
        const QSignalBlocker block(m_lineVariable);
        m_lineVariable->clear();
        m_lineVariable->addItem(tr("no limit"), -1);
        for (SolveFor what : applicable)
            if (what != SolveFor::MinGpus)
                m_lineVariable->addItem(solveVariableName(what), int(what));
        const int current = m_model->solveFor() ? int(*m_model->solveFor()) : -1;
        m_lineVariable->setCurrentIndex(std::max(0, m_lineVariable->findData(current)));
    }
    {
        const QString chosen = m_gpu->currentData().toString();
        const QSignalBlocker block(m_gpu);
        m_gpu->clear();
        for (const std::string &id : s.gpus)
            if (const Gpu *gpu = m_model->catalog().findGpu(id))
                m_gpu->addItem(QString::fromStdString(gpu->name), QString::fromStdString(gpu->id));
        // The GPU the verdict is about, until the user picks another here.
        const Gpu *target = targetGpu(s, m_model->catalog());
        const QString targetId = target ? QString::fromStdString(target->id) : QString();
        if (targetId != m_lastTarget)
            m_gpuChosen = false;
        m_lastTarget = targetId;
        const int chosenIndex = m_gpuChosen ? m_gpu->findData(chosen) : -1;
        const int targetIndex = m_gpu->findData(targetId);
        m_gpu->setCurrentIndex(std::max(0, chosenIndex >= 0 ? chosenIndex : targetIndex));
    }
    const std::string gpu = m_gpu->currentData().toString().toStdString();
    for (SolveFor what : allSolveFors()) {
        const std::size_t i = std::size_t(what);
        const bool applies = std::find(applicable.begin(), applicable.end(), what) != applicable.end();
        m_names[i]->setVisible(applies);
        m_answers[i]->setVisible(applies);
        m_apply[i]->setVisible(applies);
        m_solutions[i].reset();
        m_apply[i]->setEnabled(false);
        if (!applies)
            continue;
        if (gpu.empty()) {
            m_answers[i]->setText(tr("cannot answer: no GPU is ticked"));
            continue;
        }
        // A refusal is shown as one, never as an answer (the estimator's reason, as in the status bar).
        if (!m_model->estimateError().isEmpty()) {
            m_answers[i]->setText(tr("cannot answer: %1").arg(m_model->estimateError()));
            continue;
        }
        try {
            m_solutions[i] = solve(s, what, gpu);
            m_answers[i]->setText(solveAnswerText(*m_solutions[i], m_model->unit()));
        } catch (const std::exception &error) {
            // The window has no command-line flags: what the solver suggests for them is left out.
            const QString reason = QString::fromStdString(error.what()).remove(QLatin1String(", or pass --strategies"));
            m_answers[i]->setText(reason.startsWith(QLatin1String("cannot answer")) ? reason
                                                                                   : tr("cannot answer: %1").arg(reason));
        }
        m_apply[i]->setEnabled(m_solutions[i] && m_solutions[i]->value > 0 &&
                               solveValue(s, what) != m_solutions[i]->value);
    }
}

} // namespace headroom
