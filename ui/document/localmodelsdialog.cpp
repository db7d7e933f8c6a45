// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/localmodelsdialog.h"

#include "localmodels.h"
#include "scenario/units.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace headroom {

namespace {
enum Column { Name, Params, DTypeColumn, Disk, Revision, Repo, Note };
constexpr int kPathRole = Qt::UserRole;
} // namespace

LocalModelsDialog::LocalModelsDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Models on this computer"));
    setObjectName(QStringLiteral("localModelsDialog"));
    auto *layout = new QVBoxLayout(this);
    m_where = new QLabel(this);
    m_where->setWordWrap(true);
    m_where->setTextFormat(Qt::PlainText);
    layout->addWidget(m_where);
    m_list = new QTreeWidget(this);
    m_list->setAccessibleName(tr("Models on this computer"));
    m_list->setRootIsDecorated(false);
    m_list->setAllColumnsShowFocus(true);
    m_list->setUniformRowHeights(true);
    m_list->setHeaderLabels({tr("Name"), tr("Parameters"), tr("Dtype"), tr("On disk"), tr("Revision"), tr("Hub id"), tr("Note")});
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_list, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_open = buttons->addButton(tr("&Open"), QDialogButtonBox::AcceptRole);
    m_open->setDefault(true);
    QPushButton *folder = buttons->addButton(tr("Cache &folder..."), QDialogButtonBox::ActionRole);
    QPushButton *refresh = buttons->addButton(tr("&Refresh"), QDialogButtonBox::ActionRole);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_open, &QPushButton::clicked, this, &LocalModelsDialog::openCurrent);
    connect(refresh, &QPushButton::clicked, this, [this] { reload(m_cache); });
    connect(folder, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getExistingDirectory(this, tr("Hugging Face hub cache"), m_cache);
        if (!chosen.isEmpty())
            reload(chosen);
    });
    // A double-click or Enter on a row opens it (itemActivated is both, by the platform's rule).
    connect(m_list, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *) { openCurrent(); });
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] { updateButtons(); });
    resize(820, 420);
}

void LocalModelsDialog::reload(const QString &cacheFolder)
{
    m_cache = cacheFolder.isEmpty() ? defaultHubCache() : cacheFolder;
    const LocalModelList found = listLocalModels(m_cache);
    m_list->clear();
    const QString where = QDir::toNativeSeparators(m_cache);
    QString text = !found.cacheExists ? tr("No Hugging Face hub cache at %1. Set HF_HUB_CACHE or HF_HOME, or "
                                           "choose the cache folder.").arg(where)
                   : found.models.empty() ? tr("No models in %1.").arg(where)
                                          : tr("Read from %1 (config.json and safetensors headers only; nothing is "
                                               "downloaded).").arg(where);
    for (const std::string &note : found.notes)
        text += QLatin1Char('\n') + QString::fromStdString(note);
    m_where->setText(text);
    for (const LocalModel &m : found.models) {
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(Repo, QString::fromStdString(m.repoId));
        item->setText(Revision, QString::fromStdString(m.revision.substr(0, 12)));
        item->setToolTip(Revision, QString::fromStdString(m.revision));
        if (!m.arch) {
            // Named by its hub id's last part; why it cannot be opened in the last column.
            const QString id = QString::fromStdString(m.repoId);
            item->setText(Name, id.section(QLatin1Char('/'), -1));
            item->setText(Note, tr("cannot open: %1").arg(QString::fromStdString(m.problem)));
            item->setToolTip(Name, item->text(Note));
            item->setToolTip(Note, item->text(Note));
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
            continue;
        }
        item->setText(Name, QString::fromStdString(m.name.empty() ? m.repoId : m.name));
        item->setText(Params, QString::fromStdString(groupDigits(m.params)));
        item->setToolTip(Params, m.paramsFromWeights ? tr("from the safetensors headers") : tr("counted from config.json"));
        item->setText(DTypeColumn, QString::fromStdString(m.dtype));
        item->setText(Disk, m.diskBytes ? QString::fromStdString(formatBytes(m.diskBytes, Unit::GiB)) : QString());
        item->setTextAlignment(Params, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(Disk, Qt::AlignRight | Qt::AlignVCenter);
        const QDir folder(m.folder);
        // Weights read: import the folder (config.json with the headers' exact count); else the
        // config.json alone, with the weights' problem said.
        item->setData(Name, kPathRole,
                      m.paramsFromWeights ? m.folder : folder.filePath(QStringLiteral("config.json")));
        if (!m.weightsProblem.empty()) {
            item->setText(Note, tr("weights not read: %1").arg(QString::fromStdString(m.weightsProblem)));
            item->setToolTip(Note, item->text(Note));
        }
    }
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->flags() & Qt::ItemIsEnabled) {
            m_list->setCurrentItem(m_list->topLevelItem(i));
            break;
        }
    updateButtons();
}

void LocalModelsDialog::openCurrent()
{
    const QTreeWidgetItem *item = m_list->currentItem();
    if (!item || !(item->flags() & Qt::ItemIsEnabled))
        return;
    emit openRequested(item->data(Name, kPathRole).toString());
}

void LocalModelsDialog::updateButtons()
{
    const QTreeWidgetItem *item = m_list->currentItem();
    m_open->setEnabled(item && (item->flags() & Qt::ItemIsEnabled));
}

} // namespace headroom
