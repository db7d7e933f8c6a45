// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include "advisecommand.h"
#include "clicommon.h"
#include "rendercommand.h"
#include "servingcommands.h"
#include "validatecommand.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace headroom {

using namespace cli;

namespace {

/// One `headroom <name>` command.
struct Command
{
    const char *name;
    int (*run)(const QStringList &arguments);
    const char *summary;
};

const Command kCommands[] = {
    {"estimate", runEstimate, "print the memory budget of a scenario"},
    {"validate", runValidate, "compare estimates with published measurements"},
    {"advise", runAdvise, "what to change, lever by lever, until a scenario fits a GPU"},
    {"render", runRender, "draw the chart of a scenario into PNG, SVG or PDF (no display needed)"},
    {"solve", runSolve, "the exact limit of one setting on a GPU (value fits, value + 1 does not)"},
    {"frontier", runFrontier, "most concurrent sequences against tokens per sequence, per GPU"},
};

} // namespace

bool isCommandLine(const QStringList &arguments)
{
    return arguments.size() > 1;
}

bool commandNeedsGui(const QStringList &arguments)
{
    return arguments.size() > 1 && arguments.at(1) == QLatin1String("render");
}

int runCommandLine(const QStringList &arguments)
{
    if (arguments.size() > 1)
        for (const Command &command : kCommands)
            if (arguments.at(1) == QLatin1String(command.name))
                return command.run(arguments);

    QString description =
        tr("Headroom shows where GPU memory goes when you train or serve a large language model.\n\n"
           "Commands:\n");
    for (const Command &command : kCommands)
        description += QStringLiteral("  %1  %2\n")
                           .arg(QString::fromLatin1(command.name).leftJustified(10), tr(command.summary));
    description += tr("\nRun headroom <command> --help for a command's options.");
    QCommandLineParser parser;
    parser.setApplicationDescription(description);
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("command"), tr("What to do (see above)."));
    if (!parser.parse(arguments))
        return fail(parser.errorText());
    if (parser.isSet(QStringLiteral("version"))) {
        out() << QCoreApplication::applicationName() << ' ' << QCoreApplication::applicationVersion()
              << '\n';
        out().flush();
        return ExitOk;
    }
    if (parser.isSet(QStringLiteral("help")) || arguments.size() <= 1) {
        out() << parser.helpText();
        out().flush();
        return ExitOk;
    }
    return fail(tr("unknown command \"%1\" (try headroom --help)").arg(arguments.at(1)));
}

} // namespace headroom
