// SPDX-License-Identifier: GPL-3.0-or-later
#include "about.h"

#include <QCoreApplication>
#include <QString>

namespace headroom {

namespace {
QString tr(const char *text) { return QCoreApplication::translate("about", text); }
} // namespace

QStringList aboutFacts()
{
    const QString runtimeQt = QString::fromLatin1(qVersion());
    const QString buildQt = QStringLiteral(QT_VERSION_STR);
    return {
        tr("Headroom %1").arg(QStringLiteral(HEADROOM_VERSION)),
        runtimeQt == buildQt ? tr("Qt %1").arg(runtimeQt)
                             : tr("Qt %1 (built with Qt %2)").arg(runtimeQt, buildQt),
        tr("Licence: GPL-3.0-or-later. This is free software: you may share and change it under "
           "the GNU General Public License, version 3 or later. There is NO WARRANTY."),
        tr("Qt Charts is used under the GNU General Public License version 3 (GPL-3.0-only, its "
           "licence for open-source use), so binaries of Headroom are distributed under GPL "
           "version 3."),
    };
}

} // namespace headroom
