// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom estimate FILE [--set key=value]... [--format text|json|csv] [--unit GiB|GB]
//  [--model-config config.json] [--model-weights model.safetensors|index.json|model.gguf]`
// `headroom estimate [FILE] --train-config CONFIG... [--train-arg ARG]... [--train-format F]`
#include "model/architecture.h"
#include "cli.h"
#include "clicommon.h"
#include "chart/consumerstyle.h"
#include "estimate/estimatejson.h"
#include "ggufimport.h"
#include "io/ggufarch.h"
#include "model/modeljson.h"
#include "modelimport.h"
#include "parallel/parallel.h"
#include "scenario/scenariojson.h"
#include "scenario/scenariotitle.h"
#include "scenario/units.h"
#include "estimate/verdict.h"
#include "trainconfigimport.h"
#include "servingcommands.h"
#include "io/inputpolicy.h"

#include <QCoreApplication>
#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

/// True when the dotted `path` ("train.micro_batch") names a value of `doc`.
bool hasPath(const nlohmann::json &doc, const std::string &path)
{
    const nlohmann::json *node = &doc;
    std::size_t start = 0;
    while (!path.empty()) {
        const std::size_t dot = path.find('.', start);
        const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
        if (!node->is_object() || !node->contains(part))
            return false;
        node = &node->at(part);
        if (dot == std::string::npos)
            return true;
        start = dot + 1;
    }
    return false;
}

/// A GGUF model's bytes per block: the range over the blocks and what lies outside them.
std::string ggufLayerNote(const GgufModel &model, Unit unit)
{
    if (model.layerBytes.empty())
        return "no blk.N tensors; " + formatBytes(model.otherBytes, unit) + " outside the blocks";
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto &[layer, bytes] : model.layerBytes) {
        lo = std::min(lo, bytes);
        hi = std::max(hi, bytes);
    }
    return groupDigits(model.layerBytes.size()) + " blocks of " +
           (lo == hi ? formatBytes(lo, unit) : formatBytes(lo, unit) + " to " + formatBytes(hi, unit)) +
           " each; " + formatBytes(model.otherBytes, unit) + " outside the blocks (token_embd, output, norms)";
}

/// A GGUF model in --format json: totals, bytes by ggml type and by block.
nlohmann::json ggufJson(const GgufModel &model)
{
    nlohmann::json byType = nlohmann::json::object();
    for (const auto &[type, total] : model.weights.byDType)
        byType[type] = {{"tensors", total.tensors}, {"elements", total.elements}, {"bytes", total.bytes}};
    nlohmann::json layers = nlohmann::json::array();
    for (const auto &[layer, bytes] : model.layerBytes)
        layers.push_back({{"layer", layer}, {"bytes", bytes}});
    return {{"architecture", model.architecture}, {"files", model.weights.files},
            {"tensors", model.weights.tensors}, {"params", model.weights.params},
            {"bytes", model.weights.bytes}, {"by_type", byType}, {"layers", layers},
            {"other_bytes", model.otherBytes}};
}

/// What --model-config and --model-weights read, before the budget.
void printImports(const Scenario &scenario, const QString &configPath,
                  const std::optional<HfImport> &config, const QString &weightsPath,
                  const std::optional<WeightsSummary> &weights, Unit unit)
{
    QTextStream &o = out();
    if (config) {
        o << tr("Model config: %1 (model_type %2)").arg(safe(configPath.toStdString()), safe(config->modelType)) << '\n';
        for (const std::string &note : config->notes)
            o << "  - " << safe(note) << '\n';
    }
    if (weights) {
        o << tr("Weights: %1 (%2 files): %3 tensors, %4 params, %5")
                 .arg(safe(weightsPath.toStdString()), q(groupDigits(weights->files)), q(groupDigits(weights->tensors)),
                      q(groupDigits(weights->params)), bytesText(weights->bytes, unit))
          << '\n';
        for (const auto &[dtype, total] : weights->byDType)
            o << "  "
              << tr("%1: %2 tensors, %3 elements, %4")
                     .arg(q(dtype), q(groupDigits(total.tensors)), q(groupDigits(total.elements)),
                          bytesText(total.bytes, unit))
              << '\n';
        for (const std::string &note : weights->notes)
            o << "  - " << safe(note) << '\n';
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

/// What each training configuration file said, what it could not say, and what the framework
/// filled in.
void printTrainImport(const ImportedRun &run)
{
    QTextStream &o = out();
    for (const TrainImport &import : run.imports) {
        o << tr("Training config: %1 (%2)").arg(safe(import.file), QString::fromLatin1(formatName(import.format)))
          << '\n';
        for (const std::string &line : import.mapped)
            o << "  " << safe(line) << '\n';
        for (const std::string &line : import.defaults)
            o << "  " << tr("default: %1").arg(safe(line)) << '\n';
        for (const std::string &line : import.warnings)
            o << "  " << tr("warning: %1").arg(safe(line)) << '\n';
        if (!import.ignored.empty()) {
            QStringList ignored;
            for (const std::string &line : import.ignored)
                ignored << safe(line);
            o << "  " << tr("ignored: %1").arg(ignored.join(QStringLiteral("; "))) << '\n';
        }
    }
    if (!run.modelNote.empty())
        o << tr("Model: %1").arg(safe(run.modelNote)) << '\n';
    if (!run.frameworkDefaults.empty()) {
        o << tr("Framework defaults for what the files leave out:") << '\n';
        for (const PresetSetting &setting : run.frameworkDefaults)
            o << "  " << safe(setting.key) << " = "
              << safe(setting.value.is_string() ? setting.value.get<std::string>() : setting.value.dump()) << "  ("
              << safe(setting.why) << ")\n";
    }
    o << '\n';
}

nlohmann::json importJson(const ImportedRun &run)
{
    nlohmann::json files = nlohmann::json::array();
    for (const TrainImport &import : run.imports)
        files.push_back({{"file", import.file},
                         {"format", formatName(import.format)},
                         {"mapped", import.mapped},
                         {"defaults", import.defaults},
                         {"warnings", import.warnings},
                         {"ignored", import.ignored}});
    nlohmann::json defaults = nlohmann::json::array();
    for (const PresetSetting &setting : run.frameworkDefaults)
        defaults.push_back({{"key", setting.key}, {"value", setting.value}, {"why", setting.why}});
    return {{"files", files}, {"framework_defaults", defaults}, {"model", run.modelNote}};
}

void printText(const Scenario &scenario, const Estimate &e, Unit unit)
{
    QTextStream &o = out();
    o << safe(scenarioTitle(scenario));
    if (!scenario.name.empty())
        o << QStringLiteral(" \u00b7 \u201c%1\u201d").arg(safe(scenario.name));
    o << '\n';
    o << tr("Parameters: %1 total, %2 trainable")
             .arg(q(groupDigits(e.totalParams)), q(groupDigits(e.trainableParams)))
      << (e.rough ? tr(" (rough model)") : QString()) << "\n\n";

    // One scale for the size column: no TiB beside GiB.
    const ByteScale column = scaleFor(e.peak.deviceBytes, unit);
    int nameWidth = 10;
    for (const Consumer &c : e.consumers)
        nameWidth = std::max(nameWidth, int(consumerDisplayName(c.id).size()));
    o << tr("Consumer").leftJustified(nameWidth) << "  " << tr("Size").rightJustified(11) << "  "
      << tr("Share").rightJustified(6) << "  " << tr("Formula") << '\n';
    for (const Consumer &c : e.consumers) {
        o << consumerDisplayName(c.id).leftJustified(nameWidth) << "  "
          << bytesText(c.bytes, column).rightJustified(11) << "  "
          << (QString::number(consumerShare(e, c) * 100, 'f', 1) + QLatin1Char('%'))
                 .rightJustified(6)
          << "  " << q(c.formula(unit)) << '\n';
    }
    o << '\n'
      << tr("Peak (%1 phase): %2 allocated, %3 reserved, %4 on the device")
             .arg(phaseDisplayName(e.peak.phase), bytesText(e.peak.allocatedBytes, unit),
                  bytesText(e.peak.reservedBytes, unit), bytesText(e.peak.deviceBytes, unit))
      << '\n';
    for (const ErrorBand &band : e.errorBands)
        o << "  " << tr("%1 peak: %2").arg(QString::fromLatin1(band.reading), QString::fromStdString(errorBandText(band)))
          << (band.basis == BandBasis::NeverValidated
                  ? QString()
                  : tr(" (%1: %2 runs first seen blind, %3% of them estimated more than 10% low; docs/accuracy.md)")
                        .arg(QString::fromLatin1(band.group))
                        .arg(band.cases)
                        .arg(band.unsafePercent))
          << '\n';
    if (e.hostBytes) {
        o << tr("Offloaded to CPU RAM: %1 per GPU").arg(bytesText(e.hostBytes, unit)) << '\n';
        for (const Consumer &c : e.host)
            o << "  " << consumerDisplayName(c.id) << ": " << bytesText(c.bytes, unit) << '\n';
    }
    if (const HostMachine &m = e.hostMachine; m.perGpuBytes) {
        const QString machine = tr("One machine's CPU RAM: %1 x %2 GPUs = %3")
                                    .arg(bytesText(m.perGpuBytes, unit))
                                    .arg(m.gpus)
                                    .arg(bytesText(m.bytes, unit));
        if (!m.ramBytes)
            o << machine << tr(" (give host.ram_gib to check it)") << '\n';
        else if (m.fits)
            o << machine << tr(", fits its %1 (%2 spare)")
                                .arg(bytesText(m.ramBytes, unit), bytesText(m.ramBytes - m.bytes, unit))
              << '\n';
        else
            o << machine << tr(", does not fit its %1 (%2 short)")
                                .arg(bytesText(m.ramBytes, unit), bytesText(m.bytes - m.ramBytes, unit))
              << '\n';
    }
    if (const auto &u = e.unified) {
        o << tr("Unified memory (%1 of RAM): GPU %2 of its %3 limit%4, CPU side %5, together %6: %7")
                 .arg(bytesText(u->totalBytes, unit), bytesText(u->gpuBytes, unit), bytesText(u->gpuLimitBytes, unit),
                      u->wiredLimit ? tr(" (iogpu.wired_limit_mb)") : QString(), bytesText(u->hostBytes, unit),
                      bytesText(u->poolBytes, unit), u->fits ? tr("fits") : tr("does not fit"))
          << '\n';
        o << "  " << tr("the operating system and the CPU side have %1 the GPU cannot take").arg(bytesText(u->osBytes, unit));
        if (u->zeroCopy)
            o << tr("; mmap: the GPU's weights are the mapped file's pages, counted once");
        else if (u->pageCacheBytes)
            o << tr("; mmap: %1 of the file stays in the page cache besides the GPU's copy (reclaimable)")
                     .arg(bytesText(u->pageCacheBytes, unit));
        o << '\n';
    }
    if (e.activeParams && e.activeParams != e.totalParams)
        o << (scenario.model.moeLayers() > 0
                  ? tr("Active parameters per token: %1 of %2 (mixture of experts; the input embedding left out)")
                  : tr("Active parameters per token: %1 of %2 (the input embedding left out, as model cards count)"))
                 .arg(QString::fromStdString(groupDigits(e.activeParams)),
                      QString::fromStdString(groupDigits(e.totalParams)))
          << '\n';
    if (e.ranks.size() > 1) {
        o << tr("Per rank (the figures above are the busiest, the %1):")
                 .arg(QString::fromLatin1(rankRoleName(e.rankRole)))
          << '\n';
        for (const RankPeak &r : e.ranks)
            o << "  " << QString::fromLatin1(rankRoleName(r.role)) << ": "
              << tr("%1 allocated, %2 on the device (%3 phase)")
                     .arg(bytesText(r.peak.allocatedBytes, unit), bytesText(r.peak.deviceBytes, unit),
                          phaseDisplayName(r.peak.phase).toLower())
              << '\n';
    }
    if (e.serving)
        printServingFigures(o, *e.serving, unit);
    const Gpu *target = targetGpu(scenario);
    const std::optional<GpuFit> verdictFit = targetFit(scenario, e);
    for (const GpuFit &g : e.gpus) {
        if (!g.fits && g.headroomBytes >= 0 && e.serving)
            o << "  " << tr("%1 holds the engine's reservation, but %2")
                             .arg(gpuLabel(q(g.name), g.capacityBytes, unit),
                                  e.serving->startsOk ? tr("the requests do not all run at once")
                                                      : tr("the engine does not start"));
        else
            o << "  " << verdictText(safe(g.name), g.headroomBytes, unit, VerdictStyle::Sentence, e.errorBandPercent,
                                     e.peak.deviceBytes)
              << tr(" (%1)").arg(gpuLabel(safe(g.name), g.capacityBytes, unit));
        // llama.cpp on several devices: the verdict is the tightest device's (targetFit).
        const bool verdictGpu = e.serving && e.serving->devices.size() > 1
                                    ? verdictFit && verdictFit->id == g.id && verdictFit->headroomBytes == g.headroomBytes
                                    : target && target->id == g.id;
        if (verdictGpu && e.gpus.size() > 1)
            o << tr("  <- the verdict's GPU");
        o << '\n';
    }
    if (const auto limit = positionLimit(scenario))
        o << tr("Warning: %1").arg(positionLimitText(scenario, *limit)) << '\n';
    for (const std::string &warning : e.warnings)
        o << tr("Warning: %1").arg(q(warning)) << '\n';
    if (!e.assumptions.empty()) {
        o << '\n' << tr("Assumptions:") << '\n';
        for (const std::string &a : e.assumptions)
            o << "  - " << safe(a) << '\n';
    }
    o.flush();
}

} // namespace

CommandHelp estimateHelp()
{
    return {QStringLiteral("estimate"), tr("print the memory budget of a scenario"),
            tr("Estimate the GPU memory of a scenario."),
            tr("headroom estimate FILE [--set key.path=value]... [--format text|json|csv] "
               "[--unit GiB|GB] [--model-config config.json] [--model-weights PATH]\n"
               "       headroom estimate [FILE] --train-config CONFIG... [--train-arg key=value]... "
               "[--model-config config.json]"),
            {{QStringLiteral("FILE"), tr("A .headroom.json scenario (optional with --train-config: "
                                         "the scenario the configs change).")}},
            {QCommandLineOption(QStringLiteral("set"),
                                tr("Override a scenario key, e.g. train.micro_batch=8."),
                                QStringLiteral("key.path=value")),
             QCommandLineOption(QStringLiteral("model-config"),
                                tr("Use the architecture of a Hugging Face config.json (--set "
                                   "model.* still overrides)."),
                                QStringLiteral("config.json")),
             QCommandLineOption(QStringLiteral("model-weights"),
                                tr("Take the exact parameter total from safetensors headers (a "
                                   ".safetensors file, model.safetensors.index.json or their "
                                   "folder), or the shape and tensors of a GGUF file (one .gguf "
                                   "or any file of a -0000N-of-0000M.gguf set)."),
                                QStringLiteral("path")),
             QCommandLineOption(
                 QStringLiteral("train-config"),
                 tr("A training configuration (torchtune, LitGPT, LLaMA-Factory, Accelerate or "
                    "Axolotl YAML, TrainingArguments / PEFT adapter / BitsAndBytesConfig / DeepSpeed "
                    "JSON); repeat for several."),
                 QStringLiteral("CONFIG")),
             QCommandLineOption(QStringLiteral("train-arg"),
                                tr("An override for the torchtune or LitGPT config, as its launcher "
                                   "takes it (key=value; a leading dash pair is allowed)."),
                                QStringLiteral("ARG")),
             QCommandLineOption(QStringLiteral("gpus"),
                                tr("With --train-config: the launcher's world size (torchrun "
                                   "--nproc_per_node x nodes), for configs that do not say it."),
                                QStringLiteral("N")),
             QCommandLineOption(QStringLiteral("train-format"),
                                tr("The config format when it cannot be told from the file: "
                                   "torchtune, litgpt, training_args, peft, bnb, deepspeed, "
                                   "accelerate, axolotl, llamafactory."),
                                QStringLiteral("format")),
             QCommandLineOption(QStringLiteral("format"), tr("text, json or csv."),
                                QStringLiteral("format"), QStringLiteral("text")),
             unitOption()},
            1};
}

int runEstimate(const QStringList &arguments)
{
    QCommandLineParser parser;
    if (const auto stop = parseCommand(parser, arguments, estimateHelp()))
        return *stop;
    const bool fromTrainConfig = parser.isSet(QStringLiteral("train-config"));
    if (!fromTrainConfig && parser.positionalArguments().size() < 2)
        return failUsage(estimateHelp().usage);
    if (!fromTrainConfig && (parser.isSet(QStringLiteral("train-arg")) || parser.isSet(QStringLiteral("train-format")) ||
                             parser.isSet(QStringLiteral("gpus"))))
        return fail(tr("--train-arg, --train-format and --gpus need --train-config"));
    // The world size: --gpus, or a --set of parallel.gpus (applied again after the import).
    std::optional<int> worldSize;
    for (const QString &set : parser.values(QStringLiteral("set")))
        if (set.startsWith(QLatin1String("parallel.gpus="))) {
            bool ok = false;
            const int n = set.mid(14).toInt(&ok);
            if (ok && n >= 1 && n <= 65536)
                worldSize = n;
        }
    if (parser.isSet(QStringLiteral("gpus"))) {
        bool ok = false;
        const int n = parser.value(QStringLiteral("gpus")).toInt(&ok);
        if (!ok || n < 1 || n > 65536)
            return fail(tr("--gpus: must be a whole number from 1 to 65536 (got %1)").arg(parser.value(QStringLiteral("gpus")).left(40)));
        worldSize = n;
    }
    const QStringList positional = parser.positionalArguments();
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json") &&
        format != QLatin1String("csv"))
        return fail(tr("--format: must be text, json or csv (got %1)").arg(q(quoteText(format.toStdString()))));
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;
    const QString path = positional.value(1);
    const QString configPath = parser.value(QStringLiteral("model-config"));
    const QString weightsPath = parser.value(QStringLiteral("model-weights"));
    std::optional<HfImport> config;
    std::optional<WeightsSummary> weights;
    std::optional<GgufModel> gguf;
    std::optional<nlohmann::json> ggufModel;
    // Errors name the option that gave the file (the file's own key paths follow).
    try {
        if (!configPath.isEmpty())
            config = importModelConfig(configPath);
    } catch (const InputError &error) {
        return fail(tr("--model-config: %1").arg(q(error.detail)));
    } catch (const std::exception &error) {
        return fail(tr("--model-config: %1").arg(errorText(error)));
    }
    try {
        if (weightsPath.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) {
            gguf = readGgufModel(weightsPath);
            weights = gguf->weights;
            const GgufArch arch = ggufArchitecture(*gguf);
            weights->notes.insert(weights->notes.end(), arch.notes.begin(), arch.notes.end());
            weights->notes.push_back(ggufLayerNote(*gguf, unit));
            // --model-config names the shape when both are given; the file's parameters still count.
            if (arch.arch && configPath.isEmpty())
                ggufModel = modelToJson(*arch.arch);
        } else if (!weightsPath.isEmpty()) {
            weights = readModelWeights(weightsPath);
        }
    } catch (const std::exception &error) {
        return fail(tr("--model-weights: %1").arg(errorText(error)));
    }
    std::optional<ImportedRun> imported;
    const QString label = path.isEmpty() ? parser.values(QStringLiteral("train-config")).value(0) : path;
    try {
        ModelFiles modelFiles{configPath, std::nullopt, ggufModel};
        if (weights)
            modelFiles.params = weights->params;
        Scenario scenario;
        if (fromTrainConfig) {
            std::optional<nlohmann::json> base;
            if (!path.isEmpty()) {
                const QByteArray bytes = readFile(path);
                base = parseJsonText(std::string_view(bytes.constData(), std::size_t(bytes.size())));
            }
            imported = importTrainConfigs(parser.values(QStringLiteral("train-config")), parser.values(QStringLiteral("train-arg")),
                                          parser.value(QStringLiteral("train-format")), configPath, base, std::nullopt, worldSize);
            scenario = scenarioFromDocument(imported->document, path.isEmpty() ? label : path,
                                            parser.values(QStringLiteral("set")), modelFiles.params, configPath);
        } else {
            scenario = loadScenario(path, parser.values(QStringLiteral("set")), modelFiles);
        }
        // llama.cpp places the GGUF file's own tensors.
        if (gguf && scenario.serving && scenario.serving->engine == Engine::LlamaCpp)
            scenario.serving->fileBytes = ggufFileBytes(*gguf, scenario.model.layers);
        const Estimate e = estimate(scenario);
        if (format == QLatin1String("json")) {
            nlohmann::json doc = estimateToJson(e, unit);
            if (imported)
                doc["imported"] = importJson(*imported);
            if (gguf)
                doc["gguf"] = ggufJson(*gguf);
            out() << q(doc.dump(2)) << '\n';
        }
        else if (format == QLatin1String("csv"))
            out() << q(estimateToCsv(e, unit));
        else {
            if (imported)
                printTrainImport(*imported);
            printImports(scenario, configPath, config, weightsPath, weights, unit);
            printText(scenario, e, unit);
        }
        out().flush();
        return ExitOk;
    } catch (const std::exception &error) {
        if (dynamic_cast<const TrainConfigError *>(&error))
            return fail(errorText(error));
        // A key of the scenario the training configs made is named with the file that set it.
        QString file = label;
        if (const auto *scenarioError = dynamic_cast<const ScenarioError *>(&error); scenarioError && imported)
            for (const TrainImport &import : imported->imports)
                if (hasPath(import.scenario, scenarioError->key))
                    file = q(import.file);
        return fail(file + QLatin1String(": ") + errorText(error));
    }
}

} // namespace headroom::cli
