// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/frontierview.h"
#include "window/plaintext.h"
#include "classroom/viewexport.h"

#include "chart/frontierchart.h"
#include "document/scenariomodel.h"
#include "solve/solver.h"

#include <QChartView>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace headroom {

FrontierView::FrontierView(ScenarioModel *model, QWidget *parent)
    : QDialog(parent), m_model(model), m_chart(new FrontierChart(this)), m_tensor(new QLineEdit),
      m_contiguous(new QCheckBox(tr("Compare &contiguous allocation (every sequence reserves max_model_len)"))),
      m_status(plainText(new QLabel)), m_readout(plainText(new QLabel))
{
    setWindowTitle(tr("Concurrency x context"));
    m_tensor->setPlaceholderText(tr("e.g. 1,2,4"));
    m_tensor->setAccessibleName(tr("Tensor-parallel sizes"));
    auto *exportButton = new QPushButton(tr("&Export..."));
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Tensor parallel (first GPU):")));
    bar->addWidget(m_tensor);
    bar->addWidget(m_contiguous);
    bar->addStretch(1);
    bar->addWidget(exportButton);
    auto *holder = new QWidget;
    auto *holderLayout = new QVBoxLayout(holder);
    holderLayout->setContentsMargins(0, 0, 0, 0);
    m_view = new QChartView(m_chart->chart(), holder);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setAccessibleName(tr("Frontier chart"));
    holderLayout->addWidget(m_view);
    m_status->setWordWrap(true);
    m_readout->setAccessibleName(tr("Frontier point readout"));
    m_readout->setText(tr("Point at a curve for its numbers."));
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(holder, 1);
    layout->addWidget(m_readout);
    layout->addWidget(m_status);
    connect(m_chart, &FrontierChart::readoutChanged, this, [this](const QString &text) {
        m_readout->setText(text.isEmpty() ? tr("Point at a curve for its numbers.") : text);
    });
    resize(1100, 700);
    connect(m_tensor, &QLineEdit::editingFinished, this, [this] { refresh(); });
    connect(m_contiguous, &QCheckBox::toggled, this, [this] { refresh(); });
    connect(exportButton, &QPushButton::clicked, this, &FrontierView::chooseExport);
    connect(m_model, &ScenarioModel::changed, this, [this] {
        if (isVisible())
            refresh();
    });
}

FrontierView::~FrontierView()
{
    m_tensor->disconnect(this);
    m_contiguous->disconnect(this);
}

void FrontierView::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    refresh();
}

void FrontierView::refresh()
{
    FrontierOptions options;
    options.contiguous = m_contiguous->isChecked();
    options.engineLimits = true; // the curves stop where the engine refuses
    for (const QString &size : m_tensor->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const uint value = size.trimmed().toUInt(&ok);
        if (ok && value >= 1 && value <= 1024)
            options.tensor.push_back(value);
    }
    try {
        m_chart->setData(frontierChartData(m_model->scenario(), options, m_model->dark(), m_model->unit()));
        m_status->setText(m_chart->operatingLabel() + QStringLiteral(". ") +
                          tr("Each point is the solver's exact answer: that many sequences fit and one more does not."));
    } catch (const std::exception &error) {
        m_chart->setData({});
        m_status->setText(tr("No frontier: %1").arg(QString::fromStdString(error.what())));
    }
}

QString FrontierView::exportTo(const QString &path, const ChartExportOptions &options)
{
    ExportFormat format = ExportFormat::Png;
    if (!exportFormatFor(path, format))
        return tr("the name must end in .png, .svg, .pdf, .csv or .json");
    refresh();
    return exportFrontier(path, format, m_chart->data(), options);
}

void FrontierView::chooseExport()
{
    exportThroughDialog(this, tr("Export frontier"), tr("frontier.png"),
                        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf);;CSV table (*.csv);;"
                           "JSON (*.json)"),
                        [this](const QString &path) { return exportTo(path); });
}

} // namespace headroom
