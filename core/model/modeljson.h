// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "scenario/scenariojson.h"

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace headroom {

/// How a preset's or config.json's released checkpoint stores its weights.
struct StoredPrecision
{
    std::optional<DType> weights;
    WeightScales scales = WeightScales::Tensor;
    QuantizedModules modules = QuantizedModules::Linear;
    std::int32_t groupSize = 0; ///< weights per scale (GPTQ, AWQ, compressed-tensors); 0: default, -1: per channel
    bool zeroPoints = true;
    std::string unmodelled; ///< a quantization method Headroom cannot size (warned about)
};

/// Reads a scenario's `model` object (absent: the default model). Throws ScenarioError.
/// `stored`, when given, receives the checkpoint's storage format where the preset or the
/// config.json names one.
ModelArch readModel(const nlohmann::json *node, const Catalog &catalog,
                    const ConfigResolver &resolveConfig, StoredPrecision *stored = nullptr);
/// The `model` object as scenarioToJson writes it.
nlohmann::json modelToJson(const ModelArch &model);

} // namespace headroom
