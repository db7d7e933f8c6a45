// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/budgetchart.h"
#include "scenario/scenario.h"
#include "solve/solver.h"

#include <optional>

namespace headroom {

class ScenarioModel;

/// The title of a chart of `scenario`: model, method and precision, from the scenario alone.
QString scenarioTitleText(const Scenario &scenario);
/// The subtitle's phrases: the user's name for the scenario (when it has one), then the
/// settings that shape the bars. Never the model or the method again.
QString scenarioSummary(const Scenario &scenario);
/// The model's display name ("Llama 3 8B", "custom 7.0B").
QString modelName(const Scenario &scenario);
/// The device-level column of an estimate's peak (consumers as the estimate lists them).
ChartColumn peakColumn(const QString &label, const Estimate &estimate, const QString &error = {});
/// The CPU RAM bar: what one GPU's rank keeps in the machine's RAM (offloaded optimizer state,
/// parameters, activations), with the machine's RAM share per GPU as its own line; nullopt when
/// nothing is offloaded.
std::optional<ChartColumn> hostColumn(const Estimate &estimate, Unit unit);
/// llama.cpp on several devices: one bar per device (weights, KV cache, compute buffer, CUDA
/// context) against its own card's capacity, then the CPU RAM bar (weights, KV cache, output
/// buffer) against the machine's RAM when given; empty for one device.
std::vector<ChartColumn> deviceColumns(const Estimate &estimate, Unit unit);
/// One column per kind of rank (first and last pipeline stage), the busiest marked; one column
/// when every GPU holds the same.
std::vector<ChartColumn> rankColumns(const Estimate &estimate);
/// One column per phase, each with fragmentation and the CUDA context on top.
std::vector<ChartColumn> phaseColumns(const Scenario &scenario, const Estimate &estimate);
/// Capacity lines for the scenario's GPUs (+ a custom capacity when non-zero).
std::vector<CapacityLine> capacityLines(const Scenario &scenario, std::uint64_t customBytes = 0);
/// The index of the scenario's target GPU among capacityLines(scenario), or -1.
int targetLineIndex(const Scenario &scenario);
/// The chart of one scenario on its own (its title, subtitle, verdict, warnings), as the
/// window draws it without pins; lessons and exports start from it.
ChartData scenarioChartData(const Scenario &scenario, const Estimate &estimate, const QString &error,
                            Unit unit, bool dark);
/// Puts the solver's limit for `what` on the scenario's GPU lines (in their order).
void attachLimits(std::vector<CapacityLine> &lines, const Scenario &scenario, SolveFor what);
/// What the window's chart shows for the model's current state.
ChartData chartDataFor(const ScenarioModel &model);

} // namespace headroom
