// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// A catalog model: its architecture, the published parameter total and where both come from.
struct ModelPreset
{
    std::string id;
    std::string name;
    std::string hfId;
    std::string family;
    ModelArch arch;
    std::uint64_t publishedParams = 0;
    /// A total published in rounded form ("20.9B"): the value, half its last digit's step, and
    /// the words; 0 when the exact total is published.
    double publishedRounded = 0;
    double publishedRounding = 0;
    double publishedActiveRounded = 0; ///< mixtures of experts' "active" figure, 0 when none
    std::string publishedText;
    std::string source;
    /// How the released checkpoint stores its weights (DeepSeek-V3: fp8 in 128 x 128 blocks,
    /// gpt-oss: MXFP4 experts); inference scenarios of the preset take it by default.
    std::optional<DType> storedWeights;
    WeightScales storedScales = WeightScales::Tensor;
    QuantizedModules storedModules = QuantizedModules::Linear;
};

/// A catalog GPU with its usable capacity as the driver reports it.
struct Gpu
{
    std::string id;
    std::string name;
    double marketingGb = 0;
    std::uint64_t capacityMiB = 0;
    std::string vendor;
    std::string gpuClass;
    std::string source;
    /// The GPU shares the machine's RAM (Apple M-series, DGX Spark, Ryzen AI Max): gpus.json
    /// "unified": true; capacity is the GPU-visible share (docs/serving.md, "Unified memory").
    bool unified = false;

    std::uint64_t capacityBytes() const { return capacityMiB * 1024ull * 1024ull; }
};

/// A catalog machine (a DGX, a cloud instance): how many of which catalog GPU it holds and the
/// system RAM of the whole machine, for the host-memory bar.
struct Machine
{
    std::string id;
    std::string name;
    std::string gpuId;      ///< an id of Catalog::gpus
    std::uint32_t gpus = 0; ///< GPUs in one machine, 1 to 1,024
    double ramGiB = 0;      ///< system RAM of the whole machine, in GiB
    std::string source;
};

/// The model, GPU and machine catalogs.
struct Catalog
{
    std::vector<ModelPreset> models;
    std::vector<Gpu> gpus;
    std::vector<Machine> machines;

    const ModelPreset *findModel(std::string_view id) const;
    const Gpu *findGpu(std::string_view id) const;
    const Machine *findMachine(std::string_view id) const;
};

/// A GPU of a size the user typed, for a card the catalog does not list: its id is the size's
/// canonical spelling ("24gib", "23.5gib", "20gb"; TypedCapacity::id), its name "24 GiB GPU", its
/// capacity the size taken as nvidia-smi's total, in whole MiB (rounded down: 20 GB is 19,073
/// MiB). Every Catalog's findGpu() finds one, so `gpus`, `target_gpu`, `--gpu` and the engines'
/// budgets take it like a catalog GPU. Empty when `id` is not such a spelling.
std::optional<Gpu> sizeGpu(std::string_view id);
/// The id of a GPU in `catalog` for a scenario's `gpus` entry: the id itself when the catalog
/// lists it or it is a size GPU's id; the canonical id of a size with its unit ("24 GiB" ->
/// "24gib"); else empty.
std::string canonicalGpuId(std::string_view text, const Catalog &catalog);

/// Parses the two catalog documents (resources/models.json, resources/gpus.json, whose optional
/// `machines` list names GPUs of its own `gpus`).
/// Throws std::runtime_error naming the entry and key on malformed input.
Catalog parseCatalog(std::string_view modelsJson, std::string_view gpusJson);

/// The catalogs compiled into the program.
const Catalog &builtinCatalog();

} // namespace headroom
