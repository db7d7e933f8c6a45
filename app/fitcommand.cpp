// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom fit FILE [--gpu ID] [--ram-gib N] [--target-mib 1024] [--fit-ctx N] [--context N]
//  [--format text|json]`: llama.cpp's --fit for a machine described, not the one at hand.
#include "servingcommands.h"

#include "cli.h"
#include "clicommon.h"
#include "displaytext.h"
#include "ggufimport.h"
#include "io/ggufarch.h"
#include "model/modeljson.h"
#include "scenario/catalog.h"
#include "scenario/names.h"
#include "serving/llamacppfit.h"
#include "io/inputpolicy.h"

#include <QCoreApplication>
#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

/// general.file_type (llama.h `enum llama_ftype`) as weight_type names it; empty when unknown.
const char *fileTypeName(std::uint32_t ftype)
{
    switch (ftype) {
    case 0: return "f32";      case 1: return "f16";      case 2: return "q4_0";     case 3: return "q4_1";
    case 7: return "q8_0";     case 8: return "q5_0";     case 9: return "q5_1";     case 10: return "q2_k";
    case 11: return "q3_k_s";  case 12: return "q3_k_m";  case 13: return "q3_k_l";  case 14: return "q4_k_s";
    case 15: return "q4_k_m";  case 16: return "q5_k_s";  case 17: return "q5_k_m";  case 18: return "q6_k";
    case 19: return "iq2_xxs"; case 20: return "iq2_xs";  case 21: return "q2_k_s";  case 22: return "iq3_xs";
    case 23: return "iq3_xxs"; case 24: return "iq1_s";   case 25: return "iq4_nl";  case 26: return "iq3_s";
    case 27: return "iq3_m";   case 28: return "iq2_s";   case 29: return "iq2_m";   case 30: return "iq4_xs";
    case 31: return "iq1_m";   case 32: return "bf16";    case 36: return "tq1_0";   case 37: return "tq2_0";
    case 38: return "mxfp4_moe";
    default: return "";
    }
}

/// A scenario for a GGUF file: its architecture, served by llama.cpp, with the file's own bytes.
Scenario scenarioForGguf(const QString &path, const QStringList &gpus, std::uint32_t context, const QStringList &overrides)
{
    const GgufModel model = readGgufModel(path);
    const GgufArch arch = ggufArchitecture(model);
    if (!arch.arch)
        throw GgufError(printable(path.toStdString()) + ": " + arch.notes.back() + "; give a scenario instead");
    nlohmann::json serving = {{"engine", "llama_cpp"},
                              {"n_ctx", context ? context : std::min<std::uint32_t>(4096, std::uint32_t(arch.arch->maxPositions))}};
    if (model.fileType && *fileTypeName(*model.fileType))
        serving["weight_type"] = fileTypeName(*model.fileType);
    nlohmann::json doc = {{"format", "headroom-scenario"}, {"version", 1}, {"task", "inference"},
                          {"model", modelToJson(*arch.arch)}, {"gpus", nlohmann::json::array()},
                          {"serving", serving}};
    for (const QString &gpu : gpus)
        doc["gpus"].push_back(gpu.toStdString());
    Scenario s = scenarioFromDocument(doc, path, overrides);
    s.serving->fileBytes = ggufFileBytes(model, s.model.layers);
    return s;
}

} // namespace

CommandHelp fitHelp()
{
    return {QStringLiteral("fit"),
            tr("llama.cpp's --fit offline: the flags that fit a GPU you describe"),
            tr("Plan llama.cpp's placement for a GPU you describe (not the one at hand), as its --fit "
               "does: all layers on the GPU if they fit, else mixture-of-experts tensors to CPU RAM "
               "layer by layer, else fewer layers; the context shrinks only towards --fit-ctx. The "
               "plan fits with --target-mib left free, and one more layer on the GPU does not."),
            tr("headroom fit FILE --gpu ID [--gpu ID]... [--ram-gib N] [--target-mib 1024] [--fit-ctx N] [--context N] "
               "[--format text|json] [--unit GiB|GB] [--set key.path=value]..."),
            {{QStringLiteral("FILE"), tr("A .gguf model (or any file of a split set), or a .headroom.json "
                                         "scenario served by llama_cpp.")}},
            {QCommandLineOption(QStringLiteral("gpu"), tr("A catalog GPU id, e.g. rtx-4090; several: the devices in order "
                                                         "(CUDA0, CUDA1, ...), the plan gives -ts."),
                                QStringLiteral("id")),
             QCommandLineOption(QStringLiteral("ram-gib"), tr("The machine's RAM, for the CPU side of the plan."),
                                QStringLiteral("N")),
             QCommandLineOption(QStringLiteral("target-mib"), tr("Memory to leave free on the GPU, in MiB "
                                                                 "(default 1024, as llama.cpp's fit target)."),
                                QStringLiteral("MiB"), QStringLiteral("1024")),
             QCommandLineOption(QStringLiteral("fit-ctx"), tr("The smallest context the plan may shrink to "
                                                              "(default: keep the context)."),
                                QStringLiteral("N")),
             QCommandLineOption(QStringLiteral("context"), tr("The context to plan for (-c; a .gguf: default "
                                                              "4096 or the model's)."),
                                QStringLiteral("N")),
             QCommandLineOption(QStringLiteral("set"), tr("Override a scenario key first."),
                                QStringLiteral("key.path=value")),
             QCommandLineOption(QStringLiteral("format"), tr("text or json."), QStringLiteral("format"),
                                QStringLiteral("text")),
             unitOption()}};
}

int runFit(const QStringList &arguments)
{
    QCommandLineParser parser;
    const CommandHelp help = fitHelp();
    if (const auto stop = parseCommand(parser, arguments, help))
        return *stop;
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return fail(tr("--format: must be text or json (got %1)").arg(q(quoteText(format.toStdString()))));
    const QStringList gpus = parser.values(QStringLiteral("gpu"));
    if (gpus.isEmpty())
        return fail(tr("usage: %1").arg(help.usage));
    if (gpus.size() > 16)
        return fail(tr("--gpu: at most 16 devices (got %1)").arg(gpus.size()));
    for (const QString &gpu : gpus)
        if (!builtinCatalog().findGpu(gpu.toStdString()))
            return fail(tr("--gpu: %1 is not a catalog GPU").arg(q(quotedText(gpu.toStdString()))));
    auto number = [&](const char *name, double low, double high, double &value) {
        if (!parser.isSet(QLatin1String(name)))
            return true;
        bool ok = false;
        value = parser.value(QLatin1String(name)).toDouble(&ok);
        if (!ok || !(value >= low) || value > high) {
            fail(tr("--%1: must be a number from %2 to %3 (got %4)")
                     .arg(QLatin1String(name))
                     .arg(QString::number(low, 'f', low < 1 ? 3 : 0))
                     .arg(q(groupDigits(std::uint64_t(high))))
                     .arg(q(quoteText(parser.value(QLatin1String(name)).toStdString()))));
            return false;
        }
        return true;
    };
    double ramGiB = 0, targetMiB = 1024, fitCtx = 0, context = 0;
    if (!number("ram-gib", 0.001, 1e6, ramGiB) || !number("target-mib", 0, 1e7, targetMiB) ||
        !number("fit-ctx", 1, 16777216, fitCtx) || !number("context", 1, 16777216, context))
        return ExitBadInput;
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;
    const QString path = parser.positionalArguments().at(1);
    try {
        Scenario scenario;
        if (path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) {
            scenario = scenarioForGguf(path, gpus, std::uint32_t(context), parser.values(QStringLiteral("set")));
        } else {
            scenario = loadScenario(path, parser.values(QStringLiteral("set")));
            scenario.gpus.clear();
            for (const QString &gpu : gpus)
                scenario.gpus.push_back(gpu.toStdString());
            if (scenario.serving) { // the plan chooses the split
                scenario.serving->tensorSplit.clear();
                scenario.serving->splitMode = LlamaSplitMode::Layer;
                scenario.serving->mainGpu = 0;
            }
            scenario.targetGpu.clear();
            if (scenario.serving && context > 0)
                scenario.serving->nCtx = std::uint32_t(context);
        }
        if (ramGiB > 0)
            scenario.host.ramGiB = ramGiB;
        LlamaFitOptions options;
        options.targetBytes = std::uint64_t(targetMiB * 1024 * 1024);
        options.fitCtx = std::uint32_t(fitCtx);
        options.devices = std::uint32_t(gpus.size());
        const LlamaFitPlan plan = planLlamaFit(scenario, options);
        QStringList flags;
        for (const std::string &flag : plan.flags)
            flags << q(flag);
        if (format == QLatin1String("json")) {
            nlohmann::json devices = nlohmann::json::array();
            if (plan.devices.empty())
                devices.push_back({{"gpu", plan.gpu}, {"bytes", plan.deviceBytes}, {"free_bytes", plan.freeBytes}});
            for (const LlamaFitDevice &d : plan.devices)
                devices.push_back({{"gpu", d.gpu}, {"layers", d.layers}, {"bytes", d.bytes}, {"free_bytes", d.freeBytes}});
            nlohmann::json doc = {{"flags", flags.join(QLatin1Char(' ')).toStdString()},
                                  {"n_ctx", plan.nCtx},
                                  {"n_gpu_layers", plan.nGpuLayers},
                                  {"n_cpu_moe", plan.nCpuMoe},
                                  {"override_tensor", plan.overrideTensor},
                                  {"devices", devices},
                                  {"host_bytes", plan.hostBytes},
                                  {"fits", plan.fits},
                                  {"ram_fits", plan.ramFits},
                                  {"target_bytes", options.targetBytes},
                                  {"steps", plan.steps}};
            out() << q(doc.dump(2)) << '\n';
        } else {
            QTextStream &o = out();
            QStringList on;
            for (const QString &id : gpus)
                if (const Gpu *card = builtinCatalog().findGpu(id.toStdString()))
                    on << gpuLabel(q(card->name), card->capacityBytes(), unit);
            o << tr("llama.cpp fit on %1, leaving %2 free%3:")
                     .arg(on.join(QStringLiteral(" + ")), bytesText(options.targetBytes, unit),
                          gpus.size() > 1 ? tr(" on each device") : QString())
              << '\n';
            for (const std::string &step : plan.steps)
                o << "  - " << safe(step) << '\n';
            o << (plan.fits ? tr("Plan: %1").arg(flags.join(QLatin1Char(' ')))
                            : tr("Does not fit, even with every layer in CPU RAM: %1").arg(flags.join(QLatin1Char(' '))))
              << '\n';
            if (!plan.overrideTensor.empty())
                o << tr("  the same as -ot \"%1\"").arg(q(plan.overrideTensor)) << '\n';
            const auto freeText = [&](std::int64_t free) {
                return free >= 0 ? bytesText(std::uint64_t(free), unit)
                                 : QStringLiteral("-") + bytesText(std::uint64_t(-free), unit);
            };
            if (plan.devices.empty())
                o << "  " << tr("GPU %1: %2 used, %3 free").arg(q(plan.gpu), bytesText(plan.deviceBytes, unit),
                                                              freeText(plan.freeBytes))
                  << '\n';
            for (std::size_t i = 0; i < plan.devices.size(); ++i)
                o << "  " << tr("CUDA%1 %2: %3 layers, %4 used, %5 free")
                                 .arg(i)
                                 .arg(q(plan.devices[i].gpu))
                                 .arg(plan.devices[i].layers)
                                 .arg(bytesText(plan.devices[i].bytes, unit), freeText(plan.devices[i].freeBytes))
                  << '\n';
            o << "  " << tr("CPU RAM: %1").arg(bytesText(plan.hostBytes, unit));
            if (ramGiB > 0)
                o << (plan.ramFits ? tr(" (fits the machine's %1 GiB)") : tr(" (does not fit the machine's %1 GiB)"))
                         .arg(ramGiB);
            o << '\n';
            o.flush();
        }
        out().flush();
        return ExitOk;
    } catch (const GgufError &error) {
        // The GGUF reader's messages name the file already.
        return fail(errorText(error));
    } catch (const std::exception &error) {
        return fail(path + QLatin1String(": ") + errorText(error));
    }
}

} // namespace headroom::cli
