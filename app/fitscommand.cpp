// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom fits --gpu ID [--ram-gib N] [--context T] [--engine llama_cpp] [--target-mib 1024]
//  [--format text|json|csv]`: every catalog model in every common GGUF file type on one GPU.
#include "servingcommands.h"

#include "cli.h"
#include "clicommon.h"
#include "displaytext.h"
#include "io/inputpolicy.h"
#include "scenario/names.h"
#include "serving/llamacppfits.h"

#include <QCoreApplication>
#include <nlohmann/json.hpp>

namespace headroom::cli {

CommandHelp fitsHelp()
{
    return {QStringLiteral("fits"),
            tr("what fits a GPU: every catalog model x GGUF file type, planned for llama.cpp"),
            tr("Every catalog model in every common GGUF file type (bf16, Q8_0, Q6_K, Q5_K_M, Q4_K_M, "
               "Q3_K_M, IQ2_M) on one GPU, planned as `headroom fit` plans one: the verdict, the layers "
               "and expert offload the plan needs, and the memory it uses."),
            tr("headroom fits --gpu ID [--ram-gib N] [--context T] [--engine llama_cpp] [--target-mib 1024] "
               "[--format text|json|csv] [--unit GiB|GB]"),
            {},
            {QCommandLineOption(QStringLiteral("gpu"), tr("A catalog GPU id, e.g. rtx-4090."), QStringLiteral("id")),
             QCommandLineOption(QStringLiteral("ram-gib"), tr("The machine's RAM."), QStringLiteral("N")),
             QCommandLineOption(QStringLiteral("context"), tr("The context (-c), default 4096."), QStringLiteral("T"),
                                QStringLiteral("4096")),
             QCommandLineOption(QStringLiteral("engine"), tr("llama_cpp (the only one modelled here)."),
                                QStringLiteral("engine"), QStringLiteral("llama_cpp")),
             QCommandLineOption(QStringLiteral("target-mib"), tr("Memory to leave free on the GPU (default 1024)."),
                                QStringLiteral("MiB"), QStringLiteral("1024")),
             QCommandLineOption(QStringLiteral("format"), tr("text, json or csv."), QStringLiteral("format"),
                                QStringLiteral("text")),
             unitOption()}};
}

int runFits(const QStringList &arguments)
{
    QCommandLineParser parser;
    const CommandHelp help = fitsHelp();
    if (const auto stop = parseCommand(parser, arguments, help))
        return *stop;
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json") && format != QLatin1String("csv"))
        return fail(tr("--format: must be text, json or csv (got %1)").arg(q(quoteText(format.toStdString()))));
    if (parser.value(QStringLiteral("engine")) != QLatin1String("llama_cpp"))
        return fail(tr("--engine: only llama_cpp is planned here (got %1); vllm and sglang are not modelled yet")
                        .arg(q(quoteText(parser.value(QStringLiteral("engine")).toStdString()))));
    const QStringList gpus = parser.values(QStringLiteral("gpu"));
    if (gpus.size() != 1)
        return fail(gpus.isEmpty() ? tr("usage: %1").arg(help.usage)
                                   : tr("--gpu: one GPU; several devices (tensor_split) are not modelled yet"));
    LlamaFitsOptions options;
    options.gpu = gpus.front().toStdString();
    if (!builtinCatalog().findGpu(options.gpu))
        return fail(tr("--gpu: %1 is not a catalog GPU").arg(q(quotedText(options.gpu))));
    bool ok = true;
    if (parser.isSet(QStringLiteral("ram-gib"))) {
        options.ramGiB = parser.value(QStringLiteral("ram-gib")).toDouble(&ok);
        if (!ok || !(options.ramGiB > 0) || options.ramGiB > 1e6)
            return fail(tr("--ram-gib: must be a number above 0 and at most 1,000,000"));
    }
    const uint context = parser.value(QStringLiteral("context")).toUInt(&ok);
    if (!ok || context < 1 || context > 16777216)
        return fail(tr("--context: must be a whole number from 1 to 16,777,216"));
    options.context = context;
    const double target = parser.value(QStringLiteral("target-mib")).toDouble(&ok);
    if (!ok || !(target >= 0) || target > 1e7)
        return fail(tr("--target-mib: must be a number from 0 to 10,000,000"));
    options.targetBytes = std::uint64_t(target * 1024 * 1024);
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;
    try {
        const std::vector<LlamaFitsRow> rows = llamaFitsMatrix(builtinCatalog(), options);
        auto flags = [](const LlamaFitsRow &row) {
            std::string text;
            for (const std::string &flag : row.plan.flags)
                text += (text.empty() ? "" : " ") + flag;
            return text;
        };
        QTextStream &o = out();
        if (format == QLatin1String("json")) {
            nlohmann::json list = nlohmann::json::array();
            for (const LlamaFitsRow &row : rows)
                list.push_back({{"model", row.model}, {"format", enumName(row.format)}, {"verdict", row.verdict},
                                {"weight_bytes", row.weightBytes}, {"n_ctx", row.plan.nCtx},
                                {"n_gpu_layers", row.plan.nGpuLayers}, {"n_cpu_moe", row.plan.nCpuMoe},
                                {"device_bytes", row.plan.deviceBytes}, {"host_bytes", row.plan.hostBytes},
                                {"flags", flags(row)}});
            o << q(nlohmann::json{{"gpu", options.gpu}, {"engine", "llama_cpp"}, {"rows", list}}.dump(2)) << '\n';
        } else if (format == QLatin1String("csv")) {
            o << "model,format,verdict,weight_bytes,n_ctx,n_gpu_layers,n_cpu_moe,device_bytes,host_bytes,flags\n";
            for (const LlamaFitsRow &row : rows)
                o << q(row.model) << ',' << enumName(row.format) << ",\"" << q(row.verdict) << "\"," << row.weightBytes << ','
                  << row.plan.nCtx << ',' << row.plan.nGpuLayers << ',' << row.plan.nCpuMoe << ','
                  << row.plan.deviceBytes << ',' << row.plan.hostBytes << ",\"" << q(flags(row)) << "\"\n";
        } else {
            const Gpu *gpu = builtinCatalog().findGpu(options.gpu);
            o << tr("llama.cpp on %1, n_ctx %2, leaving %3 free:")
                     .arg(gpuLabel(q(gpu->name), gpu->capacityBytes(), unit))
                     .arg(options.context)
                     .arg(bytesText(options.targetBytes, unit))
              << '\n';
            for (const LlamaFitsRow &row : rows)
                o << "  " << q(row.model).leftJustified(20) << ' ' << QString::fromLatin1(enumName(row.format)).leftJustified(8)
                  << ' ' << bytesText(row.weightBytes, unit).rightJustified(11) << "  " << q(row.verdict).leftJustified(26)
                  << ' ' << q(flags(row)) << '\n';
        }
        o.flush();
        return ExitOk;
    } catch (const std::exception &error) {
        return fail(errorText(error));
    }
}

} // namespace headroom::cli
