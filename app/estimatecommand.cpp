// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom estimate FILE [--set key=value]... [--format text|json|csv] [--unit GB|GiB]
//  [--model-config config.json] [--model-weights model.safetensors|index.json]`
#include "architecture.h"
#include "cli.h"
#include "clicommon.h"
#include "chart/consumerstyle.h"
#include "estimatejson.h"
#include "modelimport.h"
#include "scenariojson.h"
#include "servingcommands.h"

#include <QCoreApplication>
#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

/// What --model-config and --model-weights read, before the budget.
void printImports(const Scenario &scenario, const QString &configPath,
                  const std::optional<HfImport> &config, const QString &weightsPath,
                  const std::optional<WeightsSummary> &weights, Unit unit)
{
    QTextStream &o = out();
    if (config) {
        o << tr("Model config: %1 (model_type %2)").arg(configPath, q(config->modelType)) << '\n';
        for (const std::string &note : config->notes)
            o << "  - " << q(note) << '\n';
    }
    if (weights) {
        o << tr("Weights: %1 (%2 files): %3 tensors, %4 params, %5")
                 .arg(weightsPath, q(groupDigits(weights->files)), q(groupDigits(weights->tensors)),
                      q(groupDigits(weights->params)), bytesText(weights->bytes, unit))
          << '\n';
        for (const auto &[dtype, total] : weights->byDType)
            o << "  "
              << tr("%1: %2 tensors, %3 elements, %4")
                     .arg(q(dtype), q(groupDigits(total.tensors)), q(groupDigits(total.elements)),
                          bytesText(total.bytes, unit))
              << '\n';
        for (const std::string &note : weights->notes)
            o << "  - " << q(note) << '\n';
        ModelArch shape = scenario.model;
        shape.params.reset();
        const std::uint64_t derived = shape.rough ? weights->params : countParams(shape).derived;
        if (derived != weights->params)
            o << "  - "
              << tr("the architecture accounts for %1 params; the estimate uses the weights' %2")
                     .arg(q(groupDigits(derived)), q(groupDigits(weights->params)))
              << '\n';
    }
    if (config || weights)
        o << '\n';
}

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
          << (QString::number(consumerShare(e, c) * 100, 'f', 1) + QLatin1Char('%'))
                 .rightJustified(6)
          << "  " << q(c.formula(unit)) << '\n';
    }
    o << '\n'
      << tr("Peak (%1 phase): %2 allocated, %3 reserved, %4 on the device")
             .arg(phaseDisplayName(e.peak.phase), bytesText(e.peak.allocatedBytes, unit),
                  bytesText(e.peak.reservedBytes, unit), bytesText(e.peak.deviceBytes, unit))
      << '\n';
    if (e.errorBandPercent > 0)
        o << tr("  typically within %1%2% for runs like this (measured cases, docs/accuracy.md)")
                 .arg(QString::fromUtf8("\u00b1"))
                 .arg(e.errorBandPercent)
          << '\n';
    if (e.hostBytes)
        o << tr("Offloaded to CPU RAM: %1").arg(bytesText(e.hostBytes, unit)) << '\n';
    if (e.serving)
        printServingFigures(o, *e.serving, unit);
    for (const GpuFit &g : e.gpus) {
        const QString capacity = bytesText(g.capacityBytes, unit);
        const std::uint64_t margin =
            static_cast<std::uint64_t>(g.headroomBytes < 0 ? -g.headroomBytes : g.headroomBytes);
        if (g.fits)
            o << tr("  fits %1 (%2): %3 to spare")
                     .arg(q(g.name), capacity, bytesText(margin, unit));
        else if (g.headroomBytes >= 0 && e.serving)
            o << tr("  %1 (%2) holds the engine's reservation, but %3")
                     .arg(q(g.name), capacity,
                          e.serving->startsOk ? tr("the requests do not all run at once")
                                              : tr("the engine does not start"));
        else
            o << tr("  does not fit %1 (%2) by %3")
                     .arg(q(g.name), capacity, bytesText(margin, unit));
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
    const QCommandLineOption configOption(
        QStringLiteral("model-config"),
        tr("Use the architecture of a Hugging Face config.json (--set model.* still overrides)."),
        QStringLiteral("config.json"));
    const QCommandLineOption weightsOption(
        QStringLiteral("model-weights"),
        tr("Take the exact parameter total from safetensors headers (a .safetensors file, "
           "model.safetensors.index.json or their folder)."),
        QStringLiteral("path"));
    parser.addOption(setOption);
    parser.addOption(configOption);
    parser.addOption(weightsOption);
    parser.addOption(formatOption);
    parser.addOption(unitOption);
    if (const auto stop =
            parseCommand(parser, arguments, 2,
                         tr("usage: headroom estimate FILE [--set key.path=value]... "
                            "[--format text|json|csv] [--unit GB|GiB] [--model-config config.json] "
                            "[--model-weights PATH]")))
        return *stop;
    const QStringList positional = parser.positionalArguments();
    const QString format = parser.value(formatOption);
    if (format != QLatin1String("text") && format != QLatin1String("json") &&
        format != QLatin1String("csv"))
        return fail(tr("--format: must be text, json or csv (got %1)").arg(format));
    Unit unit = Unit::GB;
    if (!parseUnit(parser.value(unitOption), unit))
        return ExitBadInput;
    const QString path = positional.at(1);
    const QString configPath = parser.value(configOption);
    const QString weightsPath = parser.value(weightsOption);
    std::optional<HfImport> config;
    std::optional<WeightsSummary> weights;
    try {
        if (!configPath.isEmpty())
            config = importModelConfig(configPath);
        if (!weightsPath.isEmpty())
            weights = readModelWeights(weightsPath);
    } catch (const std::exception &error) {
        return fail(QString::fromStdString(error.what()));
    }
    try {
        ModelFiles modelFiles{configPath, std::nullopt};
        if (weights)
            modelFiles.params = weights->params;
        const Scenario scenario = loadScenario(path, parser.values(setOption), modelFiles);
        const Estimate e = estimate(scenario);
        if (format == QLatin1String("json"))
            out() << q(estimateToJson(e, unit).dump(2)) << '\n';
        else if (format == QLatin1String("csv"))
            out() << q(estimateToCsv(e, unit));
        else {
            printImports(scenario, configPath, config, weightsPath, weights, unit);
            printText(scenario, e, unit);
        }
        out().flush();
        return ExitOk;
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + QString::fromStdString(error.what()));
    }
}

} // namespace headroom::cli
