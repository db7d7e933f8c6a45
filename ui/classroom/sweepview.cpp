// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/sweepview.h"
#include "classroom/viewexport.h"

#include "document/scenariomodel.h"
#include "chart/sweepchart.h"

#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace headroom {

SweepView::SweepView(ScenarioModel *model, QWidget *parent)
    : QDialog(parent), m_model(model), m_chart(new SweepChart(this)), m_axis(new QComboBox),
      m_attention(new QComboBox)
{
    setWindowTitle(tr("Memory sweeps"));
    m_axis->addItem(tr("Sequence length"), int(SweepAxis::SeqLen));
    m_axis->addItem(tr("Micro-batch"), int(SweepAxis::MicroBatch));
    m_axis->setAccessibleName(tr("Sweep over"));
    m_attention->addItem(tr("As in the scenario"), -1);
    m_attention->addItem(tr("Eager (quadratic scores)"), int(Attention::Eager));
    m_attention->addItem(tr("Flash (linear)"), int(Attention::Flash));
    m_attention->setAccessibleName(tr("Attention kernel"));
    auto *exportButton = new QPushButton(tr("&Export..."));
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Sweep over:")));
    bar->addWidget(m_axis);
    bar->addSpacing(16);
    bar->addWidget(new QLabel(tr("Attention:")));
    bar->addWidget(m_attention);
    bar->addStretch(1);
    bar->addWidget(exportButton);
    // The chart view lives in a plain widget (no propagateSizeHints noise offscreen).
    auto *holder = new QWidget;
    auto *holderLayout = new QVBoxLayout(holder);
    holderLayout->setContentsMargins(0, 0, 0, 0);
    m_view = new QChartView(m_chart->chart(), holder);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setAccessibleName(tr("Sweep chart"));
    holderLayout->addWidget(m_view);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(holder, 1);
    resize(1100, 700);

    connect(m_axis, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_attention, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(exportButton, &QPushButton::clicked, this, &SweepView::chooseExport);
    connect(m_model, &ScenarioModel::changed, this, [this] {
        if (isVisible())
            refresh();
    });
}

void SweepView::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    refresh();
}

void SweepView::refresh()
{
    const int attention = m_attention->currentData().toInt();
    m_chart->setData(sweepChartData(m_model->scenario(), SweepAxis(m_axis->currentData().toInt()),
                                    attention < 0 ? std::nullopt : std::optional<Attention>(Attention(attention)),
                                    m_model->unit(), m_model->dark()));
}

QString SweepView::exportTo(const QString &path, const ChartExportOptions &options)
{
    ExportFormat format = ExportFormat::Png;
    if (!exportFormatFor(path, format) || format == ExportFormat::Csv || format == ExportFormat::Json)
        return tr("the name must end in .png, .svg or .pdf");
    refresh();
    return exportSweep(path, format, m_chart->data(), options);
}

void SweepView::chooseExport()
{
    exportThroughDialog(this, tr("Export sweep"), tr("sweep.png"),
                        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"),
                        [this](const QString &path) { return exportTo(path); });
}

} // namespace headroom
