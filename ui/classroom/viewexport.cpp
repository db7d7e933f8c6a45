// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/viewexport.h"
#include "window/plaintext.h"

#include "document/preferences.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

namespace headroom {

void exportThroughDialog(QWidget *parent, const QString &title, const QString &defaultName,
                         const QString &filters, const std::function<QString(const QString &)> &write)
{
    const QString path =
        QFileDialog::getSaveFileName(parent, title, QDir(prefs::lastFolder.get()).filePath(defaultName), filters);
    if (path.isEmpty())
        return;
    if (const QString error = write(path); !error.isEmpty())
        warnPlainText(parent, QObject::tr("Headroom"),
                      QObject::tr("Cannot export %1: %2").arg(QDir::toNativeSeparators(path), error));
    else
        prefs::lastFolder.set(QFileInfo(path).absolutePath());
}

} // namespace headroom
