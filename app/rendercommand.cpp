// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom render FILE --out chart.png|svg|pdf [--width W] [--height H] [--scale S]
//  [--theme light|dark] [--view bars|phases] [--unit GB|GiB] [--set key=value]...`
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

#include <QFile>
#include <QFileInfo>
#include <nlohmann/json.hpp>

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
ScenarioDocument readRenderDocument(const QString &path, const QStringList &overrides)
{
    const QByteArray bytes = readFile(path);
    nlohmann::json doc = parseJsonText(std::string_view(bytes.constData(), std::size_t(bytes.size())));
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
    ScenarioDocument document = documentFromJson(doc, builtinCatalog(), configResolver(path));
    if (int(document.pins.size()) > ScenarioModel::kMaxPins)
        throw ScenarioError("pins", "at most " + std::to_string(ScenarioModel::kMaxPins) +
                                        " pinned scenarios");
    return document;
}

/// The file's JSON when it is a lesson ("format": "headroom-lesson"); null otherwise.
nlohmann::json lessonDocument(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || file.size() > 64 * 1024 * 1024)
        return {};
    try {
        nlohmann::json doc = nlohmann::json::parse(file.readAll().toStdString());
        if (doc.is_object() && doc.value("format", nlohmann::json()) == "headroom-lesson")
            return doc;
    } catch (const std::exception &) {
        // Not JSON: the scenario reader reports it.
    }
    return {};
}

} // namespace

int runRender(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        tr("Draw the budget chart of a scenario or comparison file, as the window does, into a "
           "PNG, SVG or PDF file. Needs no display."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("render"), tr("The command."));
    parser.addPositionalArgument(QStringLiteral("FILE"), tr("A scenario or comparison file."));
    const QCommandLineOption outOption(QStringLiteral("out"), tr("chart.png, chart.svg or chart.pdf."),
                                       QStringLiteral("file"));
    const QCommandLineOption widthOption(QStringLiteral("width"), tr("Width in logical pixels."),
                                         QStringLiteral("W"), QStringLiteral("1920"));
    const QCommandLineOption heightOption(QStringLiteral("height"), tr("Height in logical pixels."),
                                          QStringLiteral("H"), QStringLiteral("1080"));
    const QCommandLineOption scaleOption(QStringLiteral("scale"),
                                         tr("PNG pixels per logical pixel."), QStringLiteral("S"),
                                         QStringLiteral("2"));
    const QCommandLineOption themeOption(QStringLiteral("theme"), tr("light or dark."),
                                         QStringLiteral("theme"), QStringLiteral("light"));
    const QCommandLineOption viewOption(QStringLiteral("view"),
                                        tr("bars (scenarios side by side) or phases."),
                                        QStringLiteral("view"), QStringLiteral("bars"));
    const QCommandLineOption unitOption(QStringLiteral("unit"),
                                        tr("GiB (2^30 bytes, as nvidia-smi and PyTorch print; the default) "
                                           "or GB (10^9 bytes, as the articles write)."),
                                        QStringLiteral("unit"), QStringLiteral("GiB"));
    const QCommandLineOption setOption(
        QStringLiteral("set"), tr("Override a key of the current scenario, e.g. train.micro_batch=8."),
        QStringLiteral("key.path=value"));
    const QCommandLineOption stepOption(QStringLiteral("step"),
                                        tr("A lesson's step N (from 1) alone, as PNG, SVG or PDF."),
                                        QStringLiteral("N"));
    for (const QCommandLineOption &option : {outOption, widthOption, heightOption, scaleOption,
                                             themeOption, viewOption, unitOption, setOption, stepOption})
        parser.addOption(option);
    const QString usage =
        tr("usage: headroom render FILE --out chart.png|svg|pdf [--width W] [--height H] "
           "[--scale S] [--theme light|dark] [--view bars|phases] [--unit GiB|GB] "
           "[--set key=value]... | headroom render LESSON.json --out deck.pdf [--step N]");
    if (const auto stop = parseCommand(parser, arguments, 2, usage))
        return *stop;
    if (!parser.isSet(outOption))
        return fail(usage);
    const QStringList positional = parser.positionalArguments();
    const QString outPath = parser.value(outOption);
    ExportFormat format = ExportFormat::Png;
    if (!exportFormatFor(outPath, format) || format == ExportFormat::Csv || format == ExportFormat::Json)
        return fail(tr("--out: must end in .png, .svg or .pdf (got %1)").arg(outPath));
    double width = 0, height = 0, scale = 0;
    if (!parseNumber(QStringLiteral("width"), parser.value(widthOption), 16, 16384, width) ||
        !parseNumber(QStringLiteral("height"), parser.value(heightOption), 16, 16384, height) ||
        !parseNumber(QStringLiteral("scale"), parser.value(scaleOption), 0.25, 8, scale))
        return ExitBadInput;
    const QString theme = parser.value(themeOption);
    if (theme != QLatin1String("light") && theme != QLatin1String("dark"))
        return fail(tr("--theme: must be light or dark (got %1)").arg(theme));
    const QString view = parser.value(viewOption);
    if (view != QLatin1String("bars") && view != QLatin1String("phases"))
        return fail(tr("--view: must be bars or phases (got %1)").arg(view));
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(unitOption), unit))
        return ExitBadInput;

    const QString path = positional.at(1);
    if (const nlohmann::json lesson = lessonDocument(path); !lesson.is_null()) {
        LessonExportOptions options;
        options.chart = {QSize(qRound(width), qRound(height)), scale, theme == QLatin1String("dark")};
        options.unit = unit;
        options.view = view == QLatin1String("phases") ? ChartView::Phases : ChartView::Bars;
        double step = 0;
        if (parser.isSet(stepOption) && !parseNumber(QStringLiteral("step"), parser.value(stepOption), 1, 100000, step))
            return ExitBadInput;
        if (step != double(qRound(step)))
            return fail(tr("--step: must be a whole number (got %1)").arg(parser.value(stepOption)));
        if (parser.isSet(setOption))
            return fail(tr("--set: applies to scenarios, not to lessons"));
        if (!parser.isSet(stepOption) && format != ExportFormat::Pdf)
            return fail(tr("--out: a whole lesson is written as .pdf; add --step N for one step as PNG or SVG"));
        QString error;
        try {
            const Lesson parsed = lessonFromJson(lesson);
            if (step > double(parsed.steps.size()))
                return fail(tr("--step: the lesson has %1 steps (got %2)").arg(parsed.steps.size()).arg(step));
            error = exportLesson(outPath, format, parsed, int(step) - 1, options);
        } catch (const std::exception &problem) {
            return fail(path + QLatin1String(": ") + QString::fromStdString(problem.what()));
        }
        return error.isEmpty() ? ExitOk : fail(error);
    }
    if (parser.isSet(stepOption))
        return fail(tr("--step: only lessons have steps"));
    ScenarioModel model;
    try {
        headroom::loadDocument(model, readRenderDocument(path, parser.values(setOption)));
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + QString::fromStdString(error.what()));
    }
    model.setUnit(unit);
    model.setView(view == QLatin1String("phases") ? ChartView::Phases : ChartView::Bars);
    ChartExportOptions options;
    options.size = QSize(qRound(width), qRound(height));
    options.scale = scale;
    options.dark = theme == QLatin1String("dark");
    const QString error = exportChart(outPath, format, chartDataFor(model), options);
    if (!error.isEmpty())
        return fail(error);
    return ExitOk;
}

} // namespace headroom::cli
