// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom solve FILE --for max-micro-batch|max-seq-len|max-context|max-concurrency|min-gpus|
//  max-lora-rank [--gpu ID] [--margin 0.9] [--strategies zero3,tensor] [--format text|json]`
#include "servingcommands.h"

#include "cli.h"
#include "clicommon.h"
#include "solve/solvejson.h"
#include "solvetext.h"
#include "solve/solver.h"
#include "accuracy/errorband.h"
#include "estimate/verdict.h"
#include "io/inputpolicy.h"

#include <QCoreApplication>
#include <optional>
#include <nlohmann/json.hpp>

namespace headroom::cli {

CommandHelp solveHelp()
{
    return {QStringLiteral("solve"),
            tr("the exact limit of one setting on a GPU (value fits, value + 1 does not)"),
            tr("The exact limit of one setting on a GPU: the value that fits where one more does not, "
               "on the same estimator (min-gpus: the fewest GPUs that fit)."),
            tr("headroom solve FILE --for VARIABLE [--gpu ID] [--margin 0.9] [--strategies a,b] "
               "[--format text|json] [--unit GiB|GB] [--set key.path=value]..."),
            {{QStringLiteral("FILE"), tr("A .headroom.json scenario.")}},
            {QCommandLineOption(QStringLiteral("for"),
                                tr("max-micro-batch, max-seq-len, max-context, max-concurrency, "
                                   "min-gpus, max-lora-rank or max-vllm-utilization (GRPO with vLLM "
                                   "colocated: vllm_gpu_memory_utilization in hundredths)."),
                                QStringLiteral("variable")),
             QCommandLineOption(QStringLiteral("gpu"), tr("A catalog GPU id, e.g. rtx-4090 (default: the scenario's target_gpu, else the "
                                   "largest of its gpus)."),
                                QStringLiteral("id")),
             QCommandLineOption(QStringLiteral("margin"),
                                tr("Share of the GPU a configuration may use (default 1)."),
                                QStringLiteral("share"), QStringLiteral("1")),
             QCommandLineOption(QStringLiteral("strategies"),
                                tr("min-gpus: more ways to split, beyond the scenario's own (zero1, "
                                   "zero2, zero3, fsdp, tensor, pipeline)."),
                                QStringLiteral("a,b")),
             QCommandLineOption(QStringLiteral("set"), tr("Override a scenario key first."),
                                QStringLiteral("key.path=value")),
             QCommandLineOption(QStringLiteral("format"), tr("text or json."),
                                QStringLiteral("format"), QStringLiteral("text")),
             unitOption()}};
}

int runSolve(const QStringList &arguments)
{
    QCommandLineParser parser;
    const CommandHelp help = solveHelp();
    if (const auto stop = parseCommand(parser, arguments, help))
        return *stop;
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return fail(tr("--format: must be text or json (got %1)").arg(q(quoteText(format.toStdString()))));
    if (!parser.isSet(QStringLiteral("for")))
        return failUsage(help.usage);
    const auto what = solveForFromKey(parser.value(QStringLiteral("for")).toStdString());
    if (!what)
        return fail(tr("--for: must be one of max-micro-batch, max-seq-len, max-context, max-concurrency, "
                       "min-gpus, max-lora-rank, max-vllm-utilization (got %1)")
                        .arg(parser.value(QStringLiteral("for"))));
    bool ok = false;
    SolveOptions options;
    options.margin = parser.value(QStringLiteral("margin")).toDouble(&ok);
    if (!ok || !(options.margin > 0) || options.margin > 1)
        return fail(tr("--margin: must be a number above 0 and at most 1 (got %1)").arg(q(quoteText(parser.value(QStringLiteral("margin")).toStdString()))));
    for (const QString &name : parser.value(QStringLiteral("strategies")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        static const QStringList known{QStringLiteral("zero1"), QStringLiteral("zero2"), QStringLiteral("zero3"),
                                       QStringLiteral("fsdp"), QStringLiteral("tensor"), QStringLiteral("pipeline")};
        if (!known.contains(name.trimmed()))
            return fail(tr("--strategies: %1 is not one of %2").arg(name, known.join(QStringLiteral(", "))));
        options.strategies.push_back(name.trimmed().toStdString());
    }
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;
    const QString path = parser.positionalArguments().at(1);
    try {
        const Scenario scenario = loadScenario(path, parser.values(QStringLiteral("set")));
        // Without --gpu: the GPU the verdict is about (target_gpu, else the largest of gpus).
        std::string gpu = parser.value(QStringLiteral("gpu")).toStdString();
        if (gpu.empty()) {
            const Gpu *target = targetGpu(scenario);
            if (!target)
                return fail(tr("%1: no GPU to solve for: pass --gpu ID or list gpus in the scenario").arg(path));
            gpu = target->id;
        }
        const Solution answer = solve(scenario, *what, gpu, options);
        // The safe answer beside the exact one: the value whose band's upper edge fits, i.e. the
        // exact answer under a margin divided by (1 + band). Engines that size themselves have none.
        const ErrorBand band = errorBandFor(scenario, "device");
        const bool engineSized = scenario.serving && (scenario.serving->engine == Engine::Vllm ||
                                                      scenario.serving->engine == Engine::Sglang);
        std::optional<Solution> safeAnswer;
        if (!engineSized) {
            SolveOptions safeOptions = options;
            safeOptions.margin = options.margin / (1.0 + band.percent / 100.0);
            safeAnswer = solve(scenario, *what, gpu, safeOptions);
        }
        if (format == QLatin1String("json")) {
            nlohmann::json doc = solutionToJson(answer);
            doc["printed"] = "exact";
            doc["error_band"] = {{"percent", band.percent}, {"group", band.group}, {"cases", band.cases},
                                 {"first_seen", true}, {"text", errorBandText(band)}};
            if (safeAnswer)
                doc["safe"] = solutionToJson(*safeAnswer);
            out() << q(doc.dump(2)) << '\n';
        } else {
            out() << solveAnswerText(answer, unit) << '\n';
            if (safeAnswer)
                out() << tr("  Above: the exact answer. Safe answer: %1, the largest value whose peak + %2% still "
                            "fits (the estimate is %3)")
                             .arg(safeAnswer->value)
                             .arg(band.percent)
                             .arg(QString::fromStdString(errorBandText(band)))
                      << '\n';
            if (answer.value && answer.what != SolveFor::MinGpus && scenario.serving &&
                (scenario.serving->engine == Engine::Vllm || scenario.serving->engine == Engine::Sglang) &&
                options.margin < 1)
                out() << tr("  (--margin is not applied: the engine sizes itself to its own memory fraction)") << '\n';
        }
        out().flush();
        return ExitOk;
    } catch (const SolveError &error) {
        return fail(QString::fromStdString(error.what()));
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + errorText(error));
    }
}

} // namespace headroom::cli
