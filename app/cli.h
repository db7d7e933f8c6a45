// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace headroom {

/// Exit codes of the command line.
enum ExitCode { ExitOk = 0, ExitFailure = 1, ExitBadInput = 2 };

/// True when the arguments ask for a command-line action rather than the window.
bool isCommandLine(const QStringList &arguments);
/// True when the command draws (render): it needs a QApplication, offscreen without a display.
bool commandNeedsGui(const QStringList &arguments);

/// Runs `headroom <command> ...`; prints to stdout/stderr and returns the exit code.
int runCommandLine(const QStringList &arguments);

} // namespace headroom
