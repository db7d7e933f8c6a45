// SPDX-License-Identifier: GPL-3.0-or-later
// The serving engines' figures in words: under `headroom estimate`, and the report of
// `headroom validate` on a folder of engine start-up logs.
#include "servingcommands.h"

#include "cli.h"
#include "chart/consumerstyle.h"
#include "clicommon.h"
#include "scenario/names.h"
#include "accuracy/servingvalidation.h"

#include <QDir>
#include <nlohmann/json.hpp>

namespace headroom::cli {

namespace {

QString engineName(Engine engine)
{
    switch (engine) {
    case Engine::Vllm: return QStringLiteral("vLLM");
    case Engine::Sglang: return QStringLiteral("SGLang");
    case Engine::LlamaCpp: return QStringLiteral("llama.cpp");
    case Engine::Trtllm: return QStringLiteral("TensorRT-LLM");
    case Engine::HfGenerate: return QStringLiteral("generate()");
    }
    return {};
}

QString percent(double fraction) { return QString::number(fraction * 100, 'f', 1) + QLatin1Char('%'); }

QString signedPercent(const std::optional<double> &fraction)
{
    if (!fraction)
        return QStringLiteral("-");
    return (*fraction >= 0 ? QStringLiteral("+") : QString()) + percent(*fraction);
}

void printSummary(QTextStream &o, const QString &name, const ErrorSummary &bytes, const ErrorSummary &tokens, int width)
{
    auto cell = [](const ErrorSummary &s) {
        return s.count ? QStringLiteral("%1  %2  %3").arg(QString::number(s.count).rightJustified(3),
                                                         percent(s.medianAbs).rightJustified(7),
                                                         percent(s.p90Abs).rightJustified(7))
                       : QStringLiteral("  -        -        -");
    };
    o << name.leftJustified(width) << "  " << cell(bytes) << "    " << cell(tokens) << '\n';
}

} // namespace

void printServingFigures(QTextStream &o, const ServingFigures &f, Unit unit)
{
    const Gpu *gpu = builtinCatalog().findGpu(f.gpuId);
    o << '\n'
      << tr("%1 on %2, as the engine computes it:").arg(engineName(f.engine), gpu ? q(gpu->name) : q(f.gpuId)) << '\n';
    o << "  " << tr("budget: %1 of %2 (CUDA total)").arg(bytesText(f.budgetBytes, unit), bytesText(f.deviceTotalBytes, unit))
      << '\n';
    o << "  " << tr("KV cache: %1 = %2 tokens (%3 per token)")
                     .arg(bytesText(f.kvCacheBytes, unit), q(groupDigits(f.kvCacheTokens)), bytesText(f.kvBytesPerToken, unit))
      << '\n';
    o << "  " << tr("maximum concurrency for %1 tokens per request: %2x")
                     .arg(q(groupDigits(f.maxConcurrencyTokens)), QString::number(f.maxConcurrency, 'f', 2))
      << '\n';
    if (!f.startsOk && f.maxLenThatFits >= f.maxConcurrencyTokens)
        o << "  " << tr("does not start: the KV cache holds a request, but the engine runs out of memory after "
                        "allocating it (see its notes)")
          << '\n';
    else if (!f.startsOk)
        o << "  " << tr("does not start: one request of %1 tokens needs more KV cache than there is (longest that "
                        "fits: %2 tokens)")
                         .arg(q(groupDigits(f.maxConcurrencyTokens)), q(groupDigits(f.maxLenThatFits)))
          << '\n';
    o << "  " << tr("requests: %1 sequences, %2 tokens, %3 of the KV cache; %4")
                     .arg(q(groupDigits(f.requestSequences)), q(groupDigits(f.requestTokens)),
                          bytesText(f.requestKvBytes, unit),
                          f.requestsFit ? tr("they run at once") : tr("they do not all run at once (%1)")
                                                                       .arg(q(servingLimitKey(f.limit))))
      << '\n';
    if (f.hostBytes)
        o << "  " << tr("in CPU RAM: %1").arg(bytesText(f.hostBytes, unit)) << '\n';
    if (f.engine == Engine::LlamaCpp && f.hostLoad.cpuBytes) {
        const LlamaHostWeights &h = f.hostLoad;
        const bool mapped = h.mode == LlamaLoadMode::Mmap || h.mode == LlamaLoadMode::MmapMlock;
        o << "  "
          << (mapped ? tr("load mode %1: CPU weights %2 in the page cache (mapped %3, of them %4 copied to a GPU), "
                          "locked %5")
                           .arg(q(enumName(h.mode)), bytesText(h.cpuBytes, unit), bytesText(h.mappedBytes, unit),
                                bytesText(h.mappedOffloadedBytes, unit), bytesText(h.lockedBytes, unit))
                     : tr("load mode %1: CPU weights %2 in anonymous memory, locked %3")
                           .arg(q(enumName(h.mode)), bytesText(h.anonymousBytes, unit), bytesText(h.lockedBytes, unit)))
          << '\n';
    }
    for (const LlamaDevice &d : f.devices) {
        const Gpu *card = builtinCatalog().findGpu(d.gpuId);
        o << "  " << tr("CUDA%1 %2 (share %3, %4 blocks%5): weights %6, KV cache %7, compute %8, context %9 = %10 of %11: %12")
                         .arg(d.index)
                         .arg(card ? q(card->name) : q(d.gpuId), QString::number(d.split, 'f', 3))
                         .arg(d.layers)
                         .arg(d.output ? tr(" + output") : QString(), bytesText(d.weightsBytes, unit),
                              bytesText(d.kvCacheBytes, unit), bytesText(d.computeBytes, unit),
                              bytesText(d.contextBytes, unit), bytesText(d.deviceBytes, unit),
                              bytesText(d.capacityBytes, unit), d.fits ? tr("fits") : tr("does not fit"))
          << '\n';
    }
    if (!f.devices.empty())
        o << "  " << tr("CPU RAM: weights %1, KV cache %2, output buffer %3, compute buffer %4 = %5")
                         .arg(bytesText(f.hostWeightsBytes, unit), bytesText(f.hostKvCacheBytes, unit),
                              bytesText(f.hostBufferBytes, unit), bytesText(f.hostComputeBytes, unit),
                              bytesText(f.hostBytes, unit))
          << '\n';
    for (const std::string &note : f.notes)
        o << "  | " << safe(note) << '\n';
}

int runServingValidate(const QString &directory, const QStringList &files, bool json)
{
    const QDir dir(directory);
    std::vector<ServingCase> cases;
    try {
        for (const QString &file : files) {
            const QByteArray bytes = readFile(dir.filePath(file));
            cases.push_back(parseServingCase(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                             dir.filePath(file).toStdString()));
        }
    } catch (const std::exception &error) {
        return fail(QString::fromStdString(error.what()));
    }
    const ServingReport report = validateServing(cases);
    QTextStream &o = out();
    if (json) {
        o << q(servingReportToJson(report).dump(2)) << '\n';
        o.flush();
        return ExitOk;
    }
    int idWidth = 4, groupWidth = 5;
    for (const ServingCaseResult &r : report.cases) {
        idWidth = std::max(idWidth, int(r.log.id.size()));
        groupWidth = std::max(groupWidth, int(servingGroupName(r.log.scenario).size()));
    }
    o << tr("case").leftJustified(idWidth) << "  " << tr("KV GiB printed").rightJustified(14) << "  "
      << tr("estimated").rightJustified(9) << "  " << tr("error").rightJustified(7) << "  "
      << tr("tokens printed").rightJustified(14) << "  " << tr("estimated").rightJustified(10) << "  "
      << tr("error").rightJustified(7) << '\n';
    for (const ServingCaseResult &r : report.cases) {
        const auto gib = [](std::uint64_t bytes) { return QString::number(double(bytes) / 1073741824.0, 'f', 2); };
        o << safe(r.log.id).leftJustified(idWidth) << "  "
          << (r.log.kvCacheBytes ? gib(*r.log.kvCacheBytes) : QStringLiteral("-")).rightJustified(14) << "  "
          << gib(r.figures.kvCacheBytes).rightJustified(9) << "  " << signedPercent(r.bytesError).rightJustified(7)
          << "  " << (r.log.kvTokens ? q(groupDigits(*r.log.kvTokens)) : QStringLiteral("-")).rightJustified(14)
          << "  " << q(groupDigits(r.figures.kvCacheTokens)).rightJustified(10) << "  "
          << signedPercent(r.tokensError).rightJustified(7) << '\n';
    }
    o << '\n' << tr("Absolute error, (estimate - printed) / printed:") << '\n';
    o << tr("group").leftJustified(groupWidth) << "  " << tr("KV bytes: n  median      p90") << "    "
      << tr("KV tokens: n  median      p90") << '\n';
    printSummary(o, tr("all"), report.bytes, report.tokens, groupWidth);
    for (const ServingGroup &g : report.groups)
        printSummary(o, q(g.name), g.bytes, g.tokens, groupWidth);
    o << '\n' << tr("Every figure the engines printed (absolute error; relative, and in GiB for memory):") << '\n';
    o << tr("figure").leftJustified(16) << "  " << tr("n").rightJustified(3) << "  " << tr("median").rightJustified(7)
      << "  " << tr("p90").rightJustified(7) << "  " << tr("median GiB").rightJustified(10) << "  "
      << tr("p90 GiB").rightJustified(8) << '\n';
    for (const FigureSummary &f : report.figures) {
        const std::size_t count = std::max(f.relative.count, f.gibCount);
        if (!count)
            continue;
        const auto gibCell = [&](double v, int width) {
            return (f.gibCount ? QString::number(v, 'f', 2) : QStringLiteral("-")).rightJustified(width);
        };
        o << q(f.key).leftJustified(16) << "  " << QString::number(count).rightJustified(3) << "  "
          << (f.relative.count ? percent(f.relative.medianAbs) : QStringLiteral("-")).rightJustified(7) << "  "
          << (f.relative.count ? percent(f.relative.p90Abs) : QStringLiteral("-")).rightJustified(7) << "  "
          << gibCell(f.medianAbsGiB, 10) << "  " << gibCell(f.p90AbsGiB, 8) << '\n';
    }
    if (report.startCases)
        o << tr("start-up or refusal predicted: %1 of %2 cases").arg(report.startPredicted).arg(report.startCases)
          << '\n';
    o.flush();
    return ExitOk;
}

} // namespace headroom::cli
