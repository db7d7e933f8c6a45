// SPDX-License-Identifier: GPL-3.0-or-later
// Runs the headroom program as a user would, with no display, for the command-line tests.
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace headroom::test {

/// What one run of the program returned.
struct Run
{
    int exitCode = -1; ///< -1 when it crashed or timed out
    QString out;
    QString err;
};

/// Runs `headroom ARGUMENTS` without DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM: the command
/// line must work with no display at all.
inline Run runHeadroom(const QStringList &arguments, int timeoutMs = 120000)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(HEADROOM_BINARY), arguments);
    if (!process.waitForFinished(timeoutMs))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

} // namespace headroom::test
