// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom estimate FILE [--set key=value]... [--format text|json|csv] [--unit GB|GiB]`
#include "cli.h"
#include "clicommon.h"
#include "consumerstyle.h"
#include "estimatejson.h"
#include "scenariojson.h"

#include <QCoreApplication>
#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

void printText(const Scenario &scenario, const Estimate &e, Unit unit)
{
    QTextStream &o = out();
    if (!scenario.name.empty())
        o << q(scenario.name) << '\n';
    o << tr("Parameters: %1 total, %2 trainable")
             .arg(q(groupDigits(e.totalParams)), q(groupDigits(e.trainableParams)))
      << (e.rough ? tr(" (rough model)") : QString()) << "\n\n";

    int nameWidth = 10;
    for (const Consumer &c : e.consumers)
        nameWidth = std::max(nameWidth, int(consumerDisplayName(c.id).size()));
    o << tr("Consumer").leftJustified(nameWidth) << "  " << tr("Size").rightJustified(11) << "  "
      << tr("Share").rightJustified(6) << "  " << tr("Formula") << '\n';
    for (const Consumer &c : e.consumers) {
        o << consumerDisplayName(c.id).leftJustified(nameWidth) << "  "
          << bytesText(c.bytes, unit).rightJustified(11) << "  "
          << (QString::number(consumerShare(e, c) * 100, 'f', 1) + QLatin1Char('%')).rightJustified(6)
          << "  " << q(c.formula(unit)) << '\n';
    }
    o << '\n'
      << tr("Peak (%1 phase): %2 allocated, %3 reserved, %4 on the device")
             .arg(phaseDisplayName(e.peak.phase), bytesText(e.peak.allocatedBytes, unit),
                  bytesText(e.peak.reservedBytes, unit), bytesText(e.peak.deviceBytes, unit))
      << '\n';
    if (e.hostBytes)
        o << tr("Offloaded to CPU RAM: %1").arg(bytesText(e.hostBytes, unit)) << '\n';
    for (const GpuFit &g : e.gpus) {
        const QString capacity = bytesText(g.capacityBytes, unit);
        const std::uint64_t margin = static_cast<std::uint64_t>(g.headroomBytes < 0 ? -g.headroomBytes
                                                                                     : g.headroomBytes);
        if (g.fits)
            o << tr("  fits %1 (%2): %3 to spare").arg(q(g.name), capacity, bytesText(margin, unit));
        else
            o << tr("  does not fit %1 (%2) by %3").arg(q(g.name), capacity, bytesText(margin, unit));
        o << '\n';
    }
    if (!e.assumptions.empty()) {
        o << '\n' << tr("Assumptions:") << '\n';
        for (const std::string &a : e.assumptions)
            o << "  - " << q(a) << '\n';
    }
    o.flush();
}

} // namespace

int runEstimate(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(tr("Estimate the GPU memory of a scenario."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("estimate"), tr("The command."));
    parser.addPositionalArgument(QStringLiteral("FILE"), tr("A .headroom.json scenario."));
    const QCommandLineOption setOption(QStringLiteral("set"),
                                       tr("Override a scenario key, e.g. train.micro_batch=8."),
                                       QStringLiteral("key.path=value"));
    const QCommandLineOption formatOption(QStringLiteral("format"), tr("text, json or csv."),
                                          QStringLiteral("format"), QStringLiteral("text"));
    const QCommandLineOption unitOption(QStringLiteral("unit"), tr("GB or GiB."),
                                        QStringLiteral("unit"), QStringLiteral("GB"));
    parser.addOption(setOption);
    parser.addOption(formatOption);
    parser.addOption(unitOption);
    if (!parser.parse(arguments))
        return fail(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out() << parser.helpText();
        out().flush();
        return ExitOk;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2)
        return fail(tr("usage: headroom estimate FILE [--set key.path=value]... "
                       "[--format text|json|csv] [--unit GB|GiB]"));
    const QString format = parser.value(formatOption);
    if (format != QLatin1String("text") && format != QLatin1String("json") &&
        format != QLatin1String("csv"))
        return fail(tr("--format: must be text, json or csv (got %1)").arg(format));
    Unit unit = Unit::GB;
    if (!parseUnit(parser.value(unitOption), unit))
        return ExitBadInput;
    const QString path = positional.at(1);
    try {
        const Scenario scenario = loadScenario(path, parser.values(setOption));
        const Estimate e = estimate(scenario);
        if (format == QLatin1String("json"))
            out() << q(estimateToJson(e, unit).dump(2)) << '\n';
        else if (format == QLatin1String("csv"))
            out() << q(estimateToCsv(e, unit));
        else
            printText(scenario, e, unit);
        out().flush();
        return ExitOk;
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + QString::fromStdString(error.what()));
    }
}


} // namespace headroom::cli
