// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom advise FILE [--gpu ID] [--format text|json] [--unit GiB|GB] [--set key=value]...`
#include "advisecommand.h"

#include "solve/advicejson.h"
#include "advicetext.h"
#include "solve/advisor.h"
#include "cli.h"
#include "clicommon.h"
#include "solvetext.h"
#include "chart/consumerstyle.h"
#include "scenario/scenariojson.h"
#include "estimate/verdict.h"
#include "io/inputpolicy.h"

#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

constexpr int kBarWidth = 24;

/// A bar of the peak against the starting peak, with '|' where the GPU's capacity falls.
QString bar(std::uint64_t bytes, std::uint64_t startBytes, std::uint64_t capacity)
{
    const auto column = [&](std::uint64_t b) {
        // Clamped before the conversion: a capacity far above a tiny peak would overflow an int.
        const double at = double(b) / double(std::max<std::uint64_t>(startBytes, 1)) * kBarWidth + 0.5;
        return int(std::min(at, double(kBarWidth + 1)));
    };
    QString text(kBarWidth + 1, QLatin1Char(' '));
    for (int i = 0; i < std::min(column(bytes), kBarWidth + 1); ++i)
        text[i] = QLatin1Char('#');
    const int line = column(capacity);
    if (line <= kBarWidth)
        text[line] = QLatin1Char('|');
    return text;
}

void printText(const Advice &advice, const Scenario &scenario, Unit unit)
{
    QTextStream &o = out();
    if (!scenario.name.empty())
        o << safe(scenario.name) << '\n';
    o << tr("What to change to fit %1:")
             .arg(gpuLabel(q(advice.gpuName), advice.capacityBytes, unit))
      << "\n\n";
    int leverWidth = tr("Current configuration").size();
    for (std::size_t i = 0; i < advice.steps.size(); ++i)
        leverWidth = std::max(leverWidth, int(adviceLeverText(advice, i).size()));
    const auto row = [&](const QString &step, const QString &lever, const QString &saves,
                         const QString &peak, const QString &barText, const QString &cost) {
        o << step.rightJustified(4) << "  " << lever.leftJustified(leverWidth) << "  "
          << saves.rightJustified(10) << "  " << peak.rightJustified(10) << "  " << barText << "  "
          << cost << '\n';
    };
    row(tr("Step"), tr("Lever"), tr("Saves"), tr("Peak"), QString(kBarWidth + 1, QLatin1Char(' ')),
        tr("Cost"));
    const std::uint64_t start = advice.startPeakDeviceBytes;
    row(QStringLiteral("0"), tr("Current configuration"), QString(), bytesText(start, unit),
        bar(start, start, advice.capacityBytes), QString());
    for (std::size_t i = 0; i < advice.steps.size(); ++i) {
        const AdviceStep &step = advice.steps[i];
        row(QString::number(i + 1), adviceLeverText(advice, i),
            QStringLiteral("-") + bytesText(step.savedBytes, unit),
            bytesText(step.peakDeviceBytes, unit),
            bar(step.peakDeviceBytes, start, advice.capacityBytes),
            adviceCostText(advice, i, unit));
    }
    o << '\n';
    const std::uint64_t peak = advice.finalPeakDeviceBytes();
    const QString now = verdictText(q(advice.gpuName),
                                      std::int64_t(advice.capacityBytes) - std::int64_t(advice.startPeakDeviceBytes), unit);
    o << tr("Now: %1.").arg(now) << '\n';
    if (advice.steps.empty() && advice.fits)
        o << tr("It already fits: %1 to spare.").arg(bytesText(advice.capacityBytes - peak, unit))
          << '\n';
    else if (advice.fits)
        o << tr("Fits after %1 step(s): %2 to spare.")
                 .arg(QString::number(advice.steps.size()),
                      bytesText(advice.capacityBytes - peak, unit))
          << '\n';
    else
        o << tr("No lever makes it fit: after every one the peak is %1, %2 over. %3")
                 .arg(bytesText(peak, unit), bytesText(peak - advice.capacityBytes, unit),
                      whatWouldFitText(advice.final(), advice.gpuId, unit))
          << '\n';
    // The verdict that knows its band: the start and the final configuration, three states.
    const int startBand = errorBandPercent(advice.start);
    const int finalBand = errorBandPercent(advice.final());
    const FitState startState = fitState(advice.startPeakDeviceBytes, advice.capacityBytes, startBand);
    const FitState finalState = fitState(peak, advice.capacityBytes, finalBand);
    o << tr("State now: %1; after the steps: %2.")
             .arg(QString::fromStdString(fitStateText(startState, startBand)),
                  QString::fromStdString(fitStateText(finalState, finalBand)))
      << '\n';
    if (advice.then)
        o << tr("Then: %1").arg(solveAnswerText(*advice.then, unit)) << '\n';
    if (!advice.skipped.empty()) {
        o << tr("Not used:") << '\n';
        for (const SkippedLever &s : advice.skipped)
            o << "  " << skippedLeverText(advice, s) << '\n';
    }
    if (!advice.steps.empty()) {
        o << '\n' << tr("Final configuration:") << '\n';
        for (const QString &line : keySettingsText(advice.final()))
            o << "  " << line << '\n';
        o << tr("Changed keys (use with --set):") << '\n';
        for (const auto &[key, value] : scenarioChanges(advice.start, advice.final()))
            o << "  " << safe(key) << '='
              << safe(value.is_string() ? value.get<std::string>() : value.dump()) << '\n';
    }
    o.flush();
}

} // namespace

CommandHelp adviseHelp()
{
    return {QStringLiteral("advise"),
            tr("what to change, lever by lever, until a scenario fits a GPU"),
            tr("What to change, lever by lever, until a scenario fits a GPU (the diagnostic "
               "sequence of \"Where the memory actually goes\", then the ladder of \"The Memory "
               "Game\")."),
            tr("headroom advise FILE [--gpu ID] [--format text|json] [--unit GiB|GB] "
               "[--set key.path=value]..."),
            {{QStringLiteral("FILE"), tr("A .headroom.json scenario.")}},
            {QCommandLineOption(QStringLiteral("gpu"),
                                tr("The GPU to fit (catalog id, e.g. rtx-4090); default: the scenario's "
                                   "target GPU (target_gpu, else the largest of its gpus)."),
                                QStringLiteral("id")),
             QCommandLineOption(QStringLiteral("set"),
                                tr("Override a scenario key, e.g. train.micro_batch=8."),
                                QStringLiteral("key.path=value")),
             QCommandLineOption(QStringLiteral("format"), tr("text or json."),
                                QStringLiteral("format"), QStringLiteral("text")),
             unitOption()}};
}

int runAdvise(const QStringList &arguments)
{
    QCommandLineParser parser;
    if (const auto stop = parseCommand(parser, arguments, adviseHelp()))
        return *stop;
    const QStringList positional = parser.positionalArguments();
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return fail(tr("--format: must be text or json (got %1)").arg(q(quoteText(format.toStdString()))));
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;
    QString gpuId = parser.value(QStringLiteral("gpu"));
    if (parser.isSet(QStringLiteral("gpu")) && !builtinCatalog().findGpu(gpuId.toStdString())) {
        QStringList ids;
        for (const Gpu &gpu : builtinCatalog().gpus)
            ids << q(gpu.id);
        return fail(
            tr("--gpu: unknown GPU %1 (known: %2)").arg(gpuId, ids.join(QLatin1String(", "))));
    }
    const QString path = positional.at(1);
    try {
        const Scenario scenario = loadScenario(path, parser.values(QStringLiteral("set")));
        if (!parser.isSet(QStringLiteral("gpu"))) {
            const Gpu *target = targetGpu(scenario);
            if (!target)
                return fail(tr("--gpu: the scenario ticks no GPU; name one (e.g. --gpu rtx-4090)"));
            gpuId = q(target->id);
        }
        const Advice advice = advise(scenario, gpuId.toStdString());
        if (format == QLatin1String("json")) {
            nlohmann::json doc = adviceToJson(advice);
            for (std::size_t i = 0; i < advice.steps.size(); ++i) {
                doc["steps"][i]["title"] = adviceLeverText(advice, i).toStdString();
                doc["steps"][i]["cost"] = adviceCostText(advice, i, unit).toStdString();
            }
            for (std::size_t i = 0; i < advice.skipped.size(); ++i)
                doc["skipped"][i]["why"] = skippedLeverText(advice, advice.skipped[i]).toStdString();
            const int finalBand = errorBandPercent(advice.final());
            doc["state"] = fitStateKey(fitState(advice.finalPeakDeviceBytes(), advice.capacityBytes, finalBand));
            doc["start_state"] = fitStateKey(
                fitState(advice.startPeakDeviceBytes, advice.capacityBytes, errorBandPercent(advice.start)));
            doc["error_band_percent"] = finalBand;
            if (!advice.fits)
                doc["what_would_fit"] = whatWouldFitText(advice.final(), advice.gpuId, unit).toStdString();
            out() << q(doc.dump(2)) << '\n';
        } else {
            printText(advice, scenario, unit);
        }
        out().flush();
        return ExitOk;
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + errorText(error));
    }
}

} // namespace headroom::cli
