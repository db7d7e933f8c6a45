// SPDX-License-Identifier: GPL-3.0-or-later
// train.objective grpo (docs/scenario-format.md, docs/training-configs.md): TRL's GRPOTrainer
// (f2cd577) with its generation engine. Checked by hand arithmetic written out below, against the
// SFT estimate of the same sequences (per_device_train_batch_size counts completions: one
// sequence each, no pairs), and against the serving estimate of the vLLM that TRL starts
// (VLLMGeneration._init_vllm's arguments, written here as a serving scenario of their own).
#include "estimate/estimate.h"
#include "scenario/scenariojson.h"
#include "solve/solver.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;

namespace {

// Llama 3.1 8B: 8,030,261,248 params, 32 layers, 8 KV heads of 128, vocab 128,256.
json grpoDoc(const std::string &method, const std::string &rollout, double utilization = 0.3, bool sleep = false,
             double beta = 0.0)
{
    json doc = {{"format", "headroom-scenario"},
                {"version", 1},
                {"model", {{"preset", "llama-3.1-8b"}}},
                {"task", "train"},
                {"train", {{"method", method}, {"objective", "grpo"}, {"micro_batch", 4}, {"seq_len", 768},
                           {"grad_accum", 2}, {"gradient_checkpointing", "full"},
                           {"lora", {{"rank", 16}, {"targets", {"q", "k", "v", "o"}}}},
                           {"grpo", {{"num_generations", 8}, {"completion_length", 256}, {"beta", beta},
                                     {"rollout", rollout}, {"vllm_gpu_memory_utilization", utilization},
                                     {"vllm_sleep", sleep}, {"vllm_max_model_len", 768}}}}},
                {"precision", {{"weights", method == "qlora" ? "nf4" : "bf16"}, {"compute", "bf16"}}},
                {"gpus", {"h100-80gb"}}};
    return doc;
}

Estimate run(const json &doc) { return estimate(scenarioFromJson(doc)); }

const Phase &phase(const Estimate &e, PhaseId id)
{
    for (const Phase &p : e.phases)
        if (p.id == id)
            return p;
    static const Phase none;
    QTest::qFail("phase missing", __FILE__, __LINE__);
    return none;
}

std::uint64_t at(const Phase &p, ConsumerId id) { return p.bytes[static_cast<std::size_t>(id)]; }

bool fitsH100(const Estimate &e)
{
    for (const GpuFit &fit : e.gpus)
        if (fit.id == "h100-80gb")
            return fit.fits;
    return false;
}

} // namespace

class TestGrpo : public QObject
{
    Q_OBJECT
private slots:
    void microBatchCountsCompletions()
    {
        // per_device_train_batch_size is completions (GRPOConfig: generation_batch_size =
        // per_device_train_batch_size x num_processes x steps_per_generation, divisible by
        // num_generations): 4 sequences of 768 tokens, not 4 groups of 8. The blocks' activations
        // are the SFT run's of the same 4 x 768 tokens.
        const Estimate grpo = run(grpoDoc("lora", "vllm_server"));
        json sft = grpoDoc("lora", "vllm_server");
        sft["train"].erase("grpo");
        sft["train"]["objective"] = "sft";
        const Estimate same = run(sft);
        QCOMPARE(at(phase(grpo, PhaseId::Forward), ConsumerId::Activations),
                 at(phase(same, PhaseId::Forward), ConsumerId::Activations));
    }

    void logitsCoverTheCompletionOnly()
    {
        // logits_to_keep = 256, +1: 4 x 257 = 1,028 positions x 128,256 vocab = 131,847,168
        // logits. Forward: the logits and each row's log_softmax in bf16, 2 x 2 B:
        // 131,847,168 x 4 = 527,388,672 B. Backward: the saved log-softmax and the logits'
        // gradient (4 B) and one of the 4 rows' log-softmax gradient (2 B / 4):
        // 527,388,672 + 65,923,584 = 593,312,256 B.
        // (Without checkpointing the backward phase's busiest moment is its start, at the loss.)
        json doc = grpoDoc("lora", "vllm_server");
        doc["train"]["gradient_checkpointing"] = "none";
        const Estimate e = run(doc);
        QCOMPARE(at(phase(e, PhaseId::Forward), ConsumerId::Logits), std::uint64_t(527'388'672));
        QCOMPARE(at(phase(e, PhaseId::Backward), ConsumerId::Logits), std::uint64_t(593'312'256));
    }

    void referenceModelOnlyWithBetaAndFullWeights()
    {
        // beta > 0, every weight trained: a second copy, 8,030,261,248 x 2 B = 16,060,522,496 B.
        const std::uint64_t copy = 16'060'522'496ull;
        QCOMPARE(run(grpoDoc("full", "vllm_server", 0.3, false, 0.04)).bytes(ConsumerId::Weights),
                 run(grpoDoc("full", "vllm_server", 0.3, false, 0.0)).bytes(ConsumerId::Weights) + copy);
        // Under PEFT the reference is the adapter-disabled base (ref_model None): no copy.
        QCOMPARE(run(grpoDoc("lora", "vllm_server", 0.3, false, 0.04)).bytes(ConsumerId::Weights),
                 run(grpoDoc("lora", "vllm_server", 0.3, false, 0.0)).bytes(ConsumerId::Weights));
    }

    void colocatedVllmIsItsOwnConsumer()
    {
        const Estimate server = run(grpoDoc("lora", "vllm_server"));
        const Estimate colocated = run(grpoDoc("lora", "vllm_colocate", 0.3));
        QVERIFY(colocated.rollout.has_value());
        // The vLLM TRL starts, as a serving scenario of its own: max_num_seqs = 4 x 1 x 2
        // (per_device_train_batch_size x vllm_tensor_parallel_size x steps_per_generation = grad_accum),
        // max_num_batched_tokens 4096, the LLM class (offline), 8 requests of 512 + 256 tokens.
        const json serving = {{"format", "headroom-scenario"},
                              {"version", 1},
                              {"model", {{"preset", "llama-3.1-8b"}}},
                              {"task", "inference"},
                              {"precision", {{"weights", "bf16"}, {"compute", "bf16"}}},
                              {"serving", {{"engine", "vllm"}, {"gpu_memory_utilization", 0.3},
                                           {"max_num_seqs", 8}, {"max_num_batched_tokens", 4096},
                                           {"max_model_len", 768},
                                           {"usage_context", "offline"},
                                           {"requests", {{"concurrency", 8}, {"prompt_tokens", 512},
                                                         {"output_tokens", 256}}}}},
                              {"gpus", {"h100-80gb"}}};
        const Estimate vllm = run(serving);
        QVERIFY(vllm.serving.has_value());
        const ServingFigures &f = *vllm.serving;
        QCOMPARE(colocated.rollout->kvCacheBytes, f.kvCacheBytes);
        QCOMPARE(colocated.rollout->kvCacheTokens, f.kvCacheTokens);
        QVERIFY(f.kvCacheTokens > 0);
        QCOMPARE(colocated.rollout->requestsFit, f.requestsFit);
        QVERIFY(f.requestsFit); // 8 x 768 tokens in a pool of ~7 GiB
        // Budget: the H100's CUDA total, 79.18 GiB (docs/serving.md) x 0.3 = 25,505,663,287 B.
        QCOMPARE(f.budgetBytes, std::uint64_t(std::llround(79.18 * 1073741824.0 * 0.3)));
        // Weights: 8,030,261,248 x 2 B.
        QCOMPARE(f.weightsBytes, std::uint64_t(16'060'522'496ull));
        const std::uint64_t engine = f.weightsBytes + f.kvCacheBytes + f.cudaGraphBytes + f.nonTorchBytes;
        // Without sleep mode the engine stays through every training phase...
        for (PhaseId id : {PhaseId::Load, PhaseId::Forward, PhaseId::Backward, PhaseId::Optimizer})
            QCOMPARE(at(phase(colocated, id), ConsumerId::GenerationEngine), engine);
        // ...so the training peak is the server run's plus the engine, and the allocator's slack
        // is counted on the trainer's part alone.
        QCOMPARE(colocated.peak.allocatedBytes, server.peak.allocatedBytes + engine);
        QCOMPARE(colocated.peak.reservedBytes - colocated.peak.allocatedBytes,
                 server.peak.reservedBytes - server.peak.allocatedBytes);
        QCOMPARE(colocated.bytes(ConsumerId::GenerationEngine), engine);
        QVERIFY(server.bytes(ConsumerId::GenerationEngine) == 0);
        QVERIFY(fitsH100(colocated));
    }

    void sleepModeReleasesWeightsAndPoolWhileTraining()
    {
        const Estimate awake = run(grpoDoc("lora", "vllm_colocate", 0.3, false));
        const Estimate asleep = run(grpoDoc("lora", "vllm_colocate", 0.3, true));
        const ServingFigures &f = *asleep.rollout;
        // Level 2: weights and KV pool released; the CUDA graph pool and non-torch memory stay.
        QCOMPARE(at(phase(asleep, PhaseId::Forward), ConsumerId::GenerationEngine), f.cudaGraphBytes + f.nonTorchBytes);
        // The generation round holds the whole engine beside the trainer's weights and state.
        QCOMPARE(at(phase(asleep, PhaseId::Decode), ConsumerId::GenerationEngine),
                 f.weightsBytes + f.kvCacheBytes + f.cudaGraphBytes + f.nonTorchBytes);
        QCOMPARE(at(phase(asleep, PhaseId::Decode), ConsumerId::Activations), std::uint64_t(0));
        QCOMPARE(at(phase(asleep, PhaseId::Decode), ConsumerId::Gradients), std::uint64_t(0));
        QVERIFY(asleep.peak.deviceBytes < awake.peak.deviceBytes);
    }

    void vllmThatCannotStartDoesNotFit()
    {
        // 0.05 x 79.18 GiB = 3.96 GiB: less than the 14.96 GiB of weights, no KV pool.
        const Estimate small = run(grpoDoc("lora", "vllm_colocate", 0.05));
        QVERIFY(!small.rollout->startsOk);
        QVERIFY(!fitsH100(small));
        // 0.95 x 79.18 = 75.2 GiB must be free when vLLM starts, after the trainer's 15 GiB of
        // weights and 0.5 GiB of CUDA context: 79.18 - 15.5 < 75.2.
        const Estimate large = run(grpoDoc("lora", "vllm_colocate", 0.95));
        QVERIFY(!fitsH100(large));
        bool said = false;
        for (const std::string &w : large.warnings)
            said = said || w.find("vLLM cannot start") != std::string::npos;
        QVERIFY2(said, "no warning names vLLM's start");
    }

    void vllmMaxModelLenDefaultsToTheModels()
    {
        // vllm_max_model_length None: vLLM takes max_position_embeddings, 131,072 for Llama 3.1,
        // and must hold one such sequence: 131,072 tokens x 131,072 B = 16 GiB of KV, more than
        // 0.3 x 79.18 GiB = 23.75 GiB less 14.96 GiB of weights leaves. It does not start.
        json doc = grpoDoc("lora", "vllm_colocate", 0.3);
        doc["train"]["grpo"].erase("vllm_max_model_len");
        const Estimate e = run(doc);
        QVERIFY(!e.rollout->startsOk);
        QVERIFY(!fitsH100(e));
    }

    void hfGenerateHoldsTheGenerationCacheInTheTrainer()
    {
        // No vLLM: generate() over micro_batch x steps_per_generation = 4 x 2 = 8 sequences of
        // 768 tokens; K and V: 2 x 32 layers x 8 heads x 128 x 2 B = 131,072 B per token:
        // 8 x 768 x 131,072 = 805,306,368 B.
        const Estimate e = run(grpoDoc("lora", "hf_generate"));
        QCOMPARE(at(phase(e, PhaseId::Decode), ConsumerId::KvCache), std::uint64_t(805'306'368));
        QCOMPARE(e.bytes(ConsumerId::GenerationEngine), std::uint64_t(0));
    }

    void serverModeEstimatesTheServersGpu()
    {
        // vllm_mode server: `trl vllm-serve --model` with its defaults on a GPU like the target,
        // as a serving scenario of its own: gpu_memory_utilization 0.9, max_model_len the
        // model's 131,072, the LLM class, the round's 4 x 1 GPU x 2 = 8 completions of 512 + 256.
        const Estimate e = run(grpoDoc("lora", "vllm_server"));
        const json serving = {{"format", "headroom-scenario"},
                              {"version", 1},
                              {"model", {{"preset", "llama-3.1-8b"}}},
                              {"task", "inference"},
                              {"precision", {{"weights", "bf16"}, {"compute", "bf16"}}},
                              {"serving", {{"engine", "vllm"}, {"gpu_memory_utilization", 0.9},
                                           {"max_model_len", 131072}, {"usage_context", "offline"},
                                           {"requests", {{"concurrency", 8}, {"prompt_tokens", 512},
                                                         {"output_tokens", 256}}}}},
                              {"gpus", {"h100-80gb"}}};
        const Estimate vllm = run(serving);
        QVERIFY(vllm.serving && vllm.serving->startsOk);
        std::string tokens = std::to_string(vllm.serving->kvCacheTokens);
        for (int at = int(tokens.size()) - 3; at > 0; at -= 3)
            tokens.insert(std::size_t(at), ",");
        const auto line = std::find_if(e.assumptions.begin(), e.assumptions.end(), [](const std::string &a) {
            return a.rfind("The vLLM server", 0) == 0;
        });
        QVERIFY(line != e.assumptions.end());
        QVERIFY2(line->find("(" + tokens + " tokens)") != std::string::npos, line->c_str());
        QVERIFY2(line->find("14.96 GiB weights") != std::string::npos, line->c_str()); // 8,030,261,248 x 2 B
        QVERIFY2(line->find("the round's 8 completions run at once") != std::string::npos, line->c_str());
        // The trainer's own GPU holds no engine.
        QCOMPARE(e.bytes(ConsumerId::GenerationEngine), std::uint64_t(0));
        // A model too large for one GPU's 0.9 says the server cannot start.
        json big = grpoDoc("lora", "vllm_server");
        big["model"] = {{"preset", "llama-3.1-70b"}};
        const Estimate tooBig = run(big);
        QVERIFY(std::any_of(tooBig.warnings.begin(), tooBig.warnings.end(),
                            [](const std::string &w) { return w.find("cannot start") != std::string::npos; }));
    }

    void zero3GathersThePolicyForGenerate()
    {
        // TRL's unwrap_model_for_generation under ZeRO-3 (ds3_gather_for_generation, default
        // true): GatheredParameters over every parameter, beside the shards, during generate():
        // Llama 3.1 8B whole in bf16, 8,030,261,248 x 2 B = 16,060,522,496 B on each of 8 GPUs.
        json z3 = grpoDoc("lora", "hf_generate");
        z3["parallel"] = {{"gpus", 8}, {"strategy", "zero3"}};
        const Estimate e = run(z3);
        QCOMPARE(at(phase(e, PhaseId::Decode), ConsumerId::Weights) - at(phase(e, PhaseId::Load), ConsumerId::Weights),
                 std::uint64_t(16'060'522'496));
        // DDP keeps the whole model anyway: nothing gathered on top of it.
        json ddp = grpoDoc("lora", "hf_generate");
        ddp["parallel"] = {{"gpus", 8}, {"strategy", "ddp"}};
        const Estimate d = run(ddp);
        QCOMPARE(at(phase(d, PhaseId::Decode), ConsumerId::Weights), at(phase(d, PhaseId::Load), ConsumerId::Weights));
        // vLLM generates from its own copy: the trainer gathers nothing.
        json vllm = grpoDoc("lora", "vllm_server");
        vllm["parallel"] = {{"gpus", 8}, {"strategy", "zero3"}};
        QVERIFY(run(vllm).phases.back().id != PhaseId::Decode);
    }

    void refusesWhatTrlRefuses()
    {
        json doc = grpoDoc("lora", "vllm_colocate");
        doc["train"]["grpo"]["num_generations"] = 3; // 4 x 1 x 2 = 8 completions, not divisible by 3
        try {
            run(doc);
            QFAIL("an indivisible generation batch was estimated");
        } catch (const ScenarioError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("train.grpo.num_generations")), error.what());
        }
        doc = grpoDoc("lora", "vllm_colocate");
        doc["train"]["grpo"]["completion_length"] = 768; // no room for a prompt in seq_len 768
        QVERIFY_THROWS_EXCEPTION(ScenarioError, scenarioFromJson(doc));
        doc = grpoDoc("lora", "vllm_colocate");
        doc["train"]["objective"] = "dpo"; // train.grpo without grpo
        QVERIFY_THROWS_EXCEPTION(ScenarioError, scenarioFromJson(doc));
        doc = grpoDoc("lora", "vllm_colocate");
        doc["train"]["objective"] = "ppo"; // not modelled: refused naming the key
        try {
            scenarioFromJson(doc);
            QFAIL("ppo was read");
        } catch (const ScenarioError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("train.objective")), error.what());
        }
    }

    void grpoIsWrittenAndReadBack()
    {
        const Scenario s = scenarioFromJson(grpoDoc("qlora", "vllm_colocate", 0.42, true, 0.04));
        QCOMPARE(s.train.objective, Objective::Grpo);
        QCOMPARE(s.train.grpo.rollout, Rollout::VllmColocate);
        QCOMPARE(s.train.grpo.vllmGpuMemoryUtilization, 0.42);
        QCOMPARE(scenarioFromJson(scenarioToJson(s)), s);
    }

    void solverFindsTheLargestUtilization()
    {
        // The largest vllm_gpu_memory_utilization (hundredths) that fits, confirmed by the
        // estimator: it fits at the answer and not at the answer + 0.01.
        for (const char *method : {"lora", "full"})
            for (bool sleep : {false, true}) {
                const Scenario s = scenarioFromJson(grpoDoc(method, "vllm_colocate", 0.3, sleep));
                const Solution answer = solve(s, SolveFor::MaxVllmUtilization, "h100-80gb");
                const QByteArray what = QByteArray(method) + (sleep ? " asleep" : " awake") + " at " +
                                        QByteArray::number(qulonglong(answer.value));
                if (answer.value == 0) {
                    // Full fine-tuning of 8B with AdamW (16 B a parameter) cannot share an H100.
                    QVERIFY2(std::string(method) == "full", what.constData());
                    continue;
                }
                Scenario at = s;
                at.train.grpo.vllmGpuMemoryUtilization = double(answer.value) / 100.0;
                QVERIFY2(fitsH100(estimate(at)), what.constData());
                if (answer.value < 100) {
                    at.train.grpo.vllmGpuMemoryUtilization = double(answer.value + 1) / 100.0;
                    QVERIFY2(!fitsH100(estimate(at)), what.constData());
                }
                QCOMPARE(answer.scenario.train.grpo.vllmGpuMemoryUtilization, double(answer.value) / 100.0);
            }
        // Not a GRPO run with vLLM colocated: refused.
        QVERIFY_THROWS_EXCEPTION(SolveError, solve(scenarioFromJson(grpoDoc("lora", "vllm_server")),
                                                   SolveFor::MaxVllmUtilization, "h100-80gb"));
    }
};

QTEST_GUILESS_MAIN(TestGrpo)
#include "tst_grpo.moc"
