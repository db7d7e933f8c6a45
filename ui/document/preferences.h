// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSettings>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace headroom {

/// One QSettings key, declared once with its default.
template <typename T>
class Preference
{
public:
    Preference(const char *key, T fallback) : m_key(QString::fromLatin1(key)), m_fallback(std::move(fallback)) {}
    T get() const { return QSettings().value(m_key, QVariant::fromValue(m_fallback)).template value<T>(); }
    void set(const T &value) const { QSettings().setValue(m_key, QVariant::fromValue(value)); }

private:
    QString m_key;
    T m_fallback;
};

/// The window's remembered state (UI state only; scenarios live in files).
namespace prefs {
inline const Preference<QByteArray> geometry{"window/geometry", {}};
inline const Preference<QByteArray> splitters{"window/splitters", {}};
inline const Preference<QString> scenario{"session/scenario", {}};
inline const Preference<QString> unit{"display/unit", QStringLiteral("GiB")};
inline const Preference<QString> view{"display/view", QStringLiteral("bars")};
inline const Preference<bool> dark{"display/dark", false};
inline const Preference<double> customCapacity{"display/customCapacityBytes", 0.0};
inline const Preference<QStringList> recentFiles{"files/recent", {}};
inline const Preference<QString> lastFolder{"files/lastFolder", {}};
inline const Preference<QByteArray> userGpus{"gpus/user", {}}; ///< JSON list of name, bytes, shown
inline const Preference<QSize> exportSize{"export/size", QSize(1920, 1080)};
inline const Preference<double> exportScale{"export/scale", 2.0};
inline const Preference<bool> exportDark{"export/dark", false};
} // namespace prefs

} // namespace headroom
