// SPDX-License-Identifier: GPL-3.0-or-later
// The model_type audit (issue 24, "Done when"): every type of the Transformers release's
// CONFIG_MAPPING_NAMES, listed with its commit in tests/data/configs/transformers-model-types.txt,
// is read (a fixture or a test of that type exists and imports), or refused with an error that
// names the type and what is missing, or refused as not a decoder LM. A refused type given a
// complete Llama config is still refused: no type is read as its nearest relative.
#include "model/architecture.h"
#include "model/hfconfig.h"
#include "scenario/catalog.h"
#include "testutil.h"

#include <QFile>

#include <algorithm>

using namespace headroom;
using nlohmann::json;

namespace {

QByteArray readSource(const QString &relative)
{
    QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/") + relative);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

json fixture(const QString &name)
{
    const QByteArray text = readSource(QStringLiteral("tests/data/configs/") + name);
    if (text.isEmpty())
        return json();
    return json::parse(pythonJsonToJson(text.toStdString()), nullptr, false);
}

struct Entry
{
    std::string type;
    std::string kind;
    std::string evidence;
};

std::vector<Entry> auditList()
{
    std::vector<Entry> list;
    const QByteArray text = readSource(QStringLiteral("tests/data/configs/transformers-model-types.txt"));
    for (const QByteArray &line : text.split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const QList<QByteArray> fields = line.split('\t');
        list.push_back({fields.value(0).toStdString(), fields.value(1).toStdString(), fields.value(2).toStdString()});
    }
    return list;
}

/// A complete Llama-shaped config under another model_type.
json llamaShaped(const std::string &type)
{
    return {{"model_type", type},        {"hidden_size", 64},     {"intermediate_size", 128},
            {"num_hidden_layers", 2},    {"num_attention_heads", 4}, {"num_key_value_heads", 2},
            {"vocab_size", 100},         {"n_embd", 64},          {"n_layer", 2},
            {"n_head", 4},               {"max_position_embeddings", 128}};
}

std::string refusal(const json &config, std::string *type = nullptr)
{
    try {
        importHfConfig(config);
    } catch (const HfConfigError &error) {
        if (type)
            *type = error.modelType;
        return error.what();
    }
    return "";
}

bool declaresType(const json &config, const std::string &type)
{
    const auto typeAt = [&](const json &where) {
        return where.is_object() && where.contains("model_type") && where["model_type"] == type;
    };
    return typeAt(config) || (config.is_object() && config.contains("text_config") && typeAt(config["text_config"]));
}

// Tiny configs counted by hand from the modeling code (hidden 8, 1 layer, 2 heads of 4, vocab 10).
const json kTiny = {{"hidden_size", 8}, {"num_hidden_layers", 1}, {"num_attention_heads", 2},
                    {"num_key_value_heads", 2}, {"intermediate_size", 16}, {"vocab_size", 10}};

json tiny(const std::string &type, const json &extra = json::object())
{
    json config = kTiny;
    config["model_type"] = type;
    config.update(extra);
    return config;
}

} // namespace

class TestModelTypes : public QObject
{
    Q_OBJECT

  private slots:
    void listIsTheRelease()
    {
        const std::vector<Entry> list = auditList();
        QCOMPARE(int(list.size()), 420);
        QVERIFY(readSource(QStringLiteral("tests/data/configs/transformers-model-types.txt"))
                    .contains("001002320fa01a489bb9b93976a7e4cd1a46291c"));
        for (const Entry &entry : list)
            QVERIFY2(entry.kind == "read" || entry.kind == "refused" || entry.kind == "not-decoder",
                     (entry.type + " " + entry.kind).c_str());
        // Every type the importer reads that the release names is marked read.
        for (const std::string &type : supportedHfModelTypes()) {
            const auto it = std::find_if(list.begin(), list.end(),
                                         [&](const Entry &e) { return e.type == type; });
            if (it != list.end())
                QVERIFY2(it->kind == "read", type.c_str());
        }
    }

    void everyTypeIsReadOrRefused_data()
    {
        QTest::addColumn<QByteArray>("type");
        QTest::addColumn<QByteArray>("kind");
        QTest::addColumn<QByteArray>("evidence");
        for (const Entry &entry : auditList())
            QTest::newRow(entry.type.c_str()) << QByteArray::fromStdString(entry.type) << QByteArray::fromStdString(entry.kind)
                                              << QByteArray::fromStdString(entry.evidence);
    }
    void everyTypeIsReadOrRefused()
    {
        QFETCH(QByteArray, type);
        QFETCH(QByteArray, kind);
        QFETCH(QByteArray, evidence);
        const std::string name = type.toStdString();
        if (kind == "read") {
            const qsizetype colon = evidence.indexOf(':');
            const QByteArray how = evidence.left(colon);
            const QString what = QString::fromUtf8(evidence.mid(colon + 1));
            if (how == "fixture") {
                const json config = fixture(what);
                QVERIFY2(declaresType(config, name), qPrintable(what));
                QVERIFY2(countParams(importHfConfig(config).arch).total > 0, qPrintable(what));
            } else if (how == "same") {
                // The type's class is the tested family's: the fixture reads the same under it.
                json config = fixture(what);
                QVERIFY2(config.is_object(), qPrintable(what));
                const std::uint64_t tested = countParams(importHfConfig(config).arch).total;
                json &target = config.contains("text_config") ? config["text_config"] : config;
                target["model_type"] = name;
                const HfImport renamed = importHfConfig(config);
                QCOMPARE(renamed.modelType, name);
                QCOMPARE(countParams(renamed.arch).total, tested);
            } else {
                QCOMPARE(how, QByteArray("suite"));
                QByteArray source;
                for (const char *folder : {"tests/core/", "tests/core/model/", "tests/core/serving/", "tests/core/training/"})
                    if (source.isEmpty())
                        source = readSource(QLatin1String(folder) + what + QStringLiteral(".cpp"));
                QVERIFY2(source.contains(QByteArray("\"model_type\", \"") + type + '"') ||
                             source.contains(QByteArray("\"model_type\": \"") + type + '"') ||
                             source.contains(QByteArray("tiny(\"") + type + '"'),
                         qPrintable(what));
                QVERIFY(std::find(supportedHfModelTypes().begin(), supportedHfModelTypes().end(), name) !=
                        supportedHfModelTypes().end());
            }
            return;
        }
        // Refused even when every Llama key is there: never read as the nearest family.
        std::string refusedType;
        const QString error = QString::fromStdString(refusal(llamaShaped(name), &refusedType));
        QVERIFY2(!error.isEmpty(), (name + " was read").c_str());
        QCOMPARE(refusedType, name);
        QVERIFY2(error.contains(QString::fromStdString("model_type \"" + name + "\"")), qPrintable(error));
        if (kind == "refused") {
            const qsizetype at = error.indexOf(QStringLiteral("is known but not modelled: "));
            QVERIFY2(at > 0, qPrintable(error));
            // What is missing follows, in words (at least a few).
            QVERIFY2(error.mid(at + 27).split(QLatin1Char(' ')).size() >= 4, qPrintable(error));
        } else {
            QVERIFY2(error.contains(QStringLiteral("is not a decoder LM")), qPrintable(error));
        }
    }

    // A type in no table (a future family, a typo) is refused as unknown, never read as Llama.
    void unknownTypeIsNotLlama()
    {
        for (const char *type : {"llama5", "Llama", "qwen4", ""}) {
            std::string refusedType;
            const std::string error = refusal(llamaShaped(type), &refusedType);
            QVERIFY2(!error.empty(), type);
            QVERIFY2(QString::fromStdString(error).contains(
                         *type ? QStringLiteral("unknown model_type") : QStringLiteral("no model_type")),
                     error.c_str());
        }
    }

    // The 2025-26 presets added with the audit describe the same layers as their config.json.
    void presetsMatchTheirConfigs_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("config");
        QTest::newRow("hunyuan-a13b") << QStringLiteral("hunyuan-a13b") << QStringLiteral("hunyuan-a13b.json");
        QTest::newRow("kimi-linear") << QStringLiteral("kimi-linear-48b-a3b") << QStringLiteral("kimi-linear-48b-a3b.json");
        QTest::newRow("nemotron-nano") << QStringLiteral("nemotron-nano-9b-v2") << QStringLiteral("nemotron-nano-9b-v2.json");
        QTest::newRow("jamba-1.5-mini") << QStringLiteral("jamba-1.5-mini") << QStringLiteral("jamba-1.5-mini.json");
    }
    void presetsMatchTheirConfigs()
    {
        QFETCH(QString, preset);
        QFETCH(QString, config);
        const ModelPreset *model = builtinCatalog().findModel(preset.toStdString());
        QVERIFY(model);
        const ModelArch imported = importHfConfig(fixture(config)).arch;
        const ModelArch &arch = model->arch;
        QCOMPARE(arch.layers, imported.layers);
        for (int layer = 0; layer < arch.layers; ++layer) {
            QVERIFY2(arch.layerKind(layer) == imported.layerKind(layer), qPrintable(QString::number(layer)));
            QVERIFY2(arch.layerMlp(layer) == imported.layerMlp(layer), qPrintable(QString::number(layer)));
        }
        QVERIFY(arch.linear == imported.linear);
        QCOMPARE(arch.activation, imported.activation);
        QCOMPARE(arch.qkNorm, imported.qkNorm);
        QCOMPARE(countParams(arch).total, countParams(imported).total);
        QCOMPARE(countParams(arch).active, countParams(imported).active);
        QCOMPARE(countParams(arch).total, model->publishedParams);
    }

    // Ministral's layer_types: absent, every layer slides (4096 unless null); given, layer by layer.
    void ministralWindows()
    {
        const ModelArch plain = importHfConfig(tiny("ministral", {{"num_hidden_layers", 2}})).arch;
        QCOMPARE(plain.slidingWindow, 4096);
        QVERIFY(plain.isSlidingLayer(0) && plain.isSlidingLayer(1));
        const ModelArch none = importHfConfig(tiny("ministral", {{"num_hidden_layers", 2}, {"sliding_window", nullptr}})).arch;
        QCOMPARE(none.slidingWindow, 0);
        const ModelArch mixed =
            importHfConfig(tiny("ministral", {{"num_hidden_layers", 2}, {"sliding_window", 32768},
                                              {"layer_types", {"sliding_attention", "full_attention"}}}))
                .arch;
        QCOMPARE(mixed.slidingWindow, 32768);
        QVERIFY(mixed.isSlidingLayer(0));
        QVERIFY(!mixed.isSlidingLayer(1));
        const ModelArch windowed = importHfConfig(tiny("starcoder2", {{"sliding_window", 4096}})).arch;
        QCOMPARE(windowed.slidingWindow, 4096);
        QCOMPARE(importHfConfig(tiny("starcoder2", {{"use_bias", false}})).arch.bias, Bias::None);
    }

    // The types added by the audit and the read types without a fixture, counted by hand.
    void handCounts_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<quint64>("params");
        QTest::addColumn<int>("kvHeads");
        // GPTBigCode (modeling_gpt_bigcode.py): wte 10 x 8, wpe 6 x 8; per layer ln_1 and ln_2
        // (8 + 8 each), c_attn 8 -> 8 + 2 x 4 (one K and one V head: multi_query) with bias,
        // c_proj 8 x 8 + 8, c_fc 8 x 16 + 16, mlp c_proj 16 x 8 + 8; ln_f 16; lm_head tied.
        QTest::newRow("gpt_bigcode")
            << QByteArray(R"({"model_type": "gpt_bigcode", "n_embd": 8, "n_layer": 1, "n_head": 2,
                              "n_inner": 16, "n_positions": 6, "vocab_size": 10, "multi_query": true})")
            << quint64(80 + 48 + 16 + (8 * 16 + 16) + (64 + 8) + 16 + (8 * 16 + 16) + (16 * 8 + 8) + 16) << 1;
        QTest::newRow("gpt_bigcode-multi-head")
            << QByteArray(R"({"model_type": "gpt_bigcode", "n_embd": 8, "n_layer": 1, "n_head": 2,
                              "n_inner": 16, "n_positions": 6, "vocab_size": 10, "multi_query": false})")
            << quint64(80 + 48 + 16 + (8 * 24 + 24) + (64 + 8) + 16 + (8 * 16 + 16) + (16 * 8 + 8) + 16) << 2;
        // OLMo 2 (modeling_olmo2.py): embed 80; q, k, v, o 4 x 64; q_norm and k_norm over the
        // whole projection (8 + 8); post-attention and post-feedforward norms 8 + 8; MLP 3 x 8 x 16;
        // final norm 8; lm_head 80 (untied).
        QTest::newRow("olmo2") << QByteArray::fromStdString(tiny("olmo2").dump())
                               << quint64(80 + 256 + 16 + 16 + 384 + 8 + 80) << 2;
        // Granite (modeling_granite.py): Llama's blocks, tied by default; its muP multipliers
        // are scalars: embed 80, attention 256, norms 16, MLP 384, final norm 8.
        QTest::newRow("granite") << QByteArray::fromStdString(tiny("granite").dump()) << quint64(80 + 256 + 16 + 384 + 8) << 2;
        // Qwen2-MoE (modeling_qwen2_moe.py): q, k, v biased (3 x 8); router 8 x 4; 4 experts of
        // 3 x 8 x 4; the shared expert 3 x 8 x 6 and its gate 8 x 1; norms 16 + 8; embed and lm_head 80 each.
        QTest::newRow("qwen2_moe")
            << QByteArray::fromStdString(tiny("qwen2_moe", {{"num_experts", 4}, {"num_experts_per_tok", 2},
                                                            {"moe_intermediate_size", 4},
                                                            {"shared_expert_intermediate_size", 6},
                                                            {"decoder_sparse_step", 1}})
                                                .dump())
            << quint64(80 + 256 + 24 + 32 + 4 * 96 + 144 + 8 + 16 + 8 + 80) << 2;
        // Starcoder2 (modeling_starcoder2.py), 1 KV head: q 8 x 8 + 8, k and v 8 x 4 + 4 each, o 8 x 8 + 8;
        // two LayerNorms 2 x (8 + 8); c_fc 8 x 16 + 16, c_proj 16 x 8 + 8; final LayerNorm 16;
        // embed 80, lm_head tied.
        QTest::newRow("starcoder2") << QByteArray::fromStdString(tiny("starcoder2", {{"num_key_value_heads", 1}}).dump())
                                    << quint64(80 + (72 + 36 + 36 + 72) + 32 + (144 + 136) + 16) << 1;
        // Ministral (modeling_ministral.py): Mistral's blocks, 2 layers of 256 + 16 + 384, final
        // norm 8, embed and lm_head 80 each.
        QTest::newRow("ministral") << QByteArray::fromStdString(tiny("ministral", {{"num_hidden_layers", 2}}).dump())
                                   << quint64(80 + 2 * (256 + 16 + 384) + 8 + 80) << 2;
    }
    void handCounts()
    {
        QFETCH(QByteArray, config);
        QFETCH(quint64, params);
        QFETCH(int, kvHeads);
        const HfImport hf = importHfConfig(std::string_view(config.constData(), std::size_t(config.size())));
        QCOMPARE(countParams(hf.arch).total, params);
        QCOMPARE(hf.arch.kvHeads, kvHeads);
    }
};

QTEST_APPLESS_MAIN(TestModelTypes)
#include "tst_modeltypes.moc"
