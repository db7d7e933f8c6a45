// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// PyTorch's memory tools beside the estimate, for `headroom compare` and the window's Open
// measurement alike: torch.cuda.memory_summary() text, torch.profiler's export_memory_timeline()
// JSON and torch.cuda.memory._dump_snapshot() pickles, read by the core's readers (measure/),
// each reading beside the estimate's figure of the same kind, with the seed articles' diagnostic.
// Also the "headroom-measurement" case (tests/data/measured) that `headroom validate` reads back,
// written from these readings and from the probe's.

#include "estimate/estimate.h"
#include "scenario/scenario.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace headroom {

struct ProbeFile;

/// Which of PyTorch's files the bytes are, by their content (None: not one of them).
enum class TorchFileKind { None, Summary, Timeline, Snapshot };
TorchFileKind torchFileKind(std::string_view bytes);
/// "torch.cuda.memory_summary()", ...
const char *torchToolName(TorchFileKind kind);

/// One figure of the file beside the estimate's of the same kind (none where there is none).
struct TorchReading
{
    const char *key = "";  ///< "peak_allocated", "reserved", "category", ...
    QString label;         ///< "peak allocated (max_memory_allocated)"
    double measured = 0;   ///< bytes
    std::optional<double> estimated;
    QString where;         ///< "line 8", "22 segments"
    /// The estimate's consumers a category stands beside (a timeline's categories; none for the
    /// whole-run figures), from compareTimeline's mapping.
    std::vector<ConsumerId> consumers;
};

struct TorchComparison
{
    TorchFileKind kind = TorchFileKind::None;
    std::vector<TorchReading> readings;
    QStringList findings;
    double peakAllocated = 0;  ///< the file's peak allocated bytes (0: it has none)
    double resolution = 1;     ///< bytes of the unit PyTorch printed that peak in
};

/// Reads the file and compares it with `e`, the estimate of `scenario`. Throws InputError naming
/// the line or key of what is not PyTorch's.
TorchComparison compareTorchFile(std::string_view bytes, const Scenario &scenario, const Estimate &e);

/// The "headroom-measurement" v1 case of a measured peak allocated: the scenario as given, the
/// reading, its source file and tool, and the first-seen error. `readingNote` says what the
/// reading is (an assumption of the case).
nlohmann::json measuredCaseDocument(const QString &id, const QString &sourceFileName, const char *tool,
                                    const Scenario &scenario, const Estimate &e, double measuredBytes,
                                    const QString &readingNote);
/// The case of the probe's run: its highest peak allocated over the phases. Empty, with `error`
/// set, when the probe read nothing.
nlohmann::json probeCaseDocument(const QString &id, const QString &sourceFileName, const ProbeFile &probe,
                                 const Scenario &scenario, const Estimate &e, QString &error);

} // namespace headroom
