// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario and comparison files: every field round-trips, saves are atomic (a failed save leaves
// the old file intact), and a bad file is an error that names the key.
#include "fileutil.h"
#include "document/documentio.h"
#include "scenario/scenariojson.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace headroom;

Q_DECLARE_METATYPE(headroom::Scenario)

namespace {

/// A scenario in which every field differs from its default.
Scenario everyField()
{
    Scenario s;
    s.name = "every field";
    ModelArch &m = s.model;
    m.preset.clear();
    m.layers = 24; m.hidden = 2048; m.intermediate = 5632; m.heads = 16; m.kvHeads = 4;
    m.headDim = 128; m.vocab = 50000; m.tiedEmbeddings = true; m.mlp = Mlp::Standard;
    m.norm = Norm::LayerNorm; m.bias = Bias::All; m.position = Position::Learned;
    m.maxPositions = 2048; m.experts = 4; m.expertsPerToken = 2; m.slidingWindow = 1024;
    m.normsPerLayer = 3; m.params = 1234567890;
    s.task = Task::Train;
    TrainConfig &t = s.train;
    t.method = Method::Qlora; t.microBatch = 3; t.seqLen = 3000; t.gradAccum = 7;
    t.optimizer = Optimizer::Lion; t.optimizerInBackward = true; t.masterWeights = true;
    t.gradDType = GradDType::FP16; t.checkpointing = Checkpointing::Selective;
    t.activationConstant = 12.5;
    t.lora = {32, {LoraTarget::Gate, LoraTarget::Down, LoraTarget::LmHead}, 0.1, DType::BF16};
    s.inference = {5, 8192, DType::FP8};
    s.precision = PrecisionConfig{};
    s.precision.weights = DType::NF4;
    s.precision.doubleQuant = true;
    s.precision.compute = DType::FP16;
    s.precision.unquantized = DType::FP32;
    s.precision.quantizer = Quantizer::Torchao;
    s.framework = {Framework::Torchtune, "0.5"};
    t.offloadActivations = true;
    t.compile = true;
    t.optimizerImpl = OptimizerImpl::Fused;
    s.kernels = {Attention::Eager, Loss::Fused, Profile::Fused};
    s.parallel = {8, Strategy::Fsdp, 2, 2, true, true, true};
    s.overhead = {700, 0.2, 64, 768.0};
    s.gpus = {"h100-80gb", "rtx-4090"};
    return s;
}

Scenario inferenceScenario()
{
    Scenario s = parseScenario(R"({"format": "headroom-scenario", "version": 1,
        "model": {"preset": "llama-2-7b", "layers": 30}, "task": "inference",
        "inference": {"batch": 8, "context": 16384, "kv_dtype": "int8"}, "gpus": ["t4"]})");
    return s;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestDocumentIo : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const char *name, const QByteArray &content)
    {
        return headroom::test::writeFile(m_dir, name, content);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void scenarioRoundTrip_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::newRow("defaults") << Scenario{};
        QTest::newRow("every-field") << everyField();
        QTest::newRow("inference-preset-modified") << inferenceScenario();
        QTest::newRow("example-llama2-7b-lora")
            << readDocumentFile(QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json")).current;
    }

    void scenarioRoundTrip()
    {
        QFETCH(Scenario, scenario);
        const QString path = m_dir.filePath(QStringLiteral("round.headroom.json"));
        QCOMPARE(writeDocumentFile(path, {scenario, {}}), QString());
        const ScenarioDocument back = readDocumentFile(path);
        QVERIFY(back.pins.empty());
        QCOMPARE(QByteArray::fromStdString(scenarioToJson(back.current).dump(1)),
                 QByteArray::fromStdString(scenarioToJson(scenario).dump(1)));
        QVERIFY(back.current == scenario);
        // A plain scenario file is the v1 scenario format.
        const auto doc = nlohmann::json::parse(readAll(path).toStdString());
        QCOMPARE(QString::fromStdString(doc.at("format").get<std::string>()), QStringLiteral("headroom-scenario"));
    }

    void comparisonRoundTrip()
    {
        Scenario second = everyField();
        second.train.microBatch = 9;
        const ScenarioDocument document{inferenceScenario(), {everyField(), second, Scenario{}}};
        const QString path = m_dir.filePath(QStringLiteral("compare.headroom.json"));
        QCOMPARE(writeDocumentFile(path, document), QString());
        const auto doc = nlohmann::json::parse(readAll(path).toStdString());
        QCOMPARE(QString::fromStdString(doc.at("format").get<std::string>()), QStringLiteral("headroom-comparison"));
        QCOMPARE(doc.at("version").get<int>(), 1);
        QCOMPARE(int(doc.at("pins").size()), 3);
        const ScenarioDocument back = readDocumentFile(path);
        QCOMPARE(int(back.pins.size()), 3);
        QVERIFY(back == document);
    }

    void badFileNamesTheKey_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown-key") << QByteArray(R"({"format": "headroom-scenario", "version": 1,
            "train": {"micro_batc": 4}})") << QStringLiteral("train.micro_batc");
        QTest::newRow("out-of-range") << QByteArray(R"({"format": "headroom-scenario", "version": 1,
            "train": {"seq_len": 0}})") << QStringLiteral("train.seq_len");
        QTest::newRow("not-json") << QByteArray("{\"format\": ") << QStringLiteral("JSON");
        QTest::newRow("wrong-format") << QByteArray(R"({"format": "headroom-estimate", "version": 1})")
                                      << QStringLiteral("format");
        QTest::newRow("bad-pin") << QByteArray(R"({"format": "headroom-comparison", "version": 1,
            "current": {"format": "headroom-scenario", "version": 1},
            "pins": [{"format": "headroom-scenario", "version": 1},
                     {"format": "headroom-scenario", "version": 1, "train": {"seq_len": -1}}]})")
                                 << QStringLiteral("pins[1].train.seq_len");
        QTest::newRow("comparison-unknown-key") << QByteArray(R"({"format": "headroom-comparison",
            "version": 1, "current": {"format": "headroom-scenario", "version": 1}, "pinz": []})")
                                                << QStringLiteral("pinz");
        QTest::newRow("comparison-version") << QByteArray(R"({"format": "headroom-comparison",
            "version": 2, "current": {"format": "headroom-scenario", "version": 1}})")
                                            << QStringLiteral("version");
    }

    void badFileNamesTheKey()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString path = write("bad.headroom.json", content);
        try {
            readDocumentFile(path);
            QFAIL("a bad file was read");
        } catch (const ScenarioError &error) {
            QVERIFY2(QString::fromStdString(error.what()).contains(expected), error.what());
        }
    }

    void missingFileIsAnError()
    {
        QVERIFY_THROWS_EXCEPTION(ScenarioError, readDocumentFile(m_dir.filePath(QStringLiteral("nope.json"))));
    }

    void failedSaveLeavesOldFile()
    {
        // A save that cannot complete, for root too: the name leaves no room for QSaveFile's
        // temporary file beside it. The old file keeps every byte and nothing is left behind.
        const QString name = QString(248, QLatin1Char('k')) + QStringLiteral(".json");
        const QString path = m_dir.filePath(name);
        QByteArray before;
        {
            QFile old(path);
            QVERIFY(old.open(QIODevice::WriteOnly));
            before = QByteArray::fromStdString(documentToJson({inferenceScenario(), {}}).dump(2));
            old.write(before);
        }
        const QString error = writeDocumentFile(path, {everyField(), {everyField()}});
        QVERIFY2(!error.isEmpty(), "the save should have failed");
        QVERIFY(error.contains(QLatin1String("cannot write")));
        QCOMPARE(readAll(path), before);
        QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("kkkk*")}, QDir::Files).size(), 1);
        QVERIFY(QFile::remove(path));
    }

    void saveToReadOnlyFolderFails()
    {
        if (geteuid() == 0)
            QSKIP("root writes into read-only folders");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("locked.headroom.json"));
        QCOMPARE(writeDocumentFile(path, {Scenario{}, {}}), QString());
        const QByteArray before = readAll(path);
        QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::ExeOwner);
        const QString error = writeDocumentFile(path, {everyField(), {}});
        QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY(!error.isEmpty());
        QCOMPARE(readAll(path), before);
    }

    void saveToMissingFolderFails()
    {
        const QString error = writeDocumentFile(m_dir.filePath(QStringLiteral("no/such/dir/x.headroom.json")), {});
        QVERIFY(error.contains(QLatin1String("cannot write")));
    }
};

QTEST_MAIN(TestDocumentIo)
#include "tst_documentio.moc"
