// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accuracy/errorband.h"
#include "estimate/estimate.h"
#include "scenario/scenario.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// Which figure a measurement reports (see tests/data/measured/README.md).
enum class Reading {
    Allocated, ///< torch.cuda.max_memory_allocated()
    Reserved,  ///< torch.cuda.max_memory_reserved()
    Device,    ///< nvidia-smi / NVML, including the CUDA context
};

/// The half a case belongs to, fixed by sha1(id) before any error was looked at.
enum class Split { Train, Holdout };

/// A measurement case file that cannot be read: names the file and the key.
class ValidationError : public std::runtime_error
{
public:
    ValidationError(const std::string &fileName, const std::string &keyPath, const std::string &message)
        : std::runtime_error(fileName + ": " + (keyPath.empty() ? message : keyPath + ": " + message)),
          file(fileName), key(keyPath)
    {
    }
    std::string file;
    std::string key;
};

/// One published, measured peak ("headroom-measurement" v1) with its scenario.
struct MeasurementCase
{
    std::string id;
    Scenario scenario;
    Reading reading = Reading::Allocated;
    std::uint64_t measuredBytes = 0;
    Split split = Split::Train;
    std::string source; ///< "repo path" (or the paper), the source group of the summaries
    std::string method; ///< full, lora, qlora or inference
    std::string framework; ///< the scenario's framework name ("none" when it names none)
};

/// Parses a measurement case; `fileName` (e.g. "lg-03.json") names it in errors and must
/// match its id. Throws ValidationError.
MeasurementCase parseMeasurementCase(std::string_view text, const std::string &fileName);

/// "full", "lora", "qlora", "inference" or "post-training" (a train.objective other than sft):
/// the method group of a scenario.
const char *methodGroup(const Scenario &scenario);
const char *readingName(Reading reading);
const char *splitName(Split split);

/// The estimate's figure of the same kind as the reading.
std::uint64_t estimatedFigure(const Estimate &estimate, Reading reading);

/// One case compared: signed error = (estimate - measured) / measured.
struct CaseResult
{
    MeasurementCase measurement;
    std::uint64_t estimatedBytes = 0;
    double error = 0;
};

/// Runs the estimator on a case.
CaseResult validateCase(const MeasurementCase &measurement);

/// Statistics of |error| over a set of cases (fractions, 0.1 = 10%).
struct ErrorSummary
{
    std::size_t count = 0;
    double medianAbs = 0;
    double p90Abs = 0;
    double maxAbs = 0;
    double within10 = 0; ///< share of cases with |error| <= 10%
    double within20 = 0; ///< share of cases with |error| <= 20%
    bool operator==(const ErrorSummary &) const = default;
};

/// The median of the values (mean of the two middle ones for an even count); 0 when empty.
double median(std::vector<double> values);
/// Nearest-rank percentile: the smallest value with at least `fraction` of the values at or
/// below it (fraction 0..1); 0 when empty.
double percentile(std::vector<double> values, double fraction);
/// Summary of the absolute values of signed errors.
ErrorSummary summarize(const std::vector<double> &signedErrors);

/// A named group of cases and its summary.
struct GroupSummary
{
    std::string name;
    ErrorSummary summary;
};

/// Every case compared, with summaries overall, per split, per source and per method.
struct ValidationReport
{
    std::vector<CaseResult> cases;
    ErrorSummary overall;
    std::vector<GroupSummary> bySplit;
    std::vector<GroupSummary> byMethod;
    std::vector<GroupSummary> bySource;
    std::vector<GroupSummary> byFramework;
};

/// Estimates every case and summarizes the errors.
ValidationReport validate(const std::vector<MeasurementCase> &cases);

/// The report as JSON ("headroom-validation" v1).
nlohmann::json reportToJson(const ValidationReport &report);

} // namespace headroom
