// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face config.json import: one public config per family maps to the right
// architecture and exactly the published parameter total; incomplete configs list what is
// missing; `model.config` in a scenario reads through a resolver and round-trips.
#include "model/architecture.h"
#include "scenario/catalog.h"
#include "model/hfconfig.h"
#include "testutil.h"

#include <QFile>

#include <algorithm>

using namespace headroom;
using nlohmann::json;

namespace {

json fixture(const QString &name)
{
    QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/") + name);
    if (!file.open(QIODevice::ReadOnly))
        return json();
    // As Headroom reads a config file: Python's bare Infinity and NaN quoted first.
    return json::parse(pythonJsonToJson(file.readAll().toStdString()), nullptr, false);
}

json fixture(const QByteArray &name) { return fixture(QString::fromUtf8(name)); }

QByteArray describe(const ModelArch &arch)
{
    Scenario s;
    s.model = arch;
    return QByteArray::fromStdString(scenarioToJson(s).at("model").dump());
}

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

    // Vision-language checkpoints: the language model from text_config (or the top level) and the
    // vision tower from vision_config, against the checkpoints' published totals (the Hub's
    // safetensors parameter count, sum(p.numel()) as users print it). Vision towers by hand:
    //  Qwen2.5-VL-7B: patch Conv3d 3 x 2 x 14 x 14 x 1280 = 1,505,280; 32 blocks of norms 2 x 1280,
    //   qkv 1280 x 3840 + 3840, proj 1280 x 1280 + 1280, gate/up 2 x (1280 x 3420 + 3420),
    //   down 3420 x 1280 + 1280 = 19,702,200; merger ln_q 1280 + 5120 x 5120 + 5120 + 5120 x 3584
    //   + 3584 = 44,574,464; 676,550,144 in all (the count printed for model.visual).
    //  Qwen3-VL-8B: Conv3d 3 x 2 x 16 x 16 x 1152 + 1152 = 1,770,624; positions 2304 x 1152 =
    //   2,654,208; 27 blocks of LayerNorms 4 x 1152, qkv 1152 x 3456 + 3456, proj 1152 x 1152 +
    //   1152, fc1 1152 x 4304 + 4304, fc2 4304 x 1152 + 1152 = 15,239,504; merger LayerNorm
    //   2 x 1152 + 4608 x 4608 + 4608 + 4608 x 4096 + 4096 = 40,119,040; three DeepStack mergers
    //   with LayerNorms of 2 x 4608: 3 x 40,125,952; 576,388,336 in all.
    //  Qwen3-VL-30B-A3B: the same with out_hidden_size 2048: merger 30,679,808, DeepStack
    //   3 x 30,686,720; 538,631,408.
    //  Gemma 3 (SigLIP so400m at 896 px): Conv2d 3 x 14 x 14 x 1152 + 1152 = 678,528; positions
    //   64 x 64 x 1152 = 4,718,592; 27 layers of 15,239,504 (4 biased 1152 x 1152 projections
    //   instead of qkv + proj); post_layernorm 2304: 416,866,032; projector 1152 x hidden + 1152.
    void visionLanguage_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<quint64>("published");
        QTest::addColumn<quint64>("vision");
        QTest::addColumn<quint64>("text");
        QTest::newRow("qwen2.5-vl-7b") << QByteArray("qwen2.5-vl-7b.json") << quint64(8'292'166'656)
                                       << quint64(676'550'144) << quint64(7'615'616'512); // = catalog qwen2.5-7b
        // Qwen2-VL-7B: Conv3d 1,505,280; 32 blocks of LayerNorms 4 x 1280, qkv and proj as above,
        // fc1 1280 x 5120 + 5120, fc2 5120 x 1280 + 1280 (19,677,440); merger LayerNorm 2 x 1280
        // + 5120^2 + 5120 + 5120 x 3584 + 3584 (44,575,744): 675,759,104.
        QTest::newRow("qwen2-vl-7b") << QByteArray("qwen2-vl-7b.json") << quint64(8'291'375'616)
                                     << quint64(675'759'104) << quint64(7'615'616'512);
        QTest::newRow("qwen3-vl-8b") << QByteArray("qwen3-vl-8b.json") << quint64(8'767'123'696)
                                     << quint64(576'388'336) << quint64(8'190'735'360); // = catalog qwen3-8b
        QTest::newRow("qwen3-vl-30b-a3b") << QByteArray("qwen3-vl-30b-a3b.json") << quint64(31'070'754'032)
                                          << quint64(538'631'408) << quint64(30'532'122'624); // = qwen3-30b-a3b
        QTest::newRow("gemma-3-4b") << QByteArray("gemma-3-4b.json") << quint64(4'300'079'472)
                                    << quint64(416'866'032 + 1152 * 2560 + 1152) << quint64(3'880'263'168);
        QTest::newRow("gemma-3-27b") << QByteArray("gemma-3-27b.json") << quint64(27'432'406'640)
                                     << quint64(416'866'032 + 1152 * 5376 + 1152) << quint64(27'009'346'304);
        // Mistral Small 3.1 (mistral3): Pixtral's patch_conv 3 x 14 x 14 x 1024 = 602,112, ln_pre
        // 1024, 24 layers of two norms, q, k, v, o 1024^2 and w1, w2, w3 1024 x 4096 (16,779,264);
        // the projector's norm 1024, patch merger 4096 x 1024, linear_1 1024 x 5120 and linear_2
        // 5120^2 without biases (35,652,608): 438,958,080. The text model: catalog
        // mistral-small-3.1-24b's 23,572,403,200.
        // Llama 4 Scout: the unfolded patch projection 3 x 14 x 14 x 1408 = 827,904, the class
        // embedding 1408 and 577 positions of 1408, two LayerNorms; 34 layers of biased q, k, v, o
        // (1408^2 + 1408 each), fc1 / fc2 1408 x 5632 with biases, two LayerNorms (23,807,872);
        // the pixel-shuffle MLP 5632 x 4096 + 4096^2; the projector 4096 x 5120: 871,932,416.
        QTest::newRow("llama-4-scout") << QByteArray("llama-4-scout.json") << quint64(108'641'793'536)
                                       << quint64(871'932'416) << quint64(107'769'861'120); // = catalog llama-4-scout
        QTest::newRow("mistral-small-3.1-24b") << QByteArray("mistral-small-3.1-24b.json") << quint64(24'011'361'280)
                                               << quint64(438'958'080) << quint64(23'572'403'200);
    }
    void visionLanguage()
    {
        QFETCH(QByteArray, file);
        QFETCH(quint64, published);
        QFETCH(quint64, vision);
        QFETCH(quint64, text);
        const HfImport imported = importHfConfig(fixture(file));
        const ParamCounts counts = countParams(imported.arch);
        QCOMPARE(counts.total, std::uint64_t(published));
        QCOMPARE(counts.vision, std::uint64_t(vision));
        QCOMPARE(counts.total - counts.vision, std::uint64_t(text));
        QVERIFY(counts.active <= counts.total - counts.vision); // a token never runs the vision tower
        QVERIFY(std::any_of(imported.notes.begin(), imported.notes.end(), [](const std::string &note) {
            return note.find("vision tower") != std::string::npos;
        }));
    }

    // Qwen3.5 / Qwen3.6 (Gated DeltaNet and gated attention, 3 to 1; a vision tower without
    // DeepStack; one MTP layer in the checkpoint) and Qwen3-Next, against the Hub's safetensors
    // totals, which hold the MTP module too. By hand (vocab 248,320, untied, heads of 256):
    //  Qwen3.5-9B, hidden 4096: embeddings 2 x 248,320 x 4096 = 2,034,237,440; 8 full layers of
    //   q 4096 x 8192 (query and gate), k, v 4096 x 1024, o 4096 x 4096, q/k norms 512, MLP
    //   3 x 4096 x 12,288, two norms: 209,723,904; 24 Gated DeltaNet layers of in_proj_qkvz
    //   4096 x 12,288, in_proj_ba 4096 x 64, out_proj 4096 x 4096, conv 8192 x 4, dt_bias and
    //   A_log 2 x 32, norm 128, the MLP and norms: 218,407,104; final norm 4096: 8,953,803,264.
    //   Vision: Qwen3-VL's tower without DeepStack, merger to 4096: 456,010,480. MTP: fc
    //   2 x 4096 x 4096, two pre-fc norms, one full layer, its norm: 243,290,624.
    //  Qwen3.6-27B, hidden 5120, 64 layers, 24 heads, 48 value heads, MLP 17,408: full layer
    //   372,255,232 (x 16), linear layer 383,273,184 (x 48), embeddings 2,542,796,800:
    //   26,895,998,464; vision 460,730,096; MTP 2 x 5120^2 + 3 x 5120 + 372,255,232 = 424,699,392.
    //  Qwen3.6-35B-A3B, hidden 2048, 40 layers, 256 experts of 512 (8 per token), a shared expert
    //   of 512 and its gate: MoE block 808,978,432; full layer 836,246,016 (x 10), linear layer
    //   842,700,992 (x 30): 34,660,610,688; vision 446,571,248; MTP 844,640,768.
    void gatedDeltaNetCheckpoints_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<quint64>("safetensors");
        QTest::addColumn<quint64>("vision");
        QTest::addColumn<quint64>("mtp");
        QTest::newRow("qwen3.5-9b") << QByteArray("qwen3.5-9b.json") << quint64(9'653'104'368) << quint64(456'010'480)
                                    << quint64(243'290'624);
        QTest::newRow("qwen3.6-27b") << QByteArray("qwen3.6-27b.json") << quint64(27'781'427'952)
                                     << quint64(460'730'096) << quint64(424'699'392);
        QTest::newRow("qwen3.6-35b-a3b") << QByteArray("qwen3.6-35b-a3b.json") << quint64(35'951'822'704)
                                         << quint64(446'571'248) << quint64(844'640'768);
    }
    void gatedDeltaNetCheckpoints()
    {
        QFETCH(QByteArray, file);
        QFETCH(quint64, safetensors);
        QFETCH(quint64, vision);
        QFETCH(quint64, mtp);
        const HfImport imported = importHfConfig(fixture(file));
        const ParamCounts counts = countParams(imported.arch);
        QCOMPARE(counts.vision, std::uint64_t(vision));
        QCOMPARE(counts.mtp, std::uint64_t(mtp));
        QCOMPARE(counts.total + counts.mtp, std::uint64_t(safetensors));
        QCOMPARE(imported.arch.layersOfKind(LayerKind::Full) * 3, imported.arch.layersOfKind(LayerKind::GatedDeltaNet));
        // An empty mlp_only_layers list is no dense layer either (the MoE text config has no
        // intermediate_size to read then).
        json config = fixture(file);
        if (config["text_config"].contains("num_experts")) {
            config["text_config"]["mlp_only_layers"] = json::array();
            QCOMPARE(countParams(importHfConfig(config).arch).total + counts.mtp, std::uint64_t(safetensors));
        }
    }

    // Qwen3-Next-80B-A3B with its one MTP layer (a full-attention MoE block, fc, three norms):
    // 79,674,391,296 + 2 x 2048^2 + 3 x 2048 + 27,263,488 + 1,614,813,184 = 81,324,862,720, the
    // Hub's safetensors total for Qwen/Qwen3-Next-80B-A3B-Instruct.
    void qwen3NextWithMtp()
    {
        const HfImport imported = importHfConfig(json{{"model_type", "qwen3_next"}, {"mtp_num_hidden_layers", 1}});
        const ParamCounts counts = countParams(imported.arch);
        QCOMPARE(counts.total, 79'674'391'296ull);
        QCOMPARE(counts.total + counts.mtp, 81'324'862'720ull);
        json dedicated = {{"model_type", "qwen3_next"}, {"mtp_num_hidden_layers", 1}, {"mtp_use_dedicated_embeddings", true}};
        QVERIFY_THROWS_EXCEPTION(HfConfigError, importHfConfig(dedicated));
    }

    // Granite 4.0 (granitemoehybrid), by hand (vocab 100,352, tied):
    //  H-Small, hidden 4096: 4 attention layers of q, o 4096^2 and k, v 4096 x 1024 =
    //   41,943,040; 36 Mamba-2 layers (128 heads of 64, one group, d_state 128) of in_proj
    //   4096 x (2 x 8192 + 2 x 128 + 128), out_proj 8192 x 4096, conv 8448 x 4 + 8448, dt_bias,
    //   A_log and D 3 x 128, gated norm 8192 = 102,286,976; every layer 72 experts of
    //   3 x 4096 x 768, a router 4096 x 72, the shared MLP 3 x 4096 x 1536 = 698,646,528, two
    //   norms; embeddings 411,041,792, final norm: 32,207,337,984.
    //  Micro (every layer attention, no experts): 40 x (q, o 2560^2, k, v 2560 x 512, MLP
    //   3 x 2560 x 8192, two norms) + 256,901,120 + 2560 = 3,402,836,480.
    void graniteHybridCheckpoints_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<quint64>("published");
        QTest::addColumn<int>("mamba");
        QTest::newRow("granite-4.0-h-small") << QByteArray("granite-4.0-h-small.json") << quint64(32'207'337'984) << 36;
        QTest::newRow("granite-4.0-micro") << QByteArray("granite-4.0-micro.json") << quint64(3'402'836'480) << 0;
    }
    void graniteHybridCheckpoints()
    {
        QFETCH(QByteArray, file);
        QFETCH(quint64, published);
        QFETCH(int, mamba);
        const ModelArch m = importHfConfig(fixture(file)).arch;
        QCOMPARE(countParams(m).total, std::uint64_t(published));
        QCOMPARE(m.layersOfKind(LayerKind::Mamba2), mamba);
    }

    void graniteHybridRefusals_data()
    {
        QTest::addColumn<QByteArray>("change");
        QTest::addColumn<QString>("named");
        QTest::newRow("no-layer-types") << QByteArray(R"({"layer_types": null})") << "layer_types is needed";
        QTest::newRow("unknown-layer") << QByteArray(R"({"layer_types": ["mamba", "retention"]})") << "layer_types has \"retention\"";
        QTest::newRow("head-width") << QByteArray(R"({"mamba_d_head": 96})") << "mamba_d_head x mamba_n_heads";
        QTest::newRow("one-expert") << QByteArray(R"({"num_local_experts": 1})") << "num_local_experts must be 0";
        QTest::newRow("no-shared-width") << QByteArray(R"({"shared_intermediate_size": null})") << "lacks shared_intermediate_size";
    }
    void graniteHybridRefusals()
    {
        QFETCH(QByteArray, change);
        QFETCH(QString, named);
        json config = fixture(QStringLiteral("granite-4.0-h-small.json"));
        config.merge_patch(json::parse(change.toStdString()));
        try {
            importHfConfig(config);
            QFAIL("accepted");
        } catch (const HfConfigError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(named), error.what());
        }
    }

    // The language models match the catalog's text-only presets shape for shape.
    void visionLanguageTextModels()
    {
        for (const auto &[file, preset] : {std::pair{"qwen2.5-vl-7b.json", "qwen2.5-7b"}, {"gemma-3-27b.json", "gemma-3-27b"},
                                         {"mistral-small-3.1-24b.json", "mistral-small-3.1-24b"},
                                         {"llama-4-scout.json", "llama-4-scout"}}) {
            ModelArch imported = importHfConfig(fixture(QString::fromUtf8(file))).arch;
            imported.visionParams = 0;
            ModelArch expected = builtinCatalog().findModel(preset)->arch;
            expected.preset.clear();
            // The VL checkpoint's own context limit (Qwen2.5-VL: 128,000).
            expected.maxPositions = imported.maxPositions;
            QVERIFY2(imported == expected, describe(imported) + "\nexpected\n" + describe(expected));
        }
        // Llama 4 Maverick has Scout's vision tower (the same vision_config): 400,711,848,960 +
        // 871,932,416 = 401,583,781,376, the published total. The stripped test copy of its
        // config has no vision_config, and then only the language model is counted.
        json maverick = fixture(QStringLiteral("llama-4-maverick.json"));
        QCOMPARE(countParams(importHfConfig(maverick).arch).total, std::uint64_t(400'711'848'960));
        maverick["vision_config"] = fixture(QStringLiteral("llama-4-scout.json"))["vision_config"];
        QCOMPARE(countParams(importHfConfig(maverick).arch).total, std::uint64_t(401'583'781'376));
        // Qwen2.5-VL configs before transformers 4.53 keep the language model at the top level.
        json flat = fixture(QStringLiteral("qwen2.5-vl-7b.json"));
        flat.erase("text_config");
        QCOMPARE(countParams(importHfConfig(flat).arch).total, std::uint64_t(8'292'166'656));
        // Qwen3-VL's small checkpoints tie their embeddings by the outer config's key.
        json tied = fixture(QStringLiteral("qwen3-vl-8b.json"));
        tied["tie_word_embeddings"] = true;
        QVERIFY(importHfConfig(tied).arch.tiedEmbeddings);
    }

    void visionLanguageRefusals_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QByteArray>("change"); // a JSON merge into the config
        QTest::addColumn<QString>("named");
        QTest::newRow("no-vision-config") << QByteArray("qwen3-vl-8b.json") << QByteArray(R"({"vision_config": null})")
                                          << "vision_config is needed";
        QTest::newRow("merger-width") << QByteArray("qwen2.5-vl-7b.json")
                                      << QByteArray(R"({"vision_config": {"out_hidden_size": 2048}})")
                                      << "vision_config.out_hidden_size (2048) must be";
        QTest::newRow("siglip-head") << QByteArray("gemma-3-4b.json") << QByteArray(R"({"vision_config": {"vision_use_head": true}})")
                                     << "vision_config.vision_use_head";
        QTest::newRow("deepstack-index") << QByteArray("qwen3-vl-8b.json")
                                         << QByteArray(R"({"vision_config": {"deepstack_visual_indexes": [8, 27]}})")
                                         << "vision_config.deepstack_visual_indexes";
        QTest::newRow("depth-type") << QByteArray("qwen3-vl-30b-a3b.json") << QByteArray(R"({"vision_config": {"depth": "27"}})")
                                    << "vision_config.depth must be a whole number";
    }
    void visionLanguageRefusals()
    {
        QFETCH(QByteArray, file);
        QFETCH(QByteArray, change);
        QFETCH(QString, named);
        json config = fixture(file);
        config.merge_patch(json::parse(change.toStdString()));
        if (config.contains("vision_config") && config["vision_config"].is_null())
            config.erase("vision_config");
        try {
            importHfConfig(config);
            QFAIL("accepted");
        } catch (const HfConfigError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(named), error.what());
        }
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
