// SPDX-License-Identifier: GPL-3.0-or-later
// 2025-2026 architectures, each figure worked by hand from the published shapes: latent
// attention (DeepSeek-V3), MXFP4 experts and alternating sliding/global layers (gpt-oss),
// mixtures of experts (Qwen3-30B-A3B), and the parameter totals of the new catalog families.
#include "model/architecture.h"
#include "serving/kvcache.h"
#include "testutil.h"

using namespace headroom;
using test::describe;
using test::phaseBytes;
using test::scenarioFrom;
using C = ConsumerId;

class TestModern : public QObject
{
    Q_OBJECT
private slots:
    // DeepSeek-V3 caches one compressed vector (kv_lora_rank 512) and the shared rotary key
    // (qk_rope_head_dim 64) per token and layer: (512 + 64) x 61 layers x 2 B = 70,272 B in
    // bf16, 35,136 B in fp8, and the same on every tensor-parallel rank.
    void latentAttentionCachePerToken_data()
    {
        QTest::addColumn<QString>("kvDType");
        QTest::addColumn<int>("tensor");
        QTest::addColumn<qulonglong>("bytes");
        QTest::newRow("bf16") << "bf16" << 1 << qulonglong(576 * 61 * 2);
        QTest::newRow("fp8") << "fp8" << 1 << qulonglong(576 * 61);
        QTest::newRow("bf16-tp8-replicated") << "bf16" << 8 << qulonglong(576 * 61 * 2);
    }
    void latentAttentionCachePerToken()
    {
        QFETCH(QString, kvDType);
        QFETCH(int, tensor);
        QFETCH(qulonglong, bytes);
        const Scenario s = scenarioFrom(R"({"model": {"preset": "deepseek-v3"}, "task": "inference",
            "inference": {"kv_dtype": ")" + kvDType.toStdString() + R"("},
            "parallel": {"gpus": )" + std::to_string(tensor) + R"(, "tensor": )" + std::to_string(tensor) + "}}");
        QCOMPARE(kvBytesPerToken(kvLayout(s)), std::uint64_t(bytes));
    }

    // The released DeepSeek-V3 checkpoint is fp8 with a fp32 scale per 128 x 128 block; an
    // inference scenario of the preset takes that format unless it says otherwise.
    void deepseekServesItsFp8Checkpoint()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "deepseek-v3"}, "task": "inference"})");
        QCOMPARE(s.precision.weights, DType::FP8);
        QCOMPARE(s.precision.fp8Scales, WeightScales::Block);
        const Scenario bf16 = scenarioFrom(R"({"model": {"preset": "deepseek-v3"}, "task": "inference",
            "precision": {"weights": "bf16"}})");
        QCOMPARE(bf16.precision.weights, DType::BF16);
    }

    // gpt-oss-120b: 36 layers x 128 experts x (gate, up, down of 2880 x 2880) = 114,661,785,600
    // expert weights in MXFP4 (0.5 B + one 1-byte scale per 32), the other 2,167,371,072
    // parameters (attention, router, biases, sinks, embeddings, lm_head) in bf16.
    void gptOssMxfp4Weights()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gpt-oss-120b"}, "task": "inference"})");
        QCOMPARE(s.precision.weights, DType::MXFP4);
        const Estimate e = estimate(s);
        const std::uint64_t experts = 36ull * 128 * 3 * 2880 * 2880;
        QCOMPARE(experts, 114'661'785'600ull);
        QCOMPARE(e.totalParams, 116'829'156'672ull);
        const std::uint64_t rest = e.totalParams - experts;
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::Weights), experts / 2 + rest * 2);
        QCOMPARE(phaseBytes(e, PhaseId::Load, C::QuantMetadata), experts / 32);
    }

    // gpt-oss alternates sliding-window (128 tokens) and global layers: at 128k context 18
    // global layers keep 131,072 tokens and 18 local ones 128, of 2 x 8 x 64 values in bf16.
    void gptOssAlternatingWindowCache()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gpt-oss-120b"}, "task": "inference",
            "inference": {"context": 131072, "batch": 1, "kv_dtype": "bf16"}})");
        const std::uint64_t perLayerToken = 2 * 8 * 64 * 2;
        QCOMPARE(kvCacheBytes(kvLayout(s), 1, 131072), 18 * perLayerToken * 131072 + 18 * perLayerToken * 128);
        QCOMPARE(bytesOfKv(s), 18 * perLayerToken * 131072 + 18 * perLayerToken * 128);
    }

    // Gemma 2 alternates too (it was counted as all-local before): 42 layers, 21 global.
    void gemma2IsNotAllLocal()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gemma-2-9b"}, "task": "inference",
            "inference": {"context": 8192, "batch": 1, "kv_dtype": "bf16"}})");
        const std::uint64_t perLayerToken = 2ull * s.model.kvHeads * s.model.headDim * 2;
        QCOMPARE(s.model.layers, 42);
        QCOMPARE(bytesOfKv(s), 21 * perLayerToken * 8192 + 21 * perLayerToken * 4096);
    }

    // Qwen3-30B-A3B: 128 experts, 8 per token, of width 768. Total and active parameters as
    // published ("30.5B total, 3.3B activated"), stated apart.
    void qwen3MoeTotalAndActive()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "qwen3-30b-a3b"}})");
        const ParamCounts counts = countParams(s.model);
        QCOMPARE(counts.total, 30'532'122'624ull);
        // Per MoE layer: 128 experts x 3 x 2048 x 768; a token leaves out 120 of them, and the
        // 151,936 x 2048 input embedding table is a lookup (Qwen's "3.3B" counts it: 3.35B).
        QCOMPARE(counts.active, counts.total - 48ull * 120 * 3 * 2048 * 768 - 151'936ull * 2048);
        QCOMPARE(counts.active, 3'041'867'776ull);
        QCOMPARE(estimate(s).activeParams, counts.active);
    }

    // Every new catalog family rounds to its published total.
    void publishedTotals_data()
    {
        QTest::addColumn<QString>("preset");
        for (const char *id : {"qwen3-0.6b", "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b",
                               "llama-4-scout", "llama-4-maverick", "deepseek-v3", "kimi-k2", "gpt-oss-20b",
                               "gpt-oss-120b", "gemma-3-27b", "mistral-small-3.1-24b", "phi-4", "olmo-2-7b",
                               "granite-3.1-8b", "qwen3-next-80b-a3b", "glm-4.5-air", "glm-4.5",
                               "ernie-4.5-21b-a3b", "ministral-3-8b"})
            QTest::newRow(id) << QString::fromLatin1(id);
    }
    void publishedTotals()
    {
        QFETCH(QString, preset);
        const ModelPreset *model = builtinCatalog().findModel(preset.toStdString());
        QVERIFY(model);
        QVERIFY(model->publishedRounding > 0);
        const ParamCounts counts = countParams(model->arch);
        QVERIFY2(std::abs(double(counts.total) - model->publishedRounded) <= model->publishedRounding,
                 qPrintable(QString::number(counts.total) + QStringLiteral(" vs ") + QString::fromStdString(model->publishedText)));
        // Cards differ on the input embedding table: gpt-oss leaves it out of "active", Qwen and
        // DeepSeek count it. Either reading must round to the card's figure.
        const double withTable = double(counts.active + (model->arch.tiedEmbeddings ? 0 : counts.embeddings));
        if (model->publishedActiveRounded > 0)
            QVERIFY2(std::abs(double(counts.active) - model->publishedActiveRounded) <= 0.05 * model->publishedActiveRounded ||
                         std::abs(withTable - model->publishedActiveRounded) <= 0.05 * model->publishedActiveRounded,
                     qPrintable(QString::number(counts.active)));
    }

    // Latent attention and mixtures of experts train too: the inventory has their tensors.
    void deepseekTrainsPerRank()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "deepseek-v3"},
            "train": {"method": "full", "micro_batch": 1, "seq_len": 4096, "gradient_checkpointing": "full"},
            "parallel": {"gpus": 256, "strategy": "fsdp", "expert": 64}})");
        const Estimate e = estimate(s);
        // Routed experts split over 64 expert ranks before FSDP shards what is left over the
        // 256 / 64 = 4 ranks of each expert: the weights are far below a replica's.
        QVERIFY2(phaseBytes(e, PhaseId::Load, C::Weights) < e.totalParams * 2 / 200, describe(e).constData());
        QVERIFY(e.activeParams < e.totalParams / 10);
    }

private:
    static std::uint64_t bytesOfKv(const Scenario &s)
    {
        return phaseBytes(estimate(s), PhaseId::Prefill, C::KvCache);
    }
};

QTEST_APPLESS_MAIN(TestModern)
#include "tst_modern.moc"
