// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMetaType>
#include <QSettings>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <type_traits>

namespace headroom {

/// The settings found unusable this session (written by another version, or damaged) and
/// reset to their defaults; the window says which.
inline QStringList &resetPreferences()
{
    static QStringList keys;
    return keys;
}

/// One QSettings key, declared once with its default and, optionally, what a usable value is.
/// A stored value of the wrong type or outside `valid` is removed (and listed in
/// resetPreferences()): the default stands in, and the window still opens.
template <typename T>
class Preference
{
public:
    using Check = bool (*)(const T &);
    Preference(const char *key, T fallback, Check valid = nullptr)
        : m_key(QString::fromLatin1(key)), m_fallback(std::move(fallback)), m_valid(valid)
    {
    }
    T get() const
    {
        const QVariant stored = QSettings().value(m_key);
        if (!stored.isValid())
            return m_fallback;
        QVariant value = stored;
        bool usable = value.convert(QMetaType::fromType<T>());
        if constexpr (std::is_same_v<T, bool>) {
            // Any text converts to a bool; only true and false mean one.
            if (stored.typeId() == QMetaType::QString)
                usable = stored.toString() == QLatin1String("true") ||
                         stored.toString() == QLatin1String("false");
        }
        if (usable && m_valid)
            usable = m_valid(value.template value<T>());
        if (!usable) {
            reset();
            return m_fallback;
        }
        return value.template value<T>();
    }
    void set(const T &value) const { QSettings().setValue(m_key, QVariant::fromValue(value)); }
    /// Removes the stored value and lists the key in resetPreferences().
    void reset() const
    {
        QSettings().remove(m_key);
        if (!resetPreferences().contains(m_key))
            resetPreferences().append(m_key);
    }
    const QString &key() const { return m_key; }

private:
    QString m_key;
    T m_fallback;
    Check m_valid;
};

namespace prefs {
/// At most this many bytes in one stored value (a JSON document or a window state).
inline constexpr qsizetype kMaxValueBytes = 1024 * 1024;

inline bool shortBytes(const QByteArray &value) { return value.size() <= kMaxValueBytes; }
inline bool shortText(const QString &value) { return value.size() <= kMaxValueBytes; }
inline bool unitName(const QString &value)
{
    return value == QLatin1String("GB") || value == QLatin1String("GiB");
}
inline bool viewName(const QString &value)
{
    return value == QLatin1String("bars") || value == QLatin1String("phases") || value == QLatin1String("ranks");
}
/// Bytes stored as a double: finite, 0 or more, below 2^64.
inline bool byteCount(const double &value) { return value >= 0 && value < 18446744073709551616.0; }
inline bool fewFiles(const QStringList &value) { return value.size() <= 64; }
} // namespace prefs

/// The window's remembered state (UI state only; scenarios live in files).
namespace prefs {
inline const Preference<QByteArray> geometry{"window/geometry", {}, shortBytes};
inline const Preference<QByteArray> splitters{"window/splitters", {}, shortBytes};
inline const Preference<QString> scenario{"session/scenario", {}, shortText};
inline const Preference<QString> unit{"display/unit", QStringLiteral("GiB"), unitName};
inline const Preference<QString> view{"display/view", QStringLiteral("bars"), viewName};
inline const Preference<bool> dark{"display/dark", false};
inline const Preference<double> customCapacity{"display/customCapacityBytes", 0.0, byteCount};
inline const Preference<QStringList> recentFiles{"files/recent", {}, fewFiles};
inline const Preference<QString> lastFolder{"files/lastFolder", {}, shortText};
inline const Preference<QByteArray> userGpus{"gpus/user", {}, shortBytes}; ///< JSON list of name, bytes, shown
inline bool exportSizeOk(const QSize &value)
{
    return value.width() >= 16 && value.height() >= 16 && value.width() <= 16384 && value.height() <= 16384;
}
inline bool exportScaleOk(const double &value) { return value >= 0.25 && value <= 8; }
inline const Preference<QSize> exportSize{"export/size", QSize(1920, 1080), exportSizeOk};
inline const Preference<double> exportScale{"export/scale", 2.0, exportScaleOk};
inline const Preference<bool> exportDark{"export/dark", false};
} // namespace prefs

} // namespace headroom
