// SPDX-License-Identifier: GPL-3.0-or-later
// Published serving-engine start-up logs (tests/data/serving, each with its source): every case
// reads, the engine's own pair of figures agrees with the cache layout, and the KV token count
// is within 5% of the engines' logs at median.
#include "estimate/estimate.h"
#include "processutil.h"
#include "accuracy/servingvalidation.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QtTest>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

QString casesDir() { return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/serving"); }

QStringList caseFiles() { return QDir(casesDir()).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name); }

ServingCase readCase(const QString &file)
{
    QFile f(QDir(casesDir()).filePath(file));
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot open " + file.toStdString());
    const QByteArray bytes = f.readAll();
    return parseServingCase(std::string_view(bytes.constData(), std::size_t(bytes.size())), file.toStdString());
}

QByteArray readBytes(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot open " + path.toStdString());
    return f.readAll();
}

QString sha256(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

/// What a ledger entry's chain hash covers (scripts/serving_ledger.py, canonical()).
QByteArray canonical(const nlohmann::json &e)
{
    std::string first;
    for (auto it = e.at("first_seen").begin(); it != e.at("first_seen").end(); ++it) { // keys sorted
        if (!it->is_number_integer())
            throw std::runtime_error("first_seen." + it.key() + " is not a whole number");
        first += (first.empty() ? "" : ",") + it.key() + "=" + std::to_string(it->get<long long>());
    }
    const std::string text = e.at("id").get<std::string>() + "|" + e.at("case_sha256").get<std::string>() + "|" +
                             e.at("recorded").get<std::string>() + "|" + e.at("headroom_commit").get<std::string>() +
                             "|" + (e.at("blind").get<bool>() ? "1" : "0") + "|" + e.value("reason", std::string()) +
                             "|" + first;
    return QByteArray::fromStdString(text);
}

std::vector<ServingCase> allCases()
{
    std::vector<ServingCase> cases;
    for (const QString &file : caseFiles())
        cases.push_back(readCase(file));
    return cases;
}

} // namespace

class TestServingLogs : public QObject
{
    Q_OBJECT
private slots:
    void cases_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &file : caseFiles())
            QTest::newRow(QString(file).chopped(5).toUtf8().constData()) << file;
    }
    void cases()
    {
        QFETCH(QString, file);
        const ServingCase c = readCase(file);
        QVERIFY(!c.url.empty());
        QVERIFY(c.scenario.serving);
        const Estimate e = estimate(c.scenario);
        QVERIFY2(e.serving, "the engine computed no figures");
        // Where the log printed both its KV memory and its token count, their ratio is what one
        // cached token costs in every layer of one GPU: the cache layout must agree with the
        // engine's own numbers (within the 0.01 GiB the memory is printed to, one block, and
        // SGLang's padding page).
        // Models with sliding and full layers are left out: vLLM's hybrid allocator prints the
        // tokens of one KV group, not of one token in every layer.
        const bool hybrid = c.scenario.model.slidingWindow > 0 && c.scenario.model.globalEvery > 0;
        if (c.kvCacheBytes && c.kvTokens && !hybrid) {
            const double printed = double(*c.kvCacheBytes) / double(*c.kvTokens);
            const double layout = double(e.serving->kvBytesPerToken);
            QVERIFY2(std::fabs(printed - layout) / layout < 0.02,
                     qPrintable(QStringLiteral("printed %1 B per token, layout %2 B").arg(printed).arg(layout)));
        }
    }

    // Issue 26's goals on the published logs: KV tokens within 3% at median and 10% at p90;
    // weights, the profile run's activation peak, non-torch memory and the CUDA graph pool within
    // 0.25 GiB at median (the pool's per-graph cost is fitted on the 0.18/0.19 dense-model logs,
    // docs/serving.md; the MoE and 0.10 logs are in this median too).
    void summary()
    {
        const std::vector<ServingCase> cases = allCases();
        QVERIFY(cases.size() >= 80);
        const ServingReport report = validateServing(cases);
        QVERIFY(report.tokens.count >= 60);
        QVERIFY2(report.tokens.medianAbs <= 0.03, qPrintable(QString::number(report.tokens.medianAbs)));
        QVERIFY2(report.tokens.p90Abs <= 0.10, qPrintable(QString::number(report.tokens.p90Abs)));
        QVERIFY2(report.bytes.medianAbs <= 0.03, qPrintable(QString::number(report.bytes.medianAbs)));
        for (const FigureSummary &f : report.figures) {
            if (f.key != "weights" && f.key != "activation" && f.key != "non_torch" && f.key != "cuda_graph")
                continue;
            QVERIFY2(f.gibCount >= 50, f.key.c_str());
            QVERIFY2(f.medianAbsGiB <= 0.25, qPrintable(QString::fromStdString(f.key) + QLatin1Char(' ') +
                                                        QString::number(f.medianAbsGiB)));
        }
        // Every case with a KV figure belongs to a group with its engine and version family (a
        // refused start-up may print none: "Available KV cache memory: -0.7 GiB").
        std::size_t grouped = 0, withKv = 0;
        for (const ServingGroup &g : report.groups)
            grouped += std::max(g.bytes.count, g.tokens.count);
        for (const ServingCase &c : cases)
            withKv += c.kvCacheBytes || c.kvTokens ? 1 : 0;
        QVERIFY(withKv + 1 >= cases.size()); // one refused case without a KV figure
        QVERIFY(grouped >= withKv);
    }

    // The first-seen ledger is append-only: every entry's chain hash covers the one before it,
    // every case has an entry, and a case edited after it was first seen has a newer entry
    // (with its reason) whose hash is the file's.
    void ledger()
    {
        const nlohmann::json doc =
            nlohmann::json::parse(readBytes(casesDir() + QStringLiteral("/ledger/first-seen.json")).toStdString());
        QCOMPARE(doc.at("format").get<std::string>(), std::string("headroom-serving-first-seen"));
        QString previous;
        std::map<std::string, std::string> lastHash;
        std::map<std::string, int> seen;
        for (const nlohmann::json &e : doc.at("entries")) {
            const QString expected = sha256(previous.toLatin1() + "\n" + canonical(e));
            QVERIFY2(QString::fromStdString(e.at("chain").get<std::string>()) == expected,
                     qPrintable(QStringLiteral("ledger entry %1 was edited after it was appended")
                                    .arg(QString::fromStdString(e.at("id").get<std::string>()))));
            previous = expected;
            const std::string id = e.at("id").get<std::string>();
            if (seen[id]++ > 0) // a later entry for a case says why the case changed
                QVERIFY2(!e.value("reason", std::string()).empty(), id.c_str());
            lastHash[id] = e.at("case_sha256").get<std::string>();
        }
        for (const QString &file : caseFiles()) {
            const std::string id = file.chopped(5).toStdString();
            QVERIFY2(lastHash.count(id), qPrintable(file + QStringLiteral(" has no first-seen entry")));
            QVERIFY2(QString::fromStdString(lastHash[id]) == sha256(readBytes(QDir(casesDir()).filePath(file))),
                     qPrintable(file + QStringLiteral(" changed after it was first seen (append an entry)")));
            lastHash.erase(id);
        }
        QVERIFY2(lastHash.empty(), lastHash.empty() ? "" : lastHash.begin()->first.c_str());
    }

    // Every printed figure is compared, in GiB and relative. Llama 3 8B in bf16 on an H100:
    // weights 8,030,261,248 x 2 B = 16,060,522,496 B = 14.9576 GiB against a printed 14.99
    // (-0.0324 GiB, -0.216%); a refusal the estimate predicts counts as predicted.
    void otherFigures()
    {
        const std::string text = R"({"format": "headroom-serving-log", "version": 1, "id": "x",
            "scenario": {"format": "headroom-scenario", "version": 1, "task": "inference", "gpus": ["h100-80gb"],
                         "model": {"preset": "llama-3-8b"}, "precision": {"weights": "bf16"},
                         "serving": {"engine": "vllm", "version": "0.10.1", "max_model_len": 4000000}},
            "measured": {"weights_gib": 14.99, "started": false, "refusal": "needs more KV cache"},
            "engine_version": "0.10", "confidence": "high", "verified": true, "source": {"url": "https:\/\/example.org"}})";
        const ServingCase c = parseServingCase(text, "x.json");
        QCOMPARE(c.started, std::optional<bool>(false));
        const ServingReport report = validateServing({c});
        QCOMPARE(report.cases.size(), std::size_t(1));
        const std::vector<FigureError> &errors = report.cases[0].errors;
        QCOMPARE(errors.size(), std::size_t(1));
        QCOMPARE(errors[0].key, std::string("weights"));
        QVERIFY(std::fabs(*errors[0].gib - (16060522496.0 / 1073741824.0 - 14.99)) < 1e-9);
        QVERIFY(std::fabs(*errors[0].relative + 0.002161) < 1e-5);
        QCOMPARE(report.startCases, std::size_t(1));
        QCOMPARE(report.startPredicted, std::size_t(1)); // 4M tokens of 8B's KV cannot fit an H100
        QCOMPARE(report.figures.size(), std::size(kServingFigureKeys));
        QCOMPARE(report.figures[2].key, std::string("weights"));
        QCOMPARE(report.figures[2].gibCount, std::size_t(1));
    }

    // A case file names its mistakes.
    void badCase_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        const QString scenario = QStringLiteral(
            R"("scenario": {"format": "headroom-scenario", "version": 1, "task": "inference", "gpus": ["h100-80gb"],
                            "serving": {"engine": "vllm"}})");
        const QString rest = QStringLiteral(
            R"("engine_version": "0.10", "confidence": "high", "verified": true, "source": {"url": "https:\/\/example.org"})");
        QTest::newRow("no-measurement") << QStringLiteral(R"({"format": "headroom-serving-log", "version": 1, "id": "x", %1,
            "measured": {}, %2})").arg(scenario, rest) << QStringLiteral("measured");
        QTest::newRow("zero-tokens") << QStringLiteral(R"({"format": "headroom-serving-log", "version": 1, "id": "x", %1,
            "measured": {"kv_tokens": 0}, %2})").arg(scenario, rest) << QStringLiteral("measured.kv_tokens");
        QTest::newRow("unknown-key") << QStringLiteral(R"({"format": "headroom-serving-log", "version": 1, "id": "x", %1,
            "measured": {"kv_tokens": 5}, "extra": 1, %2})").arg(scenario, rest) << QStringLiteral("extra");
        QTest::newRow("unknown-figure") << QStringLiteral(R"({"format": "headroom-serving-log", "version": 1, "id": "x", %1,
            "measured": {"kv_tokens": 5, "weight_gib": 1}, %2})").arg(scenario, rest) << QStringLiteral("measured.weight_gib");
        QTest::newRow("negative-weights") << QStringLiteral(R"({"format": "headroom-serving-log", "version": 1, "id": "x", %1,
            "measured": {"kv_tokens": 5, "weights_gib": -1}, %2})").arg(scenario, rest) << QStringLiteral("measured.weights_gib");
        QTest::newRow("refusal-of-a-start") << QStringLiteral(R"({"format": "headroom-serving-log", "version": 1, "id": "x", %1,
            "measured": {"kv_tokens": 5, "refusal": "no"}, %2})").arg(scenario, rest) << QStringLiteral("measured.refusal");
        QTest::newRow("no-engine") << QStringLiteral(R"({"format": "headroom-serving-log", "version": 1, "id": "x",
            "scenario": {"format": "headroom-scenario", "version": 1, "task": "inference"},
            "measured": {"kv_tokens": 5}, %1})").arg(rest) << QStringLiteral("scenario.serving");
    }
    void badCase()
    {
        QFETCH(QString, text);
        QFETCH(QString, key);
        try {
            parseServingCase(text.toStdString(), "x.json");
            QFAIL("accepted");
        } catch (const ValidationError &error) {
            QVERIFY2(error.key == key.toStdString(), error.what());
        }
    }

    // `headroom validate` on the folder reports the serving errors.
    void cli()
    {
        const test::Run run = test::runHeadroom({QStringLiteral("validate"), casesDir(), QStringLiteral("--format"),
                                                 QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(doc["format"].get<std::string>(), std::string("headroom-serving-validation"));
        QCOMPARE(doc["cases"].size(), std::size_t(caseFiles().size()));
        QVERIFY(doc["kv_tokens"]["median_abs_error"].get<double>() <= 0.03);
        QCOMPARE(doc["figures"].size(), std::size(kServingFigureKeys));
        QVERIFY(doc["starts"]["cases"].get<std::size_t>() >= 60);
        const test::Run text = test::runHeadroom({QStringLiteral("validate"), casesDir()});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains(QStringLiteral("vllm 0.10")));
        // The per-figure table: each consumer with its median and p90, relative and in GiB.
        QVERIFY(text.out.contains(QStringLiteral("median GiB")));
        for (const char *key : {"weights", "activation", "non_torch", "cuda_graph", "max_concurrency"})
            QVERIFY2(text.out.contains(QLatin1String("\n") + QLatin1String(key)), key);
    }
};

QTEST_GUILESS_MAIN(TestServingLogs)
#include "tst_servinglogs.moc"
