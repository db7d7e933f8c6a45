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

QCommandLineOption unitOption()
{
    return QCommandLineOption(QStringLiteral("unit"),
                              tr("GiB (2^30 bytes, as nvidia-smi and PyTorch print; the default) or "
                                 "GB (10^9 bytes, as the articles write)."),
                              QStringLiteral("unit"), QStringLiteral("GiB"));
}

QList<CommandHelp> commandHelp()
{
    return {estimateHelp(), validateHelp(), compareHelp(), adviseHelp(), renderHelp(), solveHelp(), frontierHelp(),
            fitHelp(), fitsHelp(), modelsHelp()};
}

} // namespace headroom::cli
