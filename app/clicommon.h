// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "commandhelp.h"
#include "scenario/scenario.h"
#include "scenario/units.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <QTextStream>
#include <nlohmann/json.hpp>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace headroom::cli {

/// Translated command-line text.
QString tr(const char *text);
/// Standard output and error as text streams; everything written to them goes through
/// terminalText, so no printer can put a control character on the terminal.
QTextStream &out();
QTextStream &err();
/// The one escaping function of what the command line prints: printable() line by line, the
/// line breaks kept (a value from a file is also printed with safe(), so that its own line
/// breaks are escaped too).
std::string terminalText(std::string_view text);
/// Prints "headroom: <message>" on stderr, control characters escaped, and returns
/// ExitBadInput (2).
int fail(const QString &message);
/// A command given the wrong arguments: "usage: " and the command's usage, whose own line breaks
/// (one line per form of the command) are kept; exit 2.
int failUsage(const QString &usage);
/// Text from a file for the terminal: control characters and bidirectional overrides escaped.
QString safe(const std::string &text);
/// What an exception says to the user: the readers' messages as they are, never a library's
/// internals ("std::bad_alloc", "[json.exception...]").
QString errorText(const std::exception &error);
/// std::string -> QString.
inline QString q(const std::string &text) { return QString::fromStdString(text); }
/// Model files given on the command line, applied before the --set overrides.
struct ModelFiles
{
    QString configPath; ///< --model-config: replaces the scenario's architecture
    std::optional<std::uint64_t> params; ///< --model-weights: the exact parameter total
    std::optional<nlohmann::json> model; ///< --model-weights FILE.gguf: the `model` its metadata gives
};
/// Reads and parses a scenario file with --set overrides; `model.config` paths are read
/// relative to the scenario file. Throws ScenarioError.
Scenario loadScenario(const QString &path, const QStringList &overrides,
                      const ModelFiles &modelFiles = {});
/// Parses a scenario document already in memory with --set overrides (and the --model-weights
/// parameter total); `model.config` paths are read relative to `path` (and must stay in its
/// folder or the home folder, unless it is `modelConfig`, what --model-config gave). Throws
/// ScenarioError.
Scenario scenarioFromDocument(nlohmann::json doc, const QString &path, const QStringList &overrides,
                              std::optional<std::uint64_t> params = std::nullopt,
                              const QString &modelConfig = {});
/// Reads a whole scenario, comparison or lesson file under the input policy (a regular file of at
/// most limits::kDocumentBytes); throws ScenarioError naming the problem.
QByteArray readFile(const QString &path);
/// Describes the command to `parser` and parses its arguments. Returns the exit code when the
/// command should stop here (a parse error, --help printed, not the command's positional
/// arguments: usage printed), or nothing when it should go on.
std::optional<int> parseCommand(QCommandLineParser &parser, const QStringList &arguments,
                                const CommandHelp &help);
/// Parses --unit (GB or GiB); returns false and prints an error for anything else.
bool parseUnit(const QString &text, Unit &unit);

/// `headroom estimate FILE ...`
int runEstimate(const QStringList &arguments);

} // namespace headroom::cli
