// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart/chartdata.h"

#include "advicetext.h"
#include "servingheadline.h"
#include "solvetext.h"

#include "scenario/catalog.h"
#include "chart/consumerstyle.h"
#include "displaytext.h"
#include "document/scenariomodel.h"
#include "scenario/names.h"
#include "training/overhead.h"
#include "parallel/parallel.h"
#include "scenario/scenariotitle.h"
#include "estimate/verdict.h"

#include <QCoreApplication>

namespace headroom {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("chart", text); }

const QString kSeparator = QStringLiteral(" \u00b7 ");

/// True when the optimizer step of this scenario holds PyTorch's foreach AdamW temporaries.
bool hasForeachTemporaries(const Scenario &s)
{
    return s.task == Task::Train && s.kernels.profile == Profile::HuggingFace &&
           (s.train.optimizer == Optimizer::AdamW || s.train.optimizer == Optimizer::Lion);
}

QString foreachNote()
{
    return tr("Optimizer step: its workspace holds PyTorch's foreach AdamW temporaries, tensors the "
              "size of one optimizer state made inside step(); AdamW(fused=True) and 8-bit optimizers "
              "avoid most of them.");
}

} // namespace

QString modelName(const Scenario &scenario)
{
    return QString::fromStdString(modelDisplayName(scenario));
}

QString scenarioTitleText(const Scenario &scenario)
{
    return QString::fromStdString(scenarioTitle(scenario));
}

QString scenarioSummary(const Scenario &s)
{
    QStringList parts;
    // The user's own name stands beside the facts, never instead of them.
    if (const QString name = QString::fromStdString(s.name).trimmed(); !name.isEmpty())
        parts << QStringLiteral("\u201c%1\u201d").arg(name);
    for (const std::string &fact : scenarioFacts(s))
        parts << QString::fromStdString(fact);
    return parts.join(kSeparator);
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

std::optional<ChartColumn> hostColumn(const Estimate &estimate, Unit unit)
{
    if (!estimate.hostBytes)
        return std::nullopt;
    ChartColumn column;
    column.host = true;
    column.estimate = &estimate;
    const HostMachine &machine = estimate.hostMachine;
    column.label = tr("CPU RAM per GPU");
    for (const Consumer &consumer : estimate.host)
        column.bytes[std::size_t(consumer.id)] = consumer.bytes;
    column.totalBytes = estimate.hostBytes;
    if (machine.ramBytes) {
        column.ownLine.bytes = machine.ramBytes / std::max<std::uint64_t>(1, machine.gpus);
        column.ownLine.name = machine.gpus > 1 ? tr("%1 RAM / %2 GPUs = %3")
                                                     .arg(capacityText(machine.ramBytes, unit))
                                                     .arg(machine.gpus)
                                                     .arg(capacityText(column.ownLine.bytes, unit))
                                               : tr("%1 RAM").arg(capacityText(machine.ramBytes, unit));
    } else {
        column.label += kSeparator + tr("machine RAM not given");
    }
    return column;
}

std::vector<ChartColumn> deviceColumns(const Estimate &estimate, Unit unit)
{
    std::vector<ChartColumn> columns;
    if (!estimate.serving || estimate.serving->devices.size() < 2)
        return columns;
    const ServingFigures &f = *estimate.serving;
    for (const LlamaDevice &d : f.devices) {
        const Gpu *gpu = builtinCatalog().findGpu(d.gpuId);
        const QString name = gpu ? QString::fromStdString(gpu->name) : QString::fromStdString(d.gpuId);
        ChartColumn column;
        column.label = QStringLiteral("CUDA%1").arg(d.index) + kSeparator + name;
        column.bytes[std::size_t(ConsumerId::Weights)] = d.weightsBytes;
        column.bytes[std::size_t(ConsumerId::KvCache)] = d.kvCacheBytes;
        column.bytes[std::size_t(ConsumerId::Activations)] = d.computeBytes;
        column.bytes[std::size_t(ConsumerId::CudaContext)] = d.contextBytes;
        column.totalBytes = d.deviceBytes;
        column.ownLine = {name, d.capacityBytes, {}};
        column.ownVerdict = true;
        column.bandPercent = estimate.errorBandPercent;
        column.note = (d.layers == 1 ? tr("1 block") : tr("%1 blocks").arg(d.layers)) +
                      (d.output ? tr(" + output") : QString());
        if (d.gpuId == f.gpuId && d.headroomBytes == std::int64_t(d.capacityBytes) - std::int64_t(estimate.peak.deviceBytes))
            column.estimate = &estimate; // the tightest device: its formulas are the estimate's
        columns.push_back(column);
    }
    ChartColumn host;
    host.host = true;
    host.label = tr("CPU RAM");
    host.bytes[std::size_t(ConsumerId::Weights)] = f.hostWeightsBytes;
    host.bytes[std::size_t(ConsumerId::KvCache)] = f.hostKvCacheBytes;
    host.bytes[std::size_t(ConsumerId::Logits)] = f.hostBufferBytes;
    host.bytes[std::size_t(ConsumerId::Activations)] = f.hostComputeBytes;
    host.totalBytes = f.hostBytes;
    if (const HostMachine &machine = estimate.hostMachine; machine.ramBytes)
        host.ownLine = {tr("%1 RAM").arg(capacityText(machine.ramBytes, unit)), machine.ramBytes, {}};
    else
        host.label += kSeparator + tr("machine RAM not given");
    columns.push_back(host);
    return columns;
}

std::vector<ChartColumn> rankColumns(const Estimate &estimate)
{
    std::vector<ChartColumn> columns;
    if (estimate.ranks.empty()) {
        columns.push_back(peakColumn(tr("Every GPU"), estimate));
        return columns;
    }
    for (const RankPeak &rank : estimate.ranks) {
        ChartColumn column;
        QString name = QString::fromLatin1(rankRoleName(rank.role));
        name[0] = name[0].toUpper();
        column.label = rank.role == estimate.rankRole ? name + kSeparator + tr("busiest") : name;
        column.bytes = rank.bytes;
        column.totalBytes = rank.peak.deviceBytes;
        if (rank.role == estimate.rankRole)
            column.estimate = &estimate;
        columns.push_back(column);
    }
    return columns;
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
                : fragmentationBytes(phase.allocatedBytes -
                                         phase.bytes[std::size_t(ConsumerId::GenerationEngine)],
                                     scenario); // a colocated engine's pool has no slack
        // Outside the allocator and the same in every phase: as the estimate counted them.
        column.bytes[std::size_t(ConsumerId::CudaContext)] = estimate.bytes(ConsumerId::CudaContext);
        column.bytes[std::size_t(ConsumerId::Communication)] = estimate.bytes(ConsumerId::Communication);
        for (std::uint64_t bytes : column.bytes)
            column.totalBytes += bytes;
        if (phase.id == estimate.peak.phase) {
            column.label += tr(" (peak)");
            column.estimate = &estimate;
        }
        if (phase.id == PhaseId::Optimizer && hasForeachTemporaries(scenario))
            column.workspaceNote = foreachNote();
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

int targetLineIndex(const Scenario &scenario)
{
    const Gpu *target = targetGpu(scenario);
    if (!target)
        return -1;
    int index = 0;
    for (const std::string &id : scenario.gpus) {
        if (!builtinCatalog().findGpu(id))
            continue;
        if (id == target->id)
            return index;
        ++index;
    }
    return -1;
}

ChartData scenarioChartData(const Scenario &scenario, const Estimate &estimate, const QString &error,
                            Unit unit, bool dark)
{
    ChartData data;
    data.unit = unit;
    data.dark = dark;
    data.lines = capacityLines(scenario);
    data.targetLine = targetLineIndex(scenario);
    data.title = scenarioTitleText(scenario);
    if (scenario.parallel.gpus > 1)
        data.title += kSeparator + tr("per GPU of %1").arg(QString::fromStdString(groupDigits(scenario.parallel.gpus)));
    data.subtitle = scenarioSummary(scenario);
    if (error.isEmpty()) {
        data.subtitle += kSeparator + tr("peak %1").arg(bytesText(estimate.peak.deviceBytes, unit));
        if (!estimate.errorBands.empty())
            data.subtitle += QStringLiteral(" (") + QString::fromStdString(errorBandText(estimate.errorBands.front())) +
                             QLatin1Char(')');
    }
    if (const auto limit = positionLimit(scenario); limit && !limit->error)
        data.warning = QStringLiteral("\u26a0 ") + positionLimitText(scenario, *limit);
    return data;
}

void attachLimits(std::vector<CapacityLine> &lines, const Scenario &scenario, SolveFor what)
{
    const std::vector<QString> labels = capacityLimitLabels(scenario, what);
    for (std::size_t i = 0; i < lines.size() && i < labels.size(); ++i)
        lines[i].limit = labels[i];
}

ChartData chartDataFor(const ScenarioModel &model)
{
    // A name given with a file or a lesson step stands beside the facts only while it still
    // describes the scenario.
    Scenario scenario = model.scenario();
    if (!model.nameDescribesScenario())
        scenario.name.clear();
    ChartData data = scenarioChartData(scenario, model.estimate(), model.estimateError(), model.unit(), model.dark());
    data.lines = capacityLines(scenario, model.customCapacityBytes());
    if (model.solveFor() && model.estimateError().isEmpty())
        attachLimits(data.lines, model.scenario(), *model.solveFor());
    for (const UserGpu &gpu : model.userGpus())
        if (gpu.shown)
            data.lines.push_back({gpu.name, gpu.bytes, QString()});
    data.axisMinimumBytes = model.axisMinimumBytes();
    if (const auto &measured = model.measured(); measured && model.view() == ChartView::Bars) {
        data.measuredBytes = measured->bytes;
        data.measuredLabel = tr("measured %1").arg(bytesText(measured->bytes, model.unit()));
    }
    const Gpu *target = targetGpu(scenario);
    if (model.view() == ChartView::Phases && model.estimateError().isEmpty()) {
        data.columns = phaseColumns(scenario, model.estimate());
        for (int i = 0; i < int(model.estimate().phases.size()); ++i)
            if (model.estimate().phases[std::size_t(i)].id == model.estimate().peak.phase) {
                data.legendColumn = i;
                data.legendTitle = data.columns[std::size_t(i)].label;
            }
        if (hasForeachTemporaries(scenario))
            data.footnote = foreachNote();
    } else if (model.view() == ChartView::Ranks && model.estimateError().isEmpty()) {
        const Estimate &e = model.estimate();
        data.columns = rankColumns(e);
        for (int i = 0; i < int(e.ranks.size()); ++i)
            if (e.ranks[std::size_t(i)].role == e.rankRole)
                data.legendColumn = i;
        data.legendTitle = data.columns[std::size_t(data.legendColumn)].label;
        if (auto host = hostColumn(e, model.unit()))
            data.columns.push_back(*host);
    } else if (model.estimateError().isEmpty() && model.pins().empty() &&
               !deviceColumns(model.estimate(), model.unit()).empty()) {
        // llama.cpp on several devices: a bar per device against its own card, and the CPU RAM.
        data.columns = deviceColumns(model.estimate(), model.unit());
        data.legendTitle = data.columns.front().label;
        // Each bar carries its own card's line and verdict: lines across the plot would judge every
        // card by the tightest device's peak. The axis reaches the largest card.
        data.lines.clear();
        data.targetLine = -1;
        for (const LlamaDevice &d : model.estimate().serving->devices)
            data.axisMinimumBytes = std::max(data.axisMinimumBytes, d.capacityBytes);
    } else {
        QString current = tr("Current");
        if (model.estimate().ranks.size() > 1 && model.estimateError().isEmpty())
            current += kSeparator + QString::fromLatin1(rankRoleName(model.estimate().rankRole));
        data.columns.push_back(peakColumn(current, model.estimate(), model.estimateError()));
        if (model.estimateError().isEmpty() && target && model.estimate().serving &&
            model.estimate().serving->gpuId == target->id)
            data.columns.back().verdict = servingHeadline(scenario, model.estimate(), true);
        if (model.estimateError().isEmpty())
            if (auto host = hostColumn(model.estimate(), model.unit()))
                data.columns.push_back(*host);
        for (int i = 0; i < int(model.pins().size()); ++i) {
            const Pin &pin = model.pins()[std::size_t(i)];
            data.columns.push_back(peakColumn(model.pinLabel(i), pin.estimate, pin.error));
            data.columns.back().pin = i;
        }
        if (!model.pins().empty())
            data.legendTitle = tr("Sizes of: Current");
        // When the current scenario does not fit, say what would.
        if (target && model.estimateError().isEmpty() && model.estimate().peak.deviceBytes > target->capacityBytes())
            data.columns.front().note = whatWouldFitMark(scenario, target->id);
    }
    return data;
}

} // namespace headroom
