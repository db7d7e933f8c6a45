// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/autosave.h"

#include "document/documentio.h"
#include "inputfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QStandardPaths>
#include <nlohmann/json.hpp>

namespace headroom {

namespace {

constexpr const char *kFormat = "headroom-autosave";

QString folder()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

} // namespace

QByteArray autosaveToJson(const AutosaveRecord &record)
{
    const nlohmann::json doc = {{"format", kFormat},
                                {"version", 1},
                                {"file", record.file.toStdString()},
                                {"document", documentToJson(record.document)}};
    return QByteArray::fromStdString(doc.dump(1) + "\n");
}

AutosaveRecord autosaveFromJson(const QByteArray &bytes)
{
    const nlohmann::json doc = parseJsonText(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!doc.is_object() || doc.value("format", nlohmann::json()) != kFormat)
        throw ScenarioError("format", "must be \"headroom-autosave\"");
    if (doc.value("version", nlohmann::json()) != 1)
        throw ScenarioError("version", "must be 1");
    const auto file = doc.find("file");
    const auto document = doc.find("document");
    if (file == doc.end() || !file->is_string())
        throw ScenarioError("file", "must be a string");
    if (document == doc.end())
        throw ScenarioError("document", "is required");
    try {
        return {documentFromJson(*document), QString::fromStdString(file->get<std::string>())};
    } catch (const ScenarioError &error) {
        throw ScenarioError(error.key.empty() ? "document" : "document." + error.key, error.detail);
    }
}

Autosave::Autosave(std::function<AutosaveRecord()> current, QObject *parent)
    : QObject(parent), m_current(std::move(current))
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(2000);
    connect(&m_timer, &QTimer::timeout, this, [this] { flush(); });
    if (!QDir().mkpath(folder()))
        return;
    m_lockFile = std::make_unique<QLockFile>(QDir(folder()).filePath(QStringLiteral("autosave.lock")));
    // Only a dead owner makes the lock stale (not its age: a window may stay open for days).
    m_lockFile->setStaleLockTime(0);
    if (m_lockFile->tryLock(0))
        m_lock = m_lockFile.get();
}

Autosave::~Autosave()
{
    if (m_lock)
        discard();
}

QString Autosave::filePath()
{
    return QDir(folder()).filePath(QStringLiteral("autosave.headroom.json"));
}

std::optional<AutosaveRecord> Autosave::pending(QString *problem) const
{
    if (!m_lock || !QFile::exists(filePath()))
        return std::nullopt;
    try {
        return autosaveFromJson(readInputFile(filePath(), limits::kDocumentBytes));
    } catch (const std::exception &error) {
        if (problem)
            *problem = QString::fromStdString(error.what());
        QFile::remove(filePath());
        return std::nullopt;
    }
}

void Autosave::changed(bool unsaved)
{
    if (!m_lock)
        return;
    m_due = unsaved;
    if (!unsaved) {
        m_timer.stop();
        // Only what this window wrote: a crashed session's file waits for the restore question.
        if (m_owned)
            discard();
        return;
    }
    // At most one interval after the first change (a slider drag does not postpone it forever).
    if (!m_timer.isActive())
        m_timer.start();
}

QString Autosave::flush()
{
    m_timer.stop();
    if (!m_lock || !m_due)
        return {};
    m_due = false;
    m_owned = true;
    const QString error = writeFileAtomically(filePath(), autosaveToJson(m_current()));
    emit written();
    return error;
}

void Autosave::discard()
{
    if (!m_lock)
        return; // another window's file
    m_due = false;
    m_owned = false;
    m_timer.stop();
    QFile::remove(filePath());
    emit written();
}

} // namespace headroom
