// SPDX-License-Identifier: GPL-3.0-or-later
// Published serving-engine start-up logs (tests/data/serving, each with its source): every case
// reads, the engine's own pair of figures agrees with the cache layout, and the KV token count
// is within 5% of the engines' logs at median.
#include "estimate/estimate.h"
#include "processutil.h"
#include "accuracy/servingvalidation.h"

#include <QDir>
#include <QFile>
#include <QtTest>
#include <cmath>
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
        if (c.kvCacheBytes && c.kvTokens) {
            const double printed = double(*c.kvCacheBytes) / double(*c.kvTokens);
            const double layout = double(e.serving->kvBytesPerToken);
            QVERIFY2(std::fabs(printed - layout) / layout < 0.02,
                     qPrintable(QStringLiteral("printed %1 B per token, layout %2 B").arg(printed).arg(layout)));
        }
    }

    // The issue's aim: KV tokens within 5% of the engines' own logs at median; KV bytes too.
    void summary()
    {
        const std::vector<ServingCase> cases = allCases();
        QVERIFY(cases.size() >= 25);
        const ServingReport report = validateServing(cases);
        QVERIFY(report.tokens.count >= 15);
        QVERIFY2(report.tokens.medianAbs <= 0.05, qPrintable(QString::number(report.tokens.medianAbs)));
        QVERIFY2(report.bytes.medianAbs <= 0.05, qPrintable(QString::number(report.bytes.medianAbs)));
        // Every case belongs to a group with its engine and version family.
        std::size_t grouped = 0;
        for (const ServingGroup &g : report.groups)
            grouped += std::max(g.bytes.count, g.tokens.count);
        QVERIFY(grouped >= cases.size());
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
        QVERIFY(doc["kv_tokens"]["median_abs_error"].get<double>() <= 0.05);
        const test::Run text = test::runHeadroom({QStringLiteral("validate"), casesDir()});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains(QStringLiteral("vllm 0.10")));
    }
};

QTEST_GUILESS_MAIN(TestServingLogs)
#include "tst_servinglogs.moc"
