// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/usergpus.h"

#include "document/preferences.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace headroom {

std::vector<UserGpu> loadUserGpus()
{
    std::vector<UserGpu> gpus;
    const QJsonArray list = QJsonDocument::fromJson(prefs::userGpus.get()).array();
    for (const QJsonValue &value : list) {
        const QJsonObject object = value.toObject();
        const QString name = object.value(QLatin1String("name")).toString();
        const double bytes = object.value(QLatin1String("bytes")).toDouble();
        if (name.isEmpty() || !(bytes > 0))
            continue;
        gpus.push_back({name, std::uint64_t(bytes), object.value(QLatin1String("shown")).toBool(true)});
    }
    return gpus;
}

void saveUserGpus(const std::vector<UserGpu> &gpus)
{
    QJsonArray list;
    for (const UserGpu &gpu : gpus)
        list.append(QJsonObject{{QStringLiteral("name"), gpu.name},
                                {QStringLiteral("bytes"), double(gpu.bytes)},
                                {QStringLiteral("shown"), gpu.shown}});
    prefs::userGpus.set(QJsonDocument(list).toJson(QJsonDocument::Compact));
}

} // namespace headroom
