// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandhelp.h"

#include "clicommon.h"

namespace headroom::cli {

void describe(QCommandLineParser &parser, const CommandHelp &help)
{
    parser.setApplicationDescription(help.description);
    parser.addHelpOption();
    parser.addPositionalArgument(help.name, tr("The command."));
    for (const auto &[name, text] : help.arguments)
        parser.addPositionalArgument(name, text);
    parser.addOptions(help.options);
}

QList<CommandHelp> commandHelp()
{
    return {estimateHelp(), validateHelp(), adviseHelp(), renderHelp()};
}

} // namespace headroom::cli
