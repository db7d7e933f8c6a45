// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The first-seen ledger (tests/data/measured/first-seen.jsonl): the error of the estimator as
// it was when each measured case was added, before any change made after looking at it. The
// bands the product shows come from these errors, never from the current estimator's.

#include "accuracy/validation.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One line of the ledger. Never rewritten once committed (tst_firstseen checks the history).
struct FirstSeen
{
    std::string id;
    double error = 0;                ///< signed, (estimate - measured) / measured
    std::uint64_t estimatedBytes = 0;
    std::uint64_t measuredBytes = 0;
    std::string commit;              ///< the estimator's commit (40 hex digits)
    std::string date;                ///< YYYY-MM-DD
    /// False for a case whose first sight was not blind (it existed before the ledger and the
    /// physics was developed while looking at it): kept out of the bands.
    bool blind = false;
    bool operator==(const FirstSeen &) const = default;
};

/// The ledger's file name inside a folder of measurement cases.
inline constexpr const char *kFirstSeenFile = "first-seen.jsonl";

/// Parses the ledger: JSON Lines, one object per line with id, error, estimated_bytes,
/// measured_bytes, commit, date, blind (and an optional note); an id at most once. Throws
/// ValidationError naming the file, the line and the key.
std::vector<FirstSeen> parseFirstSeenLedger(std::string_view text, const std::string &fileName);

/// One group of blind first-seen cases: framework x method x reading, method x reading (empty
/// framework) or method (empty framework and reading).
struct BandRow
{
    std::string framework;
    std::string method;
    std::string reading;
    int percent = 0;       ///< 80th percentile of |first-seen error|, rounded up
    int cases = 0;
    int unsafePercent = 0; ///< share of the cases first seen more than 10% low, rounded
    bool operator==(const BandRow &) const = default;
};

/// Every group with at least one blind first-seen case, framework groups first, then method x
/// reading, then method, each in the order full, lora, qlora, inference and allocated,
/// reserved, device. Cases without a ledger line are left out (tst_firstseen requires one).
std::vector<BandRow> computeFirstSeenBands(const std::vector<MeasurementCase> &cases,
                                           const std::vector<FirstSeen> &ledger);

/// First-seen statistics of a set of cases, as docs/accuracy.md and `headroom validate` print.
struct FirstSeenSummary
{
    std::string name;
    ErrorSummary summary;  ///< over first-seen |error|
    double unsafe = 0;     ///< share first seen more than 10% low
    double currentMedian = 0; ///< median |error| of the current estimator over the same cases
};

/// Summaries of the blind first-seen cases: all, per method, per framework x method x reading,
/// and of the not-blind ones.
std::vector<FirstSeenSummary> summarizeFirstSeen(const ValidationReport &report,
                                                 const std::vector<FirstSeen> &ledger);

} // namespace headroom

namespace headroom {

/// The "first_seen" object of `headroom validate --format json`: each case's first-seen error
/// (null without a ledger line), the summaries and the band table.
nlohmann::json firstSeenJson(const ValidationReport &report, const std::vector<FirstSeen> &ledger);

} // namespace headroom
