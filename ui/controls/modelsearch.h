// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"

class QComboBox;
class QWidget;

namespace headroom {

/// Makes a model preset combo (items: preset names, data: preset ids) searchable as users
/// think of models: typing a Hub id ("meta-llama/Llama-3.1-8B-Instruct") or part of a name
/// ("qwen3 30b") and Enter picks the best match (findModels), as if chosen from the list (the
/// combo's activated signal); a popup lists the matches while typing (name or Hub id). Text that
/// matches nothing puts back the current model's name and says so in the tooltip.
void installModelSearch(QComboBox *combo, const Catalog &catalog = builtinCatalog());
/// The same for the "Model preset" combo inside `root` (the control panel); false when none.
bool installModelSearchIn(QWidget *root, const Catalog &catalog = builtinCatalog());

} // namespace headroom
