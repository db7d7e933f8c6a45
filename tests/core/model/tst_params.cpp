// SPDX-License-Identifier: GPL-3.0-or-later
// Parameter counts derived from the architecture against published totals.
#include "model/architecture.h"
#include "scenario/catalog.h"
#include "testutil.h"

using namespace headroom;

class TestParams : public QObject
{
    Q_OBJECT
private slots:
    void publishedTotals_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qulonglong>("published");
        // Totals as published (model cards / safetensors metadata), see resources/models.json.
        QTest::newRow("llama-2-7b") << QStringLiteral("llama-2-7b") << 6'738'415'616ull;
        QTest::newRow("llama-3-8b") << QStringLiteral("llama-3-8b") << 8'030'261'248ull;
        QTest::newRow("gpt2") << QStringLiteral("gpt2") << 124'439'808ull;
        QTest::newRow("mistral-7b") << QStringLiteral("mistral-7b") << 7'241'732'096ull;
    }
    void publishedTotals()
    {
        QFETCH(QString, preset);
        QFETCH(qulonglong, published);
        const ModelPreset *model = builtinCatalog().findModel(preset.toStdString());
        QVERIFY(model);
        QCOMPARE(qulonglong(countParams(model->arch).total), published);
    }

    void gpt2ByHand()
    {
        // GPT-2 small by hand: 12 x (attention 4*768^2 + 4*768 bias, MLP 2*768*3072 + 3072 + 768,
        // two LayerNorms 2*2*768) + wte 50257*768 + wpe 1024*768 + final LayerNorm 2*768.
        const std::uint64_t layer = 4ull * 768 * 768 + 4 * 768 + 2ull * 768 * 3072 + 3072 + 768 + 4 * 768;
        const std::uint64_t expected = 12 * layer + 50257ull * 768 + 1024ull * 768 + 2 * 768;
        const Scenario s = test::scenarioFrom(R"({"model": {"layers": 12, "hidden": 768,
            "intermediate": 3072, "heads": 12, "vocab": 50257, "tied_embeddings": true,
            "mlp": "standard", "norm": "layernorm", "bias": "all", "position": "learned",
            "max_positions": 1024}})");
        QCOMPARE(countParams(s.model).total, expected);
        QCOMPARE(expected, 124'439'808ull);
    }

    void groupedQueryAttention()
    {
        // Llama 3 8B by hand: q 4096x4096, k and v 4096x1024, o 4096x4096, MLP 3x4096x14336,
        // two RMSNorms; untied embeddings of 128256 x 4096 twice; a final norm.
        const std::uint64_t layer = 2ull * 4096 * 4096 + 2ull * 4096 * 1024 + 3ull * 4096 * 14336 + 2 * 4096;
        const std::uint64_t expected = 32 * layer + 2ull * 128256 * 4096 + 4096;
        const ModelPreset *model = builtinCatalog().findModel("llama-3-8b");
        QVERIFY(model);
        QCOMPARE(countParams(model->arch).total, expected);
    }

    void overrideKeepsEmbeddings()
    {
        const Scenario s = test::scenarioFrom(
            R"({"model": {"preset": "llama-2-7b", "params": 7000000000}})");
        const ParamCounts counts = countParams(s.model);
        QCOMPARE(counts.total, 7'000'000'000ull);
        QCOMPARE(counts.embeddings, 32000ull * 4096);
        QCOMPARE(counts.lmHead, 32000ull * 4096);
        QCOMPARE(counts.blockLinear + counts.smallTensors + counts.embeddings + counts.lmHead,
                 7'000'000'000ull);
    }

    void roughModelCountsEverythingAsBlocks()
    {
        const Scenario s = test::scenarioFrom(
            R"({"model": {"params": 7000000000, "hidden": 4096, "layers": 32}})");
        QVERIFY(s.model.rough);
        const ParamCounts counts = countParams(s.model);
        QCOMPARE(counts.total, 7'000'000'000ull);
        QCOMPARE(counts.blockLinear, 7'000'000'000ull);
    }
};

QTEST_GUILESS_MAIN(TestParams)
#include "tst_params.moc"
