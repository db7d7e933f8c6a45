// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracy/errorband.h"

#include "scenario/names.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

namespace headroom {

namespace {

// BEGIN GENERATED BANDS (headroom validate tests/data/measured --format json: first_seen.bands)
// Per group of BLIND first-seen cases: framework, method, reading ("" at the coarser levels),
// 80th percentile of |first-seen error| rounded up, cases, share first seen > 10% low.
constexpr StoredBand kBands[] = {
    {"hf_transformers", "full", "allocated", 38, 81, 12},
    {"litgpt", "full", "allocated", 120, 6, 17},
    {"torchtune", "full", "allocated", 28, 4, 75},
    {"hf_transformers", "full", "reserved", 44, 12, 50},
    {"torchtune", "full", "reserved", 3, 1, 0},
    {"hf_transformers", "full", "device", 20, 7, 57},
    {"litgpt", "lora", "allocated", 18, 8, 38},
    {"hf_transformers", "lora", "reserved", 12, 21, 19},
    {"litgpt", "qlora", "allocated", 23, 13, 100},
    {"hf_transformers", "qlora", "reserved", 47, 9, 100},
    {"hf_generate", "inference", "allocated", 16, 36, 31},
    {"hf_transformers", "post-training", "allocated", 11, 1, 100},
    {"hf_transformers", "post-training", "reserved", 64, 5, 40},
    {"hf_transformers", "post-training", "device", 58, 1, 100},
    {"", "full", "allocated", 41, 91, 15},
    {"", "full", "reserved", 44, 13, 46},
    {"", "full", "device", 20, 7, 57},
    {"", "lora", "allocated", 18, 8, 38},
    {"", "lora", "reserved", 12, 21, 19},
    {"", "qlora", "allocated", 23, 13, 100},
    {"", "qlora", "reserved", 47, 9, 100},
    {"", "inference", "allocated", 16, 36, 31},
    {"", "post-training", "allocated", 11, 1, 100},
    {"", "post-training", "reserved", 64, 5, 40},
    {"", "post-training", "device", 58, 1, 100},
    {"", "full", "", 41, 111, 22},
    {"", "lora", "", 14, 29, 24},
    {"", "qlora", "", 47, 22, 100},
    {"", "inference", "", 16, 36, 31},
    {"", "post-training", "", 64, 7, 57},
};
constexpr const char *kFrameworks[] = {"accelerate", "axolotl", "deepspeed", "hf_generate", "hf_transformers", "litgpt", "torchtitan", "torchtune"};
constexpr const char *kOptimizers[] = {"adafactor", "adamw", "adamw_4bit", "adamw_8bit", "galore_adamw8bit", "none", "paged_adamw", "paged_adamw_8bit"};
constexpr const char *kArchitectures[] = {"full_attention", "moe", "sliding_attention"};
constexpr const char *kObjectives[] = {"dpo", "grpo", "ppo", "preference", "sft"};
// END GENERATED BANDS

struct Named
{
    const StoredBand *row;
    std::string group;
};

const std::vector<Named> &namedBands()
{
    static const std::vector<Named> named = [] {
        std::vector<Named> out;
        for (const StoredBand &b : kBands) {
            std::string group = b.method;
            if (*b.reading)
                group += std::string(" x ") + b.reading;
            if (*b.framework)
                group = std::string(b.framework) + " x " + group;
            out.push_back({&b, group});
        }
        return out;
    }();
    return named;
}

const Named *find(std::string_view framework, std::string_view method, std::string_view reading)
{
    for (const Named &n : namedBands())
        if (n.row->framework == framework && n.row->method == method && n.row->reading == reading)
            return &n;
    return nullptr;
}

constexpr const char *kMethodNames[] = {"full", "lora", "qlora", "inference", "post-training"};
constexpr std::size_t kMethodCount = std::size(kMethodNames);
constexpr const char *kReadingNames[] = {"allocated", "reserved", "device", ""};
constexpr std::size_t kFrameworkCount = 16; // more than Framework's values

/// find() for every framework x method x reading, once (every estimate asks three times).
const Named *findFast(Framework framework, std::size_t method, std::size_t reading)
{
    using Table = std::array<std::array<std::array<const Named *, 4>, kMethodCount>, kFrameworkCount + 1>;
    static const Table table = [] {
        Table t{};
        for (std::size_t m = 0; m < kMethodCount; ++m)
            for (std::size_t r = 0; r < 4; ++r) {
                t[kFrameworkCount][m][r] = find("", kMethodNames[m], kReadingNames[r]);
                for (const auto &entry : enumEntries<Framework>())
                    if (std::size_t(entry.value) < kFrameworkCount)
                        t[std::size_t(entry.value)][m][r] = find(entry.name, kMethodNames[m], kReadingNames[r]);
            }
        return t;
    }();
    const std::size_t f = std::size_t(framework) < kFrameworkCount ? std::size_t(framework) : kFrameworkCount;
    return table[f][method][reading];
}

const char *methodOf(const Scenario &s)
{
    if (s.task != Task::Train)
        return "inference";
    if (s.train.objective != Objective::Sft)
        return "post-training";
    switch (s.train.method) {
    case Method::Full:
        return "full";
    case Method::Lora:
        return "lora";
    default:
        return "qlora";
    }
}

const char *const kReadings[] = {"allocated", "reserved", "device"};

/// The reading's name with static storage.
const char *readingLiteral(std::string_view reading)
{
    for (const char *r : kReadings)
        if (reading == r)
            return r;
    return "device";
}

} // namespace

std::span<const StoredBand> storedBands() { return kBands; }
std::span<const char *const> validatedFrameworks() { return kFrameworks; }
std::span<const char *const> validatedOptimizers() { return kOptimizers; }
std::span<const char *const> validatedArchitectureFeatures() { return kArchitectures; }
std::span<const char *const> validatedObjectives() { return kObjectives; }

std::vector<const char *> architectureFeatures(const ModelArch &model)
{
    std::vector<const char *> out;
    const auto add = [&](const char *feature) {
        if (std::none_of(out.begin(), out.end(), [&](const char *f) { return std::strcmp(f, feature) == 0; }))
            out.push_back(feature);
    };
    // A plain dense model (every estimate of one asks): one kind, no loop.
    if (model.layerKinds.empty() && model.layerMlps.empty() && !model.latentAttention() && model.slidingWindow <= 0 &&
        model.experts <= 1) {
        out.push_back(enumName(LayerKind::Full));
        return out;
    }
    // The kinds repeat with a short period; a bounded look is enough and keeps this cheap.
    const int layers = std::min(model.layers, 256);
    for (int i = 0; i < layers; ++i) {
        add(enumName(model.layerKind(i)));
        if (model.isMoeLayer(i))
            add("moe");
    }
    std::sort(out.begin(), out.end(), [](const char *a, const char *b) { return std::strcmp(a, b) < 0; });
    return out;
}

int widestBandPercent()
{
    static const int widest = [] {
        int w = 0;
        for (const StoredBand &b : kBands)
            w = std::max(w, b.percent);
        return w;
    }();
    return widest;
}

namespace {

/// Why nothing like this run was ever measured (a framework, layer kind or optimizer without a
/// measured case), or null. A static name.
const char *neverValidatedWhy(const Scenario &scenario)
{
    const char *framework = enumName(scenario.framework.name);
    // A scenario that names no framework is the generic estimate: judged by its method's cases.
    if (scenario.framework.name != Framework::None &&
        std::none_of(kFrameworks, std::end(kFrameworks), [&](const char *f) { return std::strcmp(f, framework) == 0; }))
        return framework;
    for (const char *feature : architectureFeatures(scenario.model))
        if (std::none_of(kArchitectures, std::end(kArchitectures),
                         [&](const char *a) { return std::strcmp(a, feature) == 0; }))
            return feature; // enumName's static name, or "moe"
    if (scenario.task == Task::Train) {
        const char *optimizer = enumName(scenario.train.optimizer);
        if (std::none_of(kOptimizers, std::end(kOptimizers), [&](const char *o) { return std::strcmp(o, optimizer) == 0; }))
            return optimizer;
        // Post-training (the reference, reward, value or teacher models, the rollout) never
        // measured: the method's supervised cases say nothing about it.
        const char *objective = enumName(scenario.train.objective);
        if (std::none_of(kObjectives, std::end(kObjectives), [&](const char *o) { return std::strcmp(o, objective) == 0; }))
            return objective;
    }
    return nullptr;
}

ErrorBand bandFor(const Scenario &scenario, const char *reading, const char *why)
{
    const char *method = methodOf(scenario);
    const auto never = [&](const char *what) {
        return ErrorBand{method, reading, widestBandPercent(), 0, "never validated", 0, BandBasis::NeverValidated, what};
    };
    if (why)
        return never(why);
    const std::size_t m = std::size_t(std::find_if(std::begin(kMethodNames), std::end(kMethodNames),
                                                   [&](const char *name) { return std::strcmp(name, method) == 0; }) -
                                      std::begin(kMethodNames));
    const std::size_t r = std::size_t(std::find_if(std::begin(kReadingNames), std::end(kReadingNames),
                                                   [&](const char *name) { return std::strcmp(name, reading) == 0; }) -
                                      std::begin(kReadingNames));
    const auto band = [&](const Named &n, BandBasis basis) {
        return ErrorBand{method, reading, n.row->percent, n.row->cases, n.group.c_str(), n.row->unsafePercent, basis, ""};
    };
    const Framework generic = Framework(kFrameworkCount); // the method-level rows
    for (const Named *n : {findFast(scenario.framework.name, m, r), findFast(generic, m, r), findFast(generic, m, 3)})
        if (n && n->row->cases >= kMinBandCases)
            return band(*n, BandBasis::Validated);
    // Fewer than kMinBandCases even for the method: as wide as the widest band, and it says so.
    if (const Named *n = findFast(generic, m, 3)) {
        ErrorBand few = band(*n, BandBasis::Few);
        few.percent = std::max(few.percent, widestBandPercent());
        return few;
    }
    return never(method);
}

} // namespace

ErrorBand errorBandFor(const Scenario &scenario, std::string_view readingName)
{
    return bandFor(scenario, readingLiteral(readingName), neverValidatedWhy(scenario));
}

std::vector<ErrorBand> errorBandsFor(const Scenario &scenario)
{
    // What was never measured is found once for the three readings (every estimate asks).
    const char *why = neverValidatedWhy(scenario);
    return {bandFor(scenario, "device", why), bandFor(scenario, "allocated", why), bandFor(scenario, "reserved", why)};
}

int errorBandPercent(const Scenario &scenario) { return errorBandFor(scenario, "device").percent; }

std::string errorBandText(const ErrorBand &band)
{
    const std::string pm = "\u00b1" + std::to_string(band.percent) + "%";
    switch (band.basis) {
    case BandBasis::Validated:
        return "typically within " + pm + " for runs like this";
    case BandBasis::Few:
        return "few validated runs like this: " + pm;
    case BandBasis::NeverValidated:
        break;
    }
    return std::string("never validated (no measured run with ") + band.why + "): " + pm;
}

} // namespace headroom
