// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QString>

class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace headroom {

/// File > Models on this computer (issue 22): the snapshots of the local Hugging Face hub
/// cache (common/localmodels.h) with their name, parameters, dtype, size on disk and revision.
/// A double-click, Enter or Open imports one as File > Import model does; snapshots that cannot
/// be opened are listed greyed with the reason. No network, no tensor data read.
class LocalModelsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit LocalModelsDialog(QWidget *parent = nullptr);

    /// Reads `cacheFolder` (default: the environment's hub cache) and fills the list.
    void reload(const QString &cacheFolder = {});
    QTreeWidget *list() const { return m_list; }
    const QString &cacheFolder() const { return m_cache; }

signals:
    /// What File > Import model reads for the chosen snapshot: its folder when its safetensors
    /// headers were read, else its config.json.
    void openRequested(const QString &path);

private:
    void openCurrent();
    void updateButtons();

    QString m_cache;
    QLabel *m_where = nullptr;
    QTreeWidget *m_list = nullptr;
    QPushButton *m_open = nullptr;
};

} // namespace headroom
