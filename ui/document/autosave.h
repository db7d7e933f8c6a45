// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/documentjson.h"

#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>

class QLockFile;

namespace headroom {

/// What a session left unsaved: the document and the file it belonged to (empty: untitled).
struct AutosaveRecord
{
    ScenarioDocument document;
    QString file;
};

/// Keeps the window's unsaved document (the scenario and its pins) in the application's data
/// folder (QStandardPaths::AppDataLocation): written atomically (QSaveFile) at most `delay` after
/// a change, removed when nothing is unsaved and when the window ends normally, so that a crash
/// or a kill loses nothing. One running window keeps it (a lock file): a second one neither
/// writes it nor offers it.
class Autosave : public QObject
{
    Q_OBJECT
public:
    /// `current` gives the document to keep when a write is due.
    explicit Autosave(std::function<AutosaveRecord()> current, QObject *parent = nullptr);
    /// Removes the file: a window that ends normally has nothing to restore.
    ~Autosave() override;

    /// The autosave file.
    static QString filePath();
    /// False when another running window keeps the autosave.
    bool active() const { return m_lock != nullptr; }
    /// What an earlier session left (it crashed or was killed), or nothing. A damaged file is
    /// removed and `problem` says why.
    std::optional<AutosaveRecord> pending(QString *problem = nullptr) const;
    /// After a change: keeps the document soon when `unsaved`, else removes the file.
    void changed(bool unsaved);
    /// Writes now what is due (tests; before something risky). Returns the error, or nothing.
    QString flush();
    /// Removes the file.
    void discard();
    /// Takes over the file a crashed session left (once its document is restored): it is this
    /// window's to replace or remove from now on.
    void adopt() { m_owned = m_lock != nullptr; }
    /// The most time between a change and its write (default 2 s).
    void setDelay(int milliseconds) { m_timer.setInterval(milliseconds); }

signals:
    /// The file was written (or removed).
    void written();

private:
    std::function<AutosaveRecord()> m_current;
    std::unique_ptr<QLockFile> m_lockFile;
    QLockFile *m_lock = nullptr; ///< the held lock, or null when another window holds it
    QTimer m_timer;
    bool m_due = false;
    bool m_owned = false; ///< the file holds this window's document (not a crashed session's)
};

/// The autosave document: {"format": "headroom-autosave", "version": 1, "file", "document"}.
QByteArray autosaveToJson(const AutosaveRecord &record);
/// Reads an autosave document; throws ScenarioError.
AutosaveRecord autosaveFromJson(const QByteArray &bytes);

} // namespace headroom
