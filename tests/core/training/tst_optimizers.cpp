// SPDX-License-Identifier: GPL-3.0-or-later
// Optimizers beyond Adam (issue 23) and backward without a language-model loss, by hand
// arithmetic from the frameworks' code:
// - torchao AdamW4bit (torchao/optim/subclass_4bit.py, OptimState4bit.zeros): per state, n / 2
//   uint8 codes and n / 128 fp32 scales.
// - GaLore (jiaweizzhao/GaLore galore_torch/galore_projector.py, GaLoreProjector.project and
//   get_orthogonal_matrix; torchrun_main.py): the attention and MLP matrices keep their Adam
//   states at rank x the longer side and a rank x shorter-side projection in the weights' dtype;
//   the rest (embeddings, lm_head, norms) plain (8-bit) Adam.
// - loss = logits.sum() (the Transformers SDPA benchmark scripts) and sequence classification.
#include "scenario/scenariojson.h"
#include "testutil.h"

using namespace headroom;
using test::scenarioFrom;
using C = ConsumerId;

namespace {

// Llama 2 7B (the preset): 32 layers; q/k/v/o 4096 x 4096; gate/up 4096 -> 11008; down
// 11008 -> 4096; vocab 32000, untied; 6,738,415,616 parameters.
constexpr std::uint64_t kParams = 6'738'415'616ull;
constexpr std::uint64_t kLayers = 32, kHidden = 4096, kInter = 11008;

std::string llama7b(const std::string &train)
{
    return R"({"model": {"preset": "llama-2-7b"}, "precision": {"weights": "bf16", "compute": "bf16"},
        "train": {"method": "full", "micro_batch": 1, "seq_len": 256, )" + train + "}}";
}

std::uint64_t eightBit(std::uint64_t n) { return 2 * n + (n + 2047) / 2048 * 8; } // bitsandbytes, absmax per 2048

} // namespace

class TestOptimizers : public QObject
{
    Q_OBJECT
private slots:
    void adamw4bitState()
    {
        const Estimate e = estimate(scenarioFrom(llama7b(R"("optimizer": "adamw_4bit")")));
        // 2 states x n / 2 bytes of codes + 2 x n / 128 x 4 bytes of scales.
        QCOMPARE(kParams % 128, 0ull);
        QCOMPARE(test::maxOverPhases(e, C::OptimizerState), 2 * (kParams / 2) + 2 * (kParams / 128) * 4);
        QCOMPARE(test::maxOverPhases(e, C::OptimizerState), 7'159'566'592ull);
    }

    void galoreState()
    {
        const Estimate e = estimate(scenarioFrom(llama7b(R"("optimizer": "galore_adamw8bit", "galore_rank": 1024)")));
        const std::uint64_t r = 1024;
        // Per layer: 4 square attention matrices (states r x 4096, projection r x 4096) and 3 MLP
        // matrices 4096 x 11008 (states r x 11008, projection r x 4096).
        const std::uint64_t projected = kLayers * (4 * r * kHidden + 3 * r * kInter);
        const std::uint64_t projections = kLayers * (4 * r * kHidden + 3 * r * kHidden);
        const std::uint64_t covered = kLayers * (4 * kHidden * kHidden + 3 * kHidden * kInter);
        const std::uint64_t rest = kParams - covered; // 2 x 32000 x 4096 embeddings/head + norms
        QCOMPARE(rest, 2ull * 32000 * 4096 + (2 * kLayers + 1) * kHidden);
        const std::uint64_t expected = eightBit(projected) + eightBit(rest) + projections * 2;
        QCOMPARE(test::maxOverPhases(e, C::OptimizerState), expected);
        QCOMPARE(expected, 5'649'220'624ull);

        // 16-bit GaLore AdamW: both states in the weights' dtype (no master copy).
        const Estimate plain = estimate(scenarioFrom(llama7b(R"("optimizer": "galore_adamw", "galore_rank": 1024)")));
        QCOMPARE(test::maxOverPhases(plain, C::OptimizerState), (projected + rest) * 2 * 2 + projections * 2);
    }

    // The step's temporaries: one matrix at a time, the largest (11008 x 4096): the weight clone
    // and the projected-back update in bf16, and the SVD's fp32 copy, U (m x k) and Vh (k x n).
    void galoreStepTemporaries()
    {
        const Estimate galore = estimate(scenarioFrom(llama7b(R"("optimizer": "galore_adamw8bit", "galore_rank": 1024)")));
        const Estimate adam8 = estimate(scenarioFrom(llama7b(R"("optimizer": "adamw_8bit")")));
        const std::uint64_t mn = kHidden * kInter, k = kHidden;
        const std::uint64_t temp = mn * 2 * 2 + 4 * (mn + k * (kHidden + kInter));
        QCOMPARE(test::phaseBytes(galore, PhaseId::Optimizer, C::Workspace) -
                     test::phaseBytes(adam8, PhaseId::Optimizer, C::Workspace),
                 temp);
    }

    void galoreRankIsBoundedAndItsOwn()
    {
        // A rank above a matrix's shorter side projects nothing away: the state is full-size.
        const Estimate wide = estimate(scenarioFrom(llama7b(R"("optimizer": "galore_adamw", "galore_rank": 8192)")));
        const std::uint64_t covered = kLayers * (4 * kHidden * kHidden + 3 * kHidden * kInter);
        QCOMPARE(test::maxOverPhases(wide, C::OptimizerState),
                 kParams * 2 * 2 + kLayers * (4 * kHidden * kHidden + 3 * kHidden * kHidden) * 2);
        QVERIFY(covered < kParams);
        // galore_rank with another optimizer, and GaLore on LoRA adapters, are refused by name.
        try {
            (void)scenarioFrom(llama7b(R"("optimizer": "adamw", "galore_rank": 64)"));
            QFAIL("galore_rank with adamw was accepted");
        } catch (const ScenarioError &error) {
            QCOMPARE(QString::fromStdString(error.key), QStringLiteral("train.galore_rank"));
        }
        const Scenario lora = scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "train": {"method": "lora",
            "optimizer": "galore_adamw"}})");
        try {
            (void)estimate(lora);
            QFAIL("GaLore on LoRA adapters was estimated");
        } catch (const ScenarioError &error) {
            QCOMPARE(QString::fromStdString(error.key), QStringLiteral("train.optimizer"));
        }
        // Round trip: the rank is written with a GaLore optimizer only.
        const Scenario s = scenarioFrom(llama7b(R"("optimizer": "galore_adamw8bit", "galore_rank": 512)"));
        const auto doc = scenarioToJson(s);
        QCOMPARE(doc["train"]["galore_rank"].get<int>(), 512);
        QCOMPARE(scenarioFromJson(doc).train.galoreRank, 512u);
        QVERIFY(!scenarioToJson(scenarioFrom(llama7b(R"("optimizer": "adamw")")))["train"].contains("galore_rank"));
    }

    // GPT-2 fp16, 8 x 512 tokens, vocab 50257, checkpointed (so backward's busiest moment is its
    // start, where the loss buffers are): logits.sum() keeps the fp16 logits (2 B each) in forward
    // and the logits plus the materialized gradient of the sum (4 B) when backward starts; the LM
    // cross-entropy keeps a + 8 = 10 B (logits, fp32 upcast, fp32 log-softmax); a classification
    // head has no vocabulary logits.
    void lossWithoutLanguageModel()
    {
        const std::string base = R"({"model": {"preset": "gpt2"}, "precision": {"weights": "fp16", "compute": "fp16"},
            "train": {"method": "full", "micro_batch": 8, "seq_len": 512, "optimizer": "none",
            "gradient_checkpointing": "full", )";
        const std::uint64_t logits = 8ull * 512 * 50257;
        const Estimate sum = estimate(scenarioFrom(base + R"("loss": "logits_sum"}})"));
        QCOMPARE(test::phaseBytes(sum, PhaseId::Forward, C::Logits), logits * 2);
        QCOMPARE(test::phaseBytes(sum, PhaseId::Backward, C::Logits), logits * 4);
        const Estimate lm = estimate(scenarioFrom(base + R"("loss": "lm"}})"));
        QCOMPARE(test::phaseBytes(lm, PhaseId::Forward, C::Logits), logits * 10);
        const Estimate cls = estimate(scenarioFrom(base + R"("loss": "classification"}})"));
        QCOMPARE(test::maxOverPhases(cls, C::Logits), 0ull);
        QCOMPARE(scenarioToJson(scenarioFrom(base + R"("loss": "logits_sum"}})"))["train"]["loss"].get<std::string>(),
                 std::string("logits_sum"));
        QVERIFY(!scenarioToJson(scenarioFrom(base + R"("loss": "lm"}})"))["train"].contains("loss"));
        // An untied lm_head would be counted for a classifier that does not have it: refused.
        try {
            (void)estimate(scenarioFrom(llama7b(R"("optimizer": "adamw", "loss": "classification")")));
            QFAIL("classification with an untied head was estimated");
        } catch (const ScenarioError &error) {
            QCOMPARE(QString::fromStdString(error.key), QStringLiteral("train.loss"));
        }
    }
};

QTEST_GUILESS_MAIN(TestOptimizers)
#include "tst_optimizers.moc"
