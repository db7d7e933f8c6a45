// SPDX-License-Identifier: GPL-3.0-or-later
// The worked examples of docs/domain-notes.md (from the three seed articles), each a data row,
// to the byte where the example is exact; hand-computed figures elsewhere.
#include "model/architecture.h"
#include "scenario/checked.h"
#include "testutil.h"

using namespace headroom;
using test::bytesOf;
using test::describe;
using test::scenarioFrom;
using C = ConsumerId;

class TestEstimator : public QObject
{
    Q_OBJECT
private slots:
    // Example 1 (seed 002's table): params x bytes per param, decimal GB, no metadata.
    void weightTable_data()
    {
        QTest::addColumn<qulonglong>("params");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<qulonglong>("bytes");
        const struct { const char *size; qulonglong params; } sizes[] = {
            {"7b", 7'000'000'000ull}, {"13b", 13'000'000'000ull}, {"70b", 70'000'000'000ull}};
        const struct { const char *dtype; qulonglong num, den; } dtypes[] = {
            {"fp32", 4, 1}, {"bf16", 2, 1}, {"int8", 1, 1}, {"int4", 1, 2}};
        for (const auto &size : sizes)
            for (const auto &dtype : dtypes)
                QTest::newRow(QByteArray(size.size).append('-').append(dtype.dtype).constData())
                    << size.params << QString::fromLatin1(dtype.dtype)
                    << size.params * dtype.num / dtype.den;
    }
    void weightTable()
    {
        QFETCH(qulonglong, params);
        QFETCH(QString, dtype);
        QFETCH(qulonglong, bytes);
        const Scenario s = scenarioFrom(R"({"task": "inference", "model": {"params": )" +
                                        std::to_string(params) + R"(, "hidden": 4096, "layers": 32},
            "precision": {"weights": ")" + dtype.toStdString() + R"("}})");
        const Estimate e = estimate(s);
        QVERIFY2(bytesOf(e, C::Weights) == bytes, test::describe(e));
        QVERIFY(e.rough);
    }

    // Example 2 and the other layouts: bytes per parameter before activations.
    void trainingLayouts_data()
    {
        QTest::addColumn<QString>("keys");
        QTest::addColumn<qulonglong>("bytes");
        // Seed 002: bf16 weights 2 + fp32 master 4 + Adam 8 + fp32 grads 4 = 18 -> 126 GB.
        QTest::newRow("seed002-mixed-18") << QStringLiteral(
            R"("precision": {"weights": "bf16"}, "train": {"master_weights": true, "grad_dtype": "fp32"})")
                                          << 126'000'000'000ull;
        // Seed 003: fp32 weights 4 + Adam 8 + fp32 grads 4 = 16 -> 112 GB.
        QTest::newRow("seed003-fp32-16") << QStringLiteral(R"("precision": {"weights": "fp32"})")
                                         << 112'000'000'000ull;
        // ZeRO paper: fp16 weights 2 + fp16 grads 2 + (fp32 master 4 + Adam 8) = 16 -> 112 GB.
        QTest::newRow("zero-paper-16") << QStringLiteral(
            R"("precision": {"weights": "fp16"}, "train": {"master_weights": true, "grad_dtype": "fp16"})")
                                       << 112'000'000'000ull;
    }
    void trainingLayouts()
    {
        QFETCH(QString, keys);
        QFETCH(qulonglong, bytes);
        const Scenario s = scenarioFrom(
            R"({"model": {"params": 7000000000, "hidden": 4096, "layers": 32}, )" + keys.toStdString() + "}");
        const Estimate e = estimate(s);
        // The optimizer step holds the four stores and nothing else of the weights (autocast's
        // cast copies exist only from forward into backward).
        const std::uint64_t state = test::phaseBytes(e, PhaseId::Optimizer, C::Weights) +
                                    test::phaseBytes(e, PhaseId::Optimizer, C::MasterWeights) +
                                    test::phaseBytes(e, PhaseId::Optimizer, C::Gradients) +
                                    test::phaseBytes(e, PhaseId::Optimizer, C::OptimizerState);
        QVERIFY2(state == bytes, test::describe(e));
        // The optimizer step holds all four at once.
        QVERIFY(test::phaseBytes(e, PhaseId::Optimizer, C::Gradients) > 0);
    }

    // Example 3 (seed 003): GPT-2 124M fp32 full fine-tune.
    void gpt2Fp32()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gpt2", "params": 124000000},
            "precision": {"weights": "fp32", "compute": "fp32"}, "train": {"micro_batch": 8, "seq_len": 64}})");
        const Estimate e = estimate(s);
        QCOMPARE(test::maxOverPhases(e, C::Weights), 496'000'000ull);
        QCOMPARE(test::maxOverPhases(e, C::OptimizerState), 992'000'000ull);
        QCOMPARE(test::maxOverPhases(e, C::Gradients), 496'000'000ull);
    }

    // Autocast: fp32 GPT-2 (124,439,808 params) computing in bf16 casts every matmul weight:
    // 12 blocks x (4 x 768^2 + 2 x 768 x 3072) = 84,934,656 plus the tied 50,257 x 768 lm_head
    // = 38,597,376, so 123,532,032 x 2 B of copies live from forward into backward.
    void autocastWeightCopies()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gpt2"},
            "precision": {"weights": "fp32", "compute": "bf16"}, "train": {"micro_batch": 1, "seq_len": 64}})");
        const Estimate e = estimate(s);
        const std::uint64_t stored = 124'439'808ull * 4;
        const std::uint64_t copies = 123'532'032ull * 2;
        QCOMPARE(test::phaseBytes(e, PhaseId::Load, C::Weights), stored);
        QCOMPARE(test::phaseBytes(e, PhaseId::Forward, C::Weights), stored + copies);
        QCOMPARE(test::phaseBytes(e, PhaseId::Optimizer, C::Weights), stored);
        // Checkpointed LoRA: frozen weights are cast again in the recomputation, not kept.
        Scenario lora = s;
        lora.train.method = Method::Lora;
        lora.train.checkpointing = Checkpointing::Full;
        QCOMPARE(test::phaseBytes(estimate(lora), PhaseId::Forward, C::Weights),
                 test::phaseBytes(estimate(lora), PhaseId::Load, C::Weights));
        // bf16 weights need no copies.
        Scenario bf16 = s;
        bf16.precision.weights = DType::BF16;
        QCOMPARE(test::phaseBytes(estimate(bf16), PhaseId::Forward, C::Weights), 124'439'808ull * 2);
    }

    // The fp32 loss path: 2 x 512 tokens x 50,257 vocab. Forward keeps bf16 logits, the fp32
    // upcast and the fp32 log-softmax (2 + 4 + 4 B); log_softmax's backward holds its saved
    // output, the incoming and the outgoing gradient (3 x 4 B).
    void lossBackwardBuffers()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gpt2"},
            "train": {"micro_batch": 2, "seq_len": 512}})");
        const Estimate e = estimate(s);
        QCOMPARE(test::phaseBytes(e, PhaseId::Forward, C::Logits), 1024ull * 50'257 * 10);
        QCOMPARE(test::phaseBytes(e, PhaseId::Backward, C::Logits), 1024ull * 50'257 * 12);
    }

    // torchtitan's op-level selective checkpointing on Llama 3 8B (h 4096, q 4096, kv 1024,
    // f 14336, 32 heads, bf16): block input 4096 + attention output 4096 + wq 4096 + wv 1024 +
    // w1 14336 + w2 4096 = 31,744 values x 2 B + 32 heads x 4 B log-sum-exp = 63,616 B per
    // token-layer.
    void opSelectiveCheckpointing()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-3-8b"},
            "train": {"micro_batch": 1, "seq_len": 1024, "gradient_checkpointing": "selective_op"},
            "kernels": {"loss": "fused"}})");
        const Estimate e = estimate(s);
        const std::uint64_t tokens = 1024;
        // The final norm keeps its fp32 input, the normalised tensor (its weight trains) and its
        // output (the lm_head's input, which trains too): 4 + 2 + 2 B per value.
        const std::uint64_t finalNorm = tokens * 4096 * (4 + 2 + 2);
        QCOMPARE(test::phaseBytes(e, PhaseId::Forward, C::Activations),
                 32 * tokens * 63'616ull + finalNorm);
    }

    // GPT-2's gelu_new in eager ops keeps tanh's output and (1 + tanh): 2 x 3072 x 2 B =
    // 12,288 B more per token-layer than a one-kernel GELU; the fused profile keeps neither.
    void composedGeluSavesMore()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gpt2"},
            "precision": {"weights": "fp16", "compute": "fp16"}, "train": {"micro_batch": 2, "seq_len": 256}})");
        QCOMPARE(s.model.activation, Activation::GeluNew);
        Scenario plain = s;
        plain.model.activation = Activation::Gelu;
        const std::uint64_t composed = test::phaseBytes(estimate(s), PhaseId::Forward, C::Activations);
        const std::uint64_t single = test::phaseBytes(estimate(plain), PhaseId::Forward, C::Activations);
        QCOMPARE(composed - single, 12ull * 512 * 12'288);
        Scenario fused = s;
        fused.kernels.profile = Profile::Fused;
        Scenario fusedPlain = plain;
        fusedPlain.kernels.profile = Profile::Fused;
        QCOMPARE(test::phaseBytes(estimate(fused), PhaseId::Forward, C::Activations),
                 test::phaseBytes(estimate(fusedPlain), PhaseId::Forward, C::Activations));
    }

    // OPT's fc1 -> ReLU -> fc2: ReLU's backward reads its output, which is fc2's input, so one
    // 3,072-wide tensor is kept per token-layer where GELU keeps two (its input and its output):
    // opt-125m, 12 layers, 2 x 256 tokens, fp16: 12 x 512 x 3,072 x 2 B = 37,748,736 B less.
    // ReLU squared (Nemotron-H's relu2) keeps ReLU's output for the square and the square for the
    // down projection: two, as GELU.
    void reluKeepsOneIntermediate()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "opt-125m"},
            "precision": {"weights": "fp16", "compute": "fp16"}, "train": {"micro_batch": 2, "seq_len": 256}})");
        QCOMPARE(s.model.activation, Activation::Relu);
        QCOMPARE(s.model.layers, 12);
        QCOMPARE(s.model.intermediate, 3072);
        Scenario gelu = s;
        gelu.model.activation = Activation::Gelu;
        Scenario relu2 = s;
        relu2.model.activation = Activation::Relu2;
        const std::uint64_t relu = test::phaseBytes(estimate(s), PhaseId::Forward, C::Activations);
        const std::uint64_t two = test::phaseBytes(estimate(gelu), PhaseId::Forward, C::Activations);
        QCOMPARE(two - relu, 12ull * 512 * 3072 * 2);
        QCOMPARE(test::phaseBytes(estimate(relu2), PhaseId::Forward, C::Activations), two);
        QCOMPARE(scenarioFrom(R"({"model": {"preset": "opt-125m", "activation": "relu2"}})").model.activation,
                 Activation::Relu2);
    }

    // Legacy Hugging Face generate on GPT-2 (12 layers x 12 heads x 64, fp16), 1 sequence of 100
    // tokens: the cache is 2 x 12 x 12 x 64 x 100 x 2 B = 3,686,400 B; concatenating caches hold
    // the previous one too while decoding. Prompt logits for all 100 positions add
    // 100 x 50,257 x 2 B to the last token's 50,257 x (2 + 4) B.
    void legacyGenerate()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gpt2"}, "task": "inference",
            "precision": {"weights": "fp16", "compute": "fp16"},
            "inference": {"batch": 1, "context": 100, "kv_dtype": "fp16"}})");
        const Estimate plain = estimate(s);
        QCOMPARE(test::phaseBytes(plain, PhaseId::Decode, C::KvCache), 3'686'400ull);
        QCOMPARE(test::phaseBytes(plain, PhaseId::Prefill, C::Logits), 50'257ull * 6);
        Scenario legacy = s;
        legacy.inference.kvCache = KvCache::Concat;
        legacy.inference.promptLogits = PromptLogits::All;
        const Estimate e = estimate(legacy);
        QCOMPARE(test::phaseBytes(e, PhaseId::Prefill, C::KvCache), 3'686'400ull);
        // The first decode step holds the prefill's cache, whose K and V are views of GPT-2's
        // c_attn output (q/k/v: 1.5 caches), and the new one: 2.5 x 3,686,400 (issue 23).
        QCOMPARE(test::phaseBytes(e, PhaseId::Decode, C::KvCache), 5 * 3'686'400ull / 2);
        QCOMPARE(test::phaseBytes(e, PhaseId::Prefill, C::Logits), 50'257ull * 6 + 100ull * 50'257 * 2);
        QCOMPARE(test::phaseBytes(e, PhaseId::Decode, C::Logits), 50'257ull * 6 + 100ull * 50'257 * 2);
    }

    // An offloaded optimizer under FSDP/ZeRO-2+ takes the gradient shards to CPU RAM: the GPU
    // keeps one layer's gradients, 6,738,415,616 / 32 = 210,575,488 params x 2 B (bf16).
    void offloadedOptimizerTakesTheGradients()
    {
        const Scenario kept = scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "parallel": {"gpus": 8, "strategy": "fsdp"}})");
        Scenario offloaded = kept;
        offloaded.parallel.offloadOptimizer = true;
        const Estimate a = estimate(kept);
        const Estimate b = estimate(offloaded);
        QCOMPARE(test::phaseBytes(a, PhaseId::Optimizer, C::Gradients), 6'738'415'616ull * 2 / 8);
        QCOMPARE(test::phaseBytes(b, PhaseId::Optimizer, C::Gradients), 210'575'488ull * 2);
        QCOMPARE(test::phaseBytes(b, PhaseId::Optimizer, C::OptimizerState), 0ull);
        QVERIFY(b.hostBytes >= 6'738'415'616ull * 2 / 8 + test::phaseBytes(a, PhaseId::Optimizer, C::OptimizerState));
    }

    // FSDP shards the LoRA adapters with their blocks: (6,738,415,616 x 2 B + 16,777,216 x 4 B) / 8.
    void fsdpShardsTheAdapters()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "train": {"method": "lora"},
            "parallel": {"gpus": 8, "strategy": "fsdp"}})");
        QCOMPARE(test::phaseBytes(estimate(s), PhaseId::Load, C::Weights),
                 6'738'415'616ull * 2 / 8 + 16'777'216ull * 4 / 8);
    }

    // Example 4 (seed 003): LoRA r=16 on q, k, v, o of Llama 2 7B.
    void loraTrainable()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "train": {"method": "lora", "lora": {"rank": 16, "targets": ["q", "k", "v", "o"]}}})");
        const Estimate e = estimate(s);
        QCOMPARE(e.trainableParams, 4ull * 16 * 8192 * 32);
        QCOMPARE(e.trainableParams, 16'777'216ull);
        QCOMPARE(test::maxOverPhases(e, C::OptimizerState), 134'217'728ull); // "134 MB"
        QCOMPARE(test::maxOverPhases(e, C::Gradients), 67'108'864ull);       // "67 MB" fp32
    }

    // Example 5 (seed 000): eager attention, seq 8192, 32 heads, bf16, batch 1: 4.29 GB per layer.
    void eagerScoresPerLayer()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "task": "inference",
            "inference": {"batch": 1, "context": 8192}, "kernels": {"attention": "eager", "profile": "fused"}})");
        const Estimate e = estimate(s);
        QCOMPARE(test::phaseBytes(e, PhaseId::Prefill, C::AttentionScores), 4'294'967'296ull);
        // The Hugging Face profile keeps the fp32 softmax and a bf16 copy: 3x the textbook figure.
        Scenario hf = s;
        hf.kernels.profile = Profile::HuggingFace;
        QCOMPARE(test::phaseBytes(estimate(hf), PhaseId::Prefill, C::AttentionScores), 3 * 4'294'967'296ull);
        // Flash/SDPA never materialise the scores.
        hf.kernels.attention = Attention::Sdpa;
        QCOMPARE(test::phaseBytes(estimate(hf), PhaseId::Prefill, C::AttentionScores), 0ull);
    }

    // Example 6 (seed 000): logits at batch 4, seq 2048, vocab 128k: 1.05e9 values, bf16 and
    // fp32 at once = 2.1 + 4.2 GB.
    void logitsAtOnce()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-3-8b", "vocab": 128000},
            "train": {"micro_batch": 4, "seq_len": 2048}, "kernels": {"profile": "fused"}})");
        const Estimate e = estimate(s);
        const std::uint64_t values = 4ull * 2048 * 128000;
        QCOMPARE(values, 1'048'576'000ull);
        QCOMPARE(test::phaseBytes(e, PhaseId::Forward, C::Logits), values * 2 + values * 4);
        // A fused cross-entropy removes most of it: ceil(128000 / 4096) = 32 chunks of
        // 8192 / 32 = 256 tokens x 128,000 x 2 B, the bf16 gradient of the hidden states
        // 8192 x 4096 x 2 B, 4 B of loss per token, and the lm_head's gradient (it trains),
        // which the kernel computes in forward: 128,000 x 4096 x 2 B.
        Scenario fused = s;
        fused.kernels.loss = Loss::Fused;
        QCOMPARE(test::phaseBytes(estimate(fused), PhaseId::Forward, C::Logits),
                 256ull * 128000 * 2 + 8192ull * 4096 * 2 + 8192ull * 4 + 128000ull * 4096 * 2);
        QVERIFY(test::phaseBytes(estimate(fused), PhaseId::Forward, C::Logits) < values * 6 / 5);
    }

    // Example 7 (seed 000): batch 4, seq 2048, hidden 4096, 32 layers, bf16: 2.15 GB x c.
    void activationRuleOfThumb_data()
    {
        QTest::addColumn<double>("c");
        QTest::addColumn<qulonglong>("bytes");
        QTest::newRow("c-1") << 1.0 << 2'147'483'648ull;
        QTest::newRow("c-10") << 10.0 << 21'474'836'480ull;
        QTest::newRow("c-20") << 20.0 << 42'949'672'960ull;
        // Seed 000 says "10 to 20 GB": that is c ~ 5-10, half of its own constant.
        QTest::newRow("c-5-seed000-low") << 5.0 << 10'737'418'240ull;
    }
    void activationRuleOfThumb()
    {
        QFETCH(double, c);
        QFETCH(qulonglong, bytes);
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "train": {"method": "lora", "micro_batch": 4, "seq_len": 2048, "activation_constant": )" +
                                        std::to_string(c) + "}}");
        const Estimate e = estimate(s);
        QCOMPARE(test::phaseBytes(e, PhaseId::Forward, C::Activations), bytes);
        QVERIFY2(e.consumer(C::Activations), test::describe(e));
        QVERIFY(e.consumer(C::Activations)->formula(Unit::GB).find("x c " + formatDecimal(c)) != std::string::npos);
    }

    // The per-tensor model for the same run states its equivalent c.
    void perTensorActivationsExplainC()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "train": {"micro_batch": 4, "seq_len": 2048}, "kernels": {"profile": "fused"}})");
        const Estimate e = estimate(s);
        // Fused profile, Llama block per token: norms 2x(2h + 4 B rstd + 2h), q 2h, k 2h, v 2h,
        // out 2h, lse 4 x 32 heads, o_proj copy 2h, gate/up/product 3 x 2f.
        const std::uint64_t h = 4096, f = 11008;
        const std::uint64_t perToken = 4 * (2 * h) + 2 * 4 + 2 * h * 4 + 4 * 32 + 2 * h + 3 * 2 * f;
        const std::uint64_t tokens = 4 * 2048;
        const std::uint64_t expected = 32 * tokens * perToken + tokens * (2 * h + 2 * h);
        QCOMPARE(test::phaseBytes(e, PhaseId::Forward, C::Activations), expected);
        bool statesC = false;
        QVERIFY2(e.consumer(C::Activations), test::describe(e));
        for (const std::string &note : e.consumer(C::Activations)->assumptions)
            statesC = statesC || note.find(" B per token, so c = ") != std::string::npos;
        QVERIFY(statesC);
    }

    // Example 8 (seed 000): QLoRA 7B, seq 2048, batch 2: ~3.9 GB weights, 5-8 GB activations
    // (the article's own c ~ 6), ~1 GB logits: ~11 GB, fits a T4.
    void qloraOnT4()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "train": {"method": "qlora", "micro_batch": 2, "seq_len": 2048, "activation_constant": 6},
            "kernels": {"profile": "fused"}, "gpus": ["t4"]})");
        const Estimate e = estimate(s);
        const std::uint64_t weights = bytesOf(e, C::Weights) + bytesOf(e, C::QuantMetadata);
        QVERIFY2(weights > 3'800'000'000ull && weights < 4'000'000'000ull, test::describe(e));
        const std::uint64_t activations = test::phaseBytes(e, PhaseId::Forward, C::Activations);
        QVERIFY(activations >= 5'000'000'000ull && activations <= 8'000'000'000ull);
        const std::uint64_t logits = test::phaseBytes(e, PhaseId::Forward, C::Logits);
        QVERIFY(logits > 700'000'000ull && logits < 1'400'000'000ull);
        QVERIFY2(e.peak.deviceBytes > 10'000'000'000ull && e.peak.deviceBytes < 13'000'000'000ull,
                 test::describe(e));
        QCOMPARE(e.gpus.size(), std::size_t(1));
        QVERIFY(e.gpus[0].fits);
    }

    // Domain notes: Llama 2 7B NF4 with double quantization, embeddings/lm_head/norms 16-bit.
    void nf4DoubleQuantByHand()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "task": "inference",
            "precision": {"weights": "nf4", "double_quant": true}})");
        const Estimate e = estimate(s);
        const std::uint64_t blockMatrices = 32ull * (4 * 4096ull * 4096 + 3 * 4096ull * 11008);
        const std::uint64_t kept16 = 2 * 32000ull * 4096 + 32 * 2 * 4096ull + 4096;
        const std::uint64_t blocks = ceilDiv(blockMatrices, 64);
        QCOMPARE(bytesOf(e, C::Weights), blockMatrices / 2 + kept16 * 2);
        QCOMPARE(bytesOf(e, C::QuantMetadata), blocks + ceilDiv(blocks, 256) * 4);
        QCOMPARE(bytesOf(e, C::Weights) + bytesOf(e, C::QuantMetadata), 3'865'591'808ull); // ~3.9 GB
        // Without double quantization: one fp32 absmax per 64 weights (+0.5 bit per param).
        Scenario single = s;
        single.precision.doubleQuant = false;
        QCOMPARE(bytesOf(estimate(single), C::QuantMetadata), blocks * 4);
    }

    // KV cache per token: 2 x layers x kv_heads x head_dim x 2 B.
    void kvCachePerToken_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qulonglong>("bytes");
        QTest::newRow("llama-2-7b-512kib") << QStringLiteral("llama-2-7b") << 512ull * 1024;
        QTest::newRow("llama-3-8b-128kib") << QStringLiteral("llama-3-8b") << 128ull * 1024;
    }
    void kvCachePerToken()
    {
        QFETCH(QString, preset);
        QFETCH(qulonglong, bytes);
        const Scenario s = scenarioFrom(R"({"model": {"preset": ")" + preset.toStdString() + R"("},
            "task": "inference", "inference": {"batch": 1, "context": 1}})");
        QCOMPARE(bytesOf(estimate(s), C::KvCache), bytes);
        // Seed 002: 24 GB card, 14 GB of weights: the cache for 4 x 4096 tokens is the rest.
        const Scenario serving = scenarioFrom(R"({"model": {"preset": ")" + preset.toStdString() + R"("},
            "task": "inference", "inference": {"batch": 4, "context": 4096, "kv_dtype": "fp8"}})");
        QCOMPARE(bytesOf(estimate(serving), C::KvCache), bytes / 2 * 4 * 4096);
    }

    void consumersAddUpToThePeak()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "mistral-7b"},
            "train": {"method": "lora", "micro_batch": 2, "seq_len": 4096}, "kernels": {"attention": "eager"}})");
        const Estimate e = estimate(s);
        std::uint64_t allocated = 0;
        for (const Consumer &c : e.consumers)
            if (c.id != C::Fragmentation && c.id != C::CudaContext)
                allocated += c.bytes;
        QCOMPARE(allocated, e.peak.allocatedBytes);
        QCOMPARE(allocated + bytesOf(e, C::Fragmentation), e.peak.reservedBytes);
        QCOMPARE(e.peak.reservedBytes + bytesOf(e, C::CudaContext), e.peak.deviceBytes);
        QCOMPARE(bytesOf(e, C::CudaContext), 500ull * 1024 * 1024);
    }

    void everyConsumerExplainsItself()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "train": {"method": "qlora", "micro_batch": 2}, "kernels": {"attention": "eager"}})");
        const Estimate e = estimate(s);
        QVERIFY(e.consumers.size() >= 8);
        for (const Consumer &c : e.consumers) {
            const std::string formula = c.formula(Unit::GB);
            QVERIFY2(!c.expression.empty(), consumerKey(c.id));
            QVERIFY2(formula.find(" = ") != std::string::npos, formula.c_str());
            QVERIFY2(formula.find(" GB") != std::string::npos || formula.find(" MB") != std::string::npos,
                     formula.c_str());
        }
        // The example from the format: weights with the user's numbers plugged in.
        const Scenario bf16 = scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "task": "inference"})");
        QCOMPARE(estimate(bf16).consumer(C::Weights)->formula(Unit::GB),
                 std::string("6,738,415,616 params x 2 B (bf16) = 13.48 GB"));
        QCOMPARE(estimate(bf16).consumer(C::Weights)->formula(Unit::GiB),
                 std::string("6,738,415,616 params x 2 B (bf16) = 12.55 GiB"));
    }

    void bytesOnlyMatchesFormulas()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-3-8b"},
            "train": {"method": "lora", "micro_batch": 4, "gradient_checkpointing": "full"}})");
        const Estimate full = estimate(s, Detail::Formulas);
        const Estimate bytes = estimate(s, Detail::BytesOnly);
        QCOMPARE(full.peak, bytes.peak);
        QCOMPARE(full.phases, bytes.phases);
        QVERIFY(bytes.consumers.at(0).expression.empty());
    }

    void deterministic()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "mixtral-8x7b"},
            "train": {"method": "qlora", "micro_batch": 2}})");
        QCOMPARE(estimateToJson(estimate(s)).dump(), estimateToJson(estimate(s)).dump());
    }

    void overflowIsReportedNotWrapped()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "llama-3-8b", "heads": 65536, "kv_heads": 1},
            "train": {"micro_batch": 1048576, "seq_len": 16777216}, "kernels": {"attention": "eager"}})");
        QVERIFY_THROWS_EXCEPTION(OverflowError, estimate(s));
    }

    // The allocator slack is computed in floating point and rounded with a checked conversion:
    // std::llround returned garbage past 2^63 (reserved came out 1.06e19 for allocated
    // 1.38e18 x 9). Large but representable peaks stay exact; larger ones are out of range.
    void largeFragmentationIsExact()
    {
        const Scenario s = scenarioFrom(R"({"model": {"params": 1000000000, "hidden": 1048576, "layers": 1024},
            "train": {"method": "full", "micro_batch": 1024, "seq_len": 32768},
            "overhead": {"fragmentation": 5, "cuda_context_mib": 0}})");
        const Estimate e = estimate(s);
        QVERIFY2(e.peak.allocatedBytes > (1ull << 60), describe(e).constData());
        // 5 x allocated exactly (an integer factor: no rounding), past 2^62 bytes in all.
        QCOMPARE(e.peak.reservedBytes - e.peak.allocatedBytes, 5 * e.peak.allocatedBytes);
        QVERIFY(e.peak.deviceBytes > (1ull << 62));
    }

    void peakPast2To63IsOutOfRange()
    {
        const Scenario s = scenarioFrom(R"({"model": {"params": 1000000000, "hidden": 1048576, "layers": 1024},
            "train": {"method": "full", "micro_batch": 1024, "seq_len": 32768},
            "overhead": {"fragmentation": 10}})");
        QVERIFY_THROWS_EXCEPTION(OverflowError, estimate(s));
    }

    void optimizerInBackwardFreesGradients()
    {
        Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "train": {"micro_batch": 1}})");
        const Estimate plain = estimate(s);
        s.train.optimizerInBackward = true;
        const Estimate fused = estimate(s);
        QVERIFY(test::maxOverPhases(fused, C::Gradients) < test::maxOverPhases(plain, C::Gradients) / 10);
        QVERIFY(fused.peak.allocatedBytes < plain.peak.allocatedBytes);
    }

    void accumulationKeepsGradientsAlive()
    {
        Scenario s = scenarioFrom(R"({"model": {"preset": "llama-3.2-1b"}})");
        const Estimate once = estimate(s);
        s.train.gradAccum = 8;
        const Estimate accumulated = estimate(s);
        QCOMPARE(test::phaseBytes(once, PhaseId::Forward, C::Gradients), 0ull);
        QCOMPARE(test::phaseBytes(accumulated, PhaseId::Forward, C::Gradients),
                 test::maxOverPhases(accumulated, C::Gradients));
        // The activations do not depend on the number of micro-batches accumulated.
        QCOMPARE(test::phaseBytes(accumulated, PhaseId::Forward, C::Activations),
                 test::phaseBytes(once, PhaseId::Forward, C::Activations));
    }

    // FSDP1 flat parameters with LoRA: every block weight gets a gradient (LitGPT's FSDP).
    void flatParametersKeepGradientsForFrozenWeights()
    {
        Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-13b"},
            "train": {"method": "lora", "grad_accum": 32, "lora": {"rank": 8, "targets": ["q", "v"]}},
            "parallel": {"gpus": 4, "strategy": "fsdp", "flat_params": true}})");
        // 40 blocks x (4 x 5120^2 + 3 x 5120 x 13824) matrices + 40 x 2 norms + the final norm
        // + 40 x 2 adapters x 8 x (5120 + 5120), at 2 B, unsharded under no_sync accumulation.
        const std::uint64_t blocks = 40ull * (4ull * 5120 * 5120 + 3ull * 5120 * 13824) +
                                     40ull * 2 * 5120 + 5120 + 40ull * 2 * 8 * 10240;
        QCOMPARE(test::maxOverPhases(estimate(s), C::Gradients), blocks * 2);
        s.train.gradAccum = 1;
        QCOMPARE(test::maxOverPhases(estimate(s), C::Gradients), ceilDiv(blocks * 2, 4));
        s.parallel.flatParams = false;
        QCOMPARE(test::maxOverPhases(estimate(s), C::Gradients), 40ull * 2 * 8 * 10240 * 4 / 4);
    }

    void shardingDividesState()
    {
        Scenario s = scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "precision": {"weights": "bf16"}, "train": {"master_weights": true}})");
        const Estimate single = estimate(s);
        s.parallel.gpus = 8;
        s.parallel.strategy = Strategy::Zero3;
        const Estimate zero3 = estimate(s);
        QCOMPARE(test::maxOverPhases(zero3, C::OptimizerState),
                 ceilDiv(test::maxOverPhases(single, C::OptimizerState), 8));
        QCOMPARE(test::maxOverPhases(zero3, C::Weights), ceilDiv(test::maxOverPhases(single, C::Weights), 8));
        s.parallel.offloadOptimizer = true;
        const Estimate offloaded = estimate(s);
        QCOMPARE(test::maxOverPhases(offloaded, C::OptimizerState), 0ull);
        QVERIFY(offloaded.hostBytes >= test::maxOverPhases(zero3, C::OptimizerState));
    }
};

QTEST_GUILESS_MAIN(TestEstimator)
#include "tst_estimator.moc"
