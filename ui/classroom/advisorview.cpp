// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/advisorview.h"

#include "solvetext.h"

#include "advicetext.h"
#include "chart/consumerstyle.h"
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
    : QDialog(parent), m_model(model), m_gpu(new QComboBox), m_summary(new QLabel),
      m_waterfall(new WaterfallChart), m_table(new QTableWidget(0, 5))
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
    picker->addWidget(new QLabel(tr("Fit on:")));
    picker->addWidget(m_gpu, 1);
    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_waterfall);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(picker);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);
    resize(980, 720);

    connect(m_gpu, &QComboBox::activated, this, [this] { refresh(); });
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
    // The scenario's GPUs first, then the rest of the catalog.
    std::vector<std::string> ids = m_model->scenario().gpus;
    for (const Gpu &gpu : m_model->catalog().gpus)
        if (std::find(ids.begin(), ids.end(), gpu.id) == ids.end())
            ids.push_back(gpu.id);
    if (ids == m_gpuIds)
        return;
    const QString chosen = m_gpu->currentData().toString();
    m_gpuIds = ids;
    m_gpu->clear();
    for (const std::string &id : ids)
        if (const Gpu *gpu = m_model->catalog().findGpu(id))
            m_gpu->addItem(QStringLiteral("%1 (%2)").arg(QString::fromStdString(gpu->name),
                                                         bytesText(gpu->capacityBytes(), m_model->unit())),
                           QString::fromStdString(id));
    const int index = m_gpu->findData(chosen);
    m_gpu->setCurrentIndex(index >= 0 ? index : 0);
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
        return;
    }
    const QString gpu = QString::fromStdString(m_advice.gpuName);
    if (m_advice.steps.empty())
        m_summary->setText(m_advice.fits ? tr("Peak %1: it already fits %2.").arg(bytesText(m_advice.startPeakDeviceBytes, unit), gpu)
                                         : tr("Peak %1: nothing the advisor knows makes it fit %2.")
                                               .arg(bytesText(m_advice.startPeakDeviceBytes, unit), gpu));
    else
        m_summary->setText((m_advice.fits ? tr("Peak %1 on %2 (%3): %4 changes bring it to %5, which fits. "
                                               "Apply a step to make it the scenario (Ctrl+Z undoes it).")
                                          : tr("Peak %1 on %2 (%3): %4 changes bring it to %5, still over."))
                               .arg(bytesText(m_advice.startPeakDeviceBytes, unit), gpu,
                                    bytesText(m_advice.capacityBytes, unit))
                               .arg(m_advice.steps.size())
                               .arg(bytesText(m_advice.finalPeakDeviceBytes(), unit)));
    if (m_advice.then) // the solver's last step: how far the configuration that fits stretches
        m_summary->setText(m_summary->text() + QLatin1Char(' ') + tr("Then: %1").arg(solveAnswerText(*m_advice.then, unit)));
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
