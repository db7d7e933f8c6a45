// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom render FILE --out chart.png|svg|pdf [--width W] [--height H] [--scale S]
//  [--theme light|dark] [--view bars|phases] [--unit GiB|GB] [--set key=value]...`
// A lesson ("format": "headroom-lesson") renders as a handout PDF, or one step with --step N.
#include "rendercommand.h"

#include "chart/chartdata.h"
#include "chart/chartexport.h"
#include "cli.h"
#include "clicommon.h"
#include "document/documentio.h"
#include "classroom/lessonexport.h"
#include "modelimport.h"
#include "document/scenariomodel.h"
#include "inputfile.h"
#include "io/inputpolicy.h"
#include "measure/enginelog.h"
#include "measure/probefile.h"
#include "measure/servingcase.h"
#include "window/measurementview.h"

#include <QFileInfo>
#include <nlohmann/json.hpp>
#include <optional>

namespace headroom::cli {

namespace {

/// A whole number option within [low, high]; prints the error and returns false otherwise.
bool parseNumber(const QString &name, const QString &text, double low, double high, double &value)
{
    bool ok = false;
    value = text.toDouble(&ok);
    if (ok && value >= low && value <= high)
        return true;
    fail(tr("--%1: must be a number from %2 to %3 (got %4)").arg(name).arg(low).arg(high).arg(text));
    return false;
}

/// The file's scenario (and pins, for a comparison); --set changes the current scenario.
ScenarioDocument readRenderDocument(const QString &path, nlohmann::json doc,
                                    const QStringList &overrides)
{
    if (!doc.is_object())
        throw ScenarioError("", "the file is not a JSON object");
    const bool comparison = doc.value("format", nlohmann::json()) == "headroom-comparison";
    // The file's name described the file's scenario: with changes it no longer does.
    if (!overrides.isEmpty()) {
        nlohmann::json &current = comparison && doc.contains("current") ? doc["current"] : doc;
        if (current.is_object())
            current.erase("name");
    }
    for (const QString &assignment : overrides) {
        if (comparison && doc.contains("current"))
            applyOverride(doc["current"], assignment.toStdString());
        else
            applyOverride(doc, assignment.toStdString());
    }
    return documentFromJson(doc, builtinCatalog(), configResolver(path));
}

/// Why a scenario cannot be drawn (as `estimate` would refuse it), or nothing.
std::optional<std::string> estimateProblem(const Scenario &scenario)
{
    try {
        estimate(scenario, Detail::BytesOnly);
    } catch (const std::exception &error) {
        return std::string(error.what());
    }
    return std::nullopt;
}

} // namespace

CommandHelp renderHelp()
{
    return {QStringLiteral("render"),
            tr("draw the chart of a scenario into PNG, SVG or PDF (no display needed)"),
            tr("Draw the budget chart of a scenario or comparison file, as the window does, into a "
               "PNG, SVG or PDF file; a lesson becomes a handout PDF, or one step with --step N. "
               "Needs no display."),
            tr("headroom render FILE --out chart.png|svg|pdf [--width W] [--height H] "
               "[--scale S] [--theme light|dark] [--view bars|phases] [--unit GiB|GB] "
               "[--set key=value]... | headroom render LESSON.json --out deck.pdf [--step N]"),
            {{QStringLiteral("FILE"), tr("A scenario, comparison or lesson file.")}},
            {QCommandLineOption(QStringLiteral("out"), tr("chart.png, chart.svg or chart.pdf."),
                                QStringLiteral("file")),
             QCommandLineOption(QStringLiteral("width"), tr("Width in logical pixels."),
                                QStringLiteral("W"), QStringLiteral("1920")),
             QCommandLineOption(QStringLiteral("height"), tr("Height in logical pixels."),
                                QStringLiteral("H"), QStringLiteral("1080")),
             QCommandLineOption(QStringLiteral("scale"), tr("PNG pixels per logical pixel."),
                                QStringLiteral("S"), QStringLiteral("2")),
             QCommandLineOption(QStringLiteral("theme"), tr("light or dark."),
                                QStringLiteral("theme"), QStringLiteral("light")),
             QCommandLineOption(QStringLiteral("view"), tr("bars (scenarios side by side), phases, or ranks (every kind of GPU and the CPU RAM of a multi-GPU run)."),
                                QStringLiteral("view"), QStringLiteral("bars")),
             unitOption(),
             QCommandLineOption(QStringLiteral("measured"),
                                tr("With --view phases: the probe's readings (headroom_probe.py's JSON) drawn across "
                                   "each phase's bar; with --view bars: what a serving engine's start-up log printed."),
                                QStringLiteral("probe.json")),
             QCommandLineOption(QStringLiteral("set"),
                                tr("Override a key of the current scenario, e.g. "
                                   "train.micro_batch=8."),
                                QStringLiteral("key.path=value")),
             QCommandLineOption(QStringLiteral("step"),
                                tr("A lesson's step N (from 1) alone, as PNG, SVG or PDF."),
                                QStringLiteral("N"))}};
}

int runRender(const QStringList &arguments)
{
    QCommandLineParser parser;
    const CommandHelp help = renderHelp();
    if (const auto stop = parseCommand(parser, arguments, help))
        return *stop;
    if (!parser.isSet(QStringLiteral("out")))
        return failUsage(help.usage);
    const QStringList positional = parser.positionalArguments();
    const QString outPath = parser.value(QStringLiteral("out"));
    ExportFormat format = ExportFormat::Png;
    if (!exportFormatFor(outPath, format) || format == ExportFormat::Csv || format == ExportFormat::Json)
        return fail(tr("--out: must end in .png, .svg or .pdf (got %1)").arg(outPath));
    double width = 0, height = 0, scale = 0;
    if (!parseNumber(QStringLiteral("width"), parser.value(QStringLiteral("width")), 16, 16384, width) ||
        !parseNumber(QStringLiteral("height"), parser.value(QStringLiteral("height")), 16, 16384, height) ||
        !parseNumber(QStringLiteral("scale"), parser.value(QStringLiteral("scale")), 0.25, 8, scale))
        return ExitBadInput;
    const QString theme = parser.value(QStringLiteral("theme"));
    if (theme != QLatin1String("light") && theme != QLatin1String("dark"))
        return fail(tr("--theme: must be light or dark (got %1)").arg(q(quoteText(theme.toStdString()))));
    const QString viewName = parser.value(QStringLiteral("view"));
    const std::optional<ChartView> view = chartViewFromName(viewName);
    if (!view)
        return fail(tr("--view: must be bars, phases or ranks (got %1)").arg(q(quoteText(viewName.toStdString()))));
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;

    ChartExportOptions sizeOptions;
    sizeOptions.size = QSize(qRound(width), qRound(height));
    sizeOptions.scale = scale;
    if (const QString error = checkExportOptions(format, sizeOptions); !error.isEmpty())
        return fail(tr("--width, --height, --scale: %1").arg(error));

    const QString path = positional.at(1);
    nlohmann::json doc;
    try {
        const QByteArray bytes = readFile(path);
        doc = parseJsonText(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + errorText(error));
    }
    if (doc.is_object() && doc.value("format", nlohmann::json()) == "headroom-lesson") {
        LessonExportOptions options;
        options.chart = {QSize(qRound(width), qRound(height)), scale, theme == QLatin1String("dark")};
        options.unit = unit;
        options.view = *view;
        double step = 0;
        if (parser.isSet(QStringLiteral("step")) &&
            !parseNumber(QStringLiteral("step"), parser.value(QStringLiteral("step")), 1,
                         double(limits::kLessonSteps), step))
            return ExitBadInput;
        if (step != double(qRound(step)))
            return fail(tr("--step: must be a whole number (got %1)").arg(q(quoteText(parser.value(QStringLiteral("step")).toStdString()))));
        if (parser.isSet(QStringLiteral("set")))
            return fail(tr("--set: applies to scenarios, not to lessons"));
        if (!parser.isSet(QStringLiteral("step")) && format != ExportFormat::Pdf)
            return fail(tr("--out: a whole lesson is written as .pdf; add --step N for one step as PNG or SVG"));
        QString error;
        try {
            const Lesson parsed = lessonFromJson(doc);
            // The closing comparison, when the lesson asks for one, is the page after the last step.
            if (step > double(lessonPageCount(parsed)))
                return fail(parsed.comparison ? tr("--step: the lesson has %1 steps and the comparison %2 (got %3)")
                                                    .arg(parsed.steps.size()).arg(lessonPageCount(parsed)).arg(step)
                                              : tr("--step: the lesson has %1 steps (got %2)").arg(parsed.steps.size()).arg(step));
            for (std::size_t i = 0; i < parsed.steps.size(); ++i)
                if (step == 0 || std::size_t(step) == i + 1)
                    if (const auto problem = estimateProblem(parsed.steps[i].scenario))
                        return fail(path + QStringLiteral(": steps[%1]: ").arg(i) + q(*problem));
            error = exportLesson(outPath, format, parsed, int(step) - 1, options);
        } catch (const std::exception &problem) {
            return fail(path + QLatin1String(": ") + errorText(problem));
        }
        return error.isEmpty() ? ExitOk : fail(error);
    }
    if (parser.isSet(QStringLiteral("step")))
        return fail(tr("--step: only lessons have steps"));
    ScenarioModel model;
    try {
        const ScenarioDocument document = readRenderDocument(path, std::move(doc), parser.values(QStringLiteral("set")));
        // What `estimate` refuses is not drawn either: no empty chart, exit 2.
        for (std::size_t i = 0; i < document.pins.size(); ++i)
            if (const auto problem = estimateProblem(document.pins[i]))
                return fail(path + QStringLiteral(": pins[%1]: ").arg(i) + q(*problem));
        if (const auto problem = estimateProblem(document.current))
            return fail(path + QLatin1String(": ") + q(*problem));
        headroom::loadDocument(model, document);
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + errorText(error));
    }
    model.setUnit(unit);
    model.setView(*view);
    ChartExportOptions options;
    options.size = QSize(qRound(width), qRound(height));
    options.scale = scale;
    options.dark = theme == QLatin1String("dark");
    ChartData data = chartDataFor(model);
    if (parser.isSet(QStringLiteral("measured"))) {
        // The probe's peak of each phase across the estimate's bar of the same phase.
        const QString probePath = parser.value(QStringLiteral("measured"));
        if (!model.estimateError().isEmpty())
            return fail(path + QLatin1String(": ") + model.estimateError());
        try {
            const QByteArray bytes = readInputFile(probePath, kEngineLogBytes);
            const std::string_view text(bytes.constData(), std::size_t(bytes.size()));
            if (const TorchFileKind kind = torchFileKind(text); kind != TorchFileKind::None) {
                // PyTorch's memory_summary() text, memory timeline or snapshot pickle: its peak
                // allocated, drawn as the window draws it (addMeasuredOverlay).
                if (*view != ChartView::Bars && *view != ChartView::Phases)
                    return fail(tr("--measured: PyTorch's peak allocated is drawn in the bars or the phases view "
                                   "(add --view bars or --view phases)"));
                OpenedMeasurement m;
                m.path = probePath;
                m.torchBytes = bytes;
                m.torch = compareTorchFile(text, model.scenario(), model.estimate());
                if (m.torch->peakAllocated <= 0)
                    return fail(probePath + tr(": %1 holds no peak allocated figure to draw (a snapshot without "
                                               "its allocation trace); headroom compare lists what it holds")
                                                .arg(QString::fromLatin1(torchToolName(kind))));
                addMeasuredOverlay(m, model, data);
                const QString error = exportChart(outPath, format, data, options);
                return error.isEmpty() ? ExitOk : fail(error);
            }
            if (looksLikeEngineLog(text) && text.find("\"headroom-probe\"") == std::string_view::npos) {
                // A serving engine's log: what it printed, added up, across the current bar.
                if (*view != ChartView::Bars)
                    return fail(tr("--measured: a start-up log is drawn in the bars view"));
                const EngineLog log = readEngineLog(text);
                std::vector<std::string> added;
                const std::optional<double> measured = logMeasuredTotal(log, added);
                if (!measured)
                    return fail(probePath + tr(": the log prints neither the engine's budget nor its weights and KV "
                                               "cache: no total to draw (headroom compare lists what it printed)"));
                const double total = *measured;
                QStringList parts;
                for (const std::string &part : added)
                    parts << QString::fromStdString(part);
                data.measuredBytes = std::uint64_t(std::llround(std::min(total, 1e18)));
                data.measuredLabel = tr("%1 log").arg(QString::fromLatin1(logEngineName(log.engine)));
                const QString note = tr("Bold line: %1 as the %2 log printed it (%3); the bar is the estimate, not tuned to it.")
                                         .arg(parts.join(QStringLiteral(" + ")), QString::fromLatin1(logEngineName(log.engine)),
                                              QFileInfo(probePath).fileName());
                data.footnote = data.footnote.isEmpty() ? note : data.footnote + QLatin1Char(' ') + note;
                const QString error = exportChart(outPath, format, data, options);
                return error.isEmpty() ? ExitOk : fail(error);
            }
            if (*view != ChartView::Phases)
                return fail(tr("--measured: the probe's readings are drawn in the phases view (add --view phases)"));
            const ProbeFile probe = readProbeFile(std::string_view(bytes.constData(), std::size_t(bytes.size())));
            const ProbeComparison c = compareProbe(probe, model.estimate());
            const auto &phases = model.estimate().phases;
            data.axisToRun = true; // a small run's phases stay legible beside an 80 GiB card
            for (const ProbePhase &p : c.phases)
                for (std::size_t i = 0; i < phases.size() && i < data.columns.size(); ++i)
                    if (phases[i].id == p.phase)
                        data.columns[i].measuredBytes = p.measuredPeakBytes;
            const QString note = tr("Bold lines: the probe's measured peak of each phase (%1, step %2); the bars are "
                                    "the estimate, not tuned to it.")
                                     .arg(QFileInfo(probePath).fileName())
                                     .arg(c.phases.empty() ? 0 : c.phases.back().step);
            data.footnote = data.footnote.isEmpty() ? note : data.footnote + QLatin1Char(' ') + note;
        } catch (const std::exception &problem) {
            return fail(probePath + QLatin1String(": ") + errorText(problem));
        }
    }
    const QString error = exportChart(outPath, format, data, options);
    if (!error.isEmpty())
        return fail(error);
    return ExitOk;
}

} // namespace headroom::cli
