// SPDX-License-Identifier: GPL-3.0-or-later
#include "torchcompare.h"

#include "estimate/verdict.h"
#include "io/pickle.h"
#include "measure/probefile.h"
#include "measure/torchsnapshot.h"
#include "measure/torchsummary.h"
#include "measure/torchtimeline.h"
#include "scenario/scenariojson.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

constexpr double kGiB = 1073741824.0;

QString tr(const char *text) { return QCoreApplication::translate("measurement", text); }

QString gib(double bytes) { return QString::number(bytes / kGiB, 'f', 2) + QStringLiteral(" GiB"); }

QString signedGib(double bytes)
{
    return (bytes >= 0 ? QStringLiteral("+") : QString()) + QString::number(bytes / kGiB, 'f', 2) + QStringLiteral(" GiB");
}

QString q(const std::string &text) { return QString::fromStdString(text); }

/// The estimate's peak phase, consumer by consumer, for a finding.
QString peakComposition(const Estimate &e)
{
    QStringList parts;
    for (const Consumer &c : e.consumers)
        if (c.id != ConsumerId::CudaContext && c.id != ConsumerId::Fragmentation && c.bytes >= 0.05 * kGiB)
            parts << QStringLiteral("%1 %2").arg(QString::fromLatin1(consumerKey(c.id)), gib(double(c.bytes)));
    return parts.join(QStringLiteral(", "));
}

/// The split a new case belongs to, by the rule of tests/data/measured: the last hex digit of
/// sha1(id) 0-7 is holdout.
QString splitFor(const QString &id)
{
    const QByteArray hex = QCryptographicHash::hash(id.toLower().toUtf8(), QCryptographicHash::Sha1).toHex();
    const char last = hex.back();
    return (last >= '0' && last <= '7') ? QStringLiteral("holdout") : QStringLiteral("train");
}

bool blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

} // namespace

TorchFileKind torchFileKind(std::string_view bytes)
{
    if (bytes.empty())
        return TorchFileKind::None;
    if (static_cast<unsigned char>(bytes.front()) == 0x80)
        return TorchFileKind::Snapshot;
    // A timeline is a JSON list of two lists ("[[times...], [sizes...]]"), or gzipped (refused by
    // its reader with the reason); a log line may start with "[" too ("[TensorRT-LLM]").
    std::size_t first = 0;
    while (first < bytes.size() && blank(bytes[first]))
        ++first;
    std::size_t second = first + 1;
    while (second < bytes.size() && blank(bytes[second]))
        ++second;
    if ((first < bytes.size() && bytes[first] == '[' && second < bytes.size() && bytes[second] == '[') ||
        static_cast<unsigned char>(bytes.front()) == 0x1f)
        return TorchFileKind::Timeline;
    if (looksLikeTorchMemorySummary(bytes))
        return TorchFileKind::Summary;
    return TorchFileKind::None;
}

const char *torchToolName(TorchFileKind kind)
{
    switch (kind) {
    case TorchFileKind::Snapshot: return "torch.cuda.memory._dump_snapshot()";
    case TorchFileKind::Timeline: return "torch.profiler export_memory_timeline()";
    case TorchFileKind::Summary:
    case TorchFileKind::None: break;
    }
    return "torch.cuda.memory_summary()";
}

TorchComparison compareTorchFile(std::string_view bytes, const Scenario &scenario, const Estimate &e)
{
    TorchComparison c;
    c.kind = torchFileKind(bytes);
    if (c.kind == TorchFileKind::None)
        c.kind = TorchFileKind::Summary; // its reader names what is missing
    c.resolution = 1048576.0;
    std::vector<TorchReading> &readings = c.readings;
    QStringList &findings = c.findings;
    std::uint64_t ooms = 0;
    double reserved = 0, allocatedForFragmentation = 0;
    if (c.kind == TorchFileKind::Timeline) {
        const TorchTimeline t = readTorchTimeline(bytes);
        readings.push_back({"peak_allocated", tr("peak, all categories"), double(t.peakBytes), double(e.peak.allocatedBytes),
                            tr("point %1 of %2 (t = %3)").arg(t.peakIndex).arg(t.points).arg(t.peakTime), {}});
        c.peakAllocated = double(t.peakBytes);
        c.resolution = 1;
        const std::vector<TimelineRow> rows = compareTimeline(t, e);
        for (const TimelineRow &r : rows)
            readings.push_back({"category", q(r.label), double(r.measured), double(r.estimated), tr("at the peak"), r.consumers});
        // The difference, consumer by consumer: the largest first.
        if (!rows.empty() && rows.front().estimated != rows.front().measured) {
            const TimelineRow &r = rows.front();
            findings << tr("%1 %2 beside the profile (estimated %3, PyTorch's categories %4 at the peak): %5.")
                            .arg(q(r.label), signedGib(double(r.estimated) - double(r.measured)), gib(double(r.estimated)),
                                 gib(double(r.measured)), q(r.hint));
        }
    } else if (c.kind == TorchFileKind::Snapshot) {
        const TorchSnapshotSummary s = summarizeSnapshot(readPickle(bytes));
        readings.push_back({"reserved", tr("reserved at the snapshot (segments)"), double(s.reservedBytes),
                            double(e.peak.reservedBytes), tr("%1 segments").arg(s.segments), {}});
        readings.push_back({"allocated", tr("allocated at the snapshot"), double(s.allocatedBytes), std::nullopt,
                            tr("%1 blocks").arg(s.blocks), {}});
        if (s.tracePeakAllocatedBytes) {
            readings.push_back({"peak_allocated", tr("peak allocated over the trace"), double(*s.tracePeakAllocatedBytes),
                                double(e.peak.allocatedBytes), tr("trace entry %1 of %2").arg(s.tracePeakEntry).arg(s.traceEntries), {}});
            c.peakAllocated = double(*s.tracePeakAllocatedBytes);
        }
        readings.push_back({"largest_free_block", tr("largest free block"), double(s.largestFreeBlock), std::nullopt, {}, {}});
        reserved = double(s.reservedBytes);
        allocatedForFragmentation = double(s.allocatedBytes);
        ooms = s.traceOoms;
        c.resolution = 1;
    } else {
        const TorchMemorySummary s = readTorchMemorySummary(bytes);
        const TorchSummaryRow *allocated = s.row("allocated");
        readings.push_back({"peak_allocated", tr("peak allocated (max_memory_allocated)"), allocated->peak,
                            double(e.peak.allocatedBytes), tr("line %1").arg(allocated->line), {}});
        c.peakAllocated = allocated->peak;
        c.resolution = allocated->resolution;
        allocatedForFragmentation = allocated->peak;
        if (const TorchSummaryRow *r = s.row("reserved")) {
            readings.push_back({"peak_reserved", tr("peak reserved (max_memory_reserved)"), r->peak, double(e.peak.reservedBytes),
                                tr("line %1").arg(r->line), {}});
            reserved = r->peak;
        }
        if (const TorchSummaryRow *r = s.row("non_releasable"))
            readings.push_back({"peak_non_releasable", tr("peak non-releasable (fragments)"), r->peak, std::nullopt,
                                tr("line %1").arg(r->line), {}});
        ooms = s.ooms;
        if (s.ooms || s.mallocRetries)
            findings << tr("The run hit %1 out-of-memory error(s) and %2 cudaMalloc retries: the allocator "
                           "emptied its cache and tried again, so the peak is at the card's edge.")
                            .arg(s.ooms)
                            .arg(s.mallocRetries);
    }
    if (c.peakAllocated > 0) {
        const double d = double(e.peak.allocatedBytes) - c.peakAllocated;
        findings.prepend((c.kind == TorchFileKind::Timeline
                              ? tr("Allocated %1 beside the measurement (%2%): the estimate's %3 phase holds %4; "
                                   "the rows above put PyTorch's categories beside the estimate's consumers.")
                              : tr("Allocated %1 beside the measurement (%2%): the estimate's %3 phase holds %4. The "
                                   "tool gives no categories, so the difference is not attributed to one of them."))
                             .arg(signedGib(d))
                             .arg(QString::number(d / c.peakAllocated * 100, 'f', 1))
                             .arg(QString::fromLatin1(phaseKey(e.peak.phase)), peakComposition(e)));
    }
    if (reserved > 0 && reserved - allocatedForFragmentation > 0.1 * reserved)
        findings << tr("Reserved is %1 above allocated (%2% of reserved): memory the caching allocator holds but "
                       "no tensor uses. \"Make room on your GPU\": PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                       "returns most of it; the estimate assumed %3 of fragmentation.")
                        .arg(gib(reserved - allocatedForFragmentation))
                        .arg(QString::number((reserved - allocatedForFragmentation) / reserved * 100, 'f', 0))
                        .arg(gib(double(e.peak.reservedBytes - e.peak.allocatedBytes)));
    if (const Gpu *gpu = targetGpu(scenario);
        gpu && c.peakAllocated > 0 && ooms > 0 && c.peakAllocated < 0.75 * double(gpu->capacityBytes()))
        findings << tr("Allocated (%1) is far below the card (%2) and still the run ran out of memory: "
                       "fragmentation (\"Where the memory actually goes\"); try expandable_segments:True.")
                        .arg(gib(c.peakAllocated), gib(double(gpu->capacityBytes())));
    return c;
}

nlohmann::json measuredCaseDocument(const QString &id, const QString &sourceFileName, const char *tool,
                                    const Scenario &scenario, const Estimate &e, double measuredBytes,
                                    const QString &readingNote)
{
    const Gpu *gpu = targetGpu(scenario);
    const double estimated = double(e.peak.allocatedBytes);
    return {{"format", "headroom-measurement"},
            {"version", 1},
            {"id", id.toStdString()},
            {"scenario", scenarioToJson(scenario)},
            {"reading", "allocated"},
            {"measured", {{"value", std::round(measuredBytes / kGiB * 100) / 100}, {"unit", "GiB"}}},
            {"measured_bytes", std::uint64_t(std::llround(measuredBytes))},
            {"hardware", gpu ? gpu->name : std::string("not stated")},
            {"source", {{"repo", "your run"}, {"path", sourceFileName.toStdString()}, {"tool", tool}}},
            {"verified", false},
            {"verification_note",
             "first seen: Headroom " HEADROOM_VERSION " estimated " + gib(estimated).toStdString() +
                 " allocated against the measured " + gib(measuredBytes).toStdString() + " (" +
                 QString::number((estimated - measuredBytes) / measuredBytes * 100, 'f', 1).toStdString() + "%)"},
            {"assumptions", {"the scenario is the one the user gave beside the measurement", readingNote.toStdString()}},
            {"not_modelled", nlohmann::json::array()},
            {"confidence", "medium"},
            {"split", splitFor(id).toStdString()}};
}

nlohmann::json probeCaseDocument(const QString &id, const QString &sourceFileName, const ProbeFile &probe,
                                 const Scenario &scenario, const Estimate &e, QString &error)
{
    const ProbeReading *highest = nullptr;
    for (const ProbeReading &r : probe.readings)
        if (!highest || r.peakAllocatedBytes > highest->peakAllocatedBytes)
            highest = &r;
    if (!highest || highest->peakAllocatedBytes == 0) {
        error = tr("%1: the probe recorded no peak allocated figure to save").arg(sourceFileName);
        return nlohmann::json::object();
    }
    const QString note = tr("the reading is the probe's highest peak_allocated_bytes (torch.cuda.max_memory_allocated(), "
                            "reset after each reading), at %1 of step %2, exact bytes")
                             .arg(QString::fromLatin1(phaseKey(highest->phase)))
                             .arg(highest->step);
    return measuredCaseDocument(id, sourceFileName, "headroom_probe.py", scenario, e, double(highest->peakAllocatedBytes),
                                note);
}

} // namespace headroom
