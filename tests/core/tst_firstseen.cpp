// SPDX-License-Identifier: GPL-3.0-or-later
// The first-seen ledger (tests/data/measured/first-seen.jsonl, issue 23): every measured case has
// one line, no committed line ever changes (checked against the file's git history), the stored
// band table is what the blind first-seen errors give, a scenario gets the band of the nearest
// group with enough cases (or is labelled never validated), and the three-state verdict is the
// band's arithmetic.
#include "accuracy/errorband.h"
#include "accuracy/firstseen.h"
#include "accuracy/validation.h"
#include "estimate/estimatejson.h"
#include "estimate/verdict.h"
#include "processutil.h"
#include "scenario/names.h"
#include "scenario/catalog.h"
#include "solve/solver.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using headroom::test::Run;
using headroom::test::runHeadroom;
using namespace headroom;

namespace {

QString measuredDir() { return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/measured"); }
const char *kLedgerPath = "tests/data/measured/first-seen.jsonl";

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot open " + path.toStdString());
    return f.readAll();
}

std::vector<FirstSeen> parse(const QByteArray &bytes, const std::string &name = "first-seen.jsonl")
{
    return parseFirstSeenLedger(std::string_view(bytes.constData(), std::size_t(bytes.size())), name);
}

/// git in the source tree; empty (and ok false) when there is no git or no repository.
QByteArray git(const QStringList &arguments, bool &ok)
{
    QProcess p;
    p.setProgram(QStringLiteral("git"));
    p.setArguments(QStringList{QStringLiteral("-C"), QStringLiteral(HEADROOM_SOURCE_DIR)} + arguments);
    p.start();
    ok = p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    return ok ? p.readAllStandardOutput() : QByteArray();
}

const char *kLine = R"({"id": "tiny", "error": -0.125, "estimated_bytes": 875, "measured_bytes": 1000, )"
                    R"("commit": "6d26b81d6b8b2f6e1bd10f52d3f1c6a2f4a0b0c1", "date": "2026-12-02", "blind": true})";

} // namespace

class TestFirstSeen : public QObject
{
    Q_OBJECT
private:
    std::vector<MeasurementCase> m_cases;
    std::vector<FirstSeen> m_ledger;

private slots:
    void initTestCase()
    {
        try {
            const QDir dir(measuredDir());
            for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
                const QByteArray bytes = readAll(dir.filePath(file));
                m_cases.push_back(parseMeasurementCase(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                                       file.toStdString()));
            }
            m_ledger = parse(readAll(dir.filePath(QLatin1String(kFirstSeenFile))));
        } catch (const std::exception &error) {
            QFAIL(error.what());
        }
    }

    // Every case has exactly one line, with the case's own measured bytes; no line without a case.
    void everyCaseHasItsFirstSeenLine()
    {
        std::map<std::string, const FirstSeen *> byId;
        for (const FirstSeen &f : m_ledger)
            byId[f.id] = &f;
        for (const MeasurementCase &c : m_cases) {
            const auto it = byId.find(c.id);
            QVERIFY2(it != byId.end(), qPrintable(QStringLiteral("%1 has no first-seen line in %2: run "
                                                                 "`headroom validate` before changing the "
                                                                 "physics and append its error")
                                                      .arg(QString::fromStdString(c.id), QLatin1String(kLedgerPath))));
            QVERIFY2(it->second->measuredBytes == c.measuredBytes,
                     qPrintable(QString::fromStdString(c.id) + QStringLiteral(": the case's measured_bytes changed "
                                                                             "after its first sight")));
            // error = (estimate - measured) / measured, as recorded (4 decimals).
            const double error = (double(it->second->estimatedBytes) - double(c.measuredBytes)) / double(c.measuredBytes);
            QVERIFY2(std::fabs(error - it->second->error) < 6e-5, c.id.c_str());
        }
        std::set<std::string> ids;
        for (const MeasurementCase &c : m_cases)
            ids.insert(c.id);
        for (const FirstSeen &f : m_ledger)
            QVERIFY2(ids.count(f.id), qPrintable(QString::fromStdString(f.id) + QStringLiteral(": no such case")));
        // At least the 69 cases of issue 23 were first seen blind.
        QVERIFY(std::count_if(m_ledger.begin(), m_ledger.end(), [](const FirstSeen &f) { return f.blind; }) >= 60);
    }

    // No committed line ever changes or disappears: every version of the ledger in the git
    // history is a subset of the current one. Each line's estimator commit is an ancestor of
    // (or equal to) the commit that added the line: the error was seen before, not after.
    void committedLinesNeverChange()
    {
        bool ok = false;
        git({QStringLiteral("rev-parse"), QStringLiteral("--git-dir")}, ok);
        if (!ok)
            QSKIP("not a git checkout: the ledger's history cannot be read");
        const QByteArray log = git({QStringLiteral("log"), QStringLiteral("--format=%H"), QStringLiteral("--reverse"),
                                    QStringLiteral("--"), QLatin1String(kLedgerPath)},
                                   ok);
        QVERIFY(ok);
        std::map<std::string, FirstSeen> current;
        for (const FirstSeen &f : m_ledger)
            current[f.id] = f;
        std::map<std::string, std::string> addedIn;
        int versions = 0;
        for (const QByteArray &commit : log.split('\n')) {
            if (commit.isEmpty())
                continue;
            const QByteArray text = git({QStringLiteral("show"), QString::fromLatin1(commit + ':' + kLedgerPath)}, ok);
            if (!ok)
                continue; // deleted in that commit: the current file must still hold every line
            ++versions;
            for (const FirstSeen &old : parse(text, commit.toStdString() + ":" + kLedgerPath)) {
                const auto it = current.find(old.id);
                QVERIFY2(it != current.end(),
                         qPrintable(QStringLiteral("%1: its first-seen line (committed in %2) was removed")
                                        .arg(QString::fromStdString(old.id), QString::fromLatin1(commit.left(12)))));
                QVERIFY2(it->second == old,
                         qPrintable(QStringLiteral("%1: its first-seen line (committed in %2) was changed; a "
                                                   "first-seen value is never rewritten")
                                        .arg(QString::fromStdString(old.id), QString::fromLatin1(commit.left(12)))));
                addedIn.emplace(old.id, commit.toStdString());
            }
        }
        QVERIFY(versions >= 1 || log.isEmpty());
        std::set<std::pair<std::string, std::string>> checked;
        for (const auto &[id, commit] : addedIn) {
            const std::string estimator = current[id].commit;
            if (!checked.insert({estimator, commit}).second)
                continue;
            git({QStringLiteral("merge-base"), QStringLiteral("--is-ancestor"), QString::fromStdString(estimator),
                 QString::fromStdString(commit)},
                ok);
            QVERIFY2(ok, qPrintable(QStringLiteral("%1: estimator commit %2 is not before the commit %3 that "
                                                   "added its line (or the clone is too shallow)")
                                        .arg(QString::fromStdString(id), QString::fromStdString(estimator).left(12),
                                             QString::fromStdString(commit).left(12))));
        }
    }

    void storedBandsAreCurrent()
    {
        const std::vector<BandRow> fresh = computeFirstSeenBands(m_cases, m_ledger);
        const auto stored = storedBands();
        QCOMPARE(stored.size(), fresh.size());
        for (std::size_t i = 0; i < fresh.size(); ++i) {
            const BandRow s{stored[i].framework, stored[i].method,     stored[i].reading,
                            stored[i].percent,   stored[i].cases,      stored[i].unsafePercent};
            QVERIFY2(s == fresh[i], qPrintable(QStringLiteral("%1 x %2 x %3: stored ±%4% over %5, now ±%6% over %7 "
                                                              "(regenerate core/accuracy/errorband.cpp)")
                                                   .arg(QString::fromStdString(fresh[i].framework),
                                                        QString::fromStdString(fresh[i].method),
                                                        QString::fromStdString(fresh[i].reading))
                                                   .arg(s.percent)
                                                   .arg(s.cases)
                                                   .arg(fresh[i].percent)
                                                   .arg(fresh[i].cases)));
        }
        std::set<std::string> frameworks, optimizers, architectures, objectives;
        for (const MeasurementCase &c : m_cases) {
            frameworks.insert(c.framework);
            for (const char *feature : architectureFeatures(c.scenario.model))
                architectures.insert(feature);
            if (c.scenario.task == Task::Train) {
                optimizers.insert(enumName(c.scenario.train.optimizer));
                objectives.insert(enumName(c.scenario.train.objective));
            }
        }
        QCOMPARE(std::set<std::string>(validatedObjectives().begin(), validatedObjectives().end()), objectives);
        QCOMPARE(std::set<std::string>(validatedFrameworks().begin(), validatedFrameworks().end()), frameworks);
        QCOMPARE(std::set<std::string>(validatedOptimizers().begin(), validatedOptimizers().end()), optimizers);
        QCOMPARE(std::set<std::string>(validatedArchitectureFeatures().begin(), validatedArchitectureFeatures().end()),
                 architectures);
    }

    // The band is the 80th percentile of the group's blind first-seen |error|: recomputed here
    // by hand from the ledger for the method groups (nearest rank, rounded up).
    void methodBandsAreTheEightiethPercentile()
    {
        std::map<std::string, const FirstSeen *> byId;
        for (const FirstSeen &f : m_ledger)
            byId[f.id] = &f;
        for (const char *method : {"full", "lora", "qlora", "inference", "post-training"}) {
            std::vector<double> abs;
            for (const MeasurementCase &c : m_cases)
                if (c.method == method && byId.at(c.id)->blind)
                    abs.push_back(std::fabs(byId.at(c.id)->error));
            std::sort(abs.begin(), abs.end());
            QVERIFY(!abs.empty());
            const std::size_t rank = std::size_t(std::ceil(0.8 * double(abs.size()))); // 1-based
            const int expected = int(std::ceil(abs[rank - 1] * 100 - 1e-9));
            const auto row = std::find_if(storedBands().begin(), storedBands().end(), [&](const StoredBand &b) {
                return *b.framework == 0 && *b.reading == 0 && std::string(b.method) == method;
            });
            QVERIFY(row != storedBands().end());
            QCOMPARE(row->percent, expected);
            QCOMPARE(row->cases, int(abs.size()));
        }
    }

    // Nearest group with enough cases: framework x method x reading, then method x reading,
    // then method.
    void bandFallsBackToTheNearestGroup()
    {
        const Scenario s = test::scenarioFrom(R"({"framework": {"name": "litgpt"}, "model": {"preset": "llama-2-7b"},
            "train": {"method": "qlora"}, "precision": {"weights": "nf4"}})");
        for (const char *reading : {"allocated", "reserved", "device"}) {
            const ErrorBand band = errorBandFor(s, reading);
            // Which stored group it should be, found by walking the table here.
            std::string expected;
            int percent = 0;
            for (const auto &level : {std::pair<std::string, std::string>{"litgpt", reading}, {"", reading}, {"", ""}}) {
                const std::string fw = level.first, rd = level.second;
                const auto row = std::find_if(storedBands().begin(), storedBands().end(), [&](const StoredBand &b) {
                    return fw == b.framework && rd == b.reading && std::string(b.method) == "qlora";
                });
                if (row != storedBands().end() && row->cases >= kMinBandCases) {
                    expected = (fw.empty() ? "" : fw + " x ") + "qlora" + (rd.empty() ? "" : " x " + rd);
                    percent = row->percent;
                    break;
                }
            }
            QCOMPARE(std::string(band.group), expected);
            QCOMPARE(band.percent, percent);
            QCOMPARE(band.basis, BandBasis::Validated);
        }
        // No blind LitGPT reserved QLoRA case exists: the reserved band falls back past the
        // framework (to "qlora x reserved" once other frameworks' reserved QLoRA runs are in).
        QVERIFY(std::string(errorBandFor(s, "reserved").group).rfind("litgpt", 0) != 0);
        QVERIFY(QString::fromStdString(errorBandText(errorBandFor(s, "allocated"))).startsWith(QStringLiteral("typically within ±")));
    }

    void neverValidatedRunsGetTheWidestBand()
    {
        const Scenario serving = test::scenarioFrom(R"({"framework": {"name": "vllm"}, "model": {"preset": "llama-3-8b"},
            "task": "inference"})");
        const ErrorBand band = errorBandFor(serving, "device");
        QCOMPARE(band.basis, BandBasis::NeverValidated);
        QCOMPARE(band.percent, widestBandPercent());
        QCOMPARE(std::string(band.why), std::string("vllm"));
        QVERIFY2(errorBandText(band).find("never validated") != std::string::npos, errorBandText(band).c_str());
        const Scenario lion = test::scenarioFrom(R"({"framework": {"name": "hf_transformers"}, "model": {"preset": "llama-3-8b"},
            "train": {"method": "full", "optimizer": "lion"}})");
        QCOMPARE(errorBandFor(lion, "allocated").basis, BandBasis::NeverValidated);
        QCOMPARE(std::string(errorBandFor(lion, "allocated").why), std::string("lion"));
        // A post-training objective no measured run had (the supervised cases say nothing of a
        // reward model's score head or a teacher): never validated, naming it.
        const Scenario reward = test::scenarioFrom(R"({"framework": {"name": "hf_transformers"}, "model": {"preset": "pythia-1b"},
            "train": {"method": "full", "objective": "reward"}})");
        QCOMPARE(errorBandFor(reward, "allocated").basis, BandBasis::NeverValidated);
        QCOMPARE(std::string(errorBandFor(reward, "allocated").why), std::string("reward"));
        QCOMPARE(errorBandFor(reward, "allocated").percent, widestBandPercent());
        // A measured one (PPO) is judged by the post-training group, never by the supervised
        // full fine-tunes: fewer than 8 cases, so the widest band, labelled few.
        const Scenario ppo = test::scenarioFrom(R"({"framework": {"name": "hf_transformers"}, "model": {"preset": "pythia-1b"},
            "train": {"method": "full", "objective": "ppo", "seq_len": 565}})");
        const ErrorBand ppoBand = errorBandFor(ppo, "reserved");
        QCOMPARE(ppoBand.basis, BandBasis::Few);
        QCOMPARE(std::string(ppoBand.method), std::string("post-training"));
        QCOMPARE(ppoBand.percent, widestBandPercent());
        QVERIFY2(errorBandText(ppoBand).find("few validated runs") != std::string::npos, errorBandText(ppoBand).c_str());
        // An architecture no measured run had: multi-head latent attention (DeepSeek-V3).
        const Scenario mla = test::scenarioFrom(R"({"framework": {"name": "hf_transformers"}, "model": {"preset": "deepseek-v3"},
            "task": "inference"})");
        QVERIFY(!validatedArchitectureFeatures().empty());
        QCOMPARE(errorBandFor(mla, "device").basis, BandBasis::NeverValidated);
        QCOMPARE(std::string(errorBandFor(mla, "device").why), std::string("mla"));
        // The widest band is the table's widest group.
        int widest = 0;
        for (const StoredBand &b : storedBands())
            widest = std::max(widest, b.percent);
        QCOMPARE(widestBandPercent(), widest);
    }

    // Peak 10 GB under ±16%: upper edge 11.6 GB, lower edge 8.4 GB.
    void threeStatesAreTheBandsArithmetic()
    {
        const std::uint64_t peak = 10'000'000'000;
        QCOMPARE(upperEdgeBytes(peak, 16), std::uint64_t(11'600'000'000));
        QCOMPARE(fitState(peak, 12'000'000'000, 16), FitState::Fits);
        QCOMPARE(fitState(peak, 11'600'000'000, 16), FitState::Fits);       // the upper edge just fits
        QCOMPARE(fitState(peak, 11'599'999'999, 16), FitState::Borderline);
        QCOMPARE(fitState(peak, 10'000'000'000, 16), FitState::Borderline);
        QCOMPARE(fitState(peak, 8'400'000'000, 16), FitState::Borderline);  // the lower edge touches it
        QCOMPARE(fitState(peak, 8'399'999'999, 16), FitState::DoesNotFit);
        QCOMPARE(fitState(peak, 9'999'999'999, 0), FitState::DoesNotFit);
        QCOMPARE(fitStateText(FitState::Borderline, 16), std::string("may not fit: within the ±16% this estimate carries"));
        QCOMPARE(std::string(fitStateKey(FitState::DoesNotFit)), std::string("does_not_fit"));
        QCOMPARE(upperEdgeBytes(UINT64_MAX / 2, 200), UINT64_MAX);
    }

    // The estimate JSON names the band it used and each GPU's state.
    void estimateJsonCarriesBandAndState()
    {
        const Scenario s = test::scenarioFrom(R"({"framework": {"name": "litgpt"}, "model": {"preset": "llama-2-7b"},
            "train": {"method": "lora"}, "gpus": ["rtx-4090", "a100-80gb", "h100-80gb"]})");
        const Estimate e = estimate(s);
        const nlohmann::json doc = estimateToJson(e);
        const ErrorBand fit = errorBandFor(s, "device");
        QCOMPARE(doc["error_band"]["percent"].get<int>(), fit.percent);
        QCOMPARE(doc["error_band"]["group"].get<std::string>(), std::string(fit.group));
        QCOMPARE(doc["error_band"]["cases"].get<int>(), fit.cases);
        QCOMPARE(doc["error_band"]["first_seen"].get<bool>(), true);
        QCOMPARE(doc["error_band_percent"].get<int>(), fit.percent);
        QVERIFY(!doc["gpus"].empty());
        for (std::size_t i = 0; i < e.gpus.size(); ++i)
            QCOMPARE(doc["gpus"][i]["state"].get<std::string>(),
                     std::string(fitStateKey(fitState(e.peak.deviceBytes, e.gpus[i].capacityBytes, fit.percent))));
    }

    // `solve`'s safe answer, checked by the estimator: at the safe value the band's upper edge
    // fits the GPU, one more does not (or the exact answer is reached).
    void solveSafeAnswerIsConfirmedByTheEstimator()
    {
        const QString file = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");
        const Run run = runHeadroom({QStringLiteral("solve"), file, QStringLiteral("--for"), QStringLiteral("max-seq-len"),
                                     QStringLiteral("--gpu"), QStringLiteral("a100-80gb"), QStringLiteral("--format"),
                                     QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(doc["printed"].get<std::string>(), std::string("exact"));
        const std::uint64_t exact = doc["value"].get<std::uint64_t>();
        const std::uint64_t safe = doc["safe"]["value"].get<std::uint64_t>();
        const int band = doc["error_band"]["percent"].get<int>();
        QVERIFY(safe > 0);
        QVERIFY(safe <= exact);
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const Scenario s = scenarioFromJson(nlohmann::json::parse(f.readAll().toStdString()));
        QCOMPARE(band, errorBandPercent(s));
        const std::uint64_t capacity = builtinCatalog().findGpu("a100-80gb")->capacityBytes();
        const auto peakAt = [&](std::uint64_t value) {
            return estimate(withSolveValue(s, SolveFor::MaxSeqLen, value), Detail::BytesOnly).peak.deviceBytes;
        };
        QVERIFY(upperEdgeBytes(peakAt(safe), band) <= capacity);
        QCOMPARE(fitState(peakAt(safe), capacity, band), FitState::Fits);
        if (safe < exact)
            QVERIFY(upperEdgeBytes(peakAt(safe + 1), band) > capacity);
    }

    // Physics from the first-seen misses (issue 23): Transformers' GPT-NeoX generate() before
    // the Cache-class port keeps tuple caches, and the prefill's cache holds `value` as a view
    // of the fused q/k/v output. Pythia-410m, batch 4, context 2,148, fp16: one cache is
    // 24 layers x 2 x 16 heads x 64 x 2,148 tokens x 4 x 2 B = 844,627,968 B; the first decode
    // step holds the old one (K + q/k/v = 2 caches) and the new one: 3 x 844,627,968 B.
    void gptNeoxLegacyCacheAtTheFirstDecodeStep()
    {
        const auto decodeKv = [](const char *framework, const char *version, const char *preset) {
            nlohmann::json doc = {{"framework", {{"name", framework}, {"version", version}}},
                                  {"model", {{"preset", preset}}},
                                  {"task", "inference"},
                                  {"inference", {{"batch", 4}, {"context", 2148}, {"kv_dtype", "fp16"}}},
                                  {"precision", {{"weights", "fp16"}, {"compute", "fp16"}}}};
            const Scenario s = test::scenarioFrom(doc.dump());
            const Estimate e = estimate(s);
            for (const Phase &p : e.phases)
                if (p.id == PhaseId::Decode)
                    return p.bytes[std::size_t(ConsumerId::KvCache)];
            return std::uint64_t(0);
        };
        const std::uint64_t cache = 24ull * 2 * 16 * 64 * 2148 * 4 * 2;
        QCOMPARE(cache, std::uint64_t(844'627'968));
        QCOMPARE(decodeKv("hf_generate", "4.39", "pythia-410m"), 3 * cache);
        // From the port on, DynamicCache replaces one layer at a time: one cache.
        QCOMPARE(decodeKv("hf_generate", "4.44", "pythia-410m"), cache);
        // GPT-2 keeps tuple caches whose K and V are views of the c_attn output (.split, .view,
        // .permute: no copy), so the prefill's cache is the q/k/v tensor, 1.5 caches; with the
        // new one 2.5. gpt2-medium: 24 layers x 2 x 16 heads x 64 x 2,148 x 4 x 2 B, the same size.
        QCOMPARE(decodeKv("hf_generate", "4.39", "gpt2-medium"), 5 * cache / 2);
        // A model without a fused projection under tuple caches (before 4.36): two caches.
        QCOMPARE(decodeKv("hf_generate", "4.35", "llama-3.2-1b"), 2 * decodeKv("hf_generate", "4.40", "llama-3.2-1b"));
    }

    void badLedgerLinesNameLineAndKey_data()
    {
        QTest::addColumn<QByteArray>("edit");
        QTest::addColumn<QString>("key");
        QTest::newRow("unknown-key") << QByteArray(R"({"colour": 1})") << "line 1.colour";
        QTest::newRow("short-commit") << QByteArray(R"({"commit": "6d26b81"})") << "line 1.commit";
        QTest::newRow("bad-date") << QByteArray(R"({"date": "02.12.2026"})") << "line 1.date";
        QTest::newRow("error-string") << QByteArray(R"({"error": "-12%"})") << "line 1.error";
        QTest::newRow("blind-number") << QByteArray(R"({"blind": 1})") << "line 1.blind";
        QTest::newRow("zero-measured") << QByteArray(R"({"measured_bytes": 0})") << "line 1.measured_bytes";
    }
    void badLedgerLinesNameLineAndKey()
    {
        QFETCH(QByteArray, edit);
        QFETCH(QString, key);
        nlohmann::json doc = nlohmann::json::parse(kLine);
        doc.merge_patch(nlohmann::json::parse(edit.toStdString()));
        try {
            parse(QByteArray::fromStdString(doc.dump()));
            QFAIL("accepted a bad line");
        } catch (const ValidationError &error) {
            QCOMPARE(QString::fromStdString(error.key), key);
        }
        // A line given twice, and a line that is not JSON, are refused naming the line.
        try {
            parse(QByteArray(kLine) + "\n\n" + kLine + "\n");
            QFAIL("accepted a case twice");
        } catch (const ValidationError &error) {
            QCOMPARE(QString::fromStdString(error.key), QStringLiteral("line 3.id"));
        }
        try {
            parse(QByteArray(kLine) + "\n{\"id\": \n");
            QFAIL("accepted a broken line");
        } catch (const ValidationError &error) {
            QCOMPARE(QString::fromStdString(error.key), QStringLiteral("line 2"));
        }
        QCOMPARE(parse(QByteArray(kLine)).front().error, -0.125);
    }

    void validateCommandReportsFirstSeenAndUnsafe()
    {
        const Run run = runHeadroom({QStringLiteral("validate"), measuredDir()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(QLatin1String("First-seen |error|")));
        QVERIFY(run.out.contains(QLatin1String("unsafe")));
        QVERIFY(run.out.contains(QLatin1String("blind: qlora")));
        const Run json = runHeadroom({QStringLiteral("validate"), measuredDir(), QStringLiteral("--format"),
                                      QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(json.out.toStdString());
        QCOMPARE(doc["first_seen"]["cases"].size(), m_cases.size());
        QCOMPARE(doc["first_seen"]["bands"].size(), storedBands().size());
        // unsafe = share first seen more than 10% low, recomputed from the ledger.
        int low = 0, blind = 0;
        for (const FirstSeen &f : m_ledger)
            if (f.blind) {
                ++blind;
                low += f.error < -0.10;
            }
        QCOMPARE(doc["first_seen"]["summaries"][0]["group"].get<std::string>(), std::string("blind: all"));
        QCOMPARE(doc["first_seen"]["summaries"][0]["unsafe"].get<double>(), double(low) / blind);
    }
};

QTEST_GUILESS_MAIN(TestFirstSeen)
#include "tst_firstseen.moc"
