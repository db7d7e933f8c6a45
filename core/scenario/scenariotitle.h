// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "scenario/scenario.h"

#include <string>
#include <vector>

namespace headroom {

/// The model's name from the scenario alone: `model.name` (an imported config.json's
/// `_name_or_path` or folder, "Llama-3.1-8B"), the catalog name ("Llama 2 7B"), "Llama 2 7B
/// (modified)" once a field differs from the preset, the name in `model.config`'s path, or
/// "custom 7.0B".
std::string modelDisplayName(const Scenario &scenario, const Catalog &catalog = builtinCatalog());

/// What a chart of the scenario is about, computed from the scenario and nothing else (so it can
/// never go stale): model, method and precision, e.g. "Llama 2 7B · LoRA r8 on q, v · bf16
/// base", "Llama 3 70B · full fine-tune · bf16", "Llama 3 8B · serving · bf16 weights".
std::string scenarioTitle(const Scenario &scenario, const Catalog &catalog = builtinCatalog());

/// The other settings that shape the bars, one short phrase each, never repeating the title:
/// "micro-batch 4 x 2,048 tokens", "AdamW", "full checkpointing", "SDPA", "4 GPUs FSDP".
std::vector<std::string> scenarioFacts(const Scenario &scenario);

/// "q, v"; "all linear layers" for the seven projections.
std::string loraTargetsText(const std::vector<LoraTarget> &targets);

} // namespace headroom
