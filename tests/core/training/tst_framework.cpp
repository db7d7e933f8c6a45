// SPDX-License-Identifier: GPL-3.0-or-later
// Frameworks as presets: names and versions, what each preset sets (and that explicit keys
// win), and the physics the presets select (losses, activation offloading, torch.compile,
// PEFT's fp32 upcast), checked with hand arithmetic on a tiny model.
#include "training/activations.h"
#include "training/activationterms.h"
#include "training/framework.h"
#include "testutil.h"

using namespace headroom;
using headroom::test::phaseBytes;
using headroom::test::scenarioFrom;
using nlohmann::json;

namespace {

/// 2 layers, hidden 64, MLP 128, 4 heads of 16, vocabulary 1,000; one sequence of 8 tokens
/// in bf16 (a = 2 B): 8,000 logits.
std::string tiny(const std::string &extra)
{
    return R"({"model": {"layers": 2, "hidden": 64, "intermediate": 128, "heads": 4, "kv_heads": 4,
               "head_dim": 16, "vocab": 1000}, "train": {"micro_batch": 1, "seq_len": 8)" +
           extra;
}

/// The inventory of one block of a dense model (every block of these tiny models).
LayerInventory denseBlock(const Scenario &s)
{
    return trainingInventory(s).dense;
}

bool hasTensor(const LayerInventory &inv, const char *name)
{
    return std::any_of(inv.tensors.begin(), inv.tensors.end(),
                       [&](const SavedTensor &t) { return std::string(t.name) == name; });
}

} // namespace

class TestFramework : public QObject
{
    Q_OBJECT
private slots:
    void versionsCompareByParts()
    {
        QCOMPARE(Version::parse("v4.46.1")->parts, (std::vector<int>{4, 46, 1}));
        QCOMPARE(Version::parse("4.46")->compare(*Version::parse("4.46.0")), 0);
        QCOMPARE(Version::parse("0.10")->compare(*Version::parse("0.9")), 1);
        QCOMPARE(Version::parse("4.52.0.dev0")->parts, (std::vector<int>{4, 52, 0})); // a suffix ends it
        QVERIFY(!Version::parse("latest"));
        QVERIFY(versionBefore({Framework::HfTransformers, "4.44"}, "4.45"));
        QVERIFY(!versionBefore({Framework::HfTransformers, ""}, "4.45")); // no version: current
    }

    void frameworkKeyReadsNameOrObject()
    {
        QCOMPARE(scenarioFrom(R"({"framework": "litgpt"})").framework.name, Framework::Litgpt);
        const Scenario s = scenarioFrom(R"({"framework": {"name": "torchtune", "version": "0.5"}})");
        QCOMPARE(s.framework.name, Framework::Torchtune);
        QCOMPARE(s.framework.version, std::string("0.5"));
    }

    void badFrameworkNamesTheKey_data()
    {
        QTest::addColumn<QString>("doc");
        QTest::addColumn<QString>("key");
        QTest::newRow("unknown-name") << R"({"framework": "pytorch-lightning"})" << "framework";
        QTest::newRow("unknown-object-key") << R"({"framework": {"name": "vllm", "release": "1"}})" << "framework.release";
        QTest::newRow("bad-version") << R"({"framework": {"name": "vllm", "version": "latest"}})" << "framework.version";
        QTest::newRow("missing-name") << R"({"framework": {"version": "0.5"}})" << "framework.name";
    }
    // Found by fuzz_set: a framework name that is not UTF-8 went into the message through the
    // JSON writer, which threw its own error. It is quoted with escapes now.
    void badBytesInTheFrameworkAreQuoted()
    {
        for (const nlohmann::json &doc :
             {nlohmann::json{{"format", "headroom-scenario"}, {"version", 1}, {"framework", std::string("tt\xff\x1b")}},
              nlohmann::json{{"format", "headroom-scenario"}, {"version", 1},
                             {"framework", {{"name", std::string("\x1b[31m\xfe")}}}}}) {
            try {
                scenarioFromJson(doc);
                QFAIL("accepted");
            } catch (const ScenarioError &error) {
                const std::string message = error.what();
                // No raw escape or stray byte reaches a terminal; what was there is shown.
                QVERIFY2(message.find('\x1b') == std::string::npos, message.c_str());
                QVERIFY2(message.find('\xff') == std::string::npos, message.c_str());
                QVERIFY2(message.find("(got ") != std::string::npos, message.c_str());
            }
        }
    }

    void badFrameworkNamesTheKey()
    {
        QFETCH(QString, doc);
        QFETCH(QString, key);
        try {
            scenarioFrom(doc.toStdString());
            QFAIL("accepted a bad framework");
        } catch (const ScenarioError &error) {
            QCOMPARE(QString::fromStdString(error.key), key);
        }
    }

    void presetsSetTheKnobs()
    {
        const Scenario tt = scenarioFrom(R"({"framework": "torchtune", "model": {"preset": "llama-3.1-8b"},
            "train": {"method": "lora"}})");
        QCOMPARE(tt.kernels.profile, Profile::HuggingFace);
        QCOMPARE(tt.kernels.loss, Loss::Chunked);
        QCOMPARE(tt.train.lora.dtype, DType::BF16);
        QCOMPARE(tt.precision.quantizer, Quantizer::Torchao);
        QCOMPARE(tt.train.lora.dropout, 0.0);
        // Before CEWithChunkedOutputLoss the configs used torch's cross-entropy.
        QCOMPARE(scenarioFrom(R"({"framework": {"name": "torchtune", "version": "0.2"}})").kernels.loss, Loss::Standard);

        const Scenario lit = scenarioFrom(R"({"framework": "litgpt", "train": {"method": "lora"},
            "precision": {"weights": "fp32", "compute": "bf16"}, "parallel": {"gpus": 4, "strategy": "fsdp"}})");
        QCOMPARE(lit.kernels.profile, Profile::Litgpt);
        QCOMPARE(lit.kernels.loss, Loss::ChunkedNoUpcast);
        QCOMPARE(lit.train.lora.dtype, DType::FP32); // bf16-mixed: adapters in fp32 like the model
        QVERIFY(lit.parallel.flatParams);
        QCOMPARE(lit.train.checkpointing, Checkpointing::Full);

        const Scenario titan = scenarioFrom(R"({"framework": "torchtitan"})");
        QCOMPARE(titan.precision.weights, DType::FP32);
        QCOMPARE(titan.parallel.strategy, Strategy::Fsdp);
        QCOMPARE(titan.train.checkpointing, Checkpointing::SelectiveOp);
        QCOMPARE(titan.train.optimizerImpl, OptimizerImpl::Fused);
        QCOMPARE(titan.kernels.loss, Loss::Standard);
        // With tensor parallelism the loss runs under loss_parallel() on vocabulary shards.
        QCOMPARE(scenarioFrom(R"({"framework": "torchtitan", "parallel": {"gpus": 8, "tensor": 8}})").kernels.loss,
                 Loss::Parallel);

        const Scenario serve = scenarioFrom(R"({"framework": "vllm"})");
        QCOMPARE(serve.task, Task::Inference);
        QCOMPARE(serve.kernels.profile, Profile::Fused);
        QCOMPARE(serve.inference.promptLogits, PromptLogits::Last);
    }

    void versionsSelectTransformersBehaviour()
    {
        const Scenario old = scenarioFrom(R"({"framework": {"name": "hf_generate", "version": "4.30"}})");
        QCOMPARE(old.inference.kvCache, KvCache::Concat);
        QCOMPARE(old.inference.promptLogits, PromptLogits::All);
        QCOMPARE(old.kernels.attention, Attention::Eager);
        const Scenario mid = scenarioFrom(R"({"framework": {"name": "hf_generate", "version": "4.44"}})");
        QCOMPARE(mid.inference.kvCache, KvCache::Preallocated);
        QCOMPARE(mid.inference.promptLogits, PromptLogits::All);
        const Scenario now = scenarioFrom(R"({"framework": "hf_generate"})");
        QCOMPARE(now.inference.promptLogits, PromptLogits::Last);
        // GPT-2's modeling code kept tuple caches until 4.52.
        QCOMPARE(scenarioFrom(R"({"framework": {"name": "hf_generate", "version": "4.39"},
            "model": {"preset": "gpt2-large"}})").inference.kvCache, KvCache::Concat);
        // PEFT's fp32 adapters from 0.11 (Transformers 4.41 on); before, the base's dtype.
        QCOMPARE(scenarioFrom(R"({"framework": "hf_transformers", "train": {"method": "lora"}})").train.lora.dtype, DType::FP32);
        QCOMPARE(scenarioFrom(R"({"framework": {"name": "hf_transformers", "version": "4.38"},
            "train": {"method": "lora"}})").train.lora.dtype, DType::BF16);
    }

    void zeroKeepsFp32MasterWeights()
    {
        // DeepSpeed's ZeRO optimizer partitions an fp32 master copy of 16-bit weights (stage 1/2
        // single_partition_of_fp32_groups, stage 3 fp32_partitioned_groups_flat): a bf16 full
        // fine-tune under ZeRO-1/2/3 has master weights and fp32 states; LoRA's fp32 adapters,
        // fp32 weights and FSDP do not.
        const char *full = R"({"framework": "hf_transformers", "precision": {"weights": "bf16"},
            "parallel": {"gpus": 4, "strategy": "%1"}})";
        for (const char *zero : {"zero1", "zero2", "zero3"})
            QVERIFY2(scenarioFrom(QString::fromLatin1(full).arg(QLatin1String(zero)).toStdString()).train.masterWeights, zero);
        QVERIFY(!scenarioFrom(QString::fromLatin1(full).arg(QLatin1String("fsdp")).toStdString()).train.masterWeights);
        QVERIFY(!scenarioFrom(R"({"framework": "hf_transformers", "precision": {"weights": "bf16"},
            "train": {"method": "lora"}, "parallel": {"gpus": 4, "strategy": "zero3"}})").train.masterWeights);
        QVERIFY(!scenarioFrom(R"({"framework": "hf_transformers", "precision": {"weights": "fp32"},
            "parallel": {"gpus": 4, "strategy": "zero3"}})").train.masterWeights);
        // A file that says otherwise wins.
        QVERIFY(!scenarioFrom(R"({"framework": "hf_transformers", "precision": {"weights": "bf16"},
            "train": {"master_weights": false}, "parallel": {"gpus": 4, "strategy": "zero3"}})").train.masterWeights);
    }

    void explicitKeysWin()
    {
        const Scenario s = scenarioFrom(R"({"framework": "torchtune", "kernels": {"loss": "fused"},
            "train": {"method": "lora", "lora": {"dtype": "fp32"}}})");
        QCOMPARE(s.kernels.loss, Loss::Fused);
        QCOMPARE(s.train.lora.dtype, DType::FP32);
        QCOMPARE(s.kernels.profile, Profile::HuggingFace); // the rest still from the preset
    }

    void writtenScenariosReadBackTheSame()
    {
        const Scenario s = scenarioFrom(R"({"framework": {"name": "litgpt", "version": "0.4"},
            "train": {"method": "qlora", "offload_activations": true, "compile": true}})");
        QCOMPARE(scenarioFromJson(scenarioToJson(s)), s);
        QCOMPARE(scenarioToJson(s)["framework"]["version"].get<std::string>(), std::string("0.4"));
    }

    // Bytes per logit of each loss kernel, as their code keeps tensors (8,000 logits, a = 2):
    // forward = the loss's peak in forward, backward = when backward starts.
    void lossKernels_data()
    {
        QTest::addColumn<QString>("loss");
        QTest::addColumn<bool>("compile");
        QTest::addColumn<qulonglong>("forward");
        QTest::addColumn<qulonglong>("backward");
        // HF: bf16 logits, fp32 upcast and fp32 log-softmax (a + 8); 12 B when backward starts.
        QTest::newRow("standard") << "standard" << false << 80'000ull << 96'000ull;
        // torchtune eager: logits a + every chunk's log-softmax 4 + one chunk's upcast 4/8;
        // backward: the log-softmaxes 4 + one chunk's two fp32 gradients 8/8.
        QTest::newRow("chunked-eager") << "chunked" << false << 52'000ull << 40'000ull;
        // Compiled: the chunk logits (a) and a 4 B log-sum-exp per row; backward adds one chunk's
        // bf16 gradient (a/8).
        QTest::newRow("chunked-compiled") << "chunked" << true << 16'032ull << 18'032ull;
        // LitGPT bf16-true: logits and log-softmax in bf16 (2a); 8 tokens are one 128-row chunk.
        QTest::newRow("chunked-no-upcast") << "chunked_no_upcast" << false << 32'000ull << 64'000ull;
        // torchtune LinearCrossEntropyLoss: 4 + (a + 4)/8 forward, 4 + 8/8 backward.
        QTest::newRow("linear-chunked") << "linear_chunked" << false << 38'000ull << 40'000ull;
        // Liger: ceil(1000/64) = 16 chunks -> 1 token per chunk x 1,000 x 2 B, the input gradient
        // 8 x 64 x 2 B and 8 x 4 B of per-row loss; backward keeps the gradient and the rows.
        QTest::newRow("fused") << "fused" << false << 3'056ull << 1'056ull;
        // loss_parallel(): bf16 logits, the fp32 copy, the shifted copy and its exponential
        // (a + 12); backward: the log-softmax, the one-hot gradient, exp and their sum (16).
        QTest::newRow("parallel") << "parallel" << false << 112'000ull << 128'000ull;
    }
    void lossKernels()
    {
        QFETCH(QString, loss);
        QFETCH(bool, compile);
        QFETCH(qulonglong, forward);
        QFETCH(qulonglong, backward);
        const Scenario s = scenarioFrom(tiny(std::string(R"(, "method": "lora", "compile": )") +
                                             (compile ? "true" : "false") + R"(}, "kernels": {"loss": ")" +
                                             loss.toStdString() + R"("}})"));
        const detail::EstimateContext context(s, Detail::Formulas, builtinCatalog(), RankRole::Only);
        const detail::Term logits = detail::logitsTerm(context);
        QCOMPARE(qulonglong(logits.bytes), forward);
        QCOMPARE(qulonglong(detail::lossBackwardTerm(context, logits).bytes), backward);
        // The forward phase holds the loss's forward peak.
        QCOMPARE(qulonglong(phaseBytes(estimate(s), PhaseId::Forward, ConsumerId::Logits)), forward);
    }

    void activationOffloadingKeepsOneBlock()
    {
        // Full fine-tuning with full checkpointing: each block keeps its input, 8 tokens x 64 x 2 B
        // = 1,024 B; the final norm keeps its fp32 input, the normalised and the output tensors,
        // 8 x 64 x (4 + 2 + 2) = 4,096 B.
        const std::string base = tiny(R"(, "gradient_checkpointing": "full")");
        const Estimate plain = estimate(scenarioFrom(base + "}}"));
        const Estimate offloaded = estimate(scenarioFrom(base + R"(, "offload_activations": true}})"));
        QCOMPARE(phaseBytes(plain, PhaseId::Forward, ConsumerId::Activations), std::uint64_t(2 * 1'024 + 4'096));
        QCOMPARE(phaseBytes(offloaded, PhaseId::Forward, ConsumerId::Activations), std::uint64_t(1'024 + 4'096));
        QCOMPARE(offloaded.hostBytes, std::uint64_t(1'024)); // the other block's input, pinned
    }

    void frozenDownProjectionKeepsNoInput()
    {
        // LoRA on q and v: the frozen down projection does not keep gate x up.
        LayerInventory lora = denseBlock(scenarioFrom(tiny(R"(, "method": "lora",
            "lora": {"targets": ["q", "v"], "dropout": 0.05}}})")));
        QVERIFY(!hasTensor(lora, "gate x up (down input)"));
        QVERIFY(hasTensor(lora, "activation(gate)"));
        QVERIFY(hasTensor(denseBlock(scenarioFrom(tiny("}}"))), "gate x up (down input)"));
        // A bf16 adapter on down without dropout reads that very tensor.
        QVERIFY(hasTensor(denseBlock(scenarioFrom(tiny(R"(, "method": "lora",
            "lora": {"targets": ["down"], "dropout": 0, "dtype": "bf16"}}})"))), "gate x up (down input)"));
        // bitsandbytes' 4-bit matmul keeps its input; torchao's NF4 linear does not.
        QVERIFY(hasTensor(denseBlock(scenarioFrom(tiny(R"(, "method": "qlora"}})"))), "gate x up (down input)"));
        QVERIFY(!hasTensor(denseBlock(scenarioFrom(tiny(R"(, "method": "qlora"}, "precision": {"quantizer": "torchao"}})"))),
                           "gate x up (down input)"));
    }

    void compiledBlocksKeepLess()
    {
        // Compiled (full fine-tuning): each norm keeps its bf16 input, a 4 B rstd and its output
        // (the projections' input), 2 x (128 + 4 + 128) = 520 B per token; attention as in eager,
        // q, k, v, output, the o_proj copy 5 x 128 + log-sum-exp 4 x 4 = 656; the MLP keeps gate,
        // up and the down input 3 x 256 = 768 but not the activation. 1,944 B, against eager's
        // 2 x (256 + 128 + 128) + 656 + 4 x 256 = 2,704.
        const LayerInventory compiled = denseBlock(scenarioFrom(tiny(R"(, "compile": true}})")));
        QCOMPARE(compiled.bytesPerToken, std::uint64_t(1'944));
        QCOMPARE(denseBlock(scenarioFrom(tiny("}}"))).bytesPerToken, std::uint64_t(2'704));
        QVERIFY(!hasTensor(compiled, "activation(gate)"));
        QVERIFY(!hasTensor(compiled, "attention norm normalised"));
    }

    void peftKbitUpcastKeepsUnquantizedInFp32()
    {
        // Hugging Face QLoRA on one GPU: prepare_model_for_kbit_training leaves embeddings
        // (64,000), lm_head (64,000) and the 5 norms (320) in fp32: 128,320 x 2 B more than Axolotl,
        // which casts them back to bf16.
        const std::string doc = tiny(R"(, "method": "qlora"})");
        const Estimate hf = estimate(scenarioFrom(doc + ", \"framework\": \"hf_transformers\"}"));
        const Estimate axolotl = estimate(scenarioFrom(doc + ", \"framework\": \"axolotl\"}"));
        QCOMPARE(phaseBytes(hf, PhaseId::Load, ConsumerId::Weights) - phaseBytes(axolotl, PhaseId::Load, ConsumerId::Weights),
                 std::uint64_t(128'320) * 2);
    }

    void fp32StreamThroughA4BitBase()
    {
        // QLoRA (q, k, v, o; rank 16, dropout 0.05, fp32 adapters) with fp32 embeddings and norms:
        // Linear4bit returns its input's dtype, so the stream is fp32. Per token of one block:
        // attention norm 64 x 4 + 3 bf16 copies 3 x 64 x 2 = 640; attention q, k, v, output and
        // the o_proj copy 5 x 64 x 2 + log-sum-exp 4 x 4 = 656; MLP norm 256 + 2 x 64 x 2 = 512;
        // gate, up and act fp32 3 x 128 x 4 + the bf16 down input 128 x 2 = 1,792; LoRA dropout
        // outputs 4 x 64 x 4, masks 4 x 64, rank-16 intermediates 4 x 16 x 4 = 1,536: 5,136.
        const std::string qlora = R"(, "method": "qlora", "gradient_checkpointing": "full"}, "precision": {"weights": "nf4")";
        const Scenario fp32 = scenarioFrom(tiny(qlora + R"(, "unquantized": "fp32"}})"));
        const LayerInventory stream = denseBlock(fp32);
        QCOMPARE(stream.bytesPerToken, std::uint64_t(5'136));
        QCOMPARE(stream.layerInputBytesPerToken, std::uint64_t(64 * 4));
        // The same run with bf16 unquantized parts: one norm output, a bf16 MLP:
        // 384 + 656 + 384 + 4 x 256 + 1,536 = 3,984, and a 64 x 2 B layer input.
        const LayerInventory plain = denseBlock(scenarioFrom(tiny(qlora + "}}")));
        QCOMPARE(plain.bytesPerToken, std::uint64_t(3'984));
        QCOMPARE(plain.layerInputBytesPerToken, std::uint64_t(64 * 2));
        // Without autocast, attention runs in fp32: q, k, v and output 4 x 64 x 2 B more.
        const Scenario noAutocast = scenarioFrom(tiny(qlora + R"(, "unquantized": "fp32", "autocast": false}})"));
        QCOMPARE(denseBlock(noAutocast).bytesPerToken, std::uint64_t(5'136 + 4 * 64 * 2));
        // ... and so does the fp32 lm_head: fp32 logits, their (no-op) upcast counted as the
        // standard loss counts it, and the fp32 log-softmax: 8,000 x (4 + 8) against (2 + 8).
        const auto logits = [](const Scenario &s) {
            return detail::logitsTerm(detail::EstimateContext(s, Detail::Formulas, builtinCatalog(), RankRole::Only)).bytes;
        };
        QCOMPARE(logits(fp32), std::uint64_t(80'000));
        QCOMPARE(logits(noAutocast), std::uint64_t(96'000));
        // The key round-trips, written only when false.
        QCOMPARE(scenarioToJson(noAutocast)["precision"]["autocast"], json(false));
        QVERIFY(!scenarioToJson(fp32)["precision"].contains("autocast"));
    }

    void breakdownNamesWhatTheFrameworkKeeps()
    {
        const Estimate e = estimate(scenarioFrom(R"({"framework": "torchtune", "model": {"preset": "llama-3.2-1b"},
            "train": {"method": "lora"}})"));
        const Consumer *logits = e.consumer(ConsumerId::Logits);
        QVERIFY(logits);
        QVERIFY2(std::any_of(logits->assumptions.begin(), logits->assumptions.end(), [](const std::string &note) {
                     return note.find("torchtune keeps the fp32 log-softmax of every one of 8 chunks") != std::string::npos;
                 }),
                 test::describe(e).constData());
    }
};

QTEST_GUILESS_MAIN(TestFramework)
#include "tst_framework.moc"
