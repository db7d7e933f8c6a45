// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "solve/solver.h"
#include "scenario/units.h"

#include <QString>
#include <vector>

namespace headroom {

/// The variable in the user's words: "micro-batch", "sequence length", "context",
/// "concurrent sequences", "GPUs", "LoRA rank".
QString solveVariableName(SolveFor what);
/// A capacity line's label: "RTX 4090: micro-batch <= 3" ("min-gpus": ">= 2 GPUs (tensor)").
QString solveLimitLabel(const Solution &solution);
/// The limit of `what` for each of the scenario's catalog GPUs, in order ("micro-batch <= 3"),
/// searched together; empty strings where the variable does not apply.
std::vector<QString> capacityLimitLabels(const Scenario &scenario, SolveFor what);
/// One sentence for the answer: "micro-batch 3 fits (peak 23.1 GB); 4 needs 25.2 GB: activations
/// grow."
QString solveAnswerText(const Solution &solution, Unit unit);

} // namespace headroom
