// SPDX-License-Identifier: GPL-3.0-or-later
#include "displaytext.h"

#include "scenario/scenariotitle.h"

#include <QCoreApplication>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("display", text); }

} // namespace

QString shortGpuName(const QString &name)
{
    QString shortName = name;
    for (const char *prefix : {"NVIDIA ", "GeForce ", "Tesla ", "AMD ", "Instinct ", "Apple "})
        if (shortName.startsWith(QLatin1String(prefix)))
            shortName.remove(0, int(qstrlen(prefix)));
    // "(one GCD; the 128 GB module is 2 devices)" belongs in a tooltip, not on a line.
    if (const int paren = int(shortName.indexOf(QLatin1String(" ("))); paren > 0)
        shortName.truncate(paren);
    return shortName;
}

QString bytesText(std::uint64_t bytes, Unit unit)
{
    return QString::fromStdString(formatBytes(bytes, unit));
}

QString bytesText(std::uint64_t bytes, ByteScale scale)
{
    return QString::fromStdString(formatBytesIn(bytes, scale));
}

QString capacityText(std::uint64_t bytes, Unit unit)
{
    return QString::fromStdString(formatCapacity(bytes, unit));
}

QString gpuLabel(const QString &name, std::uint64_t bytes, Unit unit)
{
    return tr("%1 \u00b7 %2").arg(shortGpuName(name), capacityText(bytes, unit));
}

namespace {
QString plainVerdictText(const QString &gpuName, std::int64_t headroomBytes, Unit unit, VerdictStyle style);
}

QString verdictText(const QString &gpuName, std::int64_t headroomBytes, Unit unit, VerdictStyle style, int bandPercent,
                    std::uint64_t peakBytes)
{
    const QString plain = plainVerdictText(gpuName, headroomBytes, unit, style);
    if (bandPercent <= 0 || peakBytes == 0)
        return plain;
    const std::int64_t capacity = std::int64_t(peakBytes) + headroomBytes;
    if (capacity <= 0 ||
        fitState(peakBytes, std::uint64_t(capacity), bandPercent) != FitState::Borderline)
        return plain;
    // Over the GPU but within the band: "does not fit" stays, the band says it is borderline.
    const bool over = headroomBytes < 0;
    switch (style) {
    case VerdictStyle::Sentence:
        return plain + QStringLiteral(" \u2014 ") +
               (over ? tr("borderline: within the \u00b1%1% this estimate carries").arg(bandPercent)
                     : QString::fromStdString(fitStateText(FitState::Borderline, bandPercent)));
    case VerdictStyle::TwoLines:
        return plain + (over ? tr("\nborderline (\u00b1%1%)") : tr("\nmay not fit (\u00b1%1%)")).arg(bandPercent);
    case VerdictStyle::Compact:
    case VerdictStyle::Tiny:
        break;
    }
    return plain + (over ? tr("\n\u00b1%1%: borderline") : tr("\n\u00b1%1%: may not fit")).arg(bandPercent);
}

QString targetVerdictText(const Scenario &scenario, const Estimate &estimate, Unit unit)
{
    const auto fit = targetFit(scenario, estimate);
    if (!fit)
        return {};
    return verdictText(QString::fromStdString(fit->name), fit->headroomBytes, unit, VerdictStyle::Sentence,
                       estimate.errorBandPercent, estimate.peak.deviceBytes);
}

namespace {
QString plainVerdictText(const QString &gpuName, std::int64_t headroomBytes, Unit unit, VerdictStyle style)
{
    const QString gpu = shortGpuName(gpuName);
    const std::uint64_t margin =
        headroomBytes < 0 ? std::uint64_t(-(headroomBytes + 1)) + 1 : std::uint64_t(headroomBytes);
    const QString amount = bytesText(margin, unit);
    if (style == VerdictStyle::Tiny)
        return (headroomBytes >= 0 ? tr("spare\n%1") : tr("over by\n%1")).arg(amount);
    if (headroomBytes >= 0)
        return style == VerdictStyle::Sentence ? tr("fits %1 with %2 to spare").arg(gpu, amount)
                                               : tr("fits %1\n%2 spare").arg(gpu, amount);
    switch (style) {
    case VerdictStyle::Sentence: return tr("does not fit %1 by %2").arg(gpu, amount);
    case VerdictStyle::TwoLines: return tr("does not fit %1\nby %2").arg(gpu, amount);
    case VerdictStyle::Compact: return tr("over %1\nby %2").arg(gpu, amount);
    case VerdictStyle::Tiny: break;
    }
    return {};
}
} // namespace

QString positionLimitText(const Scenario &scenario, const PositionLimit &limit)
{
    const QString key = scenario.task == Task::Train ? QStringLiteral("train.seq_len")
                        : scenario.serving ? QStringLiteral("the longest sequence served (requests, max_model_len)")
                                           : QStringLiteral("inference.context");
    const QString model = QString::fromStdString(modelDisplayName(scenario));
    const QString tokens = QString::fromStdString(groupDigits(limit.tokens));
    const QString positions = QString::fromStdString(groupDigits(std::uint64_t(limit.maxPositions)));
    if (limit.error)
        return tr("%1 %2 is beyond the %3 learned positions of %4 (model.max_positions): there is no "
                  "position embedding for the later tokens, so the run cannot start")
            .arg(key, tokens, positions, model);
    return tr("%1 tokens is beyond the %2 positions %3 was trained on: RoPE runs, but quality "
              "drops unless the positions are scaled (rope_scaling)")
        .arg(tokens, positions, model);
}

} // namespace headroom
