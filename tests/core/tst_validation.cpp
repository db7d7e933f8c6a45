// SPDX-License-Identifier: GPL-3.0-or-later
// The estimator against published measurements (tests/data/measured): every case loads and
// estimates, the statistics are right on hand-made numbers, the held-out half meets the floors,
// and `headroom validate` works as a user runs it.
#include "training/framework.h"
#include "testutil.h"
#include "accuracy/firstseen.h"
#include "accuracy/validation.h"

#include <set>

#include <QDir>
#include <QFile>
#include "processutil.h"
#include <QTemporaryDir>

using headroom::test::Run;
using headroom::test::runHeadroom;
using namespace headroom;

namespace {

QString measuredDir() { return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/measured"); }

std::vector<MeasurementCase> loadCases()
{
    std::vector<MeasurementCase> cases;
    const QDir dir(measuredDir());
    for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        QFile f(dir.filePath(file));
        if (!f.open(QIODevice::ReadOnly))
            throw std::runtime_error("cannot open " + file.toStdString());
        const QByteArray bytes = f.readAll();
        cases.push_back(parseMeasurementCase(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                             file.toStdString()));
    }
    return cases;
}


const char *kCase = R"({
  "format": "headroom-measurement", "version": 1, "id": "tiny",
  "scenario": {"format": "headroom-scenario", "version": 1, "model": {"preset": "llama-2-7b"},
               "task": "inference"},
  "reading": "allocated", "measured": {"value": 14, "unit": "GB"}, "measured_bytes": 14000000000,
  "source": {"repo": "example/repo", "path": "README.md"}, "split": "holdout"
})";

} // namespace

class TestValidation : public QObject
{
    Q_OBJECT
private:
    std::vector<MeasurementCase> m_cases;
    ValidationReport m_report;
    QTemporaryDir m_dir;

    QString writeCase(const QString &folder, const char *name, const QByteArray &content)
    {
        QDir().mkpath(m_dir.filePath(folder));
        const QString path = m_dir.filePath(folder + QLatin1Char('/') + QLatin1String(name));
        QFile file(path);
        if (file.open(QIODevice::WriteOnly))
            file.write(content);
        return m_dir.filePath(folder);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        try {
            m_cases = loadCases();
        } catch (const std::exception &error) {
            QFAIL(error.what());
        }
        m_report = validate(m_cases);
    }

    void everyCaseLoadsAndEstimates()
    {
        QVERIFY2(m_cases.size() >= 100, qPrintable(QString::number(m_cases.size())));
        std::size_t holdout = 0;
        for (const CaseResult &c : m_report.cases) {
            QVERIFY2(c.estimatedBytes > 0, c.measurement.id.c_str());
            QVERIFY2(c.measurement.measuredBytes > 0, c.measurement.id.c_str());
            holdout += c.measurement.split == Split::Holdout;
        }
        QVERIFY(holdout >= 30);
    }

    void statisticsOnHandMadeNumbers()
    {
        QCOMPARE(median({}), 0.0);
        QCOMPARE(median({3, 1, 2}), 2.0);
        QCOMPARE(median({4, 1, 3, 2}), 2.5);
        // Nearest rank: 90% of ten values -> the 9th smallest; 80% of five -> the 4th.
        QCOMPARE(percentile({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.9), 9.0);
        QCOMPARE(percentile({5, 1, 4, 2, 3}, 0.8), 4.0);
        QCOMPARE(percentile({5, 1, 4, 2, 3}, 1.0), 5.0);
        QCOMPARE(percentile({7}, 0.5), 7.0);

        const ErrorSummary s = summarize({-0.05, 0.10, 0.15, -0.30, 0.02});
        QCOMPARE(s.count, std::size_t(5));
        QCOMPARE(s.medianAbs, 0.10);
        QCOMPARE(s.p90Abs, 0.30);
        QCOMPARE(s.maxAbs, 0.30);
        QCOMPARE(s.within10, 0.6); // 0.05, 0.10 (inclusive), 0.02
        QCOMPARE(s.within20, 0.8);
    }

    void signedErrorUsesTheMatchingReading()
    {
        const MeasurementCase c = parseMeasurementCase(kCase, "tiny.json");
        const Estimate e = estimate(c.scenario, Detail::BytesOnly);
        QCOMPARE(estimatedFigure(e, Reading::Allocated), e.peak.allocatedBytes);
        QCOMPARE(estimatedFigure(e, Reading::Reserved), e.peak.reservedBytes);
        QCOMPARE(estimatedFigure(e, Reading::Device), e.peak.deviceBytes);
        const CaseResult r = validateCase(c);
        QCOMPARE(r.estimatedBytes, e.peak.allocatedBytes);
        QCOMPARE(r.error, (double(e.peak.allocatedBytes) - 14e9) / 14e9);
        QCOMPARE(c.method, std::string("inference"));
        QCOMPARE(c.source, std::string("example/repo README.md"));
    }

    void badCasesNameFileAndKey_data()
    {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("key");
        QTest::newRow("unknown-key") << R"({"colour": 1})" << "colour";
        QTest::newRow("bad-reading") << R"({"reading": "peak"})" << "reading";
        QTest::newRow("negative-bytes") << R"({"measured_bytes": -5})" << "measured_bytes";
        QTest::newRow("bad-split") << R"({"split": "test"})" << "split";
        QTest::newRow("id-mismatch") << R"({"id": "other"})" << "id";
        QTest::newRow("bad-scenario") << R"({"scenario": {"format": "headroom-scenario", "version": 1,
            "train": {"micro_batch": 0}}})" << "scenario.train.micro_batch";
    }
    void badCasesNameFileAndKey()
    {
        QFETCH(QString, edit);
        QFETCH(QString, key);
        nlohmann::json doc = nlohmann::json::parse(kCase);
        doc.merge_patch(nlohmann::json::parse(edit.toStdString()));
        try {
            parseMeasurementCase(doc.dump(), "tiny.json");
            QFAIL("accepted a bad case");
        } catch (const ValidationError &error) {
            QCOMPARE(QString::fromStdString(error.key), key);
            QVERIFY2(QString::fromUtf8(error.what()).startsWith(QLatin1String("tiny.json: ")), error.what());
        }
    }

    // The issue's floors on the held-out half of the cases that existed before the first-seen
    // ledger (its not-blind lines); the cases first seen blind (issue 23) are judged by their
    // first-seen errors in tst_firstseen and docs/accuracy.md instead.
    void holdoutMeetsTheFloors()
    {
        QFile ledgerFile(measuredDir() + QLatin1Char('/') + QLatin1String(kFirstSeenFile));
        QVERIFY(ledgerFile.open(QIODevice::ReadOnly));
        const QByteArray ledgerText = ledgerFile.readAll();
        std::set<std::string> blind;
        for (const FirstSeen &f : parseFirstSeenLedger(std::string_view(ledgerText.constData(), std::size_t(ledgerText.size())),
                                                       kFirstSeenFile))
            if (f.blind)
                blind.insert(f.id);
        std::vector<double> errors;
        for (const CaseResult &c : m_report.cases)
            if (c.measurement.split == Split::Holdout && !blind.count(c.measurement.id))
                errors.push_back(c.error);
        const ErrorSummary s = summarize(errors);
        const QByteArray figures = QByteArray("holdout median ") + QByteArray::number(s.medianAbs * 100, 'f', 1) +
                                   "%, p90 " + QByteArray::number(s.p90Abs * 100, 'f', 1) + '%';
        qInfo("%s over %zu cases", figures.constData(), s.count);
        // Issue 12's floors on cases described only by what their source says (framework,
        // version, config, model, hardware): median <= 5% and p90 <= 20%. They only tighten.
        QVERIFY2(s.medianAbs <= 0.05, figures.constData());
        QVERIFY2(s.p90Abs <= 0.20, figures.constData());
    }

    // A case says what its source says: it names a framework and does not repeat a behaviour
    // its framework's preset sets to the same value (the low-level knobs).
    void casesAreDescribedByFramework()
    {
        const QDir dir(measuredDir());
        for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            QFile f(dir.filePath(file));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const nlohmann::json doc = nlohmann::json::parse(f.readAll().toStdString());
            const nlohmann::json &scenario = doc["scenario"];
            QVERIFY2(scenario.contains("framework"), qPrintable(file));
            const Scenario parsed = scenarioFromJson(scenario);
            for (const PresetSetting &setting : frameworkPreset(parsed)) {
                if (!setting.behaviour)
                    continue; // the run's own settings (rank, checkpointing) are what the source says
                const nlohmann::json *node = &scenario;
                std::size_t start = 0;
                bool found = true;
                while (found) {
                    const auto dot = setting.key.find('.', start);
                    const std::string part = setting.key.substr(start, dot == std::string::npos ? dot : dot - start);
                    found = node->is_object() && node->contains(part);
                    if (!found)
                        break;
                    node = &(*node)[part];
                    if (dot == std::string::npos)
                        break;
                    start = dot + 1;
                }
                QVERIFY2(!found || *node != setting.value,
                         qPrintable(file + QStringLiteral(": repeats ") + QString::fromStdString(setting.key) +
                                    QStringLiteral(", which its framework sets the same")));
            }
        }
    }

    void estimateCarriesItsBand()
    {
        const Scenario s = test::scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "train": {"method": "lora"}})");
        const Estimate e = estimate(s);
        QVERIFY(e.errorBandPercent > 0);
        QCOMPARE(e.errorBandPercent, errorBandPercent(s));
        QCOMPARE(estimateToJson(e)["error_band_percent"].get<int>(), e.errorBandPercent);
        // Every reading's band, the fit (device) band first; a validated band rests on enough
        // blind first-seen cases, and the JSON says how many.
        QCOMPARE(e.errorBands.size(), std::size_t(3));
        QCOMPARE(std::string(e.errorBands.front().reading), std::string("device"));
        for (const ErrorBand &band : e.errorBands)
            QVERIFY(band.basis != BandBasis::Validated || band.cases >= kMinBandCases);
        QCOMPARE(estimateToJson(e)["error_bands"][0]["cases"].get<int>(), e.errorBands.front().cases);
    }

    void validateCommandText()
    {
        const Run run = runHeadroom({QStringLiteral("validate"), measuredDir()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
        QVERIFY(run.out.contains(QLatin1String("lg-03")));
        QVERIFY(run.out.contains(QLatin1String("holdout")));
        QVERIFY(run.out.contains(QLatin1String("Error bands")));
    }

    void validateCommandJson()
    {
        const Run run = runHeadroom({QStringLiteral("validate"), measuredDir(), QStringLiteral("--format"),
                                     QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(doc["format"].get<std::string>(), std::string("headroom-validation"));
        QCOMPARE(doc["cases"].size(), m_cases.size());
        QCOMPARE(doc["overall"]["count"].get<std::size_t>(), m_cases.size());
    }

    void validateCommandBadInput()
    {
        Run run = runHeadroom({QStringLiteral("validate"), m_dir.filePath(QStringLiteral("missing"))});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("no such directory")), qPrintable(run.err));

        const QString bad = writeCase(QStringLiteral("bad"), "tiny.json",
                                      QByteArray(kCase).replace("\"allocated\"", "\"peak\""));
        run = runHeadroom({QStringLiteral("validate"), bad});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(run.err.contains(QLatin1String("tiny.json: reading:")), qPrintable(run.err));

        run = runHeadroom({QStringLiteral("validate"), measuredDir(), QStringLiteral("--format"),
                           QStringLiteral("xml")});
        QCOMPARE(run.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"
