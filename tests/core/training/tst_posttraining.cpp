// SPDX-License-Identifier: GPL-3.0-or-later
// train.objective (docs/scenario-format.md): a preference pair is two sequences in one batch,
// and DPO with every weight trained keeps a frozen reference copy. Checked by hand arithmetic
// and against the SFT estimate of the same run with twice the sequences (the definition: TRL's
// concatenated_forward runs chosen and rejected as one batch of 2 x micro_batch).
#include "estimate/estimate.h"
#include "scenario/scenariojson.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;

namespace {

Estimate run(const std::string &method, const std::string &objective, int micro, int gpus = 1,
             const std::string &strategy = "none")
{
    json doc = {{"format", "headroom-scenario"},
                {"version", 1},
                {"model", {{"preset", "llama-3.1-8b"}}},
                {"task", "train"},
                {"train", {{"method", method}, {"micro_batch", micro}, {"seq_len", 1024},
                           {"gradient_checkpointing", "full"}, {"lora", {{"rank", 16}, {"targets", {"q", "v"}}}}}},
                {"precision", {{"weights", method == "qlora" ? "nf4" : "bf16"}, {"compute", "bf16"}}},
                {"parallel", {{"gpus", gpus}, {"strategy", strategy}}},
                {"gpus", {"h100-80gb"}}};
    if (objective != "sft")
        doc["train"]["objective"] = objective;
    return estimate(scenarioFromJson(doc));
}

} // namespace

class TestPostTraining : public QObject
{
    Q_OBJECT
private slots:
    void aPairIsTwoSequencesInOneBatch()
    {
        // micro_batch 2 pairs = the peak of micro_batch 4 sequences, phase by phase.
        for (const char *method : {"lora", "qlora", "full"})
            for (const char *objective : {"dpo", "preference"}) {
                const Estimate pairs = run(method, objective, 2);
                const Estimate sequences = run(method, "sft", 4);
                // Full DPO adds its reference copy, 8,030,261,248 x 2 B, to every phase.
                const std::uint64_t copy =
                    std::string(method) == "full" && std::string(objective) == "dpo" ? 16'060'522'496ull : 0;
                QCOMPARE(pairs.peak.allocatedBytes, sequences.peak.allocatedBytes + copy);
                QCOMPARE(pairs.bytes(ConsumerId::Logits), sequences.bytes(ConsumerId::Logits));
                // (a full fine-tune's peak is its optimizer step, where no activations are held)
                if (std::string(method) != "full")
                    QVERIFY(pairs.peak.allocatedBytes > run(method, "sft", 2).peak.allocatedBytes);
            }
    }

    void dpoKeepsAReferenceCopyOnlyWhenEveryWeightTrains()
    {
        // Full DPO, bf16, one GPU: policy + reference = 8,030,261,248 params x 2 B x 2
        // = 32,121,044,992 B.
        QCOMPARE(run("full", "sft", 1).bytes(ConsumerId::Weights), std::uint64_t(8'030'261'248) * 2);
        QCOMPARE(run("full", "dpo", 1).bytes(ConsumerId::Weights), std::uint64_t(32'121'044'992));
        // FSDP over 4 shards the reference with the policy: a quarter of each.
        QCOMPARE(run("full", "dpo", 1, 4, "fsdp").bytes(ConsumerId::Weights),
                 2 * run("full", "sft", 1, 4, "fsdp").bytes(ConsumerId::Weights));
        // LoRA/QLoRA: the reference is the base with the adapters disabled; reference-free
        // objectives keep none.
        for (const char *method : {"lora", "qlora"})
            QCOMPARE(run(method, "dpo", 1).bytes(ConsumerId::Weights), run(method, "sft", 1).bytes(ConsumerId::Weights));
        QCOMPARE(run("full", "preference", 1).bytes(ConsumerId::Weights), run("full", "sft", 1).bytes(ConsumerId::Weights));
        // Gradients and optimizer state are the policy's alone.
        QCOMPARE(run("full", "dpo", 1).bytes(ConsumerId::OptimizerState), run("full", "sft", 1).bytes(ConsumerId::OptimizerState));
    }

    void theObjectiveIsWrittenAndReadBack()
    {
        json doc = {{"format", "headroom-scenario"}, {"version", 1}, {"model", {{"preset", "llama-3.1-8b"}}},
                    {"train", {{"objective", "dpo"}}}};
        const Scenario s = scenarioFromJson(doc);
        QCOMPARE(s.train.objective, Objective::Dpo);
        QCOMPARE(scenarioToJson(s)["train"]["objective"], json("dpo"));
        // sft, the default, is not written (files written before the key are unchanged).
        doc["train"]["objective"] = "sft";
        QVERIFY(!scenarioToJson(scenarioFromJson(doc))["train"].contains("objective"));
        doc["train"]["objective"] = "simpo"; // not a name (simpo is `preference`; the others: tst_grpo, tst_rlobjectives)
        try {
            scenarioFromJson(doc);
            QFAIL("an unknown objective was read");
        } catch (const ScenarioError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("train.objective")), error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestPostTraining)
#include "tst_posttraining.moc"
