// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom validate DIR [--format text|json]`: the estimator against published measurements.
#include "validatecommand.h"

#include "cli.h"
#include "clicommon.h"
#include "io/inputpolicy.h"
#include "servingcommands.h"
#include "accuracy/firstseen.h"
#include "accuracy/validation.h"

#include <QDir>
#include <QFileInfo>
#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

/// Measurement cases one run reads (the repository has about a hundred; docs/input-limits.md).
constexpr qsizetype kMaxCases = 10000;

QString percent(double fraction, int decimals = 1)
{
    return QString::number(fraction * 100, 'f', decimals) + QLatin1Char('%');
}

QString signedPercent(double fraction)
{
    return (fraction >= 0 ? QStringLiteral("+") : QString()) + percent(fraction);
}

QString gigabytes(std::uint64_t bytes)
{
    return QString::number(double(bytes) / 1e9, 'f', 2);
}

void printSummaryHeader(QTextStream &o, int width)
{
    o << tr("group").leftJustified(width) << "  " << tr("cases").rightJustified(5) << "  "
      << tr("median").rightJustified(7) << "  " << tr("p90").rightJustified(7) << "  "
      << tr("max").rightJustified(7) << "  " << tr("<=10%").rightJustified(6) << "  "
      << tr("<=20%").rightJustified(6) << '\n';
}

void printSummary(QTextStream &o, const QString &name, const ErrorSummary &s, int width)
{
    o << name.leftJustified(width) << "  " << QString::number(s.count).rightJustified(5) << "  "
      << percent(s.medianAbs).rightJustified(7) << "  " << percent(s.p90Abs).rightJustified(7)
      << "  " << percent(s.maxAbs).rightJustified(7) << "  "
      << percent(s.within10, 0).rightJustified(6) << "  "
      << percent(s.within20, 0).rightJustified(6) << '\n';
}

void printText(const ValidationReport &report, const std::vector<FirstSeen> &ledger)
{
    QTextStream &o = out();
    int idWidth = 4;
    for (const CaseResult &c : report.cases)
        idWidth = std::max(idWidth, int(c.measurement.id.size()));
    o << tr("case").leftJustified(idWidth) << "  " << tr("method").leftJustified(9) << "  "
      << tr("reading").leftJustified(9) << "  " << tr("split").leftJustified(7) << "  "
      << tr("measured GB").rightJustified(11) << "  " << tr("estimated GB").rightJustified(12)
      << "  " << tr("error").rightJustified(8) << '\n';
    for (const CaseResult &c : report.cases)
        o << safe(c.measurement.id).leftJustified(idWidth) << "  "
          << safe(c.measurement.method).leftJustified(9) << "  "
          << QString::fromLatin1(readingName(c.measurement.reading)).leftJustified(9) << "  "
          << QString::fromLatin1(splitName(c.measurement.split)).leftJustified(7) << "  "
          << gigabytes(c.measurement.measuredBytes).rightJustified(11) << "  "
          << gigabytes(c.estimatedBytes).rightJustified(12) << "  "
          << signedPercent(c.error).rightJustified(8) << '\n';

    // A group's name comes from the files (a source repository, a framework): a table cell
    // shows at most 60 characters of it, so one file cannot widen every line of the table.
    const auto groupCell = [](const std::string &name) { return QString::fromStdString(quoteText(name, 60)); };
    int width = 9;
    for (const auto *groups : {&report.bySplit, &report.byMethod, &report.byFramework, &report.bySource})
        for (const GroupSummary &g : *groups)
            width = std::max(width, int(groupCell(g.name).size()));
    o << '\n' << tr("Absolute error, (estimate - measured) / measured:") << '\n';
    printSummaryHeader(o, width);
    printSummary(o, tr("all"), report.overall, width);
    for (const auto *groups : {&report.bySplit, &report.byMethod, &report.byFramework, &report.bySource}) {
        o << '\n';
        for (const GroupSummary &g : *groups)
            printSummary(o, groupCell(g.name), g.summary, width);
    }
    if (ledger.empty()) {
        o << '\n' << tr("No first-seen ledger (%1) in this folder: no bands.").arg(QLatin1String(kFirstSeenFile)) << '\n';
        o.flush();
        return;
    }
    o << '\n'
      << tr("First-seen |error| (the estimator when each case was added; 'unsafe' = first seen more than 10% "
            "low; 'now' = median of this estimator):")
      << '\n';
    int fsWidth = 10;
    for (const FirstSeenSummary &s : summarizeFirstSeen(report, ledger))
        fsWidth = std::max(fsWidth, int(s.name.size()));
    o << tr("group").leftJustified(fsWidth) << "  " << tr("cases").rightJustified(5) << "  "
      << tr("median").rightJustified(7) << "  " << tr("p90").rightJustified(7) << "  "
      << tr("max").rightJustified(7) << "  " << tr("unsafe").rightJustified(6) << "  "
      << tr("now").rightJustified(7) << '\n';
    for (const FirstSeenSummary &s : summarizeFirstSeen(report, ledger))
        o << safe(s.name).leftJustified(fsWidth) << "  " << QString::number(s.summary.count).rightJustified(5)
          << "  " << percent(s.summary.medianAbs).rightJustified(7) << "  "
          << percent(s.summary.p90Abs).rightJustified(7) << "  " << percent(s.summary.maxAbs).rightJustified(7)
          << "  " << percent(s.unsafe, 0).rightJustified(6) << "  " << percent(s.currentMedian).rightJustified(7)
          << '\n';
    o << '\n'
      << tr("Error bands (80th percentile of first-seen |error| over blind cases; a group is used with at "
            "least %1 cases):")
             .arg(kMinBandCases)
      << '\n';
    std::vector<MeasurementCase> measured;
    for (const CaseResult &c : report.cases)
        measured.push_back(c.measurement);
    for (const BandRow &b : computeFirstSeenBands(measured, ledger)) {
        QString group = safe(b.method);
        if (!b.reading.empty())
            group += QLatin1String(" x ") + safe(b.reading);
        if (!b.framework.empty())
            group = safe(b.framework) + QLatin1String(" x ") + group;
        o << "  " << group.leftJustified(34) << ' ' << QString::fromUtf8("\u00b1") << b.percent << "%  "
          << tr("%1 cases, unsafe %2%").arg(b.cases).arg(b.unsafePercent)
          << (b.cases < kMinBandCases ? tr(" (too few: not used)") : QString()) << '\n';
    }
    o.flush();
}

} // namespace

CommandHelp validateHelp()
{
    return {QStringLiteral("validate"), tr("compare estimates with published measurements"),
            tr("Compare estimates with published, measured peaks."),
            tr("headroom validate DIR [--format text|json]"),
            {{QStringLiteral("DIR"), tr("A folder of headroom-measurement cases, or of headroom-serving-log cases (*.json).")}},
            {QCommandLineOption(QStringLiteral("format"), tr("text or json."),
                                QStringLiteral("format"), QStringLiteral("text"))}};
}

int runValidate(const QStringList &arguments)
{
    QCommandLineParser parser;
    if (const auto stop = parseCommand(parser, arguments, validateHelp()))
        return *stop;
    const QStringList positional = parser.positionalArguments();
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return fail(tr("--format: must be text or json (got %1)").arg(q(quoteText(format.toStdString()))));

    const QDir dir(positional.at(1));
    if (!dir.exists())
        return fail(tr("%1: no such directory").arg(positional.at(1)));
    const QStringList files =
        dir.entryList({QStringLiteral("*.json")}, QDir::Files | QDir::Readable, QDir::Name);
    if (files.isEmpty())
        return fail(tr("%1: no measurement cases (*.json)").arg(positional.at(1)));
    // A case file that is a link out of the folder (/etc/passwd) is refused before it is read:
    // the JSON error quoted the first bytes of whatever it led to (issue 29's path rule).
    const QString folder = QFileInfo(dir.absolutePath()).canonicalFilePath();
    for (const QString &file : files) {
        const QString where = QFileInfo(dir.filePath(file)).canonicalFilePath();
        if (where.isEmpty() || !(folder == QLatin1String("/") || where.startsWith(folder + QLatin1Char('/'))))
            return fail(tr("%1: leads outside the folder of cases").arg(dir.filePath(file)));
    }
    if (files.size() > kMaxCases)
        return fail(tr("%1: %2 measurement cases, more than the %3 one run reads")
                        .arg(positional.at(1))
                        .arg(files.size())
                        .arg(kMaxCases));

    // A folder of serving-engine start-up logs gets the serving report (KV bytes and tokens).
    try {
        if (readFile(dir.filePath(files.first())).contains("\"headroom-serving-log\""))
            return runServingValidate(positional.at(1), files, format == QLatin1String("json"));
    } catch (const std::exception &error) {
        // The message names the file it is about.
        return fail(dir.filePath(files.first()) + QLatin1String(": ") + errorText(error));
    }

    std::vector<MeasurementCase> cases;
    try {
        for (const QString &file : files) {
            QByteArray bytes;
            try {
                bytes = readFile(dir.filePath(file));
            } catch (const InputError &error) {
                return fail(dir.filePath(file) + QLatin1String(": ") + q(error.detail));
            }
            cases.push_back(
                parseMeasurementCase(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                     dir.filePath(file).toStdString()));
        }
        std::vector<FirstSeen> ledger;
        const QString ledgerPath = dir.filePath(QLatin1String(kFirstSeenFile));
        if (QFileInfo::exists(ledgerPath)) {
            QByteArray bytes;
            try {
                bytes = readFile(ledgerPath);
            } catch (const InputError &error) {
                return fail(ledgerPath + QLatin1String(": ") + q(error.detail));
            }
            ledger = parseFirstSeenLedger(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                          ledgerPath.toStdString());
        }
        const ValidationReport report = validate(cases);
        if (format == QLatin1String("json")) {
            nlohmann::json doc = reportToJson(report);
            if (!ledger.empty())
                doc["first_seen"] = firstSeenJson(report, ledger);
            out() << q(doc.dump(2)) << '\n';
        } else {
            printText(report, ledger);
        }
        out().flush();
        return ExitOk;
    } catch (const std::exception &error) {
        return fail(errorText(error));
    }
}

} // namespace headroom::cli
