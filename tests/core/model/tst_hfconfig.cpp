// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face config.json import: one public config per family maps to the right
// architecture and exactly the published parameter total; incomplete configs list what is
// missing; `model.config` in a scenario reads through a resolver and round-trips. Checkpoints
// with more than a language model (vision towers, multi-token prediction, hybrid stacks):
// tst_hfcheckpoints.
#include "model/architecture.h"
#include "scenario/catalog.h"
#include "model/hfconfig.h"
#include "configfixture.h"
#include "testutil.h"

#include <algorithm>

using namespace headroom;
using nlohmann::json;

namespace {

json fixture(const QString &name) { return test::configFixture(name); }

json fixture(const QByteArray &name) { return fixture(QString::fromUtf8(name)); }

QByteArray describe(const ModelArch &arch) { return test::describeModel(arch); }

/// A Llama 2 7B config with some keys changed or removed (null removes).
json llamaWith(const json &changes)
{
    json config = fixture(QStringLiteral("llama-2-7b.json"));
    for (const auto &item : changes.items()) {
        if (item.value().is_null())
            config.erase(item.key());
        else
            config[item.key()] = item.value();
    }
    return config;
}

} // namespace

class TestHfConfig : public QObject
{
    Q_OBJECT
private slots:
    void catalogModels_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QByteArray>("preset");
        QTest::newRow("llama-2-7b") << QByteArray("llama-2-7b.json") << QByteArray("llama-2-7b");
        QTest::newRow("tinyllama-1.1b-gqa") << QByteArray("tinyllama-1.1b.json") << QByteArray("tinyllama-1.1b");
        QTest::newRow("llama-3.1-8b-rope-scaling") << QByteArray("llama-3.1-8b.json") << QByteArray("llama-3.1-8b");
        QTest::newRow("llama-3.2-1b-tied-head-dim") << QByteArray("llama-3.2-1b.json") << QByteArray("llama-3.2-1b");
        QTest::newRow("mistral-7b-sliding-window") << QByteArray("mistral-7b-v0.1.json") << QByteArray("mistral-7b");
        QTest::newRow("mistral-7b-v0.3-null-window") << QByteArray("mistral-7b-v0.3.json") << QByteArray("mistral-7b-v0.3");
        QTest::newRow("mixtral-8x7b-moe") << QByteArray("mixtral-8x7b.json") << QByteArray("mixtral-8x7b");
        QTest::newRow("qwen2.5-0.5b-qkv-bias-tied") << QByteArray("qwen2.5-0.5b.json") << QByteArray("qwen2.5-0.5b");
        QTest::newRow("qwen2.5-7b") << QByteArray("qwen2.5-7b.json") << QByteArray("qwen2.5-7b");
        QTest::newRow("gemma-2b-mqa-default-tied") << QByteArray("gemma-2b.json") << QByteArray("gemma-2b");
        QTest::newRow("gemma-2-9b-four-norms") << QByteArray("gemma-2-9b.json") << QByteArray("gemma-2-9b");
        QTest::newRow("phi-3-mini") << QByteArray("phi-3-mini-4k.json") << QByteArray("phi-3-mini");
        QTest::newRow("gpt2-learned-positions") << QByteArray("gpt2.json") << QByteArray("gpt2");
        QTest::newRow("pythia-160m-gpt-neox") << QByteArray("pythia-160m.json") << QByteArray("pythia-160m");
        QTest::newRow("falcon-7b-multi-query") << QByteArray("falcon-7b.json") << QByteArray("falcon-7b");
        QTest::newRow("falcon-7b-refinedwebmodel") << QByteArray("falcon-7b-refinedwebmodel.json") << QByteArray("falcon-7b");
        QTest::newRow("falcon-40b-refinedweb") << QByteArray("falcon-40b-refinedweb.json") << QByteArray("falcon-40b");
        QTest::newRow("opt-125m") << QByteArray("opt-125m.json") << QByteArray("opt-125m");
        QTest::newRow("qwen3-8b-qk-norm") << QByteArray("qwen3-8b.json") << QByteArray("qwen3-8b");
        QTest::newRow("qwen3-30b-a3b-moe") << QByteArray("qwen3-30b-a3b.json") << QByteArray("qwen3-30b-a3b");
        QTest::newRow("deepseek-r1-latent-attention") << QByteArray("deepseek-r1.json") << QByteArray("deepseek-v3");
        QTest::newRow("gpt-oss-20b-sinks-alternating") << QByteArray("gpt-oss-20b.json") << QByteArray("gpt-oss-20b");
        QTest::newRow("minimax-m2-experts-qk-norm") << QByteArray("minimax-m2.json") << QByteArray("minimax-m2");
        QTest::newRow("smollm3-3b-tied") << QByteArray("smollm3-3b.json") << QByteArray("smollm3-3b");
        QTest::newRow("granite-4.0-micro-attention-only") << QByteArray("granite-4.0-micro.json") << QByteArray("granite-4.0-micro");
        QTest::newRow("llama-4-maverick-text-config") << QByteArray("llama-4-maverick.json") << QByteArray("llama-4-maverick");
        // The 2025-26 presets (their checkpoints' totals and the hand counts: tst_hfcheckpoints,
        // tst_morefamilies; Ministral 3's language model: tst_hfcheckpoints visionLanguageTextModels).
        QTest::newRow("qwen3-next-80b-a3b-gated-deltanet") << QByteArray("qwen3-next-80b-a3b.json") << QByteArray("qwen3-next-80b-a3b");
        QTest::newRow("glm-4.5-air-qkv-bias-moe") << QByteArray("glm-4.5-air.json") << QByteArray("glm-4.5-air");
        QTest::newRow("glm-4.5-qk-norm-moe") << QByteArray("glm-4.5.json") << QByteArray("glm-4.5");
        QTest::newRow("ernie-4.5-21b-a3b-moe") << QByteArray("ernie-4.5-21b-a3b.json") << QByteArray("ernie-4.5-21b-a3b");
        QTest::newRow("deepseek-v3.2-indexer") << QByteArray("deepseek-v3.2.json") << QByteArray("deepseek-v3.2");
    }
    void catalogModels()
    {
        QFETCH(QByteArray, file);
        QFETCH(QByteArray, preset);
        const ModelPreset *model = builtinCatalog().findModel(preset.toStdString());
        QVERIFY(model);
        const HfImport imported = importHfConfig(fixture(file));
        ModelArch expected = model->arch;
        expected.preset.clear();
        QVERIFY2(imported.arch == expected,
                 describe(imported.arch) + "\nexpected\n" + describe(expected));
        QCOMPARE(countParams(imported.arch).total, model->publishedParams);
    }

    void modelsOutsideTheCatalog_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<quint64>("published");
        QTest::newRow("llama-1-7b-no-kv-heads") << QByteArray("llama-1-7b.json") << quint64(6'738'415'616);
        QTest::newRow("opt-350m-projection-post-norm") << QByteArray("opt-350m.json") << quint64(331'196'416);
        QTest::newRow("bert-base-uncased") << QByteArray("bert-base-uncased.json") << quint64(109'482'240);
        // MiniMax-M2: 62 layers of q, o 3072 x 6144, k, v 3072 x 1024, q/k norms over the
        // projections 6144 + 1024, 256 experts of 3 x 3072 x 1536, router 3072 x 256 and its
        // correction bias 256, two norms: 3,668,718,848; embeddings and head 2 x 200,064 x 3072,
        // final norm: 228,689,764,864 (llama.cpp's model_n_params for the GGUF; the Hub's total).
        QTest::newRow("minimax-m2") << QByteArray("minimax-m2.json") << quint64(228'689'764'864);
        // SmolLM3-3B: 36 layers of q, o 2048^2, k, v 2048 x 512, MLP 3 x 2048 x 11,008, two norms
        // (78,123,008), tied embeddings 128,256 x 2048, final norm: 3,075,098,624 (the Hub API's
        // safetensors total for HuggingFaceTB/SmolLM3-3B, quoted in a model survey).
        QTest::newRow("smollm3-3b") << QByteArray("smollm3-3b.json") << quint64(3'075'098'624);
        // NVIDIA-Nemotron-Nano-9B-v2 (nemotron_h, 56 layers: 27 Mamba-2 of 128 heads of 80 with 8
        // groups of d_state 128, 4 attention, 25 relu2 MLPs of 15,680, hidden 4480, untied):
        // 8,888,227,328, the published total (a model list's entry); its time_step_limit holds
        // Python's Infinity, which the fixture keeps.
        QTest::newRow("nemotron-nano-9b-v2") << QByteArray("nemotron-nano-9b-v2.json") << quint64(8'888'227'328);
    }
    void modelsOutsideTheCatalog()
    {
        QFETCH(QByteArray, file);
        QFETCH(quint64, published);
        const HfImport imported = importHfConfig(fixture(file));
        QCOMPARE(countParams(imported.arch).total, published);
        QVERIFY(!imported.arch.rough);
        // Nemotron-H's MLP is ReLU squared (two saved tensors), not ReLU (one).
        if (file == "nemotron-nano-9b-v2.json")
            QCOMPARE(imported.arch.activation, Activation::Relu2);
    }

    void bertIsApproximatedAndSaysSo()
    {
        const HfImport bert = importHfConfig(fixture(QStringLiteral("bert-base-uncased.json")));
        QCOMPARE(bert.modelType, std::string("bert"));
        QCOMPARE(bert.arch.position, Position::Learned);
        QCOMPARE(bert.arch.maxPositions, 512);
        QCOMPARE(bert.arch.bias, Bias::All);
        QVERIFY(bert.arch.tiedEmbeddings);
        QVERIFY(bert.arch.params); // token types and pooler are outside ModelArch
        QCOMPARE(*bert.arch.params - countParams([&] {
                     ModelArch a = bert.arch;
                     a.params.reset();
                     return a;
                 }()).derived,
                 std::uint64_t(2 * 768 + 768 * 768 + 768));
        QCOMPARE(bert.notes.size(), std::size_t(1));
    }

    void familyDefaults()
    {
        // Tied embeddings default differently per family when the key is absent.
        json gemma = fixture(QStringLiteral("gemma-2b.json"));
        QVERIFY(!gemma.contains("tie_word_embeddings"));
        QVERIFY(importHfConfig(gemma).arch.tiedEmbeddings);
        QVERIFY(importHfConfig(fixture(QStringLiteral("gpt2.json"))).arch.tiedEmbeddings);
        QVERIFY(!importHfConfig(llamaWith({{"tie_word_embeddings", nullptr}})).arch.tiedEmbeddings);
        json neox = fixture(QStringLiteral("pythia-160m.json"));
        neox.erase("tie_word_embeddings");
        QVERIFY(!importHfConfig(neox).arch.tiedEmbeddings);

        // Mistral: an absent sliding_window is MistralConfig's 4096, null is none.
        json mistral = fixture(QStringLiteral("mistral-7b-v0.3.json"));
        QCOMPARE(importHfConfig(mistral).arch.slidingWindow, 0);
        mistral.erase("sliding_window");
        QCOMPARE(importHfConfig(mistral).arch.slidingWindow, 4096);

        // Qwen2's window applies only with use_sliding_window.
        json qwen = fixture(QStringLiteral("qwen2.5-7b.json"));
        qwen["use_sliding_window"] = true;
        qwen["sliding_window"] = 4096;
        const HfImport windowed = importHfConfig(qwen);
        QCOMPARE(windowed.arch.slidingWindow, 4096);
        QCOMPARE(windowed.notes.size(), std::size_t(1));

        // Falcon: multi_query wins over num_kv_heads in the old block; GPT-2's n_inner null is 4h.
        QCOMPARE(importHfConfig(fixture(QStringLiteral("falcon-7b.json"))).arch.kvHeads, 1);
        json gpt2 = fixture(QStringLiteral("gpt2.json"));
        gpt2["n_inner"] = nullptr;
        QCOMPARE(importHfConfig(gpt2).arch.intermediate, 3072);
    }

    void headDimAndBiasVariants()
    {
        // Mistral NeMo style: head_dim is not hidden / heads.
        const HfImport nemo = importHfConfig(
            llamaWith({{"hidden_size", 5120}, {"num_attention_heads", 32}, {"head_dim", 128},
                       {"num_key_value_heads", 8}}));
        QCOMPARE(nemo.arch.headDim, 128);
        QCOMPARE(matrixShapes(nemo.arch).at(0).outFeatures, std::uint64_t(32 * 128));

        const std::uint64_t base = countParams(importHfConfig(llamaWith({})).arch).total;
        const ModelArch attentionBias = importHfConfig(llamaWith({{"attention_bias", true}})).arch;
        QCOMPARE(attentionBias.bias, Bias::Qkv);
        QCOMPARE(countParams(attentionBias).total, base + 32ull * 4 * 4096);
        const ModelArch allBias =
            importHfConfig(llamaWith({{"attention_bias", true}, {"mlp_bias", true}})).arch;
        QCOMPARE(allBias.bias, Bias::All);
        QCOMPARE(countParams(allBias).total, base + 32ull * (4 * 4096 + 2 * 11008 + 4096));
        const ModelArch mlpBias = importHfConfig(llamaWith({{"mlp_bias", true}})).arch;
        QCOMPARE(countParams(mlpBias).total, base + 32ull * (2 * 11008 + 4096));
    }

    void errorsListWhatIsMissing_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QByteArrayList>("missing");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("unknown-model-type")
            << QByteArray(R"({"model_type": "t6", "d_model": 512})") << QByteArrayList{"model_type"}
            << QByteArray("unknown model_type \"t6\"");
        QTest::newRow("not-a-decoder")
            << QByteArray(R"({"model_type": "t5", "d_model": 512})") << QByteArrayList{"model_type"}
            << QByteArray("model_type \"t5\" is not a decoder LM");
        QTest::newRow("no-model-type") << QByteArray(R"({"hidden_size": 512})")
                                       << QByteArrayList{"model_type"} << QByteArray("no model_type");
        QTest::newRow("llama-missing-two")
            << QByteArray(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
                              "num_attention_heads": 32})")
            << QByteArrayList{"num_hidden_layers", "vocab_size"} << QByteArray("lacks num_hidden_layers, vocab_size");
        QTest::newRow("gpt2-missing-n-embd")
            << QByteArray(R"({"model_type": "gpt2", "n_layer": 12, "n_head": 12, "vocab_size": 50257})")
            << QByteArrayList{"n_embd"} << QByteArray("n_embd");
        QTest::newRow("not-json") << QByteArray("{\"model_type\": ") << QByteArrayList() << QByteArray("not valid JSON");
        QTest::newRow("wrong-type")
            << QByteArray(R"({"model_type": "llama", "num_hidden_layers": "32", "hidden_size": 4096,
                              "intermediate_size": 11008, "num_attention_heads": 32, "vocab_size": 32000})")
            << QByteArrayList() << QByteArray("num_hidden_layers must be a whole number");
        QTest::newRow("kv-heads-do-not-divide")
            << QByteArray(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 4096,
                              "intermediate_size": 11008, "num_attention_heads": 32,
                              "num_key_value_heads": 5, "vocab_size": 32000})")
            << QByteArrayList() << QByteArray("must divide num_attention_heads");
        QTest::newRow("duplicate-key")
            << QByteArray(R"({"model_type": "llama", "num_hidden_layers": 2, "num_hidden_layers": 32})")
            << QByteArrayList() << QByteArray("num_hidden_layers: appears twice");
        QTest::newRow("nested-too-deep")
            << QByteArray("{\"model_type\": \"llama\", \"rope_scaling\": " + QByteArray(100, '[') +
                          QByteArray(100, ']') + "}")
            << QByteArrayList() << QByteArray("rope_scaling[0]");
        // Issue 29: a model_type or text_config of the wrong type names the key and the type (a
        // non-string model_type beside text_config gave "an unexpected error; please report it").
        QTest::newRow("model-type-number-beside-text-config")
            << QByteArray(R"({"model_type": 5, "text_config": {"hidden_size": 4096}})") << QByteArrayList()
            << QByteArray("config.json: model_type must be a string (got 5)");
        QTest::newRow("model-type-list")
            << QByteArray(R"({"model_type": ["llama"], "hidden_size": 4096})") << QByteArrayList()
            << QByteArray("model_type must be a string (got [\"llama\"])");
        QTest::newRow("text-config-model-type-number")
            << QByteArray(R"({"model_type": "llava", "text_config": {"model_type": 7}})") << QByteArrayList()
            << QByteArray("text_config.model_type must be a string (got 7)");
        QTest::newRow("text-config-number")
            << QByteArray(R"({"model_type": "llama", "text_config": 5})") << QByteArrayList()
            << QByteArray("text_config must be an object (got 5)");
        QTest::newRow("head-dim-needed")
            << QByteArray(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 4000,
                              "intermediate_size": 11008, "num_attention_heads": 48, "vocab_size": 32000})")
            << QByteArrayList() << QByteArray("head_dim is needed");
    }
    void errorsListWhatIsMissing()
    {
        QFETCH(QByteArray, config);
        QFETCH(QByteArrayList, missing);
        QFETCH(QByteArray, mentions);
        try {
            importHfConfig(std::string_view(config.constData(), std::size_t(config.size())));
            QFAIL("imported a config it should reject");
        } catch (const HfConfigError &error) {
            QVERIFY2(QByteArray(error.what()).contains(mentions), error.what());
            QByteArrayList fields;
            for (const auto &field : error.missingFields)
                fields << QByteArray::fromStdString(field);
            QCOMPARE(fields, missing);
        }
    }

    void ropeScalingOfAnyShapeIsOnlyANote()
    {
        // A numeric rope_type made nlohmann's value() throw a type_error that reached the user.
        for (const json &scaling : {json{{"rope_type", 3}}, json{{"type", nullptr}, {"factor", 8}}}) {
            const HfImport import = importHfConfig(llamaWith({{"rope_scaling", scaling}}));
            QCOMPARE(countParams(import.arch).total, 6'738'415'616ull);
            QVERIFY(!import.notes.empty());
            QVERIFY2(import.notes.back().find("rope_scaling (untyped)") == 0, import.notes.back().c_str());
        }
    }

    void missingFieldsCanBeFilledIn()
    {
        json config = llamaWith({{"num_hidden_layers", nullptr}});
        try {
            importHfConfig(config);
            QFAIL("imported without num_hidden_layers");
        } catch (const HfConfigError &error) {
            for (const auto &field : error.missingFields)
                config[field] = 32; // what the window does with the user's answers
        }
        QCOMPARE(countParams(importHfConfig(config).arch).total, 6'738'415'616ull);
    }

    void scenarioReadsConfigThroughResolver()
    {
        std::string asked;
        const ConfigResolver resolver = [&](const std::string &path) {
            asked = path;
            return fixture(QStringLiteral("mixtral-8x7b.json"));
        };
        const json doc = json::parse(R"({"format": "headroom-scenario", "version": 1,
            "model": {"config": "weights/config.json", "layers": 4, "experts_per_token": 1}})");
        const Scenario s = scenarioFromJson(doc, builtinCatalog(), resolver);
        QCOMPARE(asked, std::string("weights/config.json"));
        QCOMPARE(s.model.config, std::string("weights/config.json"));
        QCOMPARE(s.model.experts, 8);
        QCOMPARE(s.model.expertsPerToken, 1); // explicit keys override the config
        QCOMPARE(s.model.layers, 4);
        QVERIFY(s.model.preset.empty());

        // Round trip, with and without a resolver: every architecture key is written out.
        const json written = scenarioToJson(s);
        QCOMPARE(written.at("model").at("config").get<std::string>(), std::string("weights/config.json"));
        QCOMPARE(scenarioFromJson(written, builtinCatalog(), resolver), s);
        QCOMPARE(scenarioFromJson(written), s);
    }

    void scenarioKeepsExactCountWhenOverridden()
    {
        const ConfigResolver resolver = [](const std::string &) {
            return fixture(QStringLiteral("bert-base-uncased.json"));
        };
        const Scenario bert = scenarioFromJson(
            json::parse(R"({"format": "headroom-scenario", "version": 1,
                "model": {"config": "c.json"}})"),
            builtinCatalog(), resolver);
        QCOMPARE(countParams(bert.model).total, 109'482'240ull);
        const Scenario fewer = scenarioFromJson(
            json::parse(R"({"format": "headroom-scenario", "version": 1,
                "model": {"config": "c.json", "layers": 6}})"),
            builtinCatalog(), resolver);
        QCOMPARE(countParams(fewer.model).total, 109'482'240ull - 6ull * 7'087'872);
        QCOMPARE(scenarioFromJson(scenarioToJson(fewer), builtinCatalog(), resolver), fewer);
    }

    void scenarioConfigErrors_data()
    {
        QTest::addColumn<QByteArray>("model");
        QTest::addColumn<bool>("withResolver");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("no-resolver-incomplete")
            << QByteArray(R"({"config": "c.json"})") << false << QByteArray("model.config: cannot be read here");
        QTest::newRow("with-preset") << QByteArray(R"({"config": "c.json", "preset": "gpt2"})") << true
                                     << QByteArray("either model.preset or model.config");
        QTest::newRow("not-a-string") << QByteArray(R"({"config": 3})") << true
                                      << QByteArray("model.config: must be a string");
        QTest::newRow("bad-config") << QByteArray(R"({"config": "t5.json"})") << true
                                    << QByteArray("model.config: t5.json: config.json: model_type \"t5\" is not a decoder LM");
    }
    void scenarioConfigErrors()
    {
        QFETCH(QByteArray, model);
        QFETCH(bool, withResolver);
        QFETCH(QByteArray, mentions);
        const ConfigResolver resolver = [](const std::string &path) {
            return path == "t5.json" ? json::parse(R"({"model_type": "t5"})")
                                     : fixture(QStringLiteral("gpt2.json"));
        };
        json doc = {{"format", "headroom-scenario"}, {"version", 1}};
        doc["model"] = json::parse(model.toStdString());
        try {
            scenarioFromJson(doc, builtinCatalog(), withResolver ? resolver : ConfigResolver{});
            QFAIL("accepted a bad model.config");
        } catch (const ScenarioError &error) {
            QVERIFY2(QByteArray(error.what()).contains(mentions), error.what());
            QCOMPARE(error.key, std::string("model.config"));
        }
    }

    void supportedTypesAreListed()
    {
        const auto &types = supportedHfModelTypes();
        for (const char *type : {"llama", "mistral", "mixtral", "qwen2", "gemma", "gemma2", "phi3",
                                 "gpt2", "gpt_neox", "falcon", "RefinedWeb", "RefinedWebModel",
                                 "opt", "bert"})
            QVERIFY2(std::find(types.begin(), types.end(), type) != types.end(), type);
    }
};

QTEST_GUILESS_MAIN(TestHfConfig)
#include "tst_hfconfig.moc"
