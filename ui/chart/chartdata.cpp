// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/chartdata.h"

#include "solvetext.h"

#include "catalog.h"
#include "chart/consumerstyle.h"
#include "names.h"
#include "overhead.h"
#include "document/scenariomodel.h"

#include <QCoreApplication>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("chart", text); }
QString name(const char *text) { return QString::fromLatin1(text); }

} // namespace

QString modelName(const Scenario &scenario)
{
    const ModelArch &arch = scenario.model;
    if (!arch.preset.empty())
        if (const ModelPreset *preset = builtinCatalog().findModel(arch.preset)) {
            if (preset->arch == arch)
                return QString::fromStdString(preset->name);
            return tr("%1 (modified)").arg(QString::fromStdString(preset->name));
        }
    const double params = arch.params ? double(*arch.params) : 0;
    return params > 0 ? tr("custom %1B").arg(params / 1e9, 0, 'f', 1) : tr("custom model");
}

QString scenarioSummary(const Scenario &s)
{
    QStringList parts;
    if (!s.name.empty())
        parts << modelName(s);
    if (s.task == Task::Inference && s.serving) {
        // A serving engine: its name and the requests, as the engine sees them.
        std::uint64_t longest = 0;
        for (const RequestClass &kind : s.serving->requests.classes)
            longest = std::max(longest, kind.tokens());
        parts << name(enumName(s.serving->engine))
              << tr("%1 x %2 tokens").arg(s.serving->requests.concurrency).arg(longest)
              << tr("weights %1").arg(name(enumName(s.precision.weights)));
    } else if (s.task == Task::Inference) {
        parts << tr("inference") << tr("%1 x %2 tokens").arg(s.inference.batch).arg(s.inference.context)
              << tr("weights %1, KV %2").arg(name(enumName(s.precision.weights)), name(enumName(s.inference.kvDType)));
    } else {
        QString method = name(enumName(s.train.method));
        if (s.train.method != Method::Full)
            method = tr("%1 r%2").arg(method == QLatin1String("lora") ? tr("LoRA") : tr("QLoRA")).arg(s.train.lora.rank);
        else
            method = tr("full fine-tune");
        parts << method << tr("batch %1 x %2 tokens").arg(s.train.microBatch).arg(s.train.seqLen)
              << name(enumName(s.precision.weights)) << name(enumName(s.train.optimizer));
        if (s.train.checkpointing != Checkpointing::None)
            parts << tr("%1 checkpointing").arg(name(enumName(s.train.checkpointing)));
        if (s.kernels.loss != Loss::Standard)
            parts << tr("%1 loss").arg(name(enumName(s.kernels.loss)));
    }
    parts << name(enumName(s.kernels.attention));
    if (s.parallel.gpus > 1)
        parts << tr("%1 GPUs %2").arg(s.parallel.gpus).arg(name(enumName(s.parallel.strategy)));
    return parts.join(QStringLiteral(" · "));
}

ChartColumn peakColumn(const QString &label, const Estimate &estimate, const QString &error)
{
    ChartColumn column;
    column.label = label;
    column.error = error;
    if (!error.isEmpty())
        return column;
    column.estimate = &estimate;
    for (const Consumer &consumer : estimate.consumers)
        column.bytes[std::size_t(consumer.id)] = consumer.bytes;
    column.totalBytes = estimate.peak.deviceBytes;
    return column;
}

std::vector<ChartColumn> phaseColumns(const Scenario &scenario, const Estimate &estimate)
{
    std::vector<ChartColumn> columns;
    for (const Phase &phase : estimate.phases) {
        ChartColumn column;
        column.label = phaseDisplayName(phase.id);
        column.bytes = phase.bytes;
        // Serving engines allocate their pool whole: no allocator slack (as the estimate).
        column.bytes[std::size_t(ConsumerId::Fragmentation)] =
            estimate.serving && estimate.serving->engine != Engine::HfGenerate
                ? 0
                : fragmentationBytes(phase.allocatedBytes, scenario);
        column.bytes[std::size_t(ConsumerId::CudaContext)] = cudaContextBytes(scenario);
        for (std::uint64_t bytes : column.bytes)
            column.totalBytes += bytes;
        if (phase.id == estimate.peak.phase) {
            column.label += tr(" (peak)");
            column.estimate = &estimate;
        }
        columns.push_back(column);
    }
    return columns;
}

std::vector<CapacityLine> capacityLines(const Scenario &scenario, std::uint64_t customBytes)
{
    std::vector<CapacityLine> lines;
    for (const std::string &id : scenario.gpus)
        if (const Gpu *gpu = builtinCatalog().findGpu(id))
            lines.push_back({QString::fromStdString(gpu->name), gpu->capacityBytes(), {}});
    if (customBytes)
        lines.push_back({tr("Custom"), customBytes, {}});
    return lines;
}

void attachLimits(std::vector<CapacityLine> &lines, const Scenario &scenario, SolveFor what)
{
    const std::vector<QString> labels = capacityLimitLabels(scenario, what);
    for (std::size_t i = 0; i < lines.size() && i < labels.size(); ++i)
        lines[i].limit = labels[i];
}

ChartData chartDataFor(const ScenarioModel &model)
{
    ChartData data;
    data.unit = model.unit();
    data.dark = model.dark();
    data.lines = capacityLines(model.scenario(), model.customCapacityBytes());
    if (model.solveFor() && model.estimateError().isEmpty())
        attachLimits(data.lines, model.scenario(), *model.solveFor());
    for (const UserGpu &gpu : model.userGpus())
        if (gpu.shown)
            data.lines.push_back({gpu.name, gpu.bytes, {}});
    data.title = model.scenario().name.empty() ? modelName(model.scenario())
                                               : QString::fromStdString(model.scenario().name);
    data.subtitle = scenarioSummary(model.scenario());
    if (const Estimate &e = model.estimate(); model.estimateError().isEmpty()) {
        data.subtitle += QStringLiteral(" · ") + tr("peak %1").arg(bytesText(e.peak.deviceBytes, model.unit()));
        if (e.errorBandPercent > 0)
            data.subtitle += tr(" (typically within ±%1%)").arg(e.errorBandPercent);
    }
    if (const auto &measured = model.measured(); measured && model.view() == ChartView::Bars) {
        data.measuredBytes = measured->bytes;
        data.measuredLabel = tr("measured %1").arg(bytesText(measured->bytes, model.unit()));
    }
    if (model.view() == ChartView::Phases && model.estimateError().isEmpty()) {
        data.columns = phaseColumns(model.scenario(), model.estimate());
    } else {
        data.columns.push_back(peakColumn(tr("Current"), model.estimate(), model.estimateError()));
        for (int i = 0; i < int(model.pins().size()); ++i) {
            const Pin &pin = model.pins()[std::size_t(i)];
            data.columns.push_back(peakColumn(model.pinLabel(i), pin.estimate, pin.error));
        }
    }
    return data;
}

} // namespace headroom
