// SPDX-License-Identifier: GPL-3.0-or-later
// What the sweep chart shows for a scenario, and its exports.
#include "chart/sweepchart.h"

#include "chart/chartdata.h"
#include "document/documentio.h"

#include <QChart>
#include <QCoreApplication>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <algorithm>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("sweep", text); }

std::uint32_t nextPowerOfTwo(std::uint64_t value)
{
    std::uint64_t power = 1;
    while (power < value && power < (1u << 30))
        power *= 2;
    return std::uint32_t(power);
}

/// Builds a SweepChart for `data` in a bare scene of `size` and hands the scene to `paint`.
template <typename Paint>
void withSweepScene(const SweepChartData &data, QSize size, Paint paint)
{
    QGraphicsScene scene;
    SweepChart chart;
    scene.addItem(chart.chart());
    scene.setSceneRect(QRectF(QPointF(0, 0), QSizeF(size)));
    scene.setBackgroundBrush(data.dark ? QColor(0x1E1F22) : QColor(Qt::white));
    chart.chart()->setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
    chart.setData(data);
    chart.setScale(exportTextScale(size));
    settleScene(scene);
    paint(scene);
    scene.removeItem(chart.chart());
}

} // namespace

std::vector<std::uint32_t> sweepValues(const Scenario &scenario, SweepAxis axis)
{
    const std::uint32_t current = axisValue(scenario, axis);
    std::vector<std::uint32_t> values;
    if (axis == SweepAxis::SeqLen) {
        const std::uint32_t top = std::clamp<std::uint32_t>(nextPowerOfTwo(2ull * current), 16384, 1u << 20);
        for (std::uint32_t value = top / 32; value <= top; value += top / 32)
            values.push_back(value);
    } else {
        const std::uint32_t top = std::clamp<std::uint32_t>(nextPowerOfTwo(2ull * current), 16, 4096);
        const std::uint32_t step = std::max<std::uint32_t>(1, top / 32);
        if (step > 1)
            values.push_back(1);
        for (std::uint32_t value = step; value <= top; value += step)
            values.push_back(value);
    }
    return values;
}

SweepChartData sweepChartData(const Scenario &scenario, SweepAxis axis, std::optional<Attention> attention,
                              Unit unit, bool dark)
{
    Scenario shown = scenario;
    if (attention)
        shown.kernels.attention = *attention;
    const std::vector<std::uint32_t> values = sweepValues(shown, axis);
    SweepChartData data;
    data.unit = unit;
    data.dark = dark;
    data.sweep = sweep(shown, axis, values);
    const bool train = shown.task == Task::Train;
    const bool seq = axis == SweepAxis::SeqLen;
    data.axisTitle = seq ? (train ? tr("Sequence length (tokens)") : tr("Context (tokens)"))
                         : (train ? tr("Sequences per micro-batch") : tr("Concurrent sequences"));
    // The title is the scenario; the subtitle says what varies, then the other settings.
    shown.name.clear();
    data.title = scenarioTitleText(shown);
    data.subtitle = tr("memory against %1")
                        .arg(seq ? (train ? tr("sequence length") : tr("context")) : (train ? tr("micro-batch") : tr("concurrent sequences"))) +
                    QStringLiteral(" \u00b7 ") + scenarioSummary(shown);
    // The other of eager and flash, as a dashed total: quadratic against linear.
    Scenario other = shown;
    other.kernels.attention = shown.kernels.attention == Attention::Eager ? Attention::Flash : Attention::Eager;
    const Sweep otherSweep = sweep(other, axis, values);
    for (const SweepPoint &point : otherSweep.points)
        data.comparison.push_back({point.value, point.estimate.peak.deviceBytes});
    data.comparisonLabel = other.kernels.attention == Attention::Eager ? tr("Total with eager attention")
                                                                       : tr("Total with flash attention");
    return data;
}

QImage renderSweepImage(const SweepChartData &data, QSize size, double scale)
{
    QImage image(QSize(qRound(size.width() * scale), qRound(size.height() * scale)), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(data.dark ? QColor(0x1E1F22) : QColor(Qt::white));
    withSweepScene(data, size, [&](QGraphicsScene &scene) {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        const QRectF rect(QPointF(0, 0), QSizeF(size));
        scene.render(&painter, rect, rect);
    });
    return image;
}

QString exportSweep(const QString &path, ExportFormat format, SweepChartData data, const ChartExportOptions &options)
{
    data.dark = options.dark;
    if (QString error = checkExportOptions(format, options); !error.isEmpty())
        return error;
    QByteArray bytes;
    QString error;
    withSweepScene(data, options.size, [&](QGraphicsScene &scene) {
        bytes = renderScene(scene, options.size, format, options, data.title, error);
    });
    return error.isEmpty() ? writeFileAtomically(path, bytes) : error;
}

} // namespace headroom
