// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate/estimate.h"
#include "scenario/scenario.h"

#include <QString>

namespace headroom {

/// The answer to "how many users can the engine serve?" for an engine that reserves a share of
/// the GPU up front (vLLM, SGLang): "10 users at 8,192 tokens on H100 80GB SXM (vLLM reserves
/// 90%)", or why not. The share the engine leaves free is the engine's, not spare room: this is
/// said instead of "fits, N GiB spare". Empty for anything else (training, plain inference,
/// llama.cpp, generate()) and when the estimate has no engine figures.
QString servingHeadline(const Scenario &scenario, const Estimate &estimate, bool twoLines = false);

} // namespace headroom
