// SPDX-License-Identifier: GPL-3.0-or-later
// Per-rank figures of multi-GPU training, each worked by hand from Llama 3 70B's shapes:
// 80 layers, hidden 8192, MLP 28672, 64 heads, 8 KV heads of 128, vocabulary 128,256, untied.
//   one layer's matrices: q, o 8192 x 8192 = 67,108,864 each; k, v 8192 x 1024 = 8,388,608 each;
//   gate, up, down 8192 x 28672 = 234,881,024 each -> 855,638,016; + 2 norms of 8192 = 855,654,400
//   blocks: 80 x 855,638,016 = 68,451,041,280 matrix params + 80 x 16,384 + 8,192 (final norm)
//   embeddings = lm_head = 128,256 x 8192 = 1,050,673,152; total 70,553,706,496.
#include "model/architecture.h"
#include "scenario/checked.h"
#include "parallel/parallel.h"
#include "testutil.h"

using namespace headroom;
using test::describe;
using test::phaseBytes;
using test::scenarioFrom;
using C = ConsumerId;

namespace {

constexpr std::uint64_t kTotal = 70'553'706'496;
constexpr std::uint64_t kBlockMatrices = 68'451'041'280;
constexpr std::uint64_t kSmall = 80 * 16'384 + 8'192;
constexpr std::uint64_t kTable = 1'050'673'152; // embeddings, and the lm_head
constexpr std::uint64_t kLayer = 855'654'400;

/// Llama 3 70B, full fine-tune in bf16 with fp32 master weights and AdamW, full checkpointing,
/// on 8 GPUs with the given parallel block.
Scenario seventyB(const std::string &parallel, const std::string &train = "")
{
    return scenarioFrom(R"({"model": {"preset": "llama-3-70b"},
        "train": {"method": "full", "micro_batch": 1, "seq_len": 4096, "master_weights": true,
                  "grad_dtype": "bf16", "gradient_checkpointing": "full")" + train + R"(},
        "kernels": {"attention": "flash", "loss": "chunked", "profile": "fused"},
        "parallel": )" + parallel + "}");
}

} // namespace

class TestParallel : public QObject
{
    Q_OBJECT
private slots:
    void modelTotal() { QCOMPARE(countParams(seventyB(R"({"gpus": 1})").model).total, kTotal); }

    // ZeRO-2 (DeepSpeed's estimator: 2P replicated + 16-bit grads, fp32 master and Adam sharded).
    void zero2ShardsGradientsAndState()
    {
        const Estimate e = estimate(seventyB(R"({"gpus": 8, "strategy": "zero2"})"));
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::Weights), kTotal * 2);
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::MasterWeights), kTotal * 4 / 8);
        QCOMPARE(phaseBytes(e, PhaseId::Optimizer, C::OptimizerState), kTotal * 8 / 8);
        QCOMPARE(phaseBytes(e, PhaseId::Optimizer, C::Gradients), kTotal * 2 / 8);
    }

    // ZeRO-3: the parameters too, plus the layer being computed and the prefetched next one.
    void zero3ShardsParameters()
    {
        const Estimate e = estimate(seventyB(R"({"gpus": 8, "strategy": "zero3"})"));
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::Weights), kTotal * 2 / 8);
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::MasterWeights), kTotal * 4 / 8);
        QCOMPARE(phaseBytes(e, PhaseId::Optimizer, C::OptimizerState), kTotal);
        // 32 MiB cuBLAS workspace + 2 gathered layers x 855,654,400 x 2 B.
        QCOMPARE(phaseBytes(e, PhaseId::Forward, C::Workspace), 32ull * 1048576 + 2 * kLayer * 2);
        // Backward adds the largest unit's whole gradient before its reduce-scatter: the
        // 128,256 x 8,192 = 1,050,673,152-parameter embedding table (larger than a block's
        // 855,654,400) x 2 B.
        QCOMPARE(phaseBytes(e, PhaseId::Backward, C::Workspace),
                 32ull * 1048576 + 2 * kLayer * 2 + kTable * 2);
    }

    // FSDP (1 or 2) shards like ZeRO-3 and keeps the root unit (embeddings, lm_head) gathered.
    void fsdpKeepsTheRootGathered()
    {
        const Estimate e = estimate(seventyB(R"({"gpus": 8, "strategy": "fsdp"})"));
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::Weights), kTotal * 2 / 8);
        QCOMPARE(phaseBytes(e, PhaseId::Forward, C::Workspace),
                 32ull * 1048576 + 2 * kLayer * 2 + 2 * kTable * 2);
    }

    // Tensor parallelism 8: matrices and tables split 8 ways, norms replicated.
    void tensorParallelSplitsTheModel_data()
    {
        QTest::addColumn<bool>("sequenceParallel");
        QTest::newRow("with-sequence-parallel") << true;
        QTest::newRow("without-sequence-parallel") << false;
    }
    void tensorParallelSplitsTheModel()
    {
        QFETCH(bool, sequenceParallel);
        const std::string sp = sequenceParallel ? "true" : "false";
        const Estimate e = estimate(seventyB(R"({"gpus": 8, "tensor": 8, "sequence_parallel": )" + sp + "}"));
        const std::uint64_t onRank = kBlockMatrices / 8 + kSmall + 2 * (kTable / 8);
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::Weights), onRank * 2);
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::MasterWeights), onRank * 4);
        // Full checkpointing keeps each layer's input: 4096 tokens x 8192 x 2 B per layer,
        // split 8 ways only with sequence parallelism; plus the final norm's input (fp32 upcast
        // in the fused profile: 2 + 2 B per value).
        const std::uint64_t perLayer = 4096ull * 8192 * 2 / (sequenceParallel ? 8 : 1);
        const std::uint64_t finalNorm = 4096ull * 8192 * 4 / (sequenceParallel ? 8 : 1);
        QCOMPARE(phaseBytes(e, PhaseId::Forward, C::Activations), 80 * perLayer + finalNorm);
    }

    // Pipeline 4 with 1F1B: the first stage holds 20 layers and the embeddings and keeps 4
    // micro-batches in flight; the last holds 20 layers, the final norm and the lm_head.
    void pipelineStagesDiffer()
    {
        const Estimate e = estimate(seventyB(R"({"gpus": 4, "pipeline": 4})", R"(, "grad_accum": 8)"));
        QCOMPARE(e.ranks.size(), std::size_t(2));
        const std::uint64_t stageBlocks = kBlockMatrices / 4 + (80 * 16'384) / 4;
        const RankPeak *first = nullptr;
        const RankPeak *last = nullptr;
        for (const RankPeak &rank : e.ranks)
            (rank.role == RankRole::FirstStage ? first : last) = &rank;
        QVERIFY(first && last);
        QCOMPARE(first->bytes[static_cast<std::size_t>(C::Weights)], (stageBlocks + kTable) * 2);
        QCOMPARE(last->bytes[static_cast<std::size_t>(C::Weights)], (stageBlocks + 8'192 + kTable) * 2);
        // 20 checkpointed layer inputs x 4 micro-batches on the first stage; 1 on the last
        // (plus its final norm input).
        const Scenario s = seventyB(R"({"gpus": 4, "pipeline": 4})", R"(, "grad_accum": 8)");
        const std::uint64_t layerInput = 4096ull * 8192 * 2;
        const Estimate busiest = estimate(s);
        QCOMPARE(busiest.rankRole, RankRole::FirstStage);
        QCOMPARE(phaseBytes(busiest, PhaseId::Forward, C::Activations), 4 * 20 * layerInput);
        QVERIFY2(first->peak.deviceBytes >= last->peak.deviceBytes, describe(busiest).constData());
    }

    // FSDP under pipeline parallelism (torchtitan, PyTorch's pipelining stages): each stage's
    // parameters stay gathered across its micro-batches and its gradients accumulate unsharded
    // until the last one; the optimizer step sees them reduce-scattered. 16 GPUs, pipeline 2,
    // data 8: a stage holds 40 layers, 40 x 855,638,016 = 34,225,520,640 matrix params and
    // 40 x 16,384 = 655,360 norm params; the first also the embeddings, the last the final norm
    // (8,192) and the lm_head.
    void fsdpPipelineKeepsTheStageGathered()
    {
        const Estimate e = estimate(seventyB(R"({"gpus": 16, "strategy": "fsdp", "pipeline": 2})",
                                             R"(, "grad_accum": 4)"));
        const std::uint64_t stage = 34'225'520'640ull + 655'360;
        const std::uint64_t firstStage = stage + kTable;       // 35,276,849,152
        const std::uint64_t lastStage = stage + 8'192 + kTable; // 35,276,857,344
        QCOMPARE(e.ranks.size(), std::size_t(2));
        for (const RankPeak &rank : e.ranks) {
            const std::uint64_t held = rank.role == RankRole::FirstStage ? firstStage : lastStage;
            // Unsharded bf16 gradients of the whole stage (grad_dtype bf16).
            QCOMPARE(rank.bytes[static_cast<std::size_t>(C::Gradients)], held * 2);
            // 32 MiB + 40 gathered layers x 855,654,400 x 2 B + the stage's embeddings or lm_head
            // (FSDP's root unit) x 2 B; no per-unit reduce-scatter buffer in backward.
            QCOMPARE(rank.bytes[static_cast<std::size_t>(C::Workspace)],
                     32ull * 1048576 + 40 * kLayer * 2 + kTable * 2);
        }
        QCOMPARE(e.rankRole, RankRole::FirstStage);
        // The step: gradients reduce-scattered over the 8 data-parallel ranks, stage resharded.
        QCOMPARE(phaseBytes(e, PhaseId::Optimizer, C::Gradients), firstStage * 2 / 8);
        QCOMPARE(phaseBytes(e, PhaseId::Optimizer, C::Workspace), 32ull * 1048576);
    }

    // Interleaved 1F1B: p x (1 + (p - 1) / (p v)) micro-batches on the first stage.
    void interleavedScheduleKeepsMore()
    {
        const Estimate e = estimate(seventyB(R"({"gpus": 4, "pipeline": 4, "schedule": "interleaved",
            "virtual_stages": 2})", R"(, "grad_accum": 8)"));
        const std::uint64_t layerInput = 4096ull * 8192 * 2;
        // 4 x (8 + 3) / 8 = 5.5 micro-batches of 20 layers.
        QCOMPARE(phaseBytes(e, PhaseId::Forward, C::Activations), 20 * layerInput * 4 * 11 / 8);
    }

    // Context parallelism shards the model state over data x context ranks and each rank keeps
    // seq_len / context tokens.
    void contextParallelShardsTokensAndState()
    {
        const Estimate e = estimate(seventyB(R"({"gpus": 8, "context": 4, "strategy": "fsdp"})"));
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::Weights), kTotal * 2 / 8);
        const std::uint64_t layerInput = 1024ull * 8192 * 2;
        QCOMPARE(phaseBytes(e, PhaseId::Forward, C::Activations), 80 * layerInput + 1024ull * 8192 * 4);
    }

    // A malformed key is the reader's refusal; a layout the rules between the keys refuse is the
    // estimator's (issue 22: the window saves a layout its fields pass through, tensor 16 on one
    // GPU, and the file must open again to the same refusal, not be refused by the reader).
    void parallelKeysAreChecked_data()
    {
        QTest::addColumn<QString>("parallel");
        QTest::addColumn<QString>("key");
        QTest::addColumn<bool>("layoutRule"); ///< the reader takes it, the estimate refuses it
        QTest::newRow("context-does-not-divide") << R"({"gpus": 6, "context": 4})" << "parallel.gpus" << true;
        QTest::newRow("tensor-16-on-1-gpu") << R"({"gpus": 1, "tensor": 16})" << "parallel.gpus" << true;
        QTest::newRow("tensor-does-not-split-kv") << R"({"gpus": 16, "tensor": 16})" << "parallel.tensor" << true;
        QTest::newRow("expert-on-a-dense-model") << R"({"gpus": 8, "expert": 8})" << "parallel.expert" << true;
        QTest::newRow("pipeline-past-layers") << R"({"gpus": 96, "pipeline": 96})" << "parallel.pipeline" << true;
        QTest::newRow("offload-params-without-zero3") << R"({"gpus": 8, "offload_params": true})"
                                                     << "parallel.offload_params" << true;
        QTest::newRow("schedule-unknown") << R"({"gpus": 8, "pipeline": 2, "schedule": "zb"})" << "parallel.schedule" << false;
        QTest::newRow("gpus-out-of-range") << R"({"gpus": 65537})" << "parallel.gpus" << false;
        QTest::newRow("virtual-stages-too-many") << R"({"gpus": 64, "pipeline": 64, "schedule": "interleaved", "virtual_stages": 2})"
                                                << "parallel.virtual_stages" << true;
    }
    void parallelKeysAreChecked()
    {
        QFETCH(QString, parallel);
        QFETCH(QString, key);
        QFETCH(bool, layoutRule);
        Scenario s;
        try {
            s = seventyB(parallel.toStdString());
        } catch (const ScenarioError &error) {
            QVERIFY2(!layoutRule, error.what());
            QCOMPARE(QString::fromStdString(error.key), key);
            return;
        }
        QVERIFY2(layoutRule, "the reader accepted a malformed key");
        // What was read writes back and reads again the same: nothing of the layout is lost.
        QCOMPARE(scenarioToJson(scenarioFrom(scenarioToJson(s).dump())), scenarioToJson(s));
        try {
            estimate(s);
            QFAIL("estimated");
        } catch (const ScenarioError &error) {
            QCOMPARE(QString::fromStdString(error.key), key);
        }
    }

    // NCCL's buffers: one communicator per process group of more than one rank, outside the
    // allocator (device bytes only): ZeRO-3 on 8 GPUs talks in one group (data); TP2 x PP4 x DP2
    // in three (data, tensor, pipeline). 512 MiB each (docs/estimator.md "NCCL communicators").
    void ncclBuffersPerCommunicator_data()
    {
        QTest::addColumn<QString>("parallel");
        QTest::addColumn<qulonglong>("communicators");
        QTest::newRow("one-gpu") << R"({"gpus": 1})" << 0ull;
        QTest::newRow("zero3-8") << R"({"gpus": 8, "strategy": "zero3"})" << 1ull;
        QTest::newRow("tp8-only") << R"({"gpus": 8, "tensor": 8})" << 1ull;
        QTest::newRow("tp2-pp4-dp2") << R"({"gpus": 16, "tensor": 2, "pipeline": 4, "strategy": "zero1"})" << 3ull;
        QTest::newRow("fsdp-cp4") << R"({"gpus": 8, "context": 4, "strategy": "fsdp"})" << 2ull;
    }
    void ncclBuffersPerCommunicator()
    {
        QFETCH(QString, parallel);
        QFETCH(qulonglong, communicators);
        const Estimate e = estimate(seventyB(parallel.toStdString()));
        const std::uint64_t nccl = communicators * 512ull * 1024 * 1024;
        QCOMPARE(e.bytes(C::Communication), nccl);
        QCOMPARE(e.peak.deviceBytes, e.peak.reservedBytes + 500ull * 1024 * 1024 + nccl);
        for (const RankPeak &rank : e.ranks)
            QCOMPARE(rank.bytes[std::size_t(C::Communication)], nccl);
    }

    // overhead.nccl_mib replaces the per-communicator figure; serving engines count their own.
    void ncclOverrideAndEngines()
    {
        Scenario s = seventyB(R"({"gpus": 8, "strategy": "zero3"})");
        s.overhead.ncclMiB = 1536;
        QCOMPARE(estimate(s).bytes(C::Communication), 1536ull * 1024 * 1024);
        const Scenario served = scenarioFrom(R"({"model": {"preset": "llama-3-70b"}, "task": "inference",
            "parallel": {"gpus": 4, "tensor": 4}, "serving": {"engine": "vllm"}, "gpus": ["h100-80gb"]})");
        QCOMPARE(estimate(served).bytes(C::Communication), 0ull);
    }

    // The host machine: ZeRO-3 with CPU Adam on 8 GPUs keeps each rank's fp32 master weights and
    // Adam moments in RAM: (4 + 8) B x kTotal / 8 per GPU; eight GPUs in the machine.
    void hostMachineAgainstItsRam()
    {
        Scenario s = seventyB(R"({"gpus": 16, "strategy": "zero3", "offload_optimizer": true})");
        Estimate e = estimate(s);
        const std::uint64_t perGpu = e.hostBytes;
        QVERIFY(perGpu >= ceilDiv(kTotal * 12, 16));
        QCOMPARE(e.hostMachine.gpus, 8ull);
        QCOMPARE(e.hostMachine.perGpuBytes, perGpu);
        QCOMPARE(e.hostMachine.bytes, perGpu * 8);
        QCOMPARE(e.hostMachine.ramBytes, 0ull);
        QVERIFY(e.hostMachine.fits);
        // DGX H100: 2 TB of RAM (its BasePOD reference architecture), 8 GPUs.
        s.host.machine = "dgx-h100";
        e = estimate(s);
        QCOMPARE(e.hostMachine.ramBytes, 2048ull << 30);
        QVERIFY(e.hostMachine.fits); // 8 x ~49 GiB of 2,048 GiB
        // 256 GiB given by hand, 4 GPUs per machine: 4 x ~49 GiB does not fit.
        s.host.machine.clear();
        s.host.ramGiB = 128;
        s.host.gpusPerMachine = 4;
        e = estimate(s);
        QCOMPARE(e.hostMachine.gpus, 4ull);
        QCOMPARE(e.hostMachine.ramBytes, 128ull << 30);
        QCOMPARE(e.hostMachine.fits, perGpu * 4 <= (128ull << 30));
        QVERIFY(!e.hostMachine.fits);
    }

    // The estimator refuses what the reader refuses: a layout built in code (the window's
    // fields, the solver) that tensor x pipeline x context does not divide.
    void estimatorChecksTheLayout()
    {
        Scenario s = seventyB(R"({"gpus": 8, "tensor": 2})");
        s.parallel.gpus = 6;
        s.parallel.pipeline = 4;
        try {
            estimate(s);
            QFAIL("estimated");
        } catch (const ScenarioError &error) {
            QCOMPARE(QString::fromStdString(error.key), QStringLiteral("parallel.gpus"));
            QVERIFY(QString::fromUtf8(error.what()).contains(QStringLiteral("(8)")));
        }
    }

    // DeepSpeed's ZeRO-2 model-state estimator (estimate_zero2_model_states_mem_needs in
    // deepspeed/runtime/zero/stage_1_and_2.py: 2P + 18P / N, "2 = params_16bit, 18 = 2_grads_16bit
    // + 4_grads_32bit + 4_params_32bit + 8_optimizer_states_32bit"), for its documented t5-3b
    // example: 2,851e6 params on 1 x 8 GPUs prints 11.28 "GB" (GiB) with the current code.
    void deepspeedZero2Estimator()
    {
        const Scenario s = scenarioFrom(R"({"model": {"params": 2851000000, "hidden": 1024, "layers": 24},
            "train": {"method": "full", "master_weights": true, "grad_dtype": "fp32"},
            "precision": {"weights": "fp16", "compute": "fp16"},
            "parallel": {"gpus": 8, "strategy": "zero2"}})");
        const Estimate e = estimate(s);
        const std::uint64_t modelStates = phaseBytes(e, PhaseId::Optimizer, C::Weights) +
                                          phaseBytes(e, PhaseId::Optimizer, C::MasterWeights) +
                                          phaseBytes(e, PhaseId::Optimizer, C::OptimizerState) +
                                          phaseBytes(e, PhaseId::Optimizer, C::Gradients);
        QCOMPARE(modelStates, 2851000000ull * 2 + 2851000000ull * 18 / 8);
        QCOMPARE(QString::number(double(modelStates) / double(1ull << 30), 'f', 2), QStringLiteral("11.28"));
    }
};

QTEST_APPLESS_MAIN(TestParallel)
#include "tst_parallel.moc"
