// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom estimate --train-config` on the post-training objectives, end to end as a user runs
// it: TRL's PPOConfig example, a TRL RewardConfig and torchtune's knowledge-distillation recipe,
// each read into its objective, its models' weights checked by hand arithmetic and its band
// saying how far (little) post-training has been validated.
#include "testutil.h"

#include "processutil.h"
#include <QTemporaryDir>

using headroom::test::Run;
using headroom::test::runHeadroom;
using nlohmann::json;

namespace {

// Pythia 1B (the catalog's, GPTNeoXForCausalLM.num_parameters()): 1,011,781,632 parameters,
// of which the untied embed_out is 50,304 x 2,048 = 103,022,592.
constexpr std::uint64_t kPythia = 1'011'781'632;
constexpr std::uint64_t kPythiaHead = 50'304ull * 2'048;
// AutoModelForSequenceClassification(num_labels=1): the head is a 2,048 x 1 score.
constexpr std::uint64_t kPythiaScore = kPythia - kPythiaHead + 2'048;

std::uint64_t consumer(const json &doc, const char *id)
{
    for (const json &c : doc["consumers"])
        if (c["id"] == id)
            return c["bytes"].get<std::uint64_t>();
    return 0;
}

} // namespace

class TestPostTrainingCli : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    json estimateJson(const QStringList &args, Run *text = nullptr)
    {
        const Run run = runHeadroom(QStringList{QStringLiteral("estimate")} + args + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
        if (run.exitCode != 0) {
            qWarning("%s", qPrintable(run.err));
            return {};
        }
        if (text)
            *text = runHeadroom(QStringList{QStringLiteral("estimate")} + args);
        return json::parse(run.out.toStdString());
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void trlPpoExampleHoldsFourModels()
    {
        // examples/scripts/ppo/ppo.py's first command; its pythia-1b-deduped is Pythia 1B's
        // architecture, named so the catalog resolves it.
        Run text;
        const json doc = estimateJson({QStringLiteral("--train-config"),
                                       QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/trainconfigs/trl/examples/scripts/ppo/ppo.yaml"),
                                       QStringLiteral("--train-arg"), QStringLiteral("--model_name_or_path=EleutherAI/pythia-1b")},
                                      &text);
        QVERIFY(!doc.is_null());
        QVERIFY2(text.out.contains(QLatin1String("-> train.objective = ppo")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QLatin1String("no query length")), qPrintable(text.out));
        // ModelConfig's dtype float32: policy and reference copy, reward and value model (score
        // heads), 4 B each.
        QCOMPARE(consumer(doc, "weights"), (2 * kPythia + 2 * kPythiaScore) * 4);
        // AdamW over the policy and the value model, fp32 states.
        QCOMPARE(consumer(doc, "optimizer_state"), (kPythia + kPythiaScore) * 2 * 4);
        QCOMPARE(doc["params"]["trainable"].get<std::uint64_t>(), kPythia + kPythiaScore);
        // Judged by the post-training cases, fewer than a band needs: the widest, said.
        QCOMPARE(doc["error_band"]["group"].get<std::string>(), std::string("post-training"));
        QCOMPARE(doc["error_band"]["basis"].get<std::string>(), std::string("few"));
    }

    void trlRewardConfigHasAScoreHead()
    {
        const QString path = m_dir.filePath(QStringLiteral("reward.yaml"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("center_rewards_coefficient: 0.01\nmodel_name_or_path: EleutherAI/pythia-1b\n"
                   "per_device_train_batch_size: 2\nmax_length: 512\ndtype: bfloat16\n");
        file.close();
        const json doc = estimateJson({QStringLiteral("--train-config"), path});
        QVERIFY(!doc.is_null());
        QCOMPARE(consumer(doc, "weights"), kPythiaScore * 2);
        QCOMPARE(consumer(doc, "logits"), std::uint64_t(0)); // no vocabulary logits
        QCOMPARE(doc["error_band"]["basis"].get<std::string>(), std::string("never_validated"));
        QVERIFY2(doc["error_band"]["text"].get<std::string>().find("reward") != std::string::npos,
                 doc["error_band"].dump().c_str());
    }

    void torchtuneDistillationAddsTheTeacher()
    {
        // 8B_to_1B_KD_lora_distributed: Llama 3.2 1B LoRA (rank 64) student, Llama 3.1 8B teacher
        // in bf16, FSDP over the 2 GPUs of its launch line: student 1,235,814,400 + adapters
        // 42,467,328 + teacher 8,030,261,248 parameters, 2 B each, halved.
        const json doc = estimateJson({QStringLiteral("--train-config"),
                                       QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/trainconfigs/torchtune/recipes/configs/llama3_2/8B_to_1B_KD_lora_distributed.yaml")});
        QVERIFY(!doc.is_null());
        QCOMPARE(consumer(doc, "weights"), (1'235'814'400ull + 42'467'328ull + 8'030'261'248ull) * 2 / 2);
        QCOMPARE(doc["params"]["trainable"].get<std::uint64_t>(), std::uint64_t(42'467'328));
        QCOMPARE(doc["error_band"]["basis"].get<std::string>(), std::string("never_validated"));
    }
};

QTEST_GUILESS_MAIN(TestPostTrainingCli)
#include "tst_posttrainingcli.moc"
