// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/usergpus.h"

#include "document/preferences.h"
#include "io/inputpolicy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace headroom {

std::vector<UserGpu> loadUserGpus()
{
    std::vector<UserGpu> gpus;
    const QByteArray stored = prefs::userGpus.get();
    if (stored.isEmpty())
        return gpus;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(stored, &error);
    bool damaged = error.error != QJsonParseError::NoError || !document.isArray();
    for (const QJsonValue &value : document.array()) {
        const QJsonObject object = value.toObject();
        const QString name = object.value(QLatin1String("name")).toString().left(200);
        std::uint64_t bytes = 0;
        // A capacity beyond 2^64 bytes, negative or not a number is damage, not a GPU.
        if (name.isEmpty() || !toUint64(object.value(QLatin1String("bytes")).toDouble(-1), bytes) ||
            bytes == 0 || gpus.size() >= kMaxUserGpus) {
            damaged = true;
            continue;
        }
        gpus.push_back({name, bytes, object.value(QLatin1String("shown")).toBool(true)});
    }
    if (damaged) {
        // Keep what is usable, and say that the rest was dropped.
        prefs::userGpus.reset();
        if (!gpus.empty())
            saveUserGpus(gpus);
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
