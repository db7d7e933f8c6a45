// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <QString>
#include <utility>

namespace headroom::cli {

/// What one `headroom <command>` accepts. Its --help and the man page are both made from this,
/// so they cannot drift apart.
struct CommandHelp
{
    QString name;        ///< "estimate"
    QString summary;     ///< one line, listed by `headroom --help`
    QString description; ///< the first paragraph of the command's --help
    QString usage;       ///< "headroom estimate FILE [--set key.path=value]..." (synopsis)
    QList<std::pair<QString, QString>> arguments; ///< positional arguments after the name
    QList<QCommandLineOption> options;            ///< --help is added to these
    int optionalArguments = 0; ///< how many of the last `arguments` may be left out
};

/// Describes the command to `parser`: description, positional arguments, --help and options.
void describe(QCommandLineParser &parser, const CommandHelp &help);

/// --unit, the same for every command: GiB (the default) or GB.
QCommandLineOption unitOption();

/// Every command, in the order `headroom --help` and the man page list them.
QList<CommandHelp> commandHelp();

CommandHelp estimateHelp();
CommandHelp validateHelp();
CommandHelp compareHelp();
CommandHelp adviseHelp();
CommandHelp renderHelp();
CommandHelp solveHelp();
CommandHelp frontierHelp();
CommandHelp modelsHelp();
CommandHelp fitHelp();
CommandHelp fitsHelp();

} // namespace headroom::cli
