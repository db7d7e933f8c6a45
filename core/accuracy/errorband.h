// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// What a band rests on.
enum class BandBasis {
    Validated,      ///< a group with at least kMinBandCases blind first-seen cases
    Few,            ///< the nearest group has fewer: wide, and the words say so
    NeverValidated, ///< nothing like this run was ever measured: the widest band, and why
};

/// The expected error of an estimate for one kind of run and one kind of reading: the 80th
/// percentile of the FIRST-SEEN |error| (tests/data/measured/first-seen.jsonl: the error of
/// the estimator when the case was added, before any change made after looking at it) of the
/// nearest group with enough blind cases: framework x method x reading, then method x reading,
/// then method.
struct ErrorBand
{
    const char *method;  ///< full, lora, qlora or inference (see methodGroup)
    const char *reading; ///< allocated, reserved or device: the figure the band is about
    int percent;         ///< the band, +/- percent
    int cases;           ///< blind first-seen cases it rests on
    /// The group the cases are from: "litgpt x qlora x allocated", "qlora x allocated", "qlora",
    /// or "never validated".
    const char *group = "";
    int unsafePercent = 0;    ///< share of those cases first seen more than 10% low
    BandBasis basis = BandBasis::Validated;
    const char *why = "";     ///< NeverValidated: what no measured run has (e.g. "the framework vllm")
    bool operator==(const ErrorBand &) const = default;
};

/// A group is used only when at least this many blind first-seen cases support it.
inline constexpr int kMinBandCases = 8;

/// One row of the stored band table (docs/accuracy.md): every group with a blind first-seen
/// case; framework and reading empty at the coarser levels. tst_firstseen recomputes it from
/// tests/data/measured and its ledger and fails when it is stale.
struct StoredBand
{
    const char *framework;
    const char *method;
    const char *reading;
    int percent;
    int cases;
    int unsafePercent;
};
std::span<const StoredBand> storedBands();

/// The frameworks and optimizers of every measured case (blind or not): a run with another is
/// "never validated". tst_firstseen checks both lists against the cases.
std::span<const char *const> validatedFrameworks();
std::span<const char *const> validatedOptimizers();
/// The training objectives (train.objective) with a measured case.
std::span<const char *const> validatedObjectives();

/// The architecture features of a model that a measured run must have had for the model to count
/// as validated: each layer kind it uses ("full_attention", "sliding_attention", "mla",
/// "gated_deltanet", ...) and "moe" when a layer has a mixture-of-experts MLP; sorted, unique.
std::vector<const char *> architectureFeatures(const ModelArch &model);
/// The features of every measured case's model (tst_firstseen checks the list against them).
std::span<const char *const> validatedArchitectureFeatures();

/// The widest band of the table: what a never-validated run gets.
int widestBandPercent();

/// The band for this scenario's `reading` ("allocated", "reserved" or "device").
ErrorBand errorBandFor(const Scenario &scenario, std::string_view reading);

/// The bands that apply to this scenario: the fit band first (the device reading, which the
/// verdict compares with the GPU), then allocated and reserved.
std::vector<ErrorBand> errorBandsFor(const Scenario &scenario);

/// The fit band's percent: the first of errorBandsFor.
int errorBandPercent(const Scenario &scenario);

/// "typically within ±16% for runs like this", "few validated runs like this: ±35%" or
/// "never validated (the framework vllm): ±60%".
std::string errorBandText(const ErrorBand &band);

} // namespace headroom
