// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/usergpudialog.h"

#include "chart/consumerstyle.h"
#include "document/scenariomodel.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace headroom {

UserGpuDialog::UserGpuDialog(ScenarioModel *model, QWidget *parent)
    : QDialog(parent), m_model(model), m_list(new QListWidget(this)), m_name(new QLineEdit(this)),
      m_capacity(new QDoubleSpinBox(this)), m_add(new QPushButton(tr("&Add"), this)),
      m_remove(new QPushButton(tr("&Remove"), this))
{
    setWindowTitle(tr("My GPUs"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("GPUs of your own, drawn as capacity lines next to the catalog's. "
                                "Give the usable capacity as the driver reports it (nvidia-smi's "
                                "total memory)."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_list->setAccessibleName(tr("My GPUs"));
    layout->addWidget(m_list);
    auto *form = new QFormLayout;
    m_name->setAccessibleName(tr("GPU name"));
    m_name->setPlaceholderText(tr("e.g. Lab RTX 3090"));
    m_capacity->setAccessibleName(tr("GPU capacity"));
    m_capacity->setRange(0.1, 100000);
    m_capacity->setDecimals(2);
    m_capacity->setValue(24);
    m_capacity->setSuffix(QLatin1Char(' ') + QString::fromLatin1(unitName(model->unit())));
    form->addRow(tr("&Name"), m_name);
    form->addRow(tr("&Capacity"), m_capacity);
    layout->addLayout(form);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    auto *close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(close);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_add, &QPushButton::clicked, this, &UserGpuDialog::addGpu);
    connect(m_remove, &QPushButton::clicked, this, &UserGpuDialog::removeSelected);
    connect(m_name, &QLineEdit::returnPressed, this, &UserGpuDialog::addGpu);
    connect(m_list, &QListWidget::itemChanged, this, [this](QListWidgetItem *item) {
        std::vector<UserGpu> gpus = m_model->userGpus();
        const int row = m_list->row(item);
        if (row < 0 || row >= int(gpus.size()))
            return;
        gpus[std::size_t(row)].shown = item->checkState() == Qt::Checked;
        m_model->setUserGpus(gpus);
        saveUserGpus(gpus);
    });
    showList();
}

void UserGpuDialog::addGpu()
{
    const QString name = m_name->text().trimmed();
    if (name.isEmpty())
        return;
    const double perUnit = m_model->unit() == Unit::GB ? 1e9 : 1073741824.0;
    std::vector<UserGpu> gpus = m_model->userGpus();
    gpus.push_back({name, std::uint64_t(m_capacity->value() * perUnit), true});
    m_model->setUserGpus(gpus);
    saveUserGpus(gpus);
    m_name->clear();
    showList();
}

void UserGpuDialog::removeSelected()
{
    const int row = m_list->currentRow();
    std::vector<UserGpu> gpus = m_model->userGpus();
    if (row < 0 || row >= int(gpus.size()))
        return;
    gpus.erase(gpus.begin() + row);
    m_model->setUserGpus(gpus);
    saveUserGpus(gpus);
    showList();
}

void UserGpuDialog::showList()
{
    const QSignalBlocker block(m_list);
    m_list->clear();
    for (const UserGpu &gpu : m_model->userGpus()) {
        auto *item = new QListWidgetItem(tr("%1 (%2)").arg(gpu.name, bytesText(gpu.bytes, m_model->unit())), m_list);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(gpu.shown ? Qt::Checked : Qt::Unchecked);
    }
    m_remove->setEnabled(m_list->count() > 0);
}

} // namespace headroom
