// SPDX-License-Identifier: GPL-3.0-or-later
// PyTorch's memory tools (tests/data/pytorch, README there): torch.cuda.memory_summary() tables,
// one published and one printed by PyTorch 1.13's own code for known statistics; memory-snapshot
// pickles in protocols 2 to 5, checked against Python's own json of the same dict and the sums
// Python computed; and the pickles the restricted reader must refuse (a real torch tensor, an
// OrderedDict, protocol 0, cut-off, nested, self-containing and exponentially shared values).
#include "estimate/estimate.h"
#include "io/pickle.h"
#include "measure/probefile.h"
#include "scenario/scenariojson.h"
#include "measure/torchsnapshot.h"
#include "measure/torchsummary.h"
#include "measure/torchtimeline.h"

#include <QFile>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

constexpr double kMiB = 1048576.0;
constexpr double kGiB = 1073741824.0;

std::string data(const char *name)
{
    QFile f(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/pytorch/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", name);
    return f.readAll().toStdString();
}

QString pickleRefusal(const std::string &bytes)
{
    try {
        readPickle(bytes);
    } catch (const InputError &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestTorchMemory : public QObject
{
    Q_OBJECT
private slots:
    void publishedSummary()
    {
        const TorchMemorySummary s = readTorchMemorySummary(data("memory-summary-pytorch-issue35901.txt"));
        QCOMPARE(s.device, 0);
        QCOMPARE(s.ooms, std::uint64_t(1));
        QCOMPARE(s.mallocRetries, std::uint64_t(1));
        // "| Allocated memory | 1062 MB | 4877 MB | 89299 MB | 88237 MB |": MB is 2^20 in PyTorch.
        QCOMPARE(s.row("allocated")->peak, 4877 * kMiB);
        QCOMPARE(s.row("allocated")->current, 1062 * kMiB);
        QCOMPARE(s.row("allocated")->resolution, kMiB);
        QCOMPARE(s.row("reserved")->peak, 12420 * kMiB);
        // Tot Alloc - Tot Freed is what is allocated now: 89,299 - 88,237 = 1,062 MB.
        QCOMPARE(s.row("allocated")->allocated - s.row("allocated")->freed, s.row("allocated")->current);
        QCOMPARE(s.row("allocated")->line, std::size_t(8));
        QVERIFY(!s.row("non_releasable")); // the excerpt ends before it
    }
    void generatedSummary()
    {
        const nlohmann::json stats = nlohmann::json::parse(data("memory-summary-torch-1.13-generated.json"))["stats"];
        const TorchMemorySummary s = readTorchMemorySummary(data("memory-summary-torch-1.13-generated.txt"));
        QCOMPARE(s.ooms, std::uint64_t(2));
        QCOMPARE(s.mallocRetries, std::uint64_t(3));
        const std::pair<const char *, const char *> rows[] = {{"allocated", "allocated_bytes"},
                                                              {"active", "active_bytes"},
                                                              {"reserved", "reserved_bytes"},
                                                              {"non_releasable", "inactive_split_bytes"}};
        for (const auto &[key, statKey] : rows) {
            const TorchSummaryRow *r = s.row(key);
            QVERIFY2(r, key);
            // PyTorch floors to the unit it printed: the figure is the statistic less under one unit.
            for (const auto &[value, stat] : {std::pair{r->peak, "peak"}, std::pair{r->current, "current"}}) {
                const double truth = stats[statKey][stat].get<double>();
                QVERIFY2(value <= truth && truth - value < 1024 * 1024 * 1024.0 && truth - value < std::max(r->resolution, 1024.0 * 1024),
                         qPrintable(QStringLiteral("%1 %2: %3 vs %4").arg(QLatin1String(key), QLatin1String(stat)).arg(value).arg(truth)));
            }
        }
        // 20 GiB + 113 MiB peak allocated = 20,593 MiB exactly.
        QCOMPARE(s.row("allocated")->peak, (20 * 1024 + 113) * kMiB);
        QCOMPARE(s.row("reserved")->peak, 23.5 * kGiB);
    }
    void summaryRefused()
    {
        const auto refusal = [](const std::string &text) {
            try {
                readTorchMemorySummary(text);
            } catch (const InputError &e) {
                return QString::fromStdString(e.what());
            }
            return QString();
        };
        QVERIFY(refusal("hello").contains(QStringLiteral("not a torch.cuda.memory_summary() table")));
        std::string cut = data("memory-summary-pytorch-issue35901.txt");
        cut += "|       from large pool |   12404 MB |   12\n| Non-releasable memory |  716800 KB |  23";
        QVERIFY2(refusal(cut).startsWith(QStringLiteral("line 18: \"Non-releasable memory\" has no size in column 3")),
                 qPrintable(refusal(cut)));
        QVERIFY(refusal("|   PyTorch CUDA memory summary, device ID 0  |\n| Allocated memory | 1 XB | 1 MB | 1 MB | 1 MB |")
                    .contains(QStringLiteral("a unit PyTorch does not print")));
    }
    void snapshotProtocols_data()
    {
        QTest::addColumn<QString>("file");
        for (int protocol = 2; protocol <= 5; ++protocol)
            QTest::newRow(qPrintable(QStringLiteral("protocol %1").arg(protocol)))
                << QStringLiteral("snapshot-protocol%1.pickle").arg(protocol);
    }
    void snapshotProtocols()
    {
        QFETCH(QString, file);
        const nlohmann::json read = readPickle(data(qPrintable(file)));
        // Python's json module's writing of the same dict (tuples as lists).
        QCOMPARE(read, nlohmann::json::parse(data("snapshot.json")));
        const nlohmann::json expected = nlohmann::json::parse(data("snapshot-expected.json"));
        const TorchSnapshotSummary s = summarizeSnapshot(read);
        QCOMPARE(s.device, 0);
        QCOMPARE(s.segments, expected["segments"].get<std::uint64_t>());
        QCOMPARE(s.blocks, expected["blocks"].get<std::uint64_t>());
        QCOMPARE(s.reservedBytes, expected["reserved_bytes"].get<std::uint64_t>());
        QCOMPARE(s.allocatedBytes, expected["allocated_bytes"].get<std::uint64_t>());
        QCOMPARE(s.activeBytes, expected["active_bytes"].get<std::uint64_t>());
        QCOMPARE(s.largestFreeBlock, expected["largest_free_block"].get<std::uint64_t>());
        QCOMPARE(*s.tracePeakAllocatedBytes, expected["trace_peak_allocated_bytes"].get<std::uint64_t>());
        QCOMPARE(s.tracePeakEntry, expected["trace_peak_entry"].get<std::size_t>());
        QCOMPARE(s.traceEntries, expected["trace_entries"].get<std::size_t>());
        QCOMPARE(s.traceOoms, expected["trace_ooms"].get<std::uint64_t>());
        // The other device: one expandable segment, 40 MiB, no trace entries.
        const TorchSnapshotSummary other = summarizeSnapshot(read, 1);
        QCOMPARE(other.reservedBytes, std::uint64_t(40 * kMiB));
        QCOMPARE(other.expandableSegments, std::uint64_t(1));
        QVERIFY(!other.tracePeakAllocatedBytes);
    }
    void publishedSnapshots()
    {
        // Two snapshots users committed to their repositories (README.md: sources), read by the
        // restricted reader; the sums are Python's own pickle.load and arithmetic
        // (summarize_published.py), not Headroom's.
        const nlohmann::json expected = nlohmann::json::parse(data("published-snapshots-expected.json"));
        QCOMPARE(expected.size(), std::size_t(2));
        for (const nlohmann::json &e : expected) {
            const std::string file = e["file"].get<std::string>();
            const TorchSnapshotSummary s = summarizeSnapshot(readPickle(data(file.c_str())));
            QVERIFY2(s.segments == e["segments"].get<std::uint64_t>(), file.c_str());
            QCOMPARE(s.blocks, e["blocks"].get<std::uint64_t>());
            QCOMPARE(s.reservedBytes, e["reserved_bytes"].get<std::uint64_t>());
            QCOMPARE(s.allocatedBytes, e["allocated_bytes"].get<std::uint64_t>());
            QCOMPARE(s.activeBytes, e["active_bytes"].get<std::uint64_t>());
            QCOMPARE(s.expandableSegments, e["expandable_segments"].get<std::uint64_t>());
            QCOMPARE(s.largestFreeBlock, e["largest_free_block"].get<std::uint64_t>());
            QVERIFY(s.tracePeakAllocatedBytes);
            QCOMPARE(*s.tracePeakAllocatedBytes, e["trace_peak_allocated_bytes"].get<std::uint64_t>());
            QCOMPARE(s.tracePeakEntry, e["trace_peak_entry"].get<std::size_t>());
            QCOMPARE(s.traceEntries, e["trace_entries"].get<std::size_t>());
            QCOMPARE(s.traceOoms, e["trace_ooms"].get<std::uint64_t>());
        }
    }
    void picklesRefused_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("torch tensor") << QStringLiteral("refused-torch-tensor.pickle") << QStringLiteral("GLOBAL (0x63) names a Python object");
        QTest::newRow("OrderedDict") << QStringLiteral("refused-ordereddict.pickle") << QStringLiteral("STACK_GLOBAL (0x93) names a Python object");
        QTest::newRow("protocol 0") << QStringLiteral("refused-protocol0.pickle") << QStringLiteral("an opcode of protocol 0 or 1");
        QTest::newRow("cut") << QStringLiteral("refused-cut.pickle") << QStringLiteral("cut off?");
    }
    void picklesRefused()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const QString message = pickleRefusal(data(qPrintable(file)));
        QVERIFY2(message.startsWith(QStringLiteral("byte ")) && message.contains(expected), qPrintable(message));
    }
    void hostilePickles()
    {
        // 100,000 nested lists: refused at depth 65, and freed without recursion.
        std::string deep = "\x80\x02" + std::string(100000, ']') + std::string(99999, 'a') + ".";
        QVERIFY(pickleRefusal(deep).contains(QStringLiteral("nested deeper than 64")));
        // A list that contains itself: EMPTY_LIST, MEMOIZE, BINGET 0, APPEND.
        QVERIFY(pickleRefusal(std::string("\x80\x02]\x94h\x00" "a.", 8)).contains(QStringLiteral("contains itself")));
        // 2^40 values from 40 tuples of two references to the one before.
        // Each is popped once memoized (POP), the last one fetched again (BINGET 40).
        std::string laughs = "\x80\x02]\x94" "0";
        for (int k = 0; k < 40; ++k)
            laughs += std::string("(h") + char(k) + "h" + char(k) + "t\x94" "0";
        laughs += std::string("h") + char(40) + ".";
        QVERIFY(pickleRefusal(laughs).contains(QStringLiteral("once shared values are written out")));
        QVERIFY(pickleRefusal("\x80\x02J\x01\x00").contains(QStringLiteral("cut off?")));
        QVERIFY(pickleRefusal(std::string("\x80\x02}K\x01K\x02s.", 9)).contains(QStringLiteral("not a str")));
        QVERIFY(pickleRefusal("\x80\x09N.").contains(QStringLiteral("protocol 9")));
        // 2^64 - 1 as LONG1 (9 bytes) is past 64 bits; -1 as LONG1 of 9 bytes is not.
        QVERIFY(pickleRefusal(std::string("\x80\x02\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00.", 14)).contains(QStringLiteral("past 64 bits")));
        QCOMPARE(readPickle(std::string("\x80\x02\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\xff.", 14)).get<std::int64_t>(), -1);
        QCOMPARE(readPickle(std::string("\x80\x02J\xff\xff\xff\xff.", 8)).get<std::int64_t>(), -1);
    }
    void timeline()
    {
        const nlohmann::json expected = nlohmann::json::parse(data("timeline-expected.json"));
        const TorchTimeline t = readTorchTimeline(data("timeline-generated.json"));
        QCOMPARE(t.points, expected["points"].get<std::size_t>());
        QCOMPARE(t.peakIndex, expected["peak_index"].get<std::size_t>());
        QCOMPARE(t.peakBytes, expected["peak_bytes"].get<std::uint64_t>());
        for (std::size_t c = 0; c < kTorchCategories; ++c)
            QCOMPARE(t.atPeak[c], expected["at_peak"][c].get<std::uint64_t>());
        // The categories keep PyTorch's column order: parameter first, optimizer state second.
        QCOMPARE(t.atPeak[std::size_t(TorchCategory::Parameter)], std::uint64_t(kGiB));
        QCOMPARE(t.atPeak[std::size_t(TorchCategory::OptimizerState)], std::uint64_t(4 * kGiB));
        // 8 layers x 300 MiB at the end of the forward: the activation category's own largest.
        QCOMPARE(t.largest[std::size_t(TorchCategory::Activation)], std::uint64_t(8 * 300 * kMiB));
        const auto refusal = [](const std::string &text) {
            try {
                readTorchTimeline(text);
            } catch (const InputError &e) {
                return QString::fromStdString(e.what());
            }
            return QString();
        };
        QVERIFY(refusal("[[1, 2], [[0, 1, 2, 3, 4, 5, 6, 7, 8]]]").startsWith(QStringLiteral("sizes: 1 rows for 2 times")));
        QVERIFY(refusal("[[1], [[0, 1, 2]]]").startsWith(QStringLiteral("sizes[0]: must list 9 sizes")));
        QVERIFY(refusal("[[1], [[0, 1, 2, 3, 4, \"x\", 6, 7, 8]]]").startsWith(QStringLiteral("sizes[0][5]: must be a number")));
        QVERIFY(refusal("\x1f\x8b").contains(QStringLiteral("gunzip")));
        QVERIFY(refusal("{}").contains(QStringLiteral("[times, sizes] expected")));
    }
    void probeAsScenario()
    {
        const ProbeFile probe = readProbeFile(data("../probe/probe-tiny-llama-bf16-adamw.json"));
        QCOMPARE(probe.readings.size(), std::size_t(7));
        const std::uint64_t params = probe.facts["params"].get<std::uint64_t>();
        // The probe's model in bf16: after loading, the weights alone, 2 bytes a parameter.
        QCOMPARE(probe.readings[0].allocatedBytes, 2 * params);
        const LogScenario s = scenarioFromProbe(probe, {"", "h100-80gb"});
        QVERIFY2(s.missing.empty(), s.missing.empty() ? "" : s.missing.front().c_str());
        QCOMPARE(s.document["train"]["micro_batch"].get<int>(), 2);
        QCOMPARE(s.document["train"]["seq_len"].get<int>(), 128);
        QCOMPARE(s.document["train"]["method"], "full");
        QCOMPARE(s.document["train"]["optimizer"], "adamw");
        QCOMPARE(s.document["precision"]["weights"], "bf16");
        QCOMPARE(s.document["kernels"]["attention"], "sdpa");
        // Headroom's count from the config against PyTorch's numel() of the same model.
        const Estimate e = estimate(scenarioFromJson(s.document));
        QCOMPARE(e.totalParams, params);
        const ProbeComparison c = compareProbe(probe, e);
        QCOMPARE(c.phases.size(), std::size_t(4));
        QCOMPARE(c.phases[0].phase, PhaseId::Load);
        QCOMPARE(c.phases[0].measuredPeakBytes, 2 * params);
        QCOMPARE(c.phases[3].step, std::uint64_t(1)); // the last step recorded
        QVERIFY(!c.findings.empty());
        // Without the GPU, it is asked for.
        const LogScenario noGpu = scenarioFromProbe(probe, {});
        QVERIFY(!noGpu.missing.empty() && noGpu.missing.back().find("give --gpu ID") != std::string::npos);
    }
    void probeRefused()
    {
        const auto refusal = [](const std::string &text) {
            try {
                readProbeFile(text);
            } catch (const InputError &e) {
                return QString::fromStdString(e.what());
            }
            return QString();
        };
        QVERIFY(refusal("{\"format\": \"headroom-scenario\", \"version\": 1}").startsWith(QStringLiteral("format:")));
        QVERIFY(refusal("{\"format\": \"headroom-probe\", \"version\": 1, \"readings\": []}").startsWith(QStringLiteral("readings:")));
        QVERIFY(refusal("{\"format\": \"headroom-probe\", \"version\": 1, \"readings\": [{\"phase\": \"warmup\"}]}")
                    .startsWith(QStringLiteral("readings[0].phase")));
        QVERIFY(refusal(data("../fuzz-found/probe-phase-not-a-string.json")).startsWith(QStringLiteral("readings[0].phase: must be load")));
        // Found by fuzz_probe: a phase that is a number is refused, not a library's type error.
        QVERIFY(refusal("{\"format\": \"headroom-probe\", \"version\": 1, \"readings\": [{\"phase\": 6023680}]}")
                    .startsWith(QStringLiteral("readings[0].phase: must be load")));
        QVERIFY(refusal("{\"format\": \"headroom-probe\", \"version\": 1, \"readings\": [{\"phase\": \"load\", \"allocated_bytes\": -1}]}")
                    .startsWith(QStringLiteral("readings[0].allocated_bytes: must be a whole number")));
        // Issue 29's hostile pass: 2^64 - 1 bytes on an 80 GiB device was compared at exit 0 as
        // "888.18 PiB measured"; a reading past the device's memory (or 2^53 bytes) is refused.
        const std::string reading = R"("allocated_bytes": 1, "reserved_bytes": 2, "peak_allocated_bytes": 1,
            "peak_reserved_bytes": 2, "device_used_bytes": 3)";
        const QString past = refusal(R"({"format": "headroom-probe", "version": 1, "device": {"total_bytes": 85899345920},
            "readings": [{"phase": "load", )" + reading + R"(}, {"phase": "forward", "allocated_bytes": 1,
            "reserved_bytes": 2, "peak_allocated_bytes": 18446744073709551615, "peak_reserved_bytes": 2,
            "device_used_bytes": 3}]})");
        QVERIFY2(past.startsWith(QStringLiteral("readings[1].peak_allocated_bytes: 18446744073709551615 bytes is more than "
                                                "the device's total_bytes (85899345920)")), qPrintable(past));
        const QString noDevice = refusal(R"({"format": "headroom-probe", "version": 1, "readings": [{"phase": "load",
            "allocated_bytes": 9007199254740993, "reserved_bytes": 2, "peak_allocated_bytes": 1, "peak_reserved_bytes": 2,
            "device_used_bytes": 3}]})");
        QVERIFY2(noDevice.startsWith(QStringLiteral("readings[0].allocated_bytes: 9007199254740993 bytes is more than 2^53")),
                 qPrintable(noDevice));
        QVERIFY(refusal(R"({"format": "headroom-probe", "version": 1, "device": {"total_bytes": 85899345920},
            "readings": [{"phase": "load", )" + reading + "}]}").isEmpty());
    }
    void snapshotRefused()
    {
        const auto refusal = [](const nlohmann::json &doc) {
            try {
                summarizeSnapshot(doc);
            } catch (const InputError &e) {
                return QString::fromStdString(e.what());
            }
            return QString();
        };
        QVERIFY(refusal(nlohmann::json::array()).contains(QStringLiteral("not a dict")));
        QVERIFY(refusal({{"segments", {{{"device", 0}, {"total_size", -5}}}}}).startsWith(QStringLiteral("segments[0].total_size")));
        QVERIFY(refusal({{"segments", {{{"device", 0}, {"total_size", 5}, {"allocated_size", 1}, {"active_size", 1}}}}})
                    .startsWith(QStringLiteral("segments[0].blocks: missing")));
    }
};

QTEST_GUILESS_MAIN(TestTorchMemory)
#include "tst_torchmemory.moc"
