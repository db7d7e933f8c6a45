// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom compare SUMMARY|SNAPSHOT SCENARIO [--save-case FILE]`: PyTorch's memory_summary()
// table or a memory snapshot pickle beside the estimate of the run's scenario, with the seed
// articles' diagnostic, and the reading saved as a measured case for `headroom validate`.
#include "comparecommand.h"

#include "cli.h"
#include "clicommon.h"
#include "document/documentio.h"
#include "estimate/verdict.h"
#include "io/pickle.h"
#include "measure/torchsnapshot.h"
#include "measure/torchsummary.h"
#include "measure/torchtimeline.h"
#include "scenario/scenariojson.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <cmath>

namespace headroom::cli {

namespace {

constexpr double kGiB = 1073741824.0;

struct Reading
{
    const char *key;     ///< "peak_allocated"
    QString label;
    double measured = 0;
    std::optional<double> estimated;
    QString where;       ///< "line 8", "segments"
};

QString gib(double bytes) { return QString::number(bytes / kGiB, 'f', 2) + QStringLiteral(" GiB"); }

QString signedGib(double bytes)
{
    return (bytes >= 0 ? QStringLiteral("+") : QString()) + QString::number(bytes / kGiB, 'f', 2) + QStringLiteral(" GiB");
}

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

int saveCase(const QString &path, const QString &input, const char *tool, const Scenario &scenario, const Estimate &e,
             double measuredBytes, double resolution)
{
    const QString id = QFileInfo(path).completeBaseName();
    if (!path.endsWith(QLatin1String(".json")) || id.isEmpty())
        return fail(tr("--save-case: the case file must be ID.json (got %1)").arg(safe(path.toStdString())));
    const Gpu *gpu = targetGpu(scenario);
    const double estimated = double(e.peak.allocatedBytes);
    const std::uint64_t bytes = std::uint64_t(std::llround(measuredBytes));
    nlohmann::json doc = {
        {"format", "headroom-measurement"},
        {"version", 1},
        {"id", id.toStdString()},
        {"scenario", scenarioToJson(scenario)},
        {"reading", "allocated"},
        {"measured", {{"value", std::round(measuredBytes / kGiB * 100) / 100}, {"unit", "GiB"}}},
        {"measured_bytes", bytes},
        {"hardware", gpu ? gpu->name : std::string("not stated")},
        {"source", {{"repo", "your run"}, {"path", QFileInfo(input).fileName().toStdString()}, {"tool", tool}}},
        {"verified", false},
        {"verification_note",
         "first seen: Headroom " HEADROOM_VERSION " estimated " + gib(estimated).toStdString() +
             " allocated against the measured " + gib(measuredBytes).toStdString() + " (" +
             QString::number((estimated - measuredBytes) / measuredBytes * 100, 'f', 1).toStdString() + "%)"},
        {"assumptions",
         {"the scenario is the one the user gave beside the measurement",
          "the reading is the peak of torch.cuda.max_memory_allocated() as the tool printed it, to " +
              QString::number(resolution / 1048576.0, 'f', 0).toStdString() + " MiB"}},
        {"not_modelled", nlohmann::json::array()},
        {"confidence", "medium"},
        {"split", splitFor(id).toStdString()}};
    // Atomic and checked, as every save: a full disk or a folder in the way is an error, never a
    // half-written case at exit 0.
    if (const QString error = writeFileAtomically(path, QByteArray::fromStdString(doc.dump(2) + "\n")); !error.isEmpty())
        return fail(tr("--save-case: %1").arg(error));
    return ExitOk;
}

} // namespace

int runCompareTorch(const QString &inputPath, const QByteArray &bytes, const QString &scenarioPath,
                    const QStringList &overrides, const QString &saveCasePath, bool json)
{
    const bool pickle = !bytes.isEmpty() && static_cast<unsigned char>(bytes.front()) == 0x80;
    const qsizetype first = [&] {
        qsizetype i = 0;
        while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t'))
            ++i;
        return i;
    }();
    qsizetype second = first + 1;
    while (second < bytes.size() && (bytes[second] == ' ' || bytes[second] == '\n' || bytes[second] == '\r' || bytes[second] == '\t'))
        ++second;
    const bool timeline = !pickle && ((first < bytes.size() && bytes[first] == '[' && second < bytes.size() && bytes[second] == '[') ||
                                      (!bytes.isEmpty() && static_cast<unsigned char>(bytes.front()) == 0x1f));
    const char *tool = pickle     ? "torch.cuda.memory._dump_snapshot()"
                       : timeline ? "torch.profiler export_memory_timeline()"
                                  : "torch.cuda.memory_summary()";
    if (scenarioPath.isEmpty())
        return fail(tr("%1: %2 states no model or batch: give the run's SCENARIO after it")
                        .arg(safe(inputPath.toStdString()), QString::fromLatin1(tool)));
    std::vector<Reading> readings;
    QStringList findings;
    double peakAllocated = 0, resolution = 1048576.0;
    std::uint64_t ooms = 0;
    try {
        const Scenario scenario = loadScenario(scenarioPath, overrides);
        const Estimate e = estimate(scenario);
        double reserved = 0, allocatedForFragmentation = 0;
        if (timeline) {
            const TorchTimeline t = readTorchTimeline(std::string_view(bytes.constData(), std::size_t(bytes.size())));
            readings.push_back({"peak_allocated", tr("peak, all categories"), double(t.peakBytes), double(e.peak.allocatedBytes),
                                tr("point %1 of %2 (t = %3)").arg(t.peakIndex).arg(t.points).arg(t.peakTime)});
            peakAllocated = double(t.peakBytes);
            resolution = 1;
            const std::vector<TimelineRow> rows = compareTimeline(t, e);
            for (const TimelineRow &r : rows)
                readings.push_back({"category", q(r.label), double(r.measured), double(r.estimated), tr("at the peak")});
            // The difference, consumer by consumer: the largest first.
            if (!rows.empty() && rows.front().estimated != rows.front().measured) {
                const TimelineRow &r = rows.front();
                findings << tr("%1 %2 beside the profile (estimated %3, PyTorch's categories %4 at the peak): %5.")
                                .arg(q(r.label), signedGib(double(r.estimated) - double(r.measured)),
                                     gib(double(r.estimated)), gib(double(r.measured)), q(r.hint));
            }
        } else if (pickle) {
            const TorchSnapshotSummary s =
                summarizeSnapshot(readPickle(std::string_view(bytes.constData(), std::size_t(bytes.size()))));
            readings.push_back({"reserved", tr("reserved at the snapshot (segments)"), double(s.reservedBytes),
                                double(e.peak.reservedBytes), tr("%1 segments").arg(s.segments)});
            readings.push_back({"allocated", tr("allocated at the snapshot"), double(s.allocatedBytes), std::nullopt,
                                tr("%1 blocks").arg(s.blocks)});
            if (s.tracePeakAllocatedBytes) {
                readings.push_back({"peak_allocated", tr("peak allocated over the trace"), double(*s.tracePeakAllocatedBytes),
                                    double(e.peak.allocatedBytes), tr("trace entry %1 of %2").arg(s.tracePeakEntry).arg(s.traceEntries)});
                peakAllocated = double(*s.tracePeakAllocatedBytes);
            }
            readings.push_back({"largest_free_block", tr("largest free block"), double(s.largestFreeBlock), std::nullopt, {}});
            reserved = double(s.reservedBytes);
            allocatedForFragmentation = double(s.allocatedBytes);
            ooms = s.traceOoms;
            resolution = 1;
        } else {
            const TorchMemorySummary s =
                readTorchMemorySummary(std::string_view(bytes.constData(), std::size_t(bytes.size())));
            const TorchSummaryRow *allocated = s.row("allocated");
            readings.push_back({"peak_allocated", tr("peak allocated (max_memory_allocated)"), allocated->peak,
                                double(e.peak.allocatedBytes), tr("line %1").arg(allocated->line)});
            peakAllocated = allocated->peak;
            resolution = allocated->resolution;
            allocatedForFragmentation = allocated->peak;
            if (const TorchSummaryRow *r = s.row("reserved")) {
                readings.push_back({"peak_reserved", tr("peak reserved (max_memory_reserved)"), r->peak,
                                    double(e.peak.reservedBytes), tr("line %1").arg(r->line)});
                reserved = r->peak;
            }
            if (const TorchSummaryRow *r = s.row("non_releasable"))
                readings.push_back({"peak_non_releasable", tr("peak non-releasable (fragments)"), r->peak, std::nullopt,
                                    tr("line %1").arg(r->line)});
            ooms = s.ooms;
            if (s.ooms || s.mallocRetries)
                findings << tr("The run hit %1 out-of-memory error(s) and %2 cudaMalloc retries: the allocator "
                               "emptied its cache and tried again, so the peak is at the card's edge.")
                                .arg(s.ooms)
                                .arg(s.mallocRetries);
        }
        if (peakAllocated > 0) {
            const double d = double(e.peak.allocatedBytes) - peakAllocated;
            findings.prepend((timeline ? tr("Allocated %1 beside the measurement (%2%): the estimate's %3 phase holds %4; "
                                            "the rows above put PyTorch's categories beside the estimate's consumers.")
                                       : tr("Allocated %1 beside the measurement (%2%): the estimate's %3 phase holds %4. The "
                                            "tool gives no categories, so the difference is not attributed to one of them."))
                                 .arg(signedGib(d))
                                 .arg(QString::number(d / peakAllocated * 100, 'f', 1))
                                 .arg(QString::fromLatin1(phaseKey(e.peak.phase)), peakComposition(e)));
        }
        if (reserved > 0 && reserved - allocatedForFragmentation > 0.1 * reserved)
            findings << tr("Reserved is %1 above allocated (%2% of reserved): memory the caching allocator holds but "
                           "no tensor uses. \"Make room on your GPU\": PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                           "returns most of it; the estimate assumed %3 of fragmentation.")
                            .arg(gib(reserved - allocatedForFragmentation))
                            .arg(QString::number((reserved - allocatedForFragmentation) / reserved * 100, 'f', 0))
                            .arg(gib(double(e.peak.reservedBytes - e.peak.allocatedBytes)));
        if (const Gpu *gpu = targetGpu(scenario); gpu && peakAllocated > 0 && ooms > 0 &&
                                                  peakAllocated < 0.75 * double(gpu->capacityBytes()))
            findings << tr("Allocated (%1) is far below the card (%2) and still the run ran out of memory: "
                           "fragmentation (\"Where the memory actually goes\"); try expandable_segments:True.")
                            .arg(gib(peakAllocated), gib(double(gpu->capacityBytes())));

        // The case is saved before anything is printed: a failed save is exit 2 with nothing on
        // stdout, as `compare` of an engine log does.
        if (!saveCasePath.isEmpty()) {
            if (peakAllocated <= 0)
                return fail(tr("--save-case: %1 has no peak allocated figure to save").arg(safe(inputPath.toStdString())));
            if (const int saved = saveCase(saveCasePath, inputPath, tool, scenario, e, peakAllocated, resolution);
                saved != ExitOk)
                return saved;
        }
        if (json) {
            nlohmann::json rows = nlohmann::json::array();
            for (const Reading &r : readings)
                rows.push_back({{"key", r.key}, {"label", r.label.toStdString()}, {"measured", r.measured},
                                {"estimated", r.estimated ? nlohmann::json(*r.estimated) : nlohmann::json()},
                                {"where", r.where.toStdString()}});
            nlohmann::json list = nlohmann::json::array();
            for (const QString &f : findings)
                list.push_back(f.toStdString());
            out() << q(nlohmann::json({{"format", "headroom-torch-comparison"}, {"version", 1}, {"tool", tool},
                                       {"scenario", scenarioToJson(scenario)}, {"readings", rows}, {"findings", list}})
                           .dump(2))
                  << '\n';
        } else {
            QTextStream &o = out();
            o << tr("%1: %2").arg(QString::fromLatin1(tool), safe(inputPath.toStdString())) << '\n'
              << tr("Scenario: %1").arg(safe(scenarioPath.toStdString())) << "\n\n";
            for (const Reading &r : readings)
                o << "  " << r.label.leftJustified(40) << gib(r.measured).rightJustified(12) << "  "
                  << (r.estimated ? tr("estimate %1 (%2)").arg(gib(*r.estimated), signedGib(*r.estimated - r.measured))
                                  : QString())
                         .leftJustified(36)
                  << "  " << r.where << '\n';
            if (!findings.isEmpty()) {
                o << '\n' << tr("What explains the difference:") << '\n';
                for (const QString &f : findings)
                    o << "  - " << safe(f.toStdString()) << '\n';
            }
            o << '\n' << tr("The estimate is not tuned to the measurement: both are shown as they are.") << '\n';
        }
        out().flush();
        return ExitOk;
    } catch (const ScenarioError &error) {
        return fail(safe(scenarioPath.toStdString()) + QLatin1String(": ") + q(error.what()));
    } catch (const InputError &error) {
        return fail(safe(inputPath.toStdString()) + QLatin1String(": ") + q(error.what()));
    } catch (const std::exception &error) {
        return fail(errorText(error));
    }
}

} // namespace headroom::cli
