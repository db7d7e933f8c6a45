// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face checkpoints with more than a plain decoder: vision towers, multi-token-prediction
// layers and hybrid layer stacks, each against the checkpoint's published total (the Hub's
// safetensors count) and the parts worked by hand; the 2025-26 catalog presets' checkpoints.
#include "model/architecture.h"
#include "model/hfconfig.h"
#include "scenario/catalog.h"
#include "configfixture.h"
#include "testutil.h"

#include <algorithm>
#include <cstdlib>

using namespace headroom;
using nlohmann::json;

namespace {

json fixture(const QString &name) { return test::configFixture(name); }

json fixture(const QByteArray &name) { return fixture(QString::fromUtf8(name)); }

QByteArray describe(const ModelArch &arch) { return test::describeModel(arch); }

} // namespace

class TestHfCheckpoints : public QObject
{
    Q_OBJECT
private slots:
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
    // Hub's safetensors total for Qwen/Qwen3-Next-80B-A3B-Instruct. Its config.json names no MTP
    // layer (vLLM assumes one); Qwen3NextConfig's defaults are the same checkpoint.
    void qwen3NextWithMtp()
    {
        for (json config : {fixture(QStringLiteral("qwen3-next-80b-a3b.json")), json{{"model_type", "qwen3_next"}}}) {
            QCOMPARE(countParams(importHfConfig(config).arch).mtp, 0ull);
            config["mtp_num_hidden_layers"] = 1;
            const ParamCounts counts = countParams(importHfConfig(config).arch);
            QCOMPARE(counts.total, 79'674'391'296ull);
            QCOMPARE(counts.total + counts.mtp, 81'324'862'720ull);
        }
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
                                         {"llama-4-scout.json", "llama-4-scout"},
                                         {"ministral-3-8b.json", "ministral-3-8b"}}) {
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

    // The 2025-26 catalog presets against their checkpoints' published totals: the model as
    // Transformers loads it (the preset's count) and the multi-token-prediction layer the
    // checkpoint ships besides, counted by the reader or, where it only notes the layer, by hand.
    void catalogCheckpoints_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QByteArray>("preset");
        QTest::addColumn<quint64>("model");
        QTest::addColumn<quint64>("mtp");
        QTest::addColumn<bool>("mtpCounted"); // by the reader; else a note only names the layer
        QTest::addColumn<quint64>("checkpoint");
        // Qwen3-Next-80B-A3B: 79,674,391,296, the Hub's total for Qwen/Qwen3-Coder-Next (the same
        // shapes, no MTP layer); its MTP layer as above; 81,324,862,720 the Instruct checkpoint's.
        QTest::newRow("qwen3-next-80b-a3b")
            << QByteArray("qwen3-next-80b-a3b.json") << QByteArray("qwen3-next-80b-a3b") << quint64(79'674'391'296)
            << quint64(2ull * 2048 * 2048 + 3 * 2048 + 27'263'488 + 1'614'813'184) << false << quint64(81'324'862'720);
        // GLM-4.5-Air: 106,852,251,264, the Hub's total for PrimeIntellect/INTELLECT-3 (a
        // GLM-4.5-Air fine-tune without the MTP layer). The MTP layer: one MoE block of q
        // 4096 x 12,288 + 12,288, k, v 2 x (4096 x 1024 + 1024), o 12,288 x 4096, 128 experts and
        // the shared one of 3 x 4096 x 1408, the router 128 x 4096 + 128 and two norms; eh_proj
        // 8192 x 4096, enorm, hnorm and shared_head.norm, its own embed_tokens and
        // shared_head.head 2 x 151,552 x 4096: 3,616,573,568; 110,468,824,832 the Hub's total.
        QTest::newRow("glm-4.5-air")
            << QByteArray("glm-4.5-air.json") << QByteArray("glm-4.5-air") << quint64(106'852'251'264)
            << quint64(4096ull * 12288 + 12288 + 2 * (4096 * 1024 + 1024) + 12288ull * 4096 + 129ull * 3 * 4096 * 1408 +
                       128 * 4096 + 128 + 2 * 4096 + 8192ull * 4096 + 3 * 4096 + 2ull * 151552 * 4096)
            << false << quint64(110'468'824'832);
        // GLM-4.5: the same with hidden 5120, per-head q/k norms (2 x 128) and 160 experts of 1536:
        // 5,539,962,272; 358,337,791,296 the Hub's total for zai-org/GLM-4.5 (and GLM-4.7, the
        // same shapes) leaves 352,797,829,024 (a GLM-4.7 calculator's test pins both figures).
        QTest::newRow("glm-4.5")
            << QByteArray("glm-4.5.json") << QByteArray("glm-4.5") << quint64(352'797'829'024)
            << quint64(5120ull * 12288 + 12288 + 2 * (5120 * 1024 + 1024) + 12288ull * 5120 + 2 * 128 +
                       161ull * 3 * 5120 * 1536 + 160 * 5120 + 160 + 2 * 5120 + 10240ull * 5120 + 3 * 5120 +
                       2ull * 151552 * 5120)
            << false << quint64(358'337'791'296);
        // DeepSeek-V3.2: DeepSeek-V3's 671,026,419,200 and 61 indexers of wq_b 1536 x 8192, wk
        // 7168 x 128, weights_proj 7168 x 64 and the key LayerNorm 2 x 128 (13,959,424 each); V3's
        // MTP module (13,463,426,304) with its indexer; 685,355,329,792 the Hub's total for
        // deepseek-ai/DeepSeek-V3.2.
        QTest::newRow("deepseek-v3.2-indexer")
            << QByteArray("deepseek-v3.2.json") << QByteArray("deepseek-v3.2")
            << quint64(671'026'419'200 + 61ull * (1536 * 8192 + 7168 * 128 + 7168 * 64 + 2 * 128))
            << quint64(13'463'426'304 + 1536 * 8192 + 7168 * 128 + 7168 * 64 + 2 * 128) << true
            << quint64(685'355'329'792);
    }
    void catalogCheckpoints()
    {
        QFETCH(QByteArray, file);
        QFETCH(QByteArray, preset);
        QFETCH(quint64, model);
        QFETCH(quint64, mtp);
        QFETCH(bool, mtpCounted);
        QFETCH(quint64, checkpoint);
        QCOMPARE(model + mtp, checkpoint);
        const HfImport imported = importHfConfig(fixture(file));
        const ParamCounts counts = countParams(imported.arch);
        QCOMPARE(counts.total, std::uint64_t(model));
        QCOMPARE(counts.mtp, std::uint64_t(mtpCounted ? mtp : 0));
        const ModelPreset *catalog = builtinCatalog().findModel(preset.toStdString());
        QVERIFY(catalog);
        QCOMPARE(catalog->publishedParams, std::uint64_t(model));
        QCOMPARE(countParams(catalog->arch).mtp, counts.mtp);
        // The note names the count the estimate uses.
        if (mtpCounted)
            QVERIFY(std::any_of(imported.notes.begin(), imported.notes.end(), [&](const std::string &note) {
                return note.find(std::to_string(counts.mtp)) != std::string::npos;
            }));
    }

    // Ministral 3 8B (mistral3: a ministral3 language model and Pixtral), by hand: the language
    // model 34 x (q, o 4096^2, k, v 4096 x 1024, MLP 3 x 4096 x 14,336, two norms) +
    // 2 x 131,072 x 4096 + 4096 = 8,489,553,920 (the catalog preset); the tower as Mistral Small
    // 3.1's (patch_conv 3 x 14 x 14 x 1024, ln_pre, 24 layers of 16,779,264: 403,305,472) with a
    // projector to 4096 (norm 1024, patch merger 4096 x 1024, linear_1 1024 x 4096, linear_2
    // 4096^2: 25,166,848): 428,472,320. No exact total is published; 8,918,026,240 in all rounds
    // to the 8,918.0M a model roster gives for mistralai/Ministral-3-8B-Instruct-2512-BF16.
    void ministral3Checkpoint()
    {
        const ParamCounts counts = countParams(importHfConfig(fixture(QStringLiteral("ministral-3-8b.json"))).arch);
        QCOMPARE(counts.total - counts.vision,
                 34ull * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 2ull * 131072 * 4096 + 4096);
        QCOMPARE(counts.vision, 3ull * 14 * 14 * 1024 + 1024 + 24ull * (2 * 1024 + 4 * 1024 * 1024 + 3 * 1024 * 4096) +
                                    1024 + 4096ull * 1024 + 1024ull * 4096 + 4096ull * 4096);
        QVERIFY2(std::llabs(static_cast<long long>(counts.total) - 8'918'000'000LL) <= 50'000,
                 QByteArray::number(qulonglong(counts.total)));
        QCOMPARE(builtinCatalog().findModel("ministral-3-8b")->publishedParams, counts.total - counts.vision);
    }
};

QTEST_GUILESS_MAIN(TestHfCheckpoints)
#include "tst_hfcheckpoints.moc"
