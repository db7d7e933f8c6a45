// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// A Hugging Face config.json that cannot be imported. `missingFields` lists the config keys
/// (Hugging Face names, e.g. "num_hidden_layers") that must be added before it can be: a caller
/// can ask the user for them, set them in the JSON and import again. "model_type" is listed
/// when it is absent or not one of supportedHfModelTypes().
class HfConfigError : public std::runtime_error
{
public:
    HfConfigError(const std::string &message, std::string type, std::vector<std::string> missing)
        : std::runtime_error(message), modelType(std::move(type)), missingFields(std::move(missing))
    {
    }
    std::string modelType;
    std::vector<std::string> missingFields;
};

/// An architecture imported from a config.json, with what the import had to assume.
struct HfImport
{
    /// The architecture. `preset` is empty; `params` is set only where ModelArch cannot express
    /// every tensor of the model (BERT's token types and pooler, OPT's projections, ...), so
    /// that the total stays exact.
    ModelArch arch;
    std::string modelType;          ///< config.json's model_type, e.g. "llama"
    std::vector<std::string> notes; ///< approximations and defaults taken, one sentence each
    /// How the checkpoint stores its weights, from quantization_config (fp8 in 128 x 128 blocks,
    /// MXFP4 experts, ...); empty for 16-bit checkpoints.
    std::optional<DType> storedWeights;
    WeightScales storedScales = WeightScales::Tensor;
    QuantizedModules storedModules = QuantizedModules::Linear;
    std::int32_t storedGroupSize = 0; ///< weights per scale; 0: the format's default, -1: per channel
    bool storedZeroPoints = true;
    /// A quantization method (or variant) Headroom cannot size: "gptq 3-bit", "hqq". The weights
    /// are then sized as bf16 with a visible warning.
    std::string unmodelledFormat;

    bool operator==(const HfImport &) const = default;
};

/// Maps a config.json (already parsed) to an architecture. Absent optional keys take the
/// defaults of the family's transformers configuration class. Throws HfConfigError.
HfImport importHfConfig(const nlohmann::json &config);
/// Same, from the JSON text of a config.json.
HfImport importHfConfig(std::string_view text);
/// A config.json's text with Python's bare Infinity, -Infinity and NaN (outside strings) quoted,
/// the form config.json files written by Python's json module take, ready for a strict parser.
std::string pythonJsonToJson(std::string_view text);

/// The model_type values importHfConfig understands.
const std::vector<std::string> &supportedHfModelTypes();

} // namespace headroom
