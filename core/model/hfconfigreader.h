// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the config.json importer: reading Hugging Face keys, and the shared readers the
// families build on (hfconfig.cpp: the 2023-2024 families; hfconfigmodern.cpp: 2025-2026).

#include "model/hfconfig.h"
#include "io/inputpolicy.h"

#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace headroom::hf {

using nlohmann::json;

/// Reads config.json keys by their Hugging Face names, collecting the required ones that are
/// absent so that one error can list them all.
class ConfigReader
{
  public:
    ConfigReader(const json &config, std::string type, std::string prefix = "")
        : m_config(config), m_type(std::move(type)), m_prefix(std::move(prefix))
    {
    }

    const std::string &type() const { return m_type; }

    /// The first of `names` that is present and not null.
    const json *find(std::initializer_list<const char *> names) const
    {
        for (const char *name : names) {
            const auto it = m_config.find(name);
            if (it != m_config.end() && !it->is_null())
                return &*it;
        }
        return nullptr;
    }

    /// True when the key is there at all, even as null.
    bool hasKey(const char *name) const { return m_config.contains(name); }

    /// A required whole number; records the first name as missing when none is present.
    int integer(std::initializer_list<const char *> names, int low, int high)
    {
        if (const json *value = find(names))
            return checkedInt(*names.begin(), *value, low, high);
        m_missing.emplace_back(m_prefix + *names.begin());
        return low;
    }

    /// An optional whole number (absent or null gives the fallback).
    int integerOr(std::initializer_list<const char *> names, int fallback, int low, int high)
    {
        const json *value = find(names);
        return value ? checkedInt(*names.begin(), *value, low, high) : fallback;
    }

    bool flag(std::initializer_list<const char *> names, bool fallback) const
    {
        const json *value = find(names);
        if (!value)
            return fallback;
        if (!value->is_boolean())
            invalid(*names.begin(), "must be true or false (got " + quoteJson(*value) + ")");
        return value->get<bool>();
    }

    /// Throws HfConfigError listing every required key that was absent.
    void finish() const
    {
        if (m_missing.empty())
            return;
        std::string list;
        for (const auto &name : m_missing)
            list += (list.empty() ? "" : ", ") + name;
        throw HfConfigError("config.json (model_type \"" + m_type + "\") lacks " + list, m_type,
                            m_missing);
    }

    [[noreturn]] void invalid(const std::string &name, const std::string &what) const
    {
        throw HfConfigError("config.json (model_type \"" + m_type + "\"): " + m_prefix + name + " " + what,
                            m_type, {});
    }

  private:
    int checkedInt(const char *name, const json &value, int low, int high) const
    {
        const std::string range =
            "must be a whole number from " + std::to_string(low) + " to " + std::to_string(high);
        if (!value.is_number())
            invalid(name, range + " (got " + quoteJson(value) + ")");
        const double number = value.get<double>();
        if (!std::isfinite(number) || number != std::floor(number) || number < low || number > high)
            invalid(name, range + " (got " + quoteJson(value) + ")");
        return static_cast<int>(number);
    }

    const json &m_config;
    std::string m_type;
    std::string m_prefix; ///< "vision_config." when reading a nested config
    std::vector<std::string> m_missing;
};

constexpr int kMaxHidden = 1 << 20;
constexpr int kMaxVocab = 1 << 22;
constexpr int kMaxPositions = 1 << 24;

/// What one family's reader produces besides the architecture.
struct Reading
{
    HfImport import;
    std::int64_t extraParams = 0; ///< tensors ModelArch cannot express (may be negative)
};


/// head_dim: the explicit key, else hidden / heads (which must then divide evenly).
int readHeadDim(ConfigReader &r, const ModelArch &arch, int fallback);

/// Llama and the families that kept its field names (Mistral, Mixtral, Qwen2/3, Gemma, Phi-3).
struct LlamaLike
{
    bool tiedDefault = false;
    int maxPositionsDefault = 2048;
    int headDimDefault = 0; ///< 0: hidden / heads
    int normsPerLayer = 2;
    bool qkvBias = false; ///< Qwen2: biases on q, k and v always, never on o or the MLP
};

/// The required fields most families name the Hugging Face way; reports every missing one.
void readStandardShape(ConfigReader &r, ModelArch &arch, const char *intermediate = "intermediate_size");
/// The Llama-style fields of a config (shape, heads, biases, rope scaling notes).
Reading readLlamaLike(ConfigReader &r, const LlamaLike &family);
/// sliding_window as the config gives it (null or absent: the fallback; 0 = none).
int readWindow(ConfigReader &r, int fallback);

/// One config.json family: its model_type and reader.
struct Family
{
    const char *modelType;
    Reading (*read)(ConfigReader &);
};

/// The 2025-2026 families (hfconfigmodern.cpp).
const std::vector<Family> &modernFamilies();
/// The checkpoint's storage format from quantization_config (hfquant.cpp): at the top of
/// `outer` or inside `text` (the text_config). Throws HfConfigError naming the key.
void readQuantization(const json &outer, const json &text, HfImport &import);

/// The vision tower and projector of a vision-language checkpoint (hfvision.cpp), counted from
/// the outer config's vision_config: Qwen2.5-VL, Qwen3-VL (and its MoE), Gemma 3's SigLIP. 0 for
/// an outer model_type without a vision tower Headroom counts. Throws HfConfigError naming the
/// vision_config key.
std::uint64_t readVisionTower(const json &outer, const std::string &outerType, int textHidden);
/// The outer model_types whose vision tower readVisionTower counts.
bool countsVisionTower(const std::string &outerType);

/// The hybrid linear-attention / Mamba families (hfconfighybrid.cpp).
const std::vector<Family> &hybridFamilies();
/// Hunyuan, ERNIE 4.5 MoE, Ministral 3 and Kimi Linear (hfconfigmore.cpp).
const std::vector<Family> &moreFamilies();

/// What a known decoder family lacks to be read (hfrefusals.cpp), or null.
const char *notModelledReason(const std::string &type);
/// True for the Transformers model types that are no decoder language model.
bool notDecoderLm(const std::string &type);

} // namespace headroom::hf
