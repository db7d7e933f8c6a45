// SPDX-License-Identifier: GPL-3.0-or-later
// train.objective ppo, distillation and reward (docs/scenario-format.md, docs/estimator.md
// "Post-training"): each against hand arithmetic from the frameworks' code.
//   Llama-3.1-8B: 8,030,261,248 params, of which the untied lm_head 128,256 x 4,096 =
//   525,336,576; its sequence-classification form (score = Linear(4096, 1)) has
//   8,030,261,248 - 525,336,576 + 4,096 = 7,504,928,768.
#include "estimate/estimate.h"
#include "scenario/scenariojson.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;

namespace {

constexpr std::uint64_t kPolicy = 8'030'261'248ull;
constexpr std::uint64_t kScore = 7'504'928'768ull;
constexpr std::uint64_t kVocab = 128'256;

json doc(const std::string &model, const std::string &method, const std::string &objective, int micro, int seq,
         int accum = 1)
{
    json d = {{"format", "headroom-scenario"},
              {"version", 1},
              {"model", {{"preset", model}}},
              {"task", "train"},
              {"train", {{"method", method}, {"micro_batch", micro}, {"seq_len", seq}, {"grad_accum", accum},
                         {"gradient_checkpointing", "full"}, {"lora", {{"rank", 16}, {"targets", {"q", "v"}}}}}},
              {"precision", {{"weights", "bf16"}, {"compute", "bf16"}}},
              {"gpus", {"h100-80gb"}}};
    if (objective != "sft")
        d["train"]["objective"] = objective;
    return d;
}

Estimate run(const json &d) { return estimate(scenarioFromJson(d)); }

const Phase &phase(const Estimate &e, PhaseId id)
{
    for (const Phase &p : e.phases)
        if (p.id == id)
            return p;
    qFatal("no such phase");
    return e.phases.front();
}

std::uint64_t at(const Estimate &e, PhaseId id, ConsumerId c) { return phase(e, id).bytes[std::size_t(c)]; }

QString refusal(const json &d)
{
    try {
        run(d);
    } catch (const ScenarioError &error) {
        return QString::fromStdString(error.key);
    }
    return {};
}

} // namespace

class TestRlObjectives : public QObject
{
    Q_OBJECT
private slots:
    void rewardModelHasAScoreHeadAndNoVocabularyLogits()
    {
        // Full: the weights are the sequence-classification model's, 7,504,928,768 x 2 B.
        const Estimate e = run(doc("llama-3.1-8b", "full", "reward", 2, 1024));
        QCOMPARE(e.bytes(ConsumerId::Weights), kScore * 2);
        // The forward's "logits": 2 pairs = 4 sequences x 1,024 tokens x 1 label x 2 B = 8,192 B.
        QCOMPARE(at(e, PhaseId::Forward, ConsumerId::Logits), std::uint64_t(8192));
        // Chosen and rejected in one batch: the saved activations of an SFT run of 4 sequences.
        const Estimate lora = run(doc("llama-3.1-8b", "lora", "reward", 2, 1024));
        const Estimate sft = run(doc("llama-3.1-8b", "lora", "sft", 4, 1024));
        QCOMPARE(at(lora, PhaseId::Forward, ConsumerId::Activations), at(sft, PhaseId::Forward, ConsumerId::Activations));
        // LoRA: the base without its lm_head, + the score head trained in full (modules_to_save)
        // beside the q,v adapters: 32 layers x 16 x ((4096 + 4096) + (4096 + 1024)) = 6,815,744.
        const std::uint64_t adapters = 32ull * 16 * ((4096 + 4096) + (4096 + 1024));
        QCOMPARE(lora.bytes(ConsumerId::Weights), kScore * 2 + (adapters + 4096) * 4);
    }

    void valueHeadRewardKeepsTheLmHeadAndItsLogits()
    {
        // LLaMA-Factory stage rm: TRL's AutoModelForCausalLMWithValueHead keeps the causal LM
        // whole (8,030,261,248 bf16) and trains ValueHead.summary = Linear(4096, 1) in fp32
        // beside the q,v adapters: (6,815,744 + 4,097) x 4 B.
        json d = doc("llama-3.1-8b", "lora", "reward", 2, 1024);
        d["train"]["reward_head"] = "value_head";
        const Estimate e = run(d);
        const std::uint64_t adapters = 32ull * 16 * ((4096 + 4096) + (4096 + 1024));
        QCOMPARE(e.bytes(ConsumerId::Weights), kPolicy * 2 + (adapters + 4097) * 4);
        // 2 pairs = 4,096 tokens. The forward still returns the logits, bf16 and their fp32
        // copy (128,256 x (2 + 4) B a token), beside the value head's dropout mask and fp32
        // input (4,096 x (1 + 4) B) and the fp32 values (4 B): 4,096 x 790,020 B.
        QCOMPARE(at(e, PhaseId::Forward, ConsumerId::Logits), std::uint64_t(4096) * (kVocab * 6 + 4096 * 5 + 4));
        // Backward's busiest moment is inside the blocks: the logits are gone, and so is the value
        // head's pair of saved tensors (its backward runs first).
        QCOMPARE(at(e, PhaseId::Backward, ConsumerId::Logits), std::uint64_t(0));
        // The same pairs through the model as the score-head reward model.
        QCOMPARE(at(e, PhaseId::Forward, ConsumerId::Activations),
                 at(run(doc("llama-3.1-8b", "lora", "reward", 2, 1024)), PhaseId::Forward, ConsumerId::Activations));
        // Refused: every weight trained (the lm_head gets no gradient), and with another objective.
        json full = doc("llama-3.1-8b", "full", "reward", 2, 1024);
        full["train"]["reward_head"] = "value_head";
        QCOMPARE(refusal(full), QStringLiteral("train.reward_head"));
        json sft = doc("llama-3.1-8b", "lora", "sft", 2, 1024);
        sft["train"]["reward_head"] = "value_head";
        QCOMPARE(refusal(sft), QStringLiteral("train.reward_head"));
    }

    void ppoHoldsFourModelsAndTrainsTwo()
    {
        const Estimate e = run(doc("llama-3.1-8b", "full", "ppo", 1, 1024));
        // Policy + reference copy + reward + value, bf16: (2 x 8,030,261,248 + 2 x 7,504,928,768) x 2 B.
        QCOMPARE(e.bytes(ConsumerId::Weights), (2 * kPolicy + 2 * kScore) * 2);
        // One optimizer over the policy and the value model: AdamW's state per parameter as in
        // SFT, for 8,030,261,248 + 7,504,928,768 = 15,535,190,016 parameters.
        const Estimate sft = run(doc("llama-3.1-8b", "full", "sft", 1, 1024));
        const std::uint64_t perParam = sft.bytes(ConsumerId::OptimizerState) / kPolicy;
        QCOMPARE(sft.bytes(ConsumerId::OptimizerState) % kPolicy, std::uint64_t(0));
        QCOMPARE(e.bytes(ConsumerId::OptimizerState), (kPolicy + kScore) * perParam);
        // The critic backbone runs beside the policy before one backward: twice the activations.
        QCOMPARE(at(e, PhaseId::Forward, ConsumerId::Activations), 2 * at(sft, PhaseId::Forward, ConsumerId::Activations));
    }

    void ppoUnderZero3GathersPolicyAndValueToGenerate()
    {
        // ZeRO-3 over 8 GPUs: batch_generation runs inside unwrap_model_for_generation, which
        // gathers PolicyAndValueWrapper's parameters whole: (8,030,261,248 + 7,504,928,768) x 2 B
        // = 31,070,380,032 B beside the shards; the reference forward after it runs on the shards.
        json d = doc("llama-3.1-8b", "full", "ppo", 1, 1024);
        d["parallel"] = {{"gpus", 8}, {"strategy", "zero3"}};
        const Estimate e = run(d);
        QCOMPARE(at(e, PhaseId::Decode, ConsumerId::Weights) - at(e, PhaseId::Load, ConsumerId::Weights),
                 (kPolicy + kScore) * 2);
        QCOMPARE(at(e, PhaseId::Decode, ConsumerId::Logits), std::uint64_t(2 * 53 * kVocab * 4));
        QCOMPARE(e.bytes(ConsumerId::Weights), at(e, PhaseId::Decode, ConsumerId::Weights));
    }

    void ktoKeepsTheReferenceOfUnpairedCompletions()
    {
        // TRL KTOTrainer: one completion per example (no pair), the reference as DPO's: a frozen
        // bf16 copy of Llama 3.1 8B's 8,030,261,248 parameters when every weight trains.
        const Estimate kto = run(doc("llama-3.1-8b", "full", "kto", 2, 1024));
        const Estimate sft = run(doc("llama-3.1-8b", "full", "sft", 2, 1024));
        QCOMPARE(kto.bytes(ConsumerId::Weights) - sft.bytes(ConsumerId::Weights), kPolicy * 2);
        // Unpaired: the activations of micro_batch sequences, SFT's (DPO holds two per example).
        QCOMPARE(at(kto, PhaseId::Forward, ConsumerId::Activations), at(sft, PhaseId::Forward, ConsumerId::Activations));
        const Estimate dpo = run(doc("llama-3.1-8b", "full", "dpo", 1, 1024));
        QCOMPARE(at(dpo, PhaseId::Forward, ConsumerId::Activations), at(sft, PhaseId::Forward, ConsumerId::Activations));
        // Under LoRA the reference is the base with the adapter disabled: no copy.
        QCOMPARE(run(doc("llama-3.1-8b", "lora", "kto", 2, 1024)).bytes(ConsumerId::Weights),
                 run(doc("llama-3.1-8b", "lora", "sft", 2, 1024)).bytes(ConsumerId::Weights));
    }

    void ppoRolloutKeepsTheGenerationScores()
    {
        // micro 1 x grad_accum 1 x num_mini_batches 1 = 1 query, response_length 53: the
        // reference forward is the busiest moment, the scores 1 x 53 x 128,256 x 4 B =
        // 27,190,272 and the reference's logits 1 x 1,024 x 128,256 x 2 B = 262,668,288.
        const Estimate one = run(doc("llama-3.1-8b", "full", "ppo", 1, 1024));
        QCOMPARE(at(one, PhaseId::Decode, ConsumerId::Logits), std::uint64_t(27'190'272 + 262'668'288));
        QCOMPARE(at(one, PhaseId::Decode, ConsumerId::KvCache), std::uint64_t(0));
        QCOMPARE(at(one, PhaseId::Decode, ConsumerId::Gradients), std::uint64_t(0));
        // 4 x 64 = 256 queries generated 64 at a time, seq_len 128: pad() holds the scores twice,
        // 2 x 256 x 53 x 128,256 x 4 B = 13,921,419,264 B, above the reference moment's
        // 256 x 27,190,272 + 64 x 128 x 128,256 x 2 B = 9,062,055,936.
        const Estimate many = run(doc("llama-3.1-8b", "full", "ppo", 4, 128, 64));
        QCOMPARE(at(many, PhaseId::Decode, ConsumerId::Logits), std::uint64_t(13'921'419'264));
        QCOMPARE(std::uint64_t(2) * 256 * 53 * kVocab * 4, std::uint64_t(13'921'419'264));
        // train.ppo.response_length and rollout_batch: 1 query, response 100 -> 1 x 100 x
        // 128,256 x 4 + 1 x 1,024 x 128,256 x 2 B.
        json d = doc("llama-3.1-8b", "full", "ppo", 1, 1024);
        d["train"]["ppo"] = {{"response_length", 100}, {"rollout_batch", 8}};
        QCOMPARE(at(run(d), PhaseId::Decode, ConsumerId::Logits), 100 * kVocab * 4 + 1024 * kVocab * 2);
    }

    void distillationAddsTheTeacherAndItsLogits()
    {
        json d = doc("llama-3.2-1b", "lora", "distillation", 1, 1024);
        d["train"]["distillation"] = {{"teacher", {{"preset", "llama-3.1-8b"}}}};
        const Estimate kd = run(d);
        const Estimate sft = run(doc("llama-3.2-1b", "lora", "sft", 1, 1024));
        // The frozen teacher in bf16: 8,030,261,248 x 2 B.
        QCOMPARE(kd.bytes(ConsumerId::Weights) - sft.bytes(ConsumerId::Weights), kPolicy * 2);
        // 1,024 tokens x 128,256 vocab = 131,334,144 logits: the teacher's in bf16 (2 B), the
        // saved fp32 teacher probabilities and student log-probabilities (8 B), one of 8 chunks'
        // fp32 product and masked copy (8 B / 8) = 131,334,144 x 11 = 1,444,675,584 B.
        QCOMPARE(at(kd, PhaseId::Forward, ConsumerId::Logits) - at(sft, PhaseId::Forward, ConsumerId::Logits),
                 std::uint64_t(1'444'675'584));
        // An fp32 teacher: 4 B per weight and per teacher logit.
        d["train"]["distillation"]["teacher_dtype"] = "fp32";
        const Estimate fp32 = run(d);
        QCOMPARE(fp32.bytes(ConsumerId::Weights) - sft.bytes(ConsumerId::Weights), kPolicy * 4);
        QCOMPARE(at(fp32, PhaseId::Forward, ConsumerId::Logits) - at(sft, PhaseId::Forward, ConsumerId::Logits),
                 std::uint64_t(131'334'144) * 13);
    }

    void combinationsNotModelledAreRefusedNamingTheField()
    {
        QCOMPARE(refusal(doc("llama-3.1-8b", "lora", "ppo", 1, 1024)), QStringLiteral("train.method"));
        json tp = doc("llama-3.1-8b", "full", "ppo", 1, 1024);
        tp["parallel"] = {{"gpus", 2}, {"tensor", 2}};
        QCOMPARE(refusal(tp), QStringLiteral("parallel"));
        QCOMPARE(refusal(doc("llama-3.1-8b", "lora", "distillation", 1, 1024)), QStringLiteral("train.distillation"));
        json vocab = doc("llama-3.2-1b", "lora", "distillation", 1, 1024);
        vocab["train"]["distillation"] = {{"teacher", {{"preset", "qwen2.5-7b"}}}};
        QCOMPARE(refusal(vocab), QStringLiteral("train.distillation.teacher"));
        json unknown = doc("llama-3.2-1b", "lora", "distillation", 1, 1024);
        unknown["train"]["distillation"] = {{"teacher", {{"preset", "no-such-model"}}}};
        QCOMPARE(refusal(unknown), QStringLiteral("train.distillation.teacher.preset"));
        json quantized = doc("llama-3.2-1b", "lora", "distillation", 1, 1024);
        quantized["train"]["distillation"] = {{"teacher", {{"preset", "llama-3.1-8b"}}}, {"teacher_dtype", "nf4"}};
        QCOMPARE(refusal(quantized), QStringLiteral("train.distillation.teacher_dtype"));
        json fused = doc("llama-3.2-1b", "lora", "distillation", 1, 1024);
        fused["train"]["distillation"] = {{"teacher", {{"preset", "llama-3.1-8b"}}}};
        fused["kernels"] = {{"loss", "fused"}};
        QCOMPARE(refusal(fused), QStringLiteral("kernels.loss"));
        json stray = doc("llama-3.1-8b", "full", "sft", 1, 1024);
        stray["train"]["ppo"] = {{"response_length", 10}};
        QCOMPARE(refusal(stray), QStringLiteral("train.ppo"));
        json longer = doc("llama-3.1-8b", "full", "ppo", 1, 64);
        longer["train"]["ppo"] = {{"response_length", 64}};
        QCOMPARE(refusal(longer), QStringLiteral("train.ppo.response_length"));
    }

    void theNewObjectivesAreWrittenAndReadBack()
    {
        json ppo = doc("llama-3.1-8b", "full", "ppo", 1, 1024);
        ppo["train"]["ppo"] = {{"response_length", 77}, {"rollout_batch", 8}, {"num_mini_batches", 2}};
        json kd = doc("llama-3.2-1b", "lora", "distillation", 1, 1024);
        kd["train"]["distillation"] = {{"teacher", {{"preset", "llama-3.1-8b"}}}, {"kd_ratio", 0.25}, {"chunks", 4}};
        for (const json &d : {ppo, kd, doc("llama-3.1-8b", "lora", "reward", 1, 1024)}) {
            const Scenario s = scenarioFromJson(d);
            const Scenario back = scenarioFromJson(scenarioToJson(s));
            QVERIFY(back == s);
        }
        const Scenario s = scenarioFromJson(ppo);
        QCOMPARE(s.train.ppo.responseLength, 77u);
        QCOMPARE(s.train.ppo.miniBatches, 2u);
        QCOMPARE(scenarioFromJson(kd).train.distillation.teacher.hidden, 4096);
    }
};

QTEST_APPLESS_MAIN(TestRlObjectives)
#include "tst_rlobjectives.moc"
