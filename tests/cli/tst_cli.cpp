// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom estimate` as a user runs it: text, JSON (the v1 estimate format), CSV, --set,
// and one clear line with exit code 2 for every kind of bad input.
#include "testutil.h"

#include "processutil.h"
#include <QTemporaryDir>

using headroom::test::Run;
using headroom::test::runHeadroom;
using namespace headroom;
using nlohmann::json;

namespace {

const char *kScenario = R"({
  "format": "headroom-scenario", "version": 1, "name": "Llama 2 7B LoRA",
  "model": {"preset": "llama-2-7b"},
  "train": {"method": "lora", "micro_batch": 2, "seq_len": 2048,
            "lora": {"rank": 8, "targets": ["q", "v"]}},
  "gpus": ["rtx-4090", "a100-80gb"]
})";

} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const char *name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(QString::fromLatin1(name));
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(content);
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void textTable()
    {
        const QString path = write("lora.headroom.json", kScenario);
        const Run run = runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--unit"), QStringLiteral("GB")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("Weights")), qPrintable(run.out));
        // The base model and the LoRA adapters (2 targets x 8 x (4096 + 4096) x 32 layers, fp32).
        QVERIFY2(run.out.contains(QLatin1String(
                     "6,738,415,616 params x 2 B (bf16) + 4,194,304 adapter params x 4 B (fp32) = 13.49 GB")),
                 qPrintable(run.out));
        QVERIFY(run.out.contains(QLatin1String("Peak (")));
        QVERIFY(run.out.contains(QLatin1String("RTX 4090")));
        QVERIFY(run.err.isEmpty());
    }

    // Issue 14's per-rank model on the command line. Llama 3 70B on 16 GPUs, TP 2 x PP 4 (so DP 2),
    // ZeRO-1 with the optimizer on the CPU, bf16 throughout: a rank's optimizer state is its
    // stage's parameters (matrices halved by tensor parallelism, norms replicated) x 2 bf16 Adam
    // states x 2 B / 2 (DP). The last stage holds 20 layers of 855,638,016 matrix and 16,384
    // norm parameters, the final norm (8,192) and lm_head (128,256 x 8,192):
    //   ((20 x 855,638,016 + 1,050,673,152) / 2 + 20 x 16,384 + 8,192) x 4 B / 2
    //   = 9,082,052,608 x 2 B = 18,164,105,216 B
        void jsonHasRanksHostAndActiveParameters()
    {
        const QString path = write("pp.headroom.json", QByteArray(R"({"format": "headroom-scenario", "version": 1,
            "model": {"preset": "llama-3-70b"}, "train": {"method": "full", "micro_batch": 1, "seq_len": 4096,
            "gradient_checkpointing": "full"}, "parallel": {"gpus": 16, "tensor": 2, "pipeline": 4,
            "strategy": "zero1", "offload_optimizer": true}, "gpus": ["h100-80gb"]})"));
        const Run run = runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const json doc = json::parse(run.out.toStdString());
        const json &ranks = doc.at("ranks");
        QCOMPARE(ranks.size(), std::size_t(2));
        QCOMPARE(ranks[0].at("rank").get<std::string>(), std::string("first_stage"));
        QCOMPARE(ranks[1].at("rank").get<std::string>(), std::string("last_stage"));
        // The top-level peak is the busiest rank's.
        std::uint64_t busiest = 0;
        for (const json &rank : ranks)
            busiest = std::max(busiest, rank.at("peak").at("device_bytes").get<std::uint64_t>());
        QCOMPARE(doc.at("peak").at("device_bytes").get<std::uint64_t>(), busiest);
        // Host memory: the offloaded optimizer state, listed by consumer and summed.
        QCOMPARE(doc.at("host").size(), std::size_t(1));
        QCOMPARE(doc.at("host")[0].at("id").get<std::string>(), std::string("optimizer_state"));
        QCOMPARE(doc.at("host")[0].at("bytes").get<std::uint64_t>(), doc.at("host_bytes").get<std::uint64_t>());
        QCOMPARE(ranks[1].at("host_bytes").get<std::uint64_t>(),
                 ((20ull * 855'638'016 + 128'256ull * 8192) / 2 + 20 * 16'384 + 8192) * 4 / 2);
        // A dense model: one token uses every parameter but the 128,256 x 8192 input embedding
        // table, a lookup (model cards' "active" parameters).
        QCOMPARE(doc.at("params").at("active").get<std::uint64_t>(),
                 doc.at("params").at("total").get<std::uint64_t>() - 128'256ull * 8192);

        // A mixture of experts: Qwen3-30B-A3B, 30,532,122,624 parameters, 3,041,867,776 active
        // per token (hand-counted in tst_modern).
        const Run moe = runHeadroom({QStringLiteral("estimate"), write("lora.headroom.json", kScenario),
                                     QStringLiteral("--set"), QStringLiteral("model.preset=qwen3-30b-a3b")});
        QCOMPARE(moe.exitCode, 0);
        QVERIFY2(moe.out.contains(QLatin1String("Active parameters per token: 3,041,867,776 of 30,532,122,624")),
                 qPrintable(moe.out));
    }

    void jsonIsTheV1EstimateFormat()
    {
        const QString path = write("lora.headroom.json", kScenario);
        const Run run = runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--format"),
                                  QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const json doc = json::parse(run.out.toStdString());
        QCOMPARE(doc.at("format").get<std::string>(), std::string("headroom-estimate"));
        QCOMPARE(doc.at("version").get<int>(), 1);
        QCOMPARE(doc.at("params").at("total").get<std::uint64_t>(), 6'738'415'616ull);
        QCOMPARE(doc.at("params").at("trainable").get<std::uint64_t>(), 2ull * 8 * 8192 * 32);

        // Consumers: known ids in the fixed order, bytes and formula; they add up to the peak.
        const std::vector<std::string> order = {"weights", "quant_metadata", "master_weights",
            "gradients", "optimizer_state", "activations", "attention_scores", "logits", "kv_cache",
            "kv_cache_free", "workspace", "cuda_context", "fragmentation"};
        std::size_t last = 0;
        std::uint64_t allocated = 0, fragmentation = 0, context = 0;
        for (const json &c : doc.at("consumers")) {
            const auto id = c.at("id").get<std::string>();
            const auto position = std::find(order.begin(), order.end(), id);
            QVERIFY2(position != order.end(), id.c_str());
            const std::size_t index = std::size_t(position - order.begin());
            QVERIFY(index >= last);
            last = index;
            const auto bytes = c.at("bytes").get<std::uint64_t>();
            QVERIFY(c.at("formula").get<std::string>().find(" = ") != std::string::npos);
            (id == "fragmentation" ? fragmentation : id == "cuda_context" ? context : allocated) += bytes;
        }
        const json &peak = doc.at("peak");
        QCOMPARE(peak.at("allocated_bytes").get<std::uint64_t>(), allocated);
        QCOMPARE(peak.at("reserved_bytes").get<std::uint64_t>(), allocated + fragmentation);
        QCOMPARE(peak.at("device_bytes").get<std::uint64_t>(), allocated + fragmentation + context);
        const std::vector<std::string> phases = {"load", "forward", "backward", "optimizer"};
        QCOMPARE(doc.at("phases").size(), phases.size());
        for (std::size_t i = 0; i < phases.size(); ++i)
            QCOMPARE(doc.at("phases")[i].at("id").get<std::string>(), phases[i]);
        QCOMPARE(doc.at("gpus").size(), std::size_t(2));
        QCOMPARE(doc.at("gpus")[0].at("capacity_bytes").get<std::uint64_t>(), 24564ull * 1024 * 1024);
        const bool fits = doc.at("gpus")[0].at("fits").get<bool>();
        QCOMPARE(fits, peak.at("device_bytes").get<std::uint64_t>() <= 24564ull * 1024 * 1024);

        // Same numbers as the core computes for the same file.
        const Estimate e = estimate(parseScenario(kScenario));
        QCOMPARE(doc.dump(), estimateToJson(e).dump());
    }

    void csvRows()
    {
        const QString path = write("lora.headroom.json", kScenario);
        const Run run = runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--format=csv"),
                                  QStringLiteral("--unit=GiB")});
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = run.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.first(), QStringLiteral("consumer,bytes,GiB,share,formula"));
        const Estimate e = estimate(parseScenario(kScenario));
        QCOMPARE(lines.size(), int(e.consumers.size()) + 1);
        QVERIFY(lines.at(1).startsWith(QStringLiteral("weights,13493608448,12.5669,")));
    }

    void setOverridesKeys()
    {
        const QString path = write("lora.headroom.json", kScenario);
        const Run base = runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--format=json")});
        const Run bigger = runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--format=json"),
                                     QStringLiteral("--set"), QStringLiteral("train.micro_batch=8"),
                                     QStringLiteral("--set"), QStringLiteral("kernels.attention=eager")});
        QCOMPARE(bigger.exitCode, 0);
        const json a = json::parse(base.out.toStdString());
        const json b = json::parse(bigger.out.toStdString());
        QVERIFY(b.at("peak").at("allocated_bytes").get<std::uint64_t>() >
                3 * a.at("peak").at("allocated_bytes").get<std::uint64_t>());
        bool scores = false;
        for (const json &c : b.at("consumers"))
            scores = scores || c.at("id") == "attention_scores";
        QVERIFY(scores);
    }

    void badInputExitsTwoNamingTheProblem_data()
    {
        QTest::addColumn<QByteArray>("content"); // empty: the file does not exist
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("missing-file") << QByteArray() << QStringList() << QStringLiteral("cannot open");
        QTest::newRow("bad-json") << QByteArray("{\"format\": \"headroom-scenario\",") << QStringList()
                                  << QStringLiteral("not valid JSON");
        QTest::newRow("unknown-key") << QByteArray(R"({"format": "headroom-scenario", "version": 1, "trian": {}})")
                                     << QStringList() << QStringLiteral("trian: unknown key");
        QTest::newRow("bad-value") << QByteArray(R"({"format": "headroom-scenario", "version": 1, "train": {"micro_batch": -1}})")
                                   << QStringList() << QStringLiteral("train.micro_batch");
        QTest::newRow("bad-set-key") << QByteArray(kScenario) << QStringList{QStringLiteral("--set"), QStringLiteral("train.batch=2")}
                                     << QStringLiteral("train.batch: unknown key");
        QTest::newRow("bad-set-value") << QByteArray(kScenario) << QStringList{QStringLiteral("--set"), QStringLiteral("precision.weights=int5")}
                                       << QStringLiteral("precision.weights");
        // int3 is a weight format now (3-bit GPTQ, issue 29), but no KV cache type.
        QTest::newRow("bad-set-kv-int3") << QByteArray(kScenario) << QStringList{QStringLiteral("--set"), QStringLiteral("task=inference"),
                                                                                QStringLiteral("--set"), QStringLiteral("inference.kv_dtype=int3")}
                                         << QStringLiteral("inference.kv_dtype");
        QTest::newRow("nan") << QByteArray(kScenario) << QStringList{QStringLiteral("--set"), QStringLiteral("train.lora.dropout=nan")}
                             << QStringLiteral("train.lora.dropout");
        QTest::newRow("bad-format") << QByteArray(kScenario) << QStringList{QStringLiteral("--format"), QStringLiteral("xml")}
                                    << QStringLiteral("--format");
        QTest::newRow("bad-unit") << QByteArray(kScenario) << QStringList{QStringLiteral("--unit"), QStringLiteral("TB")}
                                  << QStringLiteral("--unit");
        QTest::newRow("overflow") << QByteArray(R"({"format": "headroom-scenario", "version": 1,
            "model": {"preset": "llama-3-8b", "heads": 65536, "kv_heads": 1},
            "train": {"micro_batch": 1048576, "seq_len": 16777216}, "kernels": {"attention": "eager"}})")
                                  << QStringList() << QStringLiteral("exceeds 2^64");
    }
    void badInputExitsTwoNamingTheProblem()
    {
        QFETCH(QByteArray, content);
        QFETCH(QStringList, extra);
        QFETCH(QString, mentions);
        const QString path = content.isEmpty() ? m_dir.filePath(QStringLiteral("absent.json"))
                                               : write("bad.headroom.json", content);
        const Run run = runHeadroom(QStringList{QStringLiteral("estimate"), path} + extra);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        const QStringList lines = run.err.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(run.err.contains(mentions), qPrintable(run.err));
        if (!extra.contains(QStringLiteral("--format")) && !extra.contains(QStringLiteral("--unit")))
            QVERIFY2(run.err.contains(path), qPrintable(run.err));
    }

    // `headroom estimate --train-config CONFIG`: the scenario from a framework's own config.
    void trainConfigWithoutScenario()
    {
        const QString recipe = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/train-configs/torchtune_llama3_1_8B_qlora_single_device.yaml");
        const Run run = runHeadroom({QStringLiteral("estimate"), QStringLiteral("--train-config"), recipe,
                                     QStringLiteral("--train-arg"), QStringLiteral("tokenizer.max_seq_len=2048")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("Training config:")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("batch_size -> train.micro_batch = 2")), qPrintable(run.out));
        // The builder names the catalog model; torchtune's preset fills in the rest and says so.
        QVERIFY2(run.out.contains(QLatin1String("Llama 3.1 8B (catalog llama-3.1-8b)")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("kernels.profile = huggingface")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("ignored:")), qPrintable(run.out));
        QVERIFY(run.out.contains(QLatin1String("Peak (")));

        const Run json = runHeadroom({QStringLiteral("estimate"), QStringLiteral("--train-config"), recipe,
                                      QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(json.out.toStdString());
        QCOMPARE(doc["imported"]["files"][0]["format"].get<std::string>(), std::string("torchtune recipe config"));
        QVERIFY(!doc["imported"]["files"][0]["warnings"].empty()); // max_seq_len: null
    }

    void trainConfigsTogetherWithAModelConfig()
    {
        const QString dir = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/train-configs/");
        const Run run = runHeadroom(
            {QStringLiteral("estimate"), QStringLiteral("--train-config"),
             dir + QStringLiteral("transformers_TrainingArguments_qlora_COMPOSED.json"),
             QStringLiteral("--train-config"), dir + QStringLiteral("peft_adapter_config_llama-3.2-3B-rank32.json"),
             QStringLiteral("--train-config"), dir + QStringLiteral("bitsandbytes_qlora_COMPOSED.json"),
             QStringLiteral("--model-config"), QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/llama-3.2-1b.json"),
             QStringLiteral("--set"), QStringLiteral("train.seq_len=1024"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(doc["imported"]["files"].size(), std::size_t(3));
        // QLoRA: r 32 on q and v of 16 layers (2048 in, 2048 / 512 out) = 32 x 16 x (4096 + 2560).
        QCOMPARE(doc["params"]["trainable"].get<std::uint64_t>(), std::uint64_t(32) * 16 * (4096 + 2560));
    }

    void trainConfigOverAScenarioFile()
    {
        const QString path = write("base.headroom.json", kScenario);
        const Run run = runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--train-config"),
                                     QStringLiteral(HEADROOM_SOURCE_DIR "/examples/train-configs/deepspeed_zero3_offload_transformers_tests.json"),
                                     QStringLiteral("--set"), QStringLiteral("parallel.gpus=2"), QStringLiteral("--format"),
                                     QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QVERIFY(doc["host_bytes"].get<std::uint64_t>() > 0); // ZeRO-3 offloads parameters and optimizer
    }

    // A distributed recipe is estimated over the GPUs its file says (torchtune's 70B LoRA:
    // `tune run --nproc_per_node 8 lora_finetune_distributed`), never as one unsharded GPU.
    void distributedRecipesShardOverTheirGpus()
    {
        const QString recipe = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/trainconfigs/torchtune/recipes/configs/llama3_1/70B_lora.yaml");
        auto weights = [&](const QStringList &extra) {
            const Run run = runHeadroom(QStringList{QStringLiteral("estimate"), QStringLiteral("--train-config"), recipe,
                                                    QStringLiteral("--format"), QStringLiteral("json")} + extra);
            if (run.exitCode != 0)
                return std::pair<std::uint64_t, std::uint64_t>{0, 0};
            const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
            const std::uint64_t params = doc["params"]["total"].get<std::uint64_t>() + doc["params"]["trainable"].get<std::uint64_t>();
            for (const auto &consumer : doc["consumers"])
                if (consumer["id"] == "weights")
                    return std::pair<std::uint64_t, std::uint64_t>{consumer["bytes"].get<std::uint64_t>(), params};
            return std::pair<std::uint64_t, std::uint64_t>{0, params};
        };
        // bf16 base + adapter, FSDP over 8: (70,553,706,496 + 195,297,280) x 2 B / 8 = 17,687,250,944.
        const auto [eight, params] = weights({});
        QCOMPARE(eight, params * 2 / 8);
        QCOMPARE(eight, std::uint64_t(17'687'250'944));
        // The launcher's own count wins: --gpus 2 holds half the model per GPU.
        QCOMPARE(weights({QStringLiteral("--gpus"), QStringLiteral("2")}).first, params * 2 / 2);
        // A ZeRO-3 file alone says no count: asked for, exit 2, naming the file.
        const QString zero3 = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/trainconfigs/llamafactory/examples/deepspeed/ds_z3_config.json");
        const Run asked = runHeadroom({QStringLiteral("estimate"), QStringLiteral("--train-config"), zero3,
                                       QStringLiteral("--model-config"), QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/llama-3.1-8b.json")});
        QCOMPARE(asked.exitCode, 2);
        QVERIFY2(asked.err.contains(QLatin1String("ds_z3_config.json: runs on several GPUs")) &&
                     asked.err.contains(QLatin1String("--gpus N")), qPrintable(asked.err));
        const Run given = runHeadroom({QStringLiteral("estimate"), QStringLiteral("--train-config"), zero3, QStringLiteral("--set"),
                                       QStringLiteral("parallel.gpus=4"), QStringLiteral("--model-config"),
                                       QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/llama-3.1-8b.json")});
        QCOMPARE(given.exitCode, 0);
        const Run bad = runHeadroom({QStringLiteral("estimate"), QStringLiteral("--train-config"), zero3, QStringLiteral("--gpus"),
                                     QStringLiteral("many")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("--gpus: must be a whole number")), qPrintable(bad.err));
    }

    void badTrainConfigsExitTwoNamingTheKey_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("torchtune-batch") << QByteArray("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: -2\n")
                                         << "batch_size: must be a whole number";
        QTest::newRow("unknown-model") << QByteArray("base_model: someone/frankenmodel-3b\nsequence_len: 512\n")
                                       << "not in Headroom's catalog: give --model-config";
        QTest::newRow("yaml") << QByteArray("model: [\n") << "not valid YAML: line";
    }
    void badTrainConfigsExitTwoNamingTheKey()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        const QString path = write("bad-config.yaml", content);
        const Run run = runHeadroom({QStringLiteral("estimate"), QStringLiteral("--train-config"), path});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("bad-config.yaml")), qPrintable(run.err));
    }

    void versionAndHelp()
    {
        const Run version = runHeadroom({QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.out.contains(QLatin1String(HEADROOM_VERSION)));
        const Run help = runHeadroom({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains(QLatin1String("estimate")));
        const Run unknown = runHeadroom({QStringLiteral("frobnicate")});
        QCOMPARE(unknown.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
