// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/measurement.h"

#include "chart/consumerstyle.h"
#include "io/inputpolicy.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <cmath>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("measurement", text); }

QString readingName(Reading reading)
{
    switch (reading) {
    case Reading::Allocated: return tr("allocated");
    case Reading::Reserved: return tr("reserved");
    case Reading::Device: return tr("on the device");
    }
    return {};
}

} // namespace

std::optional<std::uint64_t> parseMemoryText(const QString &text, Unit unit)
{
    static const QRegularExpression pattern(
        QStringLiteral(R"(^\s*([0-9]+(?:[.,][0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([KMGT]i?B?|B|bytes)?\s*$)"),
        QRegularExpression::CaseInsensitiveOption);
    const auto match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    QString number = match.captured(1);
    number.replace(QLatin1Char(','), QLatin1Char('.'));
    bool ok = false;
    const double value = number.toDouble(&ok);
    if (!ok || !std::isfinite(value) || value <= 0)
        return std::nullopt;
    const QString suffix = match.captured(2).toUpper();
    double scale = 0;
    if (suffix.isEmpty()) {
        // A long bare integer is what torch.cuda.max_memory_allocated() prints: bytes.
        const bool bytes = !number.contains(QLatin1Char('.')) && value >= 1e6;
        scale = bytes ? 1 : (unit == Unit::GB ? 1e9 : 1073741824.0);
    } else if (suffix == QLatin1String("B") || suffix == QLatin1String("BYTES")) {
        scale = 1;
    } else {
        const int power = QStringLiteral("KMGT").indexOf(suffix.at(0)) + 1;
        const bool binary = suffix.size() >= 2 && suffix.at(1) == QLatin1Char('I');
        scale = std::pow(binary ? 1024.0 : 1000.0, power);
    }
    // One checked conversion: llround overflowed past 2^63 (a "12e18" reading became 2^63).
    std::uint64_t bytes = 0;
    if (!toUint64(value * scale, bytes) || bytes == 0)
        return std::nullopt;
    return bytes;
}

std::uint64_t estimateFor(const Estimate &estimate, Reading reading)
{
    switch (reading) {
    case Reading::Allocated: return estimate.peak.allocatedBytes;
    case Reading::Reserved: return estimate.peak.reservedBytes;
    case Reading::Device: return estimate.peak.deviceBytes;
    }
    return 0;
}

QString compareText(const Estimate &estimate, const Measurement &measured, Unit unit)
{
    const std::uint64_t estimated = estimateFor(estimate, measured.reading);
    const double error = (double(estimated) - double(measured.bytes)) / double(measured.bytes) * 100.0;
    QString text = tr("Estimate %1 %2 vs measured %3: %4%5%")
                       .arg(bytesText(estimated, unit), readingName(measured.reading),
                            bytesText(measured.bytes, unit), error >= 0 ? QStringLiteral("+") : QString())
                       .arg(error, 0, 'f', 1);
    QStringList others;
    for (Reading reading : {Reading::Allocated, Reading::Reserved, Reading::Device})
        if (reading != measured.reading)
            others << tr("%1 %2").arg(readingName(reading), bytesText(estimateFor(estimate, reading), unit));
    text += QStringLiteral(" (") + others.join(QStringLiteral(", ")) + QLatin1Char(')');
    for (const ErrorBand &band : estimate.errorBands)
        if (QLatin1String(band.reading) == QLatin1String(measured.reading == Reading::Allocated ? "allocated"
                                                         : measured.reading == Reading::Reserved ? "reserved"
                                                                                                 : "device"))
            text += tr(". Runs like this: %1 (%2 runs first seen blind).")
                        .arg(QString::fromStdString(errorBandText(band)))
                        .arg(band.cases);
    return text;
}

} // namespace headroom
