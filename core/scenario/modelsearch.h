// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"

#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// The catalog's models matching `query` as users type a model: a Hub id
/// ("meta-llama/Llama-3.1-8B-Instruct"), a name or part of one ("qwen3 30b"), a preset id.
/// Case, '-', '_', '.', '/' and spaces do not matter; every word of the query must occur in the
/// model's name, id, Hub id or family, except a trailing variant word of a Hub id ("Instruct",
/// "Chat", "it", "hf", "Base": the same architecture and memory). Best first: the exact Hub id
/// or id, then names that start with the query, then the catalog's order. Empty for a query of
/// no words.
std::vector<const ModelPreset *> findModels(std::string_view query, const Catalog &catalog = builtinCatalog());

} // namespace headroom
