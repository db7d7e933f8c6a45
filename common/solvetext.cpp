// SPDX-License-Identifier: GPL-3.0-or-later
#include "solvetext.h"

#include "estimate/estimate.h"

#include <QCoreApplication>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("solve", text); }
QString bytes(std::uint64_t value, Unit unit) { return QString::fromStdString(formatBytes(value, unit)); }
QString number(std::uint64_t value) { return QString::fromStdString(groupDigits(value)); }

/// "kv cache", "activations": the consumer's id in words.
QString consumerWords(ConsumerId id) { return QString::fromLatin1(consumerKey(id)).replace(QLatin1Char('_'), QLatin1Char(' ')); }

QString limitText(const std::string &limit)
{
    if (limit == "kv_cache")
        return tr("the KV cache is full");
    if (limit == "max_num_seqs")
        return tr("the engine's sequence limit (max_num_seqs)");
    if (limit == "max_model_len")
        return tr("the engine's longest sequence (max_model_len)");
    if (limit == "max_positions")
        return tr("the model's learned positions (model.max_positions)");
    if (limit == "vllm_start")
        return tr("vLLM's start beside the trainer (it needs total x utilization free)");
    if (limit == "range")
        return tr("the largest value the scenario format allows");
    return tr("the GPU's memory");
}

} // namespace

QString solveVariableName(SolveFor what)
{
    switch (what) {
    case SolveFor::MaxMicroBatch: return tr("micro-batch");
    case SolveFor::MaxSeqLen: return tr("sequence length");
    case SolveFor::MaxContext: return tr("context");
    case SolveFor::MaxConcurrency: return tr("concurrent sequences");
    case SolveFor::MinGpus: return tr("GPUs");
    case SolveFor::MaxLoraRank: return tr("LoRA rank");
    case SolveFor::MaxVllmUtilization: return tr("vLLM memory utilization (%)");
    }
    return {};
}

QString solveLimitLabel(const Solution &s)
{
    const QString gpu = QString::fromStdString(s.gpuName);
    if (s.what == SolveFor::MinGpus)
        return s.value ? tr("%1: >= %2 GPUs (%3)").arg(gpu, number(s.value), QString::fromStdString(s.strategy))
                       : tr("%1: no GPU count fits").arg(gpu);
    if (!s.value)
        return tr("%1: %2 1 does not fit").arg(gpu, solveVariableName(s.what));
    return tr("%1: %2 <= %3").arg(gpu, solveVariableName(s.what), number(s.value));
}

std::vector<QString> capacityLimitLabels(const Scenario &scenario, SolveFor what)
{
    std::vector<std::string> ids;
    for (const std::string &id : scenario.gpus)
        if (builtinCatalog().findGpu(id))
            ids.push_back(id);
    std::vector<QString> labels(ids.size());
    try {
        const std::vector<Solution> answers = solveForGpus(scenario, what, ids);
        for (std::size_t i = 0; i < answers.size(); ++i) {
            const Solution &s = answers[i];
            labels[i] = s.what == SolveFor::MinGpus
                            ? (s.value ? tr(">= %1 GPUs (%2)").arg(number(s.value), QString::fromStdString(s.strategy))
                                       : tr("no GPU count fits"))
                            : (s.value ? tr("%1 <= %2").arg(solveVariableName(s.what), number(s.value))
                                       : tr("%1 1 does not fit").arg(solveVariableName(s.what)));
        }
    } catch (const std::exception &) {
        // Not applicable to this scenario (or beyond range): no labels.
    }
    return labels;
}

QString solveAnswerText(const Solution &s, Unit unit)
{
    const QString name = solveVariableName(s.what);
    if (s.what == SolveFor::MinGpus) {
        if (!s.value)
            return tr("No number of GPUs up to 65,536 fits %1 with the strategies allowed.")
                .arg(QString::fromStdString(s.gpuName));
        QString text = tr("%1 GPUs (%2) fit %3, peak %4 each")
                           .arg(number(s.value), QString::fromStdString(s.strategy),
                                QString::fromStdString(s.gpuName), bytes(s.peakBytes.value_or(0), unit));
        if (s.nextValue && s.nextPeakBytes)
            text += tr("; %1 would need %2 each").arg(number(*s.nextValue), bytes(*s.nextPeakBytes, unit));
        return text + QLatin1Char('.');
    }
    if (!s.value)
        return tr("Not even %1 1 fits %2: it needs %3 (%4 grows most).")
            .arg(name, QString::fromStdString(s.gpuName), bytes(s.nextPeakBytes.value_or(0), unit),
                 consumerWords(s.grows));
    QString text = tr("%1 %2 fits %3 (peak %4)")
                       .arg(name, number(s.value), QString::fromStdString(s.gpuName),
                            bytes(s.peakBytes.value_or(0), unit));
    if (s.nextValue && s.nextPeakBytes)
        text += tr("; %1 does not: %2, %3 grows, stopped by %4")
                    .arg(number(*s.nextValue), bytes(*s.nextPeakBytes, unit),
                         consumerWords(s.grows), limitText(s.limit));
    else
        text += tr("; it is %1").arg(limitText(s.limit));
    return text + QLatin1Char('.');
}

} // namespace headroom
