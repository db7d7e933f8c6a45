// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario.h"
#include "units.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <QTextStream>
#include <string>

namespace headroom::cli {

/// Translated command-line text.
QString tr(const char *text);
/// Standard output and error as text streams.
QTextStream &out();
QTextStream &err();
/// Prints "headroom: <message>" on stderr and returns ExitBadInput (2).
int fail(const QString &message);
/// std::string -> QString.
inline QString q(const std::string &text) { return QString::fromStdString(text); }
/// Reads and parses a scenario file with --set overrides; throws ScenarioError.
Scenario loadScenario(const QString &path, const QStringList &overrides);
/// Reads a whole file; throws ScenarioError naming the problem.
QByteArray readFile(const QString &path);
/// Parses --unit (GB or GiB); returns false and prints an error for anything else.
bool parseUnit(const QString &text, Unit &unit);

/// `headroom estimate FILE ...`
int runEstimate(const QStringList &arguments);

} // namespace headroom::cli
