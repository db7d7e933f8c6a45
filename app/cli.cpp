// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include "about.h"
#include "advisecommand.h"
#include "clicommon.h"
#include "comparecommand.h"
#include "manpage.h"
#include "rendercommand.h"
#include "servingcommands.h"
#include "validatecommand.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace headroom {

using namespace cli;

namespace {

/// One `headroom <name>` command; its help is in commandHelp().
struct Command
{
    const char *name;
    int (*run)(const QStringList &arguments);
};

const Command kCommands[] = {
    {"estimate", runEstimate},
    {"validate", runValidate},
    {"compare", runCompare},
    {"advise", runAdvise},
    {"render", runRender},
    {"solve", runSolve},
    {"frontier", runFrontier},
    {"fit", runFit},
    {"fits", runFits},
    {"models", runModels},
};

QString programDescription()
{
    QString description =
        tr("Headroom shows where GPU memory goes when you train or serve a large language model.\n\n"
           "Commands:\n");
    for (const CommandHelp &command : commandHelp())
        description += QStringLiteral("  %1  %2\n").arg(command.name.leftJustified(10), command.summary);
    description += tr("\nRun headroom <command> --help for a command's options.");
    return description;
}

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
    if (arguments.size() > 1) {
        for (const Command &command : kCommands)
            if (arguments.at(1) == QLatin1String(command.name))
                return command.run(arguments);
        // Not listed in --help: the build writes the man page with it (packaging/).
        if (arguments.at(1) == QLatin1String("--help-all-man") && arguments.size() == 2) {
            out() << manPage();
            out().flush();
            return ExitOk;
        }
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(programDescription());
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("command"), tr("What to do (see above)."));
    if (!parser.parse(arguments))
        return fail(parser.errorText());
    if (parser.isSet(QStringLiteral("version"))) {
        out() << aboutFacts().join(QLatin1Char('\n')) << '\n';
        out().flush();
        return ExitOk;
    }
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all")) ||
        arguments.size() <= 1) {
        out() << parser.helpText();
        out().flush();
        return ExitOk;
    }
    return fail(tr("unknown command \"%1\" (try headroom --help)").arg(arguments.at(1)));
}

} // namespace headroom
