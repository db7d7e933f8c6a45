// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/advisorview.h"
#include "window/plaintext.h"

#include "solvetext.h"

#include "advicetext.h"
#include "chart/consumerstyle.h"
#include "estimate/verdict.h"
#include "document/scenariomodel.h"
#include "chart/waterfallchart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace headroom {

AdvisorView::AdvisorView(ScenarioModel *model, QWidget *parent)
    : QDialog(parent), m_model(model), m_gpu(new QComboBox), m_summary(plainText(new QLabel)),
      m_waterfall(new WaterfallChart), m_table(new QTableWidget(0, 5)), m_skipped(plainText(new QLabel))
{
    setWindowTitle(tr("What should I change?"));
    m_gpu->setAccessibleName(tr("GPU to fit"));
    m_summary->setWordWrap(true);
    m_summary->setAccessibleName(tr("Advice summary"));
    m_table->setHorizontalHeaderLabels({tr("Change"), tr("Saves"), tr("Peak after"), tr("Cost"), QString()});
    m_table->setAccessibleName(tr("Advice steps"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(4, QHeaderView::ResizeToContents);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { applyStep(row); });

    auto *picker = new QHBoxLayout;
    picker->addWidget(new QLabel(tr("Fit on (the scenario's verdict GPU):")));
    picker->addWidget(m_gpu, 1);
    m_skipped->setWordWrap(true);
    m_skipped->setAccessibleName(tr("Levers not used"));
    m_skipped->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_waterfall);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(picker);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_skipped);
    resize(980, 720);

    // The picker is the scenario's target GPU: the status bar and the chart follow it.
    connect(m_gpu, &QComboBox::activated, this, [this](int index) {
        const std::string id = m_gpu->itemData(index).toString().toStdString();
        m_model->apply(tr("Verdict for %1").arg(m_gpu->itemText(index)), [id](Scenario &s) {
            // A full list (16) gives up its first GPU, as My GPU does: the target is always one
            // of the scenario's GPUs, which the reader requires (issue 22, tst_monkey seed 18).
            if (std::find(s.gpus.begin(), s.gpus.end(), id) == s.gpus.end()) {
                if (s.gpus.size() >= 16)
                    s.gpus.erase(s.gpus.begin());
                s.gpus.push_back(id);
            }
            s.targetGpu = id;
        });
        refresh();
    });
    connect(m_model, &ScenarioModel::changed, this, [this] {
        if (isVisible())
            refresh();
    });
}

void AdvisorView::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    refresh();
}

void AdvisorView::fillGpus()
{
    // The scenario's GPUs first, then the rest of the catalog; the target chosen.
    std::vector<std::string> ids = m_model->scenario().gpus;
    for (const Gpu &gpu : m_model->catalog().gpus)
        if (std::find(ids.begin(), ids.end(), gpu.id) == ids.end())
            ids.push_back(gpu.id);
    if (ids != m_gpuIds || m_unit != m_model->unit()) {
        m_gpuIds = ids;
        m_unit = m_model->unit();
        m_gpu->clear();
        for (const std::string &id : ids)
            if (const Gpu *gpu = m_model->catalog().findGpu(id))
                m_gpu->addItem(gpuLabel(QString::fromStdString(gpu->name), gpu->capacityBytes(), m_model->unit()),
                               QString::fromStdString(id));
    }
    const Gpu *target = targetGpu(m_model->scenario());
    const int index = target ? m_gpu->findData(QString::fromStdString(target->id)) : -1;
    m_gpu->setCurrentIndex(std::max(0, index));
}

void AdvisorView::refresh()
{
    fillGpus();
    const Unit unit = m_model->unit();
    m_table->setRowCount(0);
    m_advice = {};
    try {
        m_advice = advise(m_model->scenario(), m_gpu->currentData().toString().toStdString());
    } catch (const std::exception &error) {
        m_summary->setText(tr("No advice: %1").arg(QString::fromStdString(error.what())));
        m_waterfall->setAdvice({}, {});
        m_skipped->clear();
        return;
    }
    const QString gpu = shortGpuName(QString::fromStdString(m_advice.gpuName));
    const QString start = tr("Peak %1: %2.")
                              .arg(bytesText(m_advice.startPeakDeviceBytes, unit),
                                   verdictText(QString::fromStdString(m_advice.gpuName),
                                               std::int64_t(m_advice.capacityBytes) - std::int64_t(m_advice.startPeakDeviceBytes),
                                               unit, VerdictStyle::Sentence, errorBandPercent(m_advice.start),
                                               m_advice.startPeakDeviceBytes));
    QString summary;
    if (m_advice.steps.empty())
        summary = m_advice.fits ? start : start + QLatin1Char(' ') + tr("No lever the advisor knows makes it fit %1.").arg(gpu);
    else
        summary = start + QLatin1Char(' ') +
                  (m_advice.fits ? tr("%1 changes bring it to %2, which fits. Apply a step to make it the scenario "
                                      "(Ctrl+Z undoes it).")
                                 : tr("%1 changes bring it to %2, still over."))
                      .arg(m_advice.steps.size())
                      .arg(bytesText(m_advice.finalPeakDeviceBytes(), unit));
    if (!m_advice.fits)
        summary += QLatin1Char(' ') + whatWouldFitText(m_advice.final(), m_advice.gpuId, unit);
    if (m_advice.then) // the solver's last step: how far the configuration that fits stretches
        summary += QLatin1Char(' ') + tr("Then: %1").arg(solveAnswerText(*m_advice.then, unit));
    m_summary->setText(summary);
    QStringList skipped;
    for (const SkippedLever &lever : m_advice.skipped)
        skipped << skippedLeverText(m_advice, lever);
    m_skipped->setText(skipped.isEmpty() ? QString() : tr("Not used: %1.").arg(skipped.join(QStringLiteral("; "))));
    m_waterfall->setAdvice(m_advice, {unit, m_model->dark(), 1});
    m_table->setRowCount(int(m_advice.steps.size()));
    for (int row = 0; row < int(m_advice.steps.size()); ++row) {
        const AdviceStep &step = m_advice.steps[std::size_t(row)];
        const QStringList cells{adviceLeverText(m_advice, std::size_t(row)), QStringLiteral("−") + bytesText(step.savedBytes, unit),
                                bytesText(step.peakDeviceBytes, unit) + (step.fits ? tr(" (fits)") : QString()),
                                adviceCostText(m_advice, std::size_t(row), unit)};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            item->setToolTip(cells[column]);
            m_table->setItem(row, column, item);
        }
        auto *apply = new QPushButton(tr("Apply"));
        apply->setAccessibleName(tr("Apply step %1").arg(row + 1));
        apply->setToolTip(tr("Make this configuration (and the steps above it) the scenario"));
        connect(apply, &QPushButton::clicked, this, [this, row] { applyStep(row); });
        m_table->setCellWidget(row, 4, apply);
    }
    m_table->resizeRowsToContents();
}

QPushButton *AdvisorView::applyButton(int index) const
{
    return qobject_cast<QPushButton *>(m_table->cellWidget(index, 4));
}

void AdvisorView::applyStep(int index)
{
    if (index < 0 || index >= int(m_advice.steps.size()))
        return;
    const Scenario scenario = m_advice.steps[std::size_t(index)].scenario;
    m_model->setScenario(scenario, tr("Advice: %1").arg(leverDisplayName(m_advice.steps[std::size_t(index)].lever)));
}

} // namespace headroom
