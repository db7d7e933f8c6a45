// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom estimate` with real model files: --model-config, --model-weights and
// "model": {"config": ...} in a scenario, as a user runs them.
#include <QDir>
#include <QFile>
#include "processutil.h"
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using nlohmann::json;

using headroom::test::Run;
using headroom::test::runHeadroom;

namespace {

QString configFixture(const char *name)
{
    return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/") + QLatin1String(name);
}

std::uint64_t totalParams(const Run &run)
{
    const json doc = json::parse(run.out.toStdString(), nullptr, false);
    return doc.is_discarded() ? 0 : doc.at("params").at("total").get<std::uint64_t>();
}

const char *kScenario = R"({"format": "headroom-scenario", "version": 1,
  "model": {"preset": "llama-2-7b"}, "task": "inference", "inference": {"context": 512},
  "gpus": ["a100-80gb"]})";

} // namespace

class TestCliModel : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(name);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return {};
        file.write(content);
        return path;
    }

    /// A safetensors file of one BF16 and one F32 tensor (sparse data).
    QString writeWeights(const QString &name)
    {
        const json header = {
            {"embed.weight", {{"dtype", "BF16"}, {"shape", {1000, 100}}, {"data_offsets", {0, 200000}}}},
            {"norm.weight", {{"dtype", "F32"}, {"shape", {100}}, {"data_offsets", {200000, 200400}}}}};
        const QByteArray text = QByteArray::fromStdString(header.dump());
        QByteArray bytes(8, '\0');
        for (int i = 0; i < 8; ++i)
            bytes[i] = char((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
        const QString path = write(name, bytes + text);
        QFile file(path);
        file.resize(8 + text.size() + 200400);
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void modelConfigReplacesTheArchitecture()
    {
        const QString scenario = write(QStringLiteral("s.headroom.json"), kScenario);
        const Run run = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--format=json"),
                                     QStringLiteral("--model-config"), configFixture("gpt2.json")});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(totalParams(run), 124'439'808ull);

        // --set model.* still overrides the imported architecture.
        const Run fewer = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--format=json"),
                                       QStringLiteral("--model-config"), configFixture("gpt2.json"),
                                       QStringLiteral("--set"), QStringLiteral("model.layers=6")});
        QCOMPARE(fewer.exitCode, 0);
        QCOMPARE(totalParams(fewer), 124'439'808ull - 6ull * 7'087'872);

        const Run text = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-config"),
                                      configFixture("bert-base-uncased.json")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(QLatin1String("(model_type bert)")), qPrintable(text.out));
        QVERIFY(text.out.contains(QLatin1String("BERT is an encoder")));
        QVERIFY(text.out.contains(QLatin1String("109,482,240 total")));
    }

    void scenarioConfigIsRelativeToTheScenario()
    {
        QFile source(configFixture("mixtral-8x7b.json"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        write(QStringLiteral("models/mixtral/config.json"), source.readAll());
        const QString scenario = write(QStringLiteral("moe.headroom.json"), R"({
            "format": "headroom-scenario", "version": 1,
            "model": {"config": "models/mixtral/config.json"}, "task": "inference"})");
        const Run run = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--format=json")});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(totalParams(run), 46'702'792'704ull);

        const QString broken = write(QStringLiteral("broken.headroom.json"), R"({
            "format": "headroom-scenario", "version": 1, "model": {"config": "nowhere/config.json"}})");
        const Run missing = runHeadroom({QStringLiteral("estimate"), broken});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains(QLatin1String("model.config")) &&
                     missing.err.contains(QLatin1String("cannot open")),
                 qPrintable(missing.err));
    }

    // NVIDIA ModelOpt checkpoints keep their format in hf_quant_config.json beside config.json
    // (nvidia/*-FP8 exports: {"producer": {"name": "modelopt"}, "quantization": {"quant_algo":
    // "FP8", "exclude_modules": ["lm_head"]}}): the weights are fp8, not silently bf16. Llama 2
    // 7B: 6,476,005,376 block-matrix params x 1 B + 262,410,240 others x 2 B.
    void modelOptQuantConfigBesideTheConfig()
    {
        QFile source(configFixture("llama-2-7b.json"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray llama = source.readAll();
        const QString config = write(QStringLiteral("modelopt/config.json"), llama);
        write(QStringLiteral("modelopt/hf_quant_config.json"), R"({"producer": {"name": "modelopt", "version": "0.19.0"},
            "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": null, "exclude_modules": ["lm_head"]}})");
        const QString scenario = write(QStringLiteral("modelopt.headroom.json"), kScenario);
        const Run run = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-config"), config});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("NVIDIA ModelOpt FP8")) && run.out.contains(QLatin1String("fp8 weights")),
                 qPrintable(run.out));
        QVERIFY(run.out.contains(QLatin1String("6,476,005,376 block-matrix params x 1 B (fp8)")));

        // A sibling that links out of the checkpoint folder is refused, not read.
        write(QStringLiteral("outside.json"), R"({"quantization": {"quant_algo": "FP8"}})");
        const QString linked = write(QStringLiteral("linked/config.json"), llama);
        QVERIFY(QFile::link(m_dir.filePath(QStringLiteral("outside.json")), m_dir.filePath(QStringLiteral("linked/hf_quant_config.json"))));
        const Run refused = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-config"), linked});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QLatin1String("leads outside")), qPrintable(refused.err));
    }

    // A config.json written by Python's json (Nemotron-H's "time_step_limit": [0.0, Infinity])
    // is read from a file as from text.
    void pythonJsonConfigFile()
    {
        const Run run = runHeadroom({QStringLiteral("estimate"), write(QStringLiteral("nemo.headroom.json"), kScenario),
                                     QStringLiteral("--format=json"), QStringLiteral("--model-config"),
                                     configFixture("nemotron-nano-9b-v2.json")});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(totalParams(run), 8'888'227'328ull);
    }

    void modelWeightsGiveTheExactTotal()
    {
        const QString scenario = write(QStringLiteral("s.headroom.json"), kScenario);
        const QString weights = writeWeights(QStringLiteral("w/model.safetensors"));
        const Run run = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--format=json"),
                                     QStringLiteral("--model-weights"), weights});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(totalParams(run), 100'100ull);

        const Run text = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-weights"),
                                      QFileInfo(weights).absolutePath()});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(QLatin1String("2 tensors, 100,100 params")), qPrintable(text.out));
        QVERIFY(text.out.contains(QLatin1String("BF16: 1 tensors, 100,000 elements")));
        QVERIFY(text.out.contains(QLatin1String("the architecture accounts for 6,738,415,616 params")));
        QVERIFY(text.out.contains(QLatin1String("F32: 1 tensors, 100 elements")));
    }

    void badModelFilesExitTwo_data()
    {
        QTest::addColumn<QByteArray>("option");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("config-incomplete") << QByteArray("--model-config")
                                           << QByteArray(R"({"model_type": "llama", "hidden_size": 64})")
                                           << QByteArray("lacks num_hidden_layers, intermediate_size");
        QTest::newRow("config-unknown-type") << QByteArray("--model-config") << QByteArray(R"({"model_type": "t6"})")
                                             << QByteArray("unknown model_type");
        QTest::newRow("config-not-a-decoder") << QByteArray("--model-config") << QByteArray(R"({"model_type": "t5"})")
                                              << QByteArray("not a decoder LM");
        QTest::newRow("weights-truncated") << QByteArray("--model-weights") << QByteArray("\xff\x00\x00\x00\x00\x00\x00\x00{", 9)
                                           << QByteArray("truncated");
        QTest::newRow("index-missing-shard") << QByteArray("--model-weights")
                                             << QByteArray(R"({"weight_map": {"a": "gone.safetensors"}})")
                                             << QByteArray("missing shard gone.safetensors");
    }
    void badModelFilesExitTwo()
    {
        QFETCH(QByteArray, option);
        QFETCH(QByteArray, content);
        QFETCH(QByteArray, mentions);
        const QString scenario = write(QStringLiteral("s.headroom.json"), kScenario);
        const QString name = option == "--model-config"
                                 ? QStringLiteral("bad/config.json")
                                 : (content.startsWith('{') ? QStringLiteral("bad/model.safetensors.index.json")
                                                            : QStringLiteral("bad/model.safetensors"));
        const QString file = write(name, content);
        const Run run = runHeadroom({QStringLiteral("estimate"), scenario, QString::fromUtf8(option), file});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QCOMPARE(run.err.trimmed().split(QLatin1Char('\n')).size(), 1);
        QVERIFY2(run.err.contains(QString::fromUtf8(mentions)), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestCliModel)
#include "tst_climodel.moc"
