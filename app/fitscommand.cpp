// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom fits --gpu ID [--gpu ID]... [--ram-gib N] [--context T] [--concurrency C] [--engine
//  llama_cpp|vllm|sglang] [--target-mib 1024] [--format text|json|csv]`: every catalog model in
// every weight format the engine serves, on one GPU or (llama.cpp) several (core/serving/machinefits.h).
#include "servingcommands.h"

#include "cli.h"
#include "clicommon.h"
#include "displaytext.h"
#include "io/inputpolicy.h"
#include "scenario/names.h"
#include "serving/machinefits.h"

#include <QCoreApplication>
#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

/// One CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break,
/// its quotes doubled.
QString csvField(const QString &text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')) &&
        !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

std::string joined(const std::vector<std::string> &flags)
{
    std::string text;
    for (const std::string &flag : flags)
        text += (text.empty() ? "" : " ") + flag;
    return text;
}

/// The largest concurrency, "256+" when the search stopped at its cap.
QString concurrencyText(const FitsRow &row)
{
    return QString::number(row.maxConcurrency) + (row.maxConcurrency >= row.concurrencyCap ? QStringLiteral("+") : QString());
}

} // namespace

CommandHelp fitsHelp()
{
    return {QStringLiteral("fits"),
            tr("what fits a GPU: every catalog model x weight format, for llama.cpp, vLLM or SGLang"),
            tr("Every catalog model in every common weight format on one GPU: for llama.cpp the GGUF file "
               "types BF16, Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q3_K_M, IQ2_M (and MXFP4_MOE for an mxfp4 checkpoint), "
               "planned as `headroom fit` plans one; for vLLM and SGLang bf16, fp8 and the checkpoint's own "
               "format, from the engine's serving estimate. Each row has the verdict for --concurrency "
               "sequences of --context tokens, the largest context and the largest concurrency that fit "
               "(searched with the estimator, the row's GPU layers and expert offload kept), the expert "
               "offload needed (--n-cpu-moe) and the peak on the GPU. A concurrency ending in + reached the "
               "engine's limit (llama.cpp's 256 sequences)."),
            tr("headroom fits --gpu ID [--gpu ID]... [--ram-gib N] [--context T] [--concurrency C] "
               "[--engine llama_cpp|vllm|sglang] [--target-mib 1024] [--format text|json|csv] [--unit GiB|GB]"),
            {},
            {QCommandLineOption(QStringLiteral("gpu"), tr("A catalog GPU id, e.g. rtx-4090; several (llama.cpp): the devices in order, CUDA0 first, "
                                                                 "each row split over them by layer as `headroom fit` plans it."),
                                QStringLiteral("id")),
             QCommandLineOption(QStringLiteral("ram-gib"), tr("The machine's RAM."), QStringLiteral("N")),
             QCommandLineOption(QStringLiteral("context"), tr("Tokens per sequence (-c, max_model_len), default 4096."),
                                QStringLiteral("T"), QStringLiteral("4096")),
             QCommandLineOption(QStringLiteral("concurrency"),
                                tr("Sequences at once (n_parallel, max_num_seqs), default 1."), QStringLiteral("C"),
                                QStringLiteral("1")),
             QCommandLineOption(QStringLiteral("engine"), tr("llama_cpp (default), vllm or sglang."),
                                QStringLiteral("engine"), QStringLiteral("llama_cpp")),
             QCommandLineOption(QStringLiteral("target-mib"),
                                tr("llama.cpp: memory to leave free on the GPU (default 1024)."), QStringLiteral("MiB"),
                                QStringLiteral("1024")),
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
    FitsOptions options;
    const QString engine = parser.value(QStringLiteral("engine"));
    if (engine == QLatin1String("llama_cpp"))
        options.engine = Engine::LlamaCpp;
    else if (engine == QLatin1String("vllm"))
        options.engine = Engine::Vllm;
    else if (engine == QLatin1String("sglang"))
        options.engine = Engine::Sglang;
    else
        return fail(tr("--engine: must be llama_cpp, vllm or sglang (got %1)").arg(q(quoteText(engine.toStdString()))));
    const QStringList gpus = parser.values(QStringLiteral("gpu"));
    if (gpus.isEmpty())
        return fail(tr("usage: %1").arg(help.usage));
    if (gpus.size() > 1 && options.engine != Engine::LlamaCpp)
        return fail(tr("--gpu: several GPUs are planned for llama.cpp only (vLLM and SGLang would need tensor "
                       "parallelism, which fits does not plan)"));
    if (gpus.size() > 16)
        return fail(tr("--gpu: at most 16 devices"));
    for (const QString &gpu : gpus)
        if (!builtinCatalog().findGpu(gpu.toStdString()))
            return fail(tr("--gpu: %1 is not a catalog GPU").arg(q(quotedText(gpu.toStdString()))));
    options.gpu = gpus.front().toStdString();
    for (qsizetype i = 1; i < gpus.size(); ++i)
        options.moreGpus.push_back(gpus[i].toStdString());
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
    const uint concurrency = parser.value(QStringLiteral("concurrency")).toUInt(&ok);
    const uint maxConcurrency = options.engine == Engine::LlamaCpp ? kLlamaMaxSeq : kFitsMaxSeqs;
    if (!ok || concurrency < 1 || concurrency > maxConcurrency)
        return fail(options.engine == Engine::LlamaCpp
                        ? tr("--concurrency: must be a whole number from 1 to 256 (llama.cpp's LLAMA_MAX_SEQ)")
                        : tr("--concurrency: must be a whole number from 1 to %1").arg(maxConcurrency));
    if (std::uint64_t(context) * concurrency > 16777216)
        return fail(tr("--context x --concurrency: at most 16,777,216 tokens"));
    options.concurrency = concurrency;
    const double target = parser.value(QStringLiteral("target-mib")).toDouble(&ok);
    if (!ok || !(target >= 0) || target > 1e7)
        return fail(tr("--target-mib: must be a number from 0 to 10,000,000"));
    options.targetBytes = std::uint64_t(target * 1024 * 1024);
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;
    try {
        const std::vector<FitsRow> rows = fitsMatrix(builtinCatalog(), options);
        QTextStream &o = out();
        if (format == QLatin1String("json")) {
            nlohmann::json list = nlohmann::json::array();
            for (const FitsRow &row : rows)
                list.push_back({{"model", row.model}, {"format", row.format.name}, {"checkpoint", row.format.checkpoint},
                                {"verdict", row.verdict}, {"fits", row.fits}, {"weight_bytes", row.weightBytes},
                                {"context", row.context}, {"concurrency", row.concurrency},
                                {"max_context", row.maxContext}, {"max_concurrency", row.maxConcurrency},
                                {"concurrency_cap", row.concurrencyCap}, {"n_gpu_layers", row.nGpuLayers},
                                {"n_cpu_moe", row.nCpuMoe}, {"peak_bytes", row.peakBytes},
                                {"host_bytes", row.hostBytes}, {"flags", joined(row.flags)}});
            nlohmann::json devices = nlohmann::json::array({options.gpu});
            for (const std::string &gpu : options.moreGpus)
                devices.push_back(gpu);
            o << q(nlohmann::json{{"gpu", options.gpu}, {"gpus", devices}, {"engine", engine.toStdString()}, {"context", options.context},
                                  {"concurrency", options.concurrency}, {"rows", list}}
                       .dump(2))
              << '\n';
        } else if (format == QLatin1String("csv")) {
            o << "model,format,checkpoint,verdict,weight_bytes,context,concurrency,max_context,max_concurrency,"
                 "n_gpu_layers,n_cpu_moe,peak_bytes,host_bytes,flags\n";
            for (const FitsRow &row : rows) {
                const QStringList fields{csvField(q(row.model)),
                                         csvField(q(row.format.name)),
                                         row.format.checkpoint ? QStringLiteral("true") : QStringLiteral("false"),
                                         csvField(q(row.verdict)),
                                         QString::number(row.weightBytes),
                                         QString::number(row.context),
                                         QString::number(row.concurrency),
                                         QString::number(row.maxContext),
                                         QString::number(row.maxConcurrency),
                                         QString::number(row.nGpuLayers),
                                         QString::number(row.nCpuMoe),
                                         QString::number(row.peakBytes),
                                         QString::number(row.hostBytes),
                                         csvField(q(joined(row.flags)))};
                o << fields.join(QLatin1Char(',')) << '\n';
            }
        } else {
            const Gpu *gpu = builtinCatalog().findGpu(options.gpu);
            QString on = gpuLabel(q(gpu->name), gpu->capacityBytes(), unit);
            for (const std::string &id : options.moreGpus) {
                const Gpu *more = builtinCatalog().findGpu(id);
                on += QStringLiteral(" + ") + gpuLabel(q(more->name), more->capacityBytes(), unit);
            }
            const QString load = options.concurrency == 1
                                     ? tr("1 sequence of %1 tokens").arg(options.context)
                                     : tr("%1 sequences of %2 tokens").arg(options.concurrency).arg(options.context);
            if (options.engine == Engine::LlamaCpp)
                o << (options.moreGpus.empty() ? tr("llama.cpp on %1, %2, leaving %3 free:")
                                               : tr("llama.cpp on %1 (split by layer, the peak the tightest device's), "
                                                    "%2, leaving %3 free on each:"))
                         .arg(on, load, bytesText(options.targetBytes, unit))
                  << '\n';
            else
                o << tr("%1 on %2, %3:").arg(engine == QLatin1String("vllm") ? QStringLiteral("vLLM") : QStringLiteral("SGLang"),
                                             gpuLabel(q(gpu->name), gpu->capacityBytes(), unit), load)
                  << '\n';
            o << "  " << tr("model").leftJustified(20) << ' ' << tr("format").leftJustified(9) << ' '
              << tr("weights").rightJustified(11) << "  " << tr("verdict").leftJustified(26) << ' '
              << tr("max ctx").rightJustified(9) << ' ' << tr("max seqs").rightJustified(8) << ' '
              << tr("cpu-moe").rightJustified(7) << ' ' << tr("peak").rightJustified(11) << "  " << tr("flags") << '\n';
            for (const FitsRow &row : rows)
                o << "  " << q(row.model).leftJustified(20) << ' '
                  << (q(row.format.name) + (row.format.checkpoint ? QStringLiteral("*") : QString())).leftJustified(9)
                  << ' ' << bytesText(row.weightBytes, unit).rightJustified(11) << "  " << q(row.verdict).leftJustified(26)
                  << ' ' << QString::number(row.maxContext).rightJustified(9) << ' '
                  << concurrencyText(row).rightJustified(8) << ' ' << QString::number(row.nCpuMoe).rightJustified(7)
                  << ' ' << bytesText(row.peakBytes, unit).rightJustified(11) << "  " << q(joined(row.flags)) << '\n';
            o << tr("* the checkpoint's own format; max ctx: tokens per sequence at %1 at once; max seqs: "
                    "sequences of %2 tokens")
                     .arg(options.concurrency)
                     .arg(options.context)
              << '\n';
        }
        o.flush();
        return ExitOk;
    } catch (const std::exception &error) {
        return fail(errorText(error));
    }
}

} // namespace headroom::cli
