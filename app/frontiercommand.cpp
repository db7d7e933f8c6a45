// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom frontier FILE [--gpu ID]... [--tensor 1,2,4] [--contiguous] [--format text|json|csv]`:
// the most concurrent sequences against tokens per sequence, per GPU.
#include "servingcommands.h"

#include "cli.h"
#include "clicommon.h"
#include "parallel/parallel.h"
#include "solve/solvejson.h"
#include "solvetext.h"
#include "io/inputpolicy.h"

#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

QString limitWord(ServingLimit limit)
{
    switch (limit) {
    case ServingLimit::KvCache: return tr("KV cache");
    case ServingLimit::MaxNumSeqs: return tr("max_num_seqs");
    case ServingLimit::MaxModelLen: return tr("max_model_len");
    case ServingLimit::Memory: return tr("memory");
    }
    return {};
}

void printText(const Frontier &f)
{
    QTextStream &o = out();
    o << tr("Most concurrent sequences by tokens per sequence (limit in brackets):") << '\n';
    QStringList header{tr("tokens").rightJustified(9)};
    for (const FrontierCurve &c : f.curves)
        header << (q(c.gpuName) + (c.tensor > 1 ? tr(" x%1 TP").arg(c.tensor) : QString()) +
                   (c.allocation == FrontierAllocation::Contiguous ? tr(" contiguous") : QString()));
    o << header.join(QStringLiteral("  ")) << '\n';
    if (f.curves.empty())
        return;
    for (std::size_t i = 0; i < f.curves.front().points.size(); ++i) {
        QStringList row{q(groupDigits(f.curves.front().points[i].tokens)).rightJustified(9)};
        for (const FrontierCurve &c : f.curves) {
            const FrontierPoint &p = c.points[i];
            row << (q(groupDigits(p.sequences)) + QStringLiteral(" (") + limitWord(p.limit) + QLatin1Char(')'));
        }
        o << row.join(QStringLiteral("  ")) << '\n';
    }
    o << '\n'
      << tr("Operating point: %1 sequences of %2 tokens; at that length %3 fit on %4 (limited by %5).")
             .arg(q(groupDigits(f.operatingSequences)), q(groupDigits(f.operatingTokens)),
                  q(groupDigits(f.operatingMaxSequences)), q(f.curves.front().gpuName), limitWord(f.operatingLimit))
      << '\n';
}

} // namespace

CommandHelp frontierHelp()
{
    return {QStringLiteral("frontier"),
            tr("most concurrent sequences against tokens per sequence, per GPU"),
            tr("Concurrency x context: for each GPU, the most sequences that run at once against "
               "tokens per sequence."),
            tr("headroom frontier FILE [--gpu ID]... [--tensor 1,2,4] [--contiguous] "
               "[--format text|json|csv] [--set key.path=value]..."),
            {{QStringLiteral("FILE"), tr("An inference .headroom.json scenario.")}},
            {QCommandLineOption(QStringLiteral("gpu"),
                                tr("A catalog GPU (repeatable; default: the scenario's)."),
                                QStringLiteral("id")),
             QCommandLineOption(QStringLiteral("tensor"),
                                tr("Tensor-parallel sizes for the first GPU, e.g. 1,2,4."),
                                QStringLiteral("sizes")),
             QCommandLineOption(QStringLiteral("contiguous"),
                                tr("Add each curve with contiguous allocation (every sequence "
                                   "reserves max_model_len, as a static cache).")),
             QCommandLineOption(QStringLiteral("set"), tr("Override a scenario key first."),
                                QStringLiteral("key.path=value")),
             QCommandLineOption(QStringLiteral("format"), tr("text, json or csv."),
                                QStringLiteral("format"), QStringLiteral("text"))}};
}

int runFrontier(const QStringList &arguments)
{
    QCommandLineParser parser;
    if (const auto stop = parseCommand(parser, arguments, frontierHelp()))
        return *stop;
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json") && format != QLatin1String("csv"))
        return fail(tr("--format: must be text, json or csv (got %1)").arg(q(quoteText(format.toStdString()))));
    FrontierOptions options;
    for (const QString &id : parser.values(QStringLiteral("gpu")))
        options.gpuIds.push_back(id.toStdString());
    for (const QString &size : parser.value(QStringLiteral("tensor")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const uint value = size.trimmed().toUInt(&ok);
        if (!ok || value < 1 || value > 65536)
            return fail(tr("--tensor: %1 is not a whole number from 1 to 65,536").arg(size));
        options.tensor.push_back(value);
    }
    options.contiguous = parser.isSet(QStringLiteral("contiguous"));
    const QString path = parser.positionalArguments().at(1);
    try {
        const Scenario scenario = loadScenario(path, parser.values(QStringLiteral("set")));
        // The split each size asks of the engine, before any curve is drawn for it.
        for (const std::uint32_t size : options.tensor)
            if (const std::string problem = tensorSplitProblem(scenario, size); !problem.empty())
                return fail(tr("--tensor: %1").arg(safe(problem)));
        for (const std::string &id : options.gpuIds)
            if (!builtinCatalog().findGpu(id))
                return fail(tr("--gpu: unknown GPU %1").arg(q(id)));
        const Frontier f = servingFrontier(scenario, options);
        if (format == QLatin1String("json"))
            out() << q(frontierToJson(f).dump(2)) << '\n';
        else if (format == QLatin1String("csv"))
            out() << q(frontierToCsv(f));
        else
            printText(f);
        out().flush();
        return ExitOk;
    } catch (const SolveError &error) {
        return fail(QString::fromStdString(error.what()));
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + errorText(error));
    }
}

} // namespace headroom::cli
