// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom compare LOG [SCENARIO] [--gpu ID] [--model PRESET] [--set key=value]...
//  [--format text|json] [--unit GiB|GB]`: a serving engine's start-up log beside the estimate.
#include "comparecommand.h"

#include "cli.h"
#include "clicommon.h"
#include "document/documentio.h"
#include "torchcompare.h"
#include "inputfile.h"
#include "io/inputpolicy.h"
#include "io/pickle.h"
#include "measure/torchsummary.h"
#include "measure/logcompare.h"
#include "measure/servingcase.h"
#include "scenario/scenariojson.h"
#include "estimate/verdict.h"

#include <QFile>
#include <QFileInfo>
#include <cmath>

namespace headroom::cli {

namespace {

QString figureText(double value, FigureUnit unit, Unit bytesUnit)
{
    if (std::abs(value) >= 1e18) // no engine prints such a figure; shown as written
        return QString::number(value, 'g', 6);
    switch (unit) {
    case FigureUnit::Bytes: {
        const double magnitude = std::abs(value);
        const QString text = q(formatBytes(std::uint64_t(std::llround(magnitude)), bytesUnit));
        return value < 0 ? QLatin1Char('-') + text : text;
    }
    case FigureUnit::Tokens:
    case FigureUnit::Count: {
        const QString text = q(groupDigits(std::uint64_t(std::llround(std::abs(value)))));
        return value < 0 ? QLatin1Char('-') + text : text;
    }
    case FigureUnit::Ratio: return QString::number(value, 'f', 2) + QLatin1Char('x');
    }
    return {};
}

QString differenceText(const ComparedFigure &f, Unit unit)
{
    if (!f.estimated)
        return {};
    const double d = *f.estimated - f.measured;
    QString text = (d >= 0 ? QStringLiteral("+") : QString()) + figureText(d, f.unit, unit);
    if (f.measured != 0)
        text += QStringLiteral(" (%1%2%)")
                    .arg(d >= 0 ? QStringLiteral("+") : QString())
                    .arg(QString::number(d / std::abs(f.measured) * 100, 'f', 1));
    return text;
}

/// The log's settings that the user's scenario sets otherwise: the comparison is then of two
/// different launches, and says so.
std::vector<std::string> disagreements(const EngineLog &log, const nlohmann::json &scenario)
{
    std::vector<std::string> found;
    for (const LogSetting &s : log.settings) {
        const std::size_t dot = s.key.find('.');
        const std::string section = s.key.substr(0, dot), key = s.key.substr(dot + 1);
        if (!scenario.contains(section) || !scenario[section].is_object() || !scenario[section].contains(key))
            continue;
        const nlohmann::json &mine = scenario[section][key];
        const bool same = mine.is_number() && s.value.is_number()
                              ? std::abs(mine.get<double>() - s.value.get<double>()) < 1e-9
                              : mine == s.value;
        if (!same)
            found.push_back("The log ran " + s.key + " " + quoteJson(s.value) + " (line " + std::to_string(s.line) +
                            "), the scenario says " + quoteJson(mine) + ": the two describe different launches.");
    }
    return found;
}

void printText(const QString &path, const EngineLog &log, const LogComparison &c, const QString &scenarioFrom,
               const std::vector<std::string> &notes, const std::vector<std::string> &warnings, Unit unit)
{
    QTextStream &o = out();
    o << tr("%1 log: %2 (%3 lines, %4 read)")
             .arg(QString::fromLatin1(logEngineName(log.engine)), safe(path.toStdString()))
             .arg(log.lines)
             .arg(log.recognised);
    if (!log.version.empty())
        o << tr(", version %1").arg(safe(log.version));
    o << '\n';
    if (!log.model.empty())
        o << tr("Model: %1 (line %2)").arg(safe(log.model)).arg(log.modelLine) << '\n';
    o << tr("Scenario: %1").arg(scenarioFrom) << '\n';
    for (const std::string &note : notes)
        o << "  - " << safe(note) << '\n';
    for (const std::string &warning : warnings)
        o << tr("Warning: %1").arg(safe(warning)) << '\n';
    int width = 6;
    for (const ComparedFigure &f : c.figures)
        width = std::max(width, int(f.label.size()));
    o << '\n'
      << tr("figure").leftJustified(width) << "  " << tr("log").rightJustified(14) << "  "
      << tr("estimate").rightJustified(14) << "  " << tr("difference").leftJustified(24) << "  " << tr("line") << '\n';
    for (const ComparedFigure &f : c.figures)
        o << safe(f.label).leftJustified(width) << "  " << figureText(f.measured, f.unit, unit).rightJustified(14)
          << "  " << (f.estimated ? figureText(*f.estimated, f.unit, unit) : QStringLiteral("-")).rightJustified(14)
          << "  " << differenceText(f, unit).leftJustified(24) << "  " << f.line << '\n';
    if (!log.breakdown.empty()) {
        o << '\n' << tr("llama.cpp's memory breakdown (MiB): total = free + self + unaccounted, self = model + context + compute") << '\n';
        for (const LlamaBreakdownRow &r : log.breakdown) {
            const auto cell = [](double v) { return v == -1 ? QStringLiteral("-") : QString::number(v, 'f', 0); };
            o << "  " << safe(r.device).leftJustified(24) << tr(" total %1  free %2  self %3  model %4  context %5  compute %6  unaccounted %7  (line %8)")
                                                           .arg(cell(r.total), cell(r.free), cell(r.self), cell(r.model),
                                                                cell(r.context), cell(r.compute), cell(r.unaccounted))
                                                           .arg(r.line)
              << '\n';
        }
    }
    if (log.refusal)
        o << '\n' << tr("The engine refused to start (line %1): %2").arg(log.refusal->line).arg(safe(log.refusal->text)) << '\n';
    if (!c.findings.empty()) {
        o << '\n' << tr("What explains the difference:") << '\n';
        for (const std::string &finding : c.findings)
            o << "  - " << safe(finding) << '\n';
    }
    o << '\n'
      << tr("The estimate is not tuned to the log: both are shown as they are (\"Where the memory actually goes\").")
      << '\n';
    o.flush();
}

/// The log as a "headroom-serving-log" case (tests/data/serving/README.md) that `headroom validate`
/// reads: the scenario, the engine's lines verbatim, its KV figures, the first-seen error.
QString saveServingCase(const QString &path, const QString &logPath, const EngineLog &log, const Scenario &scenario,
                        const Estimate &e, const std::vector<std::string> &notes)
{
    const QString id = QFileInfo(path).completeBaseName();
    if (!path.endsWith(QLatin1String(".json")) || id.isEmpty())
        return tr("--save-case: the case file must be ID.json (got %1)").arg(safe(path.toStdString()));
    std::string error;
    const nlohmann::json doc = servingCaseDocument(id.toStdString(), QFileInfo(logPath).fileName().toStdString(), log,
                                                   scenario, e, notes, error);
    if (!error.empty())
        return tr("--save-case: %1").arg(q(error));
    // Atomic and checked, as every save: a full disk or a folder in the way is an error, never a
    // half-written case at exit 0.
    if (const QString failed = writeFileAtomically(path, QByteArray::fromStdString(doc.dump(2) + "\n")); !failed.isEmpty())
        return tr("--save-case: %1").arg(failed);
    return {};
}

} // namespace

CommandHelp compareHelp()
{
    return {QStringLiteral("compare"),
            tr("your own measurement beside the estimate: engine logs, PyTorch's tools, the probe"),
            tr("Read a vLLM, SGLang, TensorRT-LLM or llama.cpp start-up log and show each memory figure the engine "
               "printed beside the estimate's, with what explains the difference. Without SCENARIO the scenario is "
               "the one the log states (model, version, options, parallelism); what the log does not state is asked "
               "for (--gpu, --model). LOG may also be PyTorch's torch.cuda.memory_summary() text, a "
               "torch.cuda.memory._dump_snapshot() pickle or a torch.profiler export_memory_timeline() JSON, "
               "compared with the run's SCENARIO, or the JSON of Headroom's probe (headroom_probe.py), compared "
               "phase by phase."),
            tr("headroom compare LOG [SCENARIO] [--gpu ID] [--model PRESET] [--set key.path=value]... "
               "[--save-case FILE] [--format text|json] [--unit GiB|GB]"),
            {{QStringLiteral("LOG"), tr("The engine's start-up log (text, as printed), or PyTorch's or the probe's file.")},
             {QStringLiteral("SCENARIO"), tr("The scenario to estimate instead of the one the file states.")}},
            {QCommandLineOption(QStringLiteral("gpu"), tr("The catalog GPU the log ran on, when the log does not name it."),
                                QStringLiteral("id")),
             QCommandLineOption(QStringLiteral("model"), tr("The catalog model, when the log's is not in the catalog."),
                                QStringLiteral("preset")),
             QCommandLineOption(QStringLiteral("set"), tr("Override one key of the scenario (repeatable)."),
                                QStringLiteral("key=value")),
             QCommandLineOption(QStringLiteral("save-case"),
                                tr("Save the reading with the scenario as a measured case (ID.json) for "
                                   "headroom validate: a headroom-serving-log case for a start-up log, a "
                                   "headroom-measurement case for PyTorch's readings and the probe's."),
                                QStringLiteral("file")),
             QCommandLineOption(QStringLiteral("format"), tr("text or json."), QStringLiteral("format"),
                                QStringLiteral("text")),
             unitOption()},
            1};
}

int runCompare(const QStringList &arguments)
{
    QCommandLineParser parser;
    if (const auto stop = parseCommand(parser, arguments, compareHelp()))
        return *stop;
    const QStringList positional = parser.positionalArguments();
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return fail(tr("--format: must be text or json (got %1)").arg(q(quoteText(format.toStdString()))));
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;
    const QString logPath = positional.at(1);

    EngineLog log;
    try {
        const QByteArray bytes = readInputFile(logPath, limits::kPickleBytes);
        const std::string_view text(bytes.constData(), std::size_t(bytes.size()));
        // PyTorch's memory tools: a snapshot pickle, a memory timeline or a memory_summary() table.
        if (torchFileKind(text) != TorchFileKind::None)
            return runCompareTorch(logPath, bytes, positional.size() == 3 ? positional.at(2) : QString(),
                                   parser.values(QStringLiteral("set")), parser.value(QStringLiteral("save-case")),
                                   format == QLatin1String("json"));
        if (text.find("\"headroom-probe\"") != std::string_view::npos && text.find_first_not_of(" \t\r\n") != std::string_view::npos &&
            text[text.find_first_not_of(" \t\r\n")] == '{')
            return runCompareProbe(logPath, bytes, positional.size() == 3 ? positional.at(2) : QString(),
                                   parser.values(QStringLiteral("set")), parser.value(QStringLiteral("model")),
                                   parser.value(QStringLiteral("gpu")), parser.value(QStringLiteral("save-case")),
                                   format == QLatin1String("json"));
        if (std::uint64_t(bytes.size()) > kEngineLogBytes)
            return fail(tr("%1: %2 bytes, more than the 16 MiB of a start-up log").arg(safe(logPath.toStdString())).arg(bytes.size()));
        log = readEngineLog(text);
    } catch (const InputError &error) {
        return fail(logPath + QLatin1String(": ") + q(error.what()));
    } catch (const std::exception &error) {
        return fail(logPath + QLatin1String(": ") + errorText(error));
    }

    try {
        std::vector<std::string> notes, warnings;
        QString scenarioFrom;
        nlohmann::json scenarioDoc;
        std::optional<Scenario> scenario;
        const QStringList overrides = parser.values(QStringLiteral("set"));
        if (positional.size() == 3) {
            scenario = loadScenario(positional.at(2), overrides);
            scenarioDoc = scenarioToJson(*scenario);
            scenarioFrom = safe(positional.at(2).toStdString());
            const char *engine = logEngineScenarioKey(log.engine);
            if (!scenario->serving)
                return fail(tr("%1: the scenario has no serving section: a start-up log compares with a serving scenario")
                                .arg(safe(positional.at(2).toStdString())));
            if (!*engine || scenarioDoc["serving"].value("engine", std::string()) != engine)
                return fail(tr("%1 is a %2 log, %3's engine is %4: compare a log with a scenario of its engine")
                                .arg(safe(logPath.toStdString()), QString::fromLatin1(logEngineName(log.engine)),
                                     safe(positional.at(2).toStdString()),
                                     safe(scenarioDoc["serving"].value("engine", std::string()))));
            for (const std::string &d : disagreements(log, scenarioDoc))
                warnings.push_back(d);
        } else {
            const LogScenarioInput input{parser.value(QStringLiteral("model")).toStdString(),
                                         parser.value(QStringLiteral("gpu")).toStdString()};
            LogScenario fromLog = scenarioFromLog(log, input);
            notes = fromLog.notes;
            scenarioFrom = tr("as the log states it");
            const bool modelled = *logEngineScenarioKey(log.engine);
            if (modelled && !fromLog.missing.empty()) {
                QString message = tr("%1: the log alone does not describe the run: ").arg(safe(logPath.toStdString()));
                for (std::size_t i = 0; i < fromLog.missing.size(); ++i)
                    message += (i ? QLatin1String("; ") : QLatin1String("")) + safe(fromLog.missing[i]);
                return fail(message);
            }
            if (modelled) {
                for (const QString &assignment : overrides)
                    applyOverride(fromLog.document, assignment.toStdString());
                scenario = scenarioFromDocument(fromLog.document, QString(), {});
                scenarioDoc = fromLog.document;
            } else {
                warnings = {fromLog.missing.front()};
            }
        }
        const std::optional<Estimate> e = scenario ? std::optional<Estimate>(estimate(*scenario)) : std::nullopt;
        const LogComparison comparison = compareLog(log, e ? *e : Estimate{});
        if (parser.isSet(QStringLiteral("save-case"))) {
            if (!e || !e->serving)
                return fail(tr("--save-case: %1 is not modelled, so there is no estimate to keep beside the log")
                                .arg(QString::fromLatin1(logEngineName(log.engine))));
            const QString error = saveServingCase(parser.value(QStringLiteral("save-case")), logPath, log, *scenario, *e,
                                                  notes);
            if (!error.isEmpty())
                return fail(error);
        }
        if (format == QLatin1String("json")) {
            nlohmann::json doc = logComparisonToJson(log, comparison, scenarioDoc);
            doc["warnings"] = warnings;
            doc["notes"] = notes;
            out() << q(doc.dump(2)) << '\n';
            out().flush();
        } else {
            printText(logPath, log, comparison, scenarioFrom, notes, warnings, unit);
        }
        return ExitOk;
    } catch (const std::exception &error) {
        return fail(errorText(error));
    }
}

} // namespace headroom::cli
