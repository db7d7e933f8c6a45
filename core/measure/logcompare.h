// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A start-up log beside the estimate: the scenario the log describes (model, version, options,
// GPU, parallelism: only what it states), and each figure the engine printed next to the
// estimator's own figure of the same kind, with the difference attributed to a consumer. The
// estimate is never tuned to the log: both stand side by side.

#include "estimate/estimate.h"
#include "measure/enginelog.h"
#include "scenario/catalog.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// The scenario a log states, as a v1 document, and what is missing before it can be estimated.
struct LogScenario
{
    nlohmann::json document;
    /// What the scenario took from where ("model llama-3.1-8b: the log's model (line 3)").
    std::vector<std::string> notes;
    /// What the log does not state and the user must give ("the GPU: vLLM does not print it").
    std::vector<std::string> missing;
};

/// What the user adds to what the log states.
struct LogScenarioInput
{
    std::string modelPreset; ///< --model: a catalog id, when the log's model is not in the catalog
    std::string gpuId;       ///< --gpu: a catalog id, when the log names no GPU
};

/// The catalog model whose Hugging Face id is the log's model, or whose id's last part is the
/// last part of the log's path, compared without case; null when none is.
const ModelPreset *catalogModelForLog(const std::string &model, const Catalog &catalog);
/// The one catalog GPU whose name is the log's device name ("NVIDIA GeForce RTX 4090",
/// "RTX 4090"), compared without case, spaces and the vendor's words; null when none or several.
const Gpu *catalogGpuForLog(const std::string &name, const Catalog &catalog);

/// The scenario the log states. TensorRT-LLM is not modelled: `missing` says so.
LogScenario scenarioFromLog(const EngineLog &log, const LogScenarioInput &input,
                            const Catalog &catalog = builtinCatalog());

/// One figure the engine printed beside the estimate's.
struct ComparedFigure
{
    std::string key;   ///< the log figure's key
    std::string label; ///< "KV cache", "weights", ...
    FigureUnit unit = FigureUnit::Bytes;
    double measured = 0;
    std::optional<double> estimated; ///< nothing where the estimate has no such figure
    std::size_t line = 0;
    std::string text;  ///< the line it came from
    /// The estimate's consumers the figure stands beside (none: no consumer of its own, e.g. the
    /// budget, the KV tokens); the window's Breakdown view shows the figure on these consumers.
    std::vector<ConsumerId> consumers;
};

struct LogComparison
{
    std::vector<ComparedFigure> figures;
    /// What explains the differences, one sentence each, the largest first.
    std::vector<std::string> findings;
};

/// Compares the log's figures with the estimate's serving figures (the estimate of the
/// scenario: the log's own, or the user's). `estimate` may have no serving figures (an engine
/// Headroom does not model): the figures are listed without estimates.
LogComparison compareLog(const EngineLog &log, const Estimate &estimate);

/// The comparison as JSON ("headroom-log-comparison" v1; docs/scenario-format.md).
nlohmann::json logComparisonToJson(const EngineLog &log, const LogComparison &comparison,
                                   const nlohmann::json &scenario);

} // namespace headroom
