// SPDX-License-Identifier: GPL-3.0-or-later
// The 2025-26 families read by hfconfigmore.cpp: Hunyuan dense and MoE, ERNIE 4.5 MoE, Ministral 3
// and Kimi Linear. Each real config.json (tests/data/configs, sources in its README) imports to
// the checkpoint's parameter total, counted by hand below from the modeling code (and, where a
// total is published, equal to it), and to the KV cache and per-sequence state worked by hand;
// what a reader does not model is refused naming the key.
#include "model/architecture.h"
#include "model/hfconfig.h"
#include "serving/kvcache.h"
#include "testutil.h"

#include <QFile>

using namespace headroom;
using nlohmann::json;
using test::scenarioFrom;

namespace {

json fixture(const char *name)
{
    QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/") + QString::fromUtf8(name));
    if (!file.open(QIODevice::ReadOnly))
        return json();
    return json::parse(pythonJsonToJson(file.readAll().toStdString()), nullptr, false);
}

HfImport import(const char *name)
{
    const json config = fixture(name);
    if (!config.is_object())
        throw std::runtime_error(std::string("fixture missing: ") + name);
    return importHfConfig(config);
}

Scenario inferenceWith(const ModelArch &arch, const std::string &extra = "")
{
    Scenario s = scenarioFrom(R"({"task": "inference", "precision": {"weights": "bf16"})" + extra + "}");
    s.model = arch;
    return s;
}

/// The error text of importing `config`, or "" when it imports.
std::string refusal(const json &config)
{
    try {
        importHfConfig(config);
    } catch (const HfConfigError &error) {
        return error.what();
    }
    return "";
}

// Hunyuan attention per layer (hidden 4096, 32 query heads and 8 KV heads of 128): q and o
// 4096 x 4096, k and v 4096 x 1024 = 41,943,040; query_layernorm and key_layernorm 2 x 128.
constexpr std::uint64_t kHunyuanAttention = 2ull * 4096 * 4096 + 2ull * 4096 * 1024 + 2 * 128;

} // namespace

class TestMoreFamilies : public QObject
{
    Q_OBJECT
private slots:
    void typesAreListed()
    {
        const auto &types = supportedHfModelTypes();
        for (const char *type : {"hunyuan_v1_dense", "hunyuan_v1_moe", "ernie4_5_moe", "ministral3", "kimi_linear"})
            QVERIFY2(std::find(types.begin(), types.end(), type) != types.end(), type);
    }

    // Hunyuan-A13B (modeling_hunyuan_v1_moe.py), per layer: the attention above; 64 routed
    // experts and the shared MLP, each 3 x 4096 x 3072 = 37,748,736; the router wg 4096 x 64;
    // two norms 2 x 4096. Embeddings 128,167 x 4096, tied; the final norm 4096:
    //   32 x (41,943,296 + 65 x 37,748,736 + 262,144 + 8,192) + 524,972,032 + 4,096
    //   = 80,393,183,232, the safetensors headers' total (a parameter ledger on GitHub
    //   reproduces it to the parameter). Active: 56 of the 64 experts idle in every layer,
    //   80,393,183,232 - 56 x 37,748,736 x 32 = 12,747,448,320 (the card's "13B active").
    void hunyuanA13b()
    {
        const HfImport hf = import("hunyuan-a13b.json");
        const ModelArch &a = hf.arch;
        QCOMPARE(a.experts, 64);
        QCOMPARE(a.expertsPerToken, 8);
        QCOMPARE(a.routedWidth(), 3072);
        QCOMPARE(a.sharedExperts, 1);
        QCOMPARE(a.headDim, 128);
        QVERIFY(a.tiedEmbeddings);
        const std::uint64_t expert = 3ull * 4096 * 3072;
        const std::uint64_t hand = 32 * (kHunyuanAttention + 65 * expert + 4096ull * 64 + 2 * 4096) +
                                   128'167ull * 4096 + 4096;
        QCOMPARE(hand, 80'393'183'232ull);
        const ParamCounts c = countParams(a);
        QCOMPARE(c.total, hand);
        QCOMPARE(c.active, hand - 56 * expert * 32);
        QCOMPARE(c.active, 12'747'448'320ull);
        // KV cache, bf16: 32 layers x 2 (K, V) x 8 heads x 128 x 2 B = 131,072 B per token.
        const KvLayout layout = kvLayout(inferenceWith(a));
        QCOMPARE(kvBytesPerToken(layout), 131'072ull);
        QCOMPARE(stateBytesPerSequence(layout), 0ull);
        QCOMPARE(kvCacheBytes(layout, 2, 1000), 2 * 1000 * 131'072ull);
    }

    void hunyuanRefusesWhatItDoesNotModel_data()
    {
        QTest::addColumn<QByteArray>("change");
        QTest::addColumn<QString>("key");
        QTest::newRow("per-layer topk") << QByteArray(R"({"moe_topk": [8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
            8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 4]})") << "moe_topk";
        QTest::newRow("short list") << QByteArray(R"({"num_shared_expert": [1, 1]})") << "num_shared_expert";
        QTest::newRow("cross-layer attention") << QByteArray(R"({"use_cla": true})") << "use_cla";
        QTest::newRow("no shared mlp") << QByteArray(R"({"use_mixed_mlp_moe": false})") << "use_mixed_mlp_moe";
        QTest::newRow("skipped layers") << QByteArray(R"({"moe_layer_num_skipped": 2})") << "moe_layer_num_skipped";
        QTest::newRow("one expert") << QByteArray(R"({"num_experts": 1})") << "num_experts";
        QTest::newRow("mlp bias") << QByteArray(R"({"mlp_bias": true})") << "mlp_bias";
    }
    void hunyuanRefusesWhatItDoesNotModel()
    {
        QFETCH(QByteArray, change);
        QFETCH(QString, key);
        json config = fixture("hunyuan-a13b.json");
        config.update(json::parse(change.toStdString()));
        const std::string error = refusal(config);
        QVERIFY2(QString::fromStdString(error).contains(key), error.c_str());
        QVERIFY2(error.find("hunyuan_v1_moe") != std::string::npos, error.c_str());
    }

    // Hunyuan-7B (hunyuan_v1_dense) as the copied config gives it, without tie_word_embeddings
    // (HunYuanDenseV1Config's default: untied). Per layer the attention above, the MLP
    // 3 x 4096 x 14,336 = 176,160,768 and two norms:
    //   32 x (41,943,296 + 176,160,768 + 8,192) = 6,979,592,192;
    //   + 2 x 128,167 x 4096 + 4096 = 8,029,540,352; tied: 7,504,568,320.
    void hunyuan7bDense()
    {
        const HfImport hf = import("hunyuan-7b.json");
        QVERIFY(!hf.arch.tiedEmbeddings);
        QCOMPARE(hf.arch.qkNorm, QkNorm::Head);
        QCOMPARE(hf.arch.maxPositions, 262144);
        const std::uint64_t layers = 32 * (kHunyuanAttention + 3ull * 4096 * 14336 + 2 * 4096);
        QCOMPARE(layers, 6'979'592'192ull);
        QCOMPARE(countParams(hf.arch).total, layers + 2 * 128'167ull * 4096 + 4096);
        json tied = fixture("hunyuan-7b.json");
        tied["tie_word_embeddings"] = true;
        QCOMPARE(countParams(importHfConfig(tied).arch).total, 7'504'568'320ull);
        // attention_bias: q, k, v and o each carry a bias (4096 + 2 x 1024 + 4096 per layer).
        json biased = fixture("hunyuan-7b.json");
        biased["attention_bias"] = true;
        QCOMPARE(countParams(importHfConfig(biased).arch).total, 8'029'540'352ull + 32 * (2 * 4096 + 2 * 1024));
        json cla = fixture("hunyuan-7b.json");
        cla["use_cla"] = true;
        QVERIFY(refusal(cla).find("use_cla") != std::string::npos);
    }

    // ERNIE-4.5-21B-A3B (modeling_ernie4_5_moe.py), hidden 2560, 20 query and 4 KV heads of 128:
    // attention 2 x 2560 x 2560 + 2 x 2560 x 512 = 15,728,640 per layer; layer 0 a dense MLP
    // 3 x 2560 x 12,288 = 94,371,840; layers 1-27: 64 experts of 3 x 2560 x 1536 = 11,796,480
    // and the shared MLP of 2 x 1536 (the same as two experts), the router 2560 x 64 and its
    // e_score_correction_bias 64; two norms per layer; embeddings 103,424 x 2560, tied:
    //   (15,728,640 + 94,371,840 + 5,120) + 27 x (15,728,640 + 66 x 11,796,480 + 163,840 + 64
    //   + 5,120) + 264,765,440 + 2,560 = 21,825,437,888 (the card: 21B total, 3B active).
    // Active: 58 idle experts in 27 layers: 21,825,437,888 - 58 x 11,796,480 x 27 = 3,352,150,208.
    void ernie45Moe()
    {
        const HfImport hf = import("ernie-4.5-21b-a3b.json");
        const ModelArch &a = hf.arch;
        QCOMPARE(a.headDim, 128);
        QCOMPARE(a.moeLayers(), 27);
        QCOMPARE(a.sharedExperts, 2);
        QVERIFY(a.routerBias);
        const std::uint64_t attention = 2ull * 2560 * 2560 + 2ull * 2560 * 512;
        const std::uint64_t expert = 3ull * 2560 * 1536;
        const std::uint64_t hand = (attention + 3ull * 2560 * 12288 + 5120) +
                                   27 * (attention + 66 * expert + 2560ull * 64 + 64 + 5120) + 103'424ull * 2560 + 2560;
        QCOMPARE(hand, 21'825'437'888ull);
        const ParamCounts c = countParams(a);
        QCOMPARE(c.total, hand);
        QCOMPARE(c.active, 3'352'150'208ull);
        // KV cache, bf16: 28 x 2 x 4 x 128 x 2 B = 57,344 B per token.
        QCOMPARE(kvBytesPerToken(kvLayout(inferenceWith(a))), 57'344ull);

        // moe_layer_end_index short of the last layer: layers 1-13 sparse, 0 and 14-27 dense.
        json half = fixture("ernie-4.5-21b-a3b.json");
        half["moe_layer_end_index"] = 13;
        const ModelArch h = importHfConfig(half).arch;
        QCOMPARE(h.moeLayers(), 13);
        QVERIFY(!h.isMoeLayer(0) && h.isMoeLayer(1) && h.isMoeLayer(13) && !h.isMoeLayer(14));
        QCOMPARE(countParams(h).total,
                 hand - 14 * (66 * expert + 2560ull * 64 + 64) + 14 * 3ull * 2560 * 12288);

        json biased = fixture("ernie-4.5-21b-a3b.json");
        biased["use_bias"] = true;
        QVERIFY(refusal(biased).find("use_bias") != std::string::npos);
        json vl = fixture("ernie-4.5-21b-a3b.json");
        vl["moe_num_experts"] = json::array({64, 64});
        QVERIFY(refusal(vl).find("moe_num_experts") != std::string::npos);
    }

    // Ministral3Config's defaults are Ministral-3-8B-Base-2512's language model: 34 layers,
    // hidden 4096, MLP 14,336, 32 / 8 heads of 128, vocabulary 131,072, untied. Per layer
    // 41,943,040 + 176,160,768 + 8,192; 34 layers 7,415,808,000; + 2 x 131,072 x 4096 + 4096
    // = 8,489,553,920 (the card: an 8.4B language model beside a 0.4B vision encoder).
    void ministral3()
    {
        const HfImport hf = importHfConfig(json{{"model_type", "ministral3"}});
        QCOMPARE(hf.arch.layers, 34);
        QCOMPARE(hf.arch.slidingWindow, 0);
        QCOMPARE(countParams(hf.arch).total, 8'489'553'920ull);
        // No window: 34 x 2 x 8 x 128 x 2 B = 139,264 B per token, every token kept.
        const KvLayout layout = kvLayout(inferenceWith(hf.arch));
        QCOMPARE(kvBytesPerToken(layout), 139'264ull);
        QCOMPARE(kvCacheBytes(layout, 1, 100'000), 100'000ull * 139'264);
        // As the text_config of mistral3 (the outer config counts the Pixtral tower).
        const json nested = {{"model_type", "mistral3"},
                             {"text_config", {{"model_type", "ministral3"}, {"sliding_window", 4096}}}};
        const std::string error = refusal(nested);
        QVERIFY2(error.find("vision_config") != std::string::npos, error.c_str());
        const ModelArch windowed = importHfConfig(json{{"model_type", "ministral3"}, {"sliding_window", 4096}}).arch;
        QCOMPARE(kvCacheBytes(kvLayout(inferenceWith(windowed)), 1, 100'000), 4096ull * 139'264);
    }

    // Kimi-Linear-48B-A3B, from its tensor list (modeling_kimi.py), hidden 2304:
    //  7 MLA layers (1-based 4, 8, ..., 24, 27): q_proj 2304 x 32 x 192, kv_a_proj_with_mqa
    //    2304 x (512 + 64), kv_a_layernorm 512, kv_b_proj 512 x 32 x 256, o_proj 4096 x 2304
    //    = 29,114,880 (the latent norm included);
    //  20 KDA layers: q, k, v 3 x 2304 x 4096, f_a and g_a 2 x 2304 x 128, f_b and g_b
    //    2 x 128 x 4096, b_proj 2304 x 32, o_proj 4096 x 2304 = 39,460,864; q/k/v conv1d
    //    3 x 4096 x 4, A_log 32, dt_bias 4096, o_norm 128 = 53,408;
    //  layer 0 a dense MLP 3 x 2304 x 9216; layers 1-26: 256 experts and 1 shared expert of
    //    3 x 2304 x 1024 = 7,077,888, the router 2304 x 256 and its bias 256;
    //  two norms per layer, untied embeddings and lm_head 2 x 163,840 x 2304, the final norm:
    //  = 49,122,681,728, the Hub's safetensors total (quoted by several model reports).
    void kimiLinear()
    {
        const HfImport hf = import("kimi-linear-48b-a3b.json");
        const ModelArch &a = hf.arch;
        QCOMPARE(a.layersOfKind(LayerKind::Mla), 7);
        QCOMPARE(a.layersOfKind(LayerKind::Kda), 20);
        QCOMPARE(a.layerKind(3), LayerKind::Mla);
        QCOMPARE(a.layerKind(26), LayerKind::Mla);
        QCOMPARE(a.layerKind(25), LayerKind::Kda);
        QCOMPARE(a.moeLayers(), 26);
        const std::uint64_t h = 2304;
        const std::uint64_t mla = h * 32 * 192 + h * 576 + 512 + 512ull * 32 * 256 + 4096 * h;
        const std::uint64_t kda = 3 * h * 4096 + 2 * h * 128 + 2 * 128ull * 4096 + h * 32 + 4096 * h +
                                  3 * 4096ull * 4 + 32 + 4096 + 128;
        const std::uint64_t expert = 3 * h * 1024;
        const std::uint64_t moe = 257 * expert + h * 256 + 256;
        const std::uint64_t hand = 7 * mla + 20 * kda + 3 * h * 9216 + 26 * moe + 27 * 2 * h + 2 * 163'840ull * h + h;
        QCOMPARE(hand, 49'122'681'728ull);
        const ParamCounts c = countParams(a);
        QCOMPARE(c.total, hand);
        // Active: 248 idle experts in 26 layers, and the input table (a lookup).
        QCOMPARE(c.active, hand - 248 * expert * 26 - 163'840ull * h);

        // vLLM and SGLang cache the MLA latent, 512 + 64 values per token and layer, bf16:
        // 7 x 576 x 2 = 8,064 B per token. Each KDA layer keeps, per sequence, a conv state over
        // q, k and v of (4 - 1) steps, 3 x 4096 x 3 values at 2 B, and a 32 x 128 x 128 delta-rule
        // state in fp32: 20 x (73,728 + 2,097,152) = 43,417,600 B.
        const Scenario s = inferenceWith(a);
        const KvLayout layout = kvLayout(s);
        QCOMPARE(kvBytesPerToken(layout), 8'064ull);
        QCOMPARE(stateBytesPerSequence(layout), 43'417'600ull);
        QCOMPARE(kvCacheBytes(layout, 4, 10'000), 4 * (10'000 * 8'064ull + 43'417'600));
        // Transformers' generate() expands every head: 7 x 32 x (192 K + 128 V) x 2 B per token.
        KvOptions perHead = kvOptions(s);
        perHead.mla = MlaCache::PerHead;
        QCOMPARE(kvBytesPerToken(kvLayout(s, perHead)), 7ull * 32 * 320 * 2);
        // llama.cpp: K (latent + rope) and V (the latent) apart: 7 x (576 + 512) x 2 B.
        KvOptions separate = kvOptions(s);
        separate.mla = MlaCache::SeparateKv;
        QCOMPARE(kvBytesPerToken(kvLayout(s, separate)), 7ull * 1088 * 2);
        // The whole estimate: bf16 weights are 2 B per parameter; generate() on the default
        // request (one sequence of 2,048 tokens) caches per-head K and V plus the states, the
        // KDA conv state at 2 B and the delta-rule state at 4 B.
        const Scenario generate = inferenceWith(a, R"(, "serving": {"engine": "hf_generate"})");
        const Estimate e = estimate(generate);
        QCOMPARE(e.bytes(ConsumerId::Weights), 2 * hand);
        QCOMPARE(e.bytes(ConsumerId::KvCache), 2048ull * 7 * 32 * 320 * 2 + 43'417'600);
    }

    void kimiLinearLayerPatterns()
    {
        // Without the checkpoint's lists, KimiLinearConfig's default: layers 4, 8, ... (0-based) MLA.
        const ModelArch d = importHfConfig(json{{"model_type", "kimi_linear"}}).arch;
        QCOMPARE(d.layersOfKind(LayerKind::Mla), 6); // 4, 8, 12, 16, 20, 24 of 27
        QCOMPARE(d.layerKind(0), LayerKind::Kda);
        QCOMPARE(d.layerKind(4), LayerKind::Mla);

        json twice = fixture("kimi-linear-48b-a3b.json");
        twice["linear_attn_config"]["kda_layers"].push_back(4);
        QVERIFY(refusal(twice).find("exactly once") != std::string::npos);
        json k3 = fixture("kimi-linear-48b-a3b.json");
        k3["routed_expert_hidden_size"] = 3584;
        QVERIFY(refusal(k3).find("routed_expert_hidden_size") != std::string::npos);
        json fullRank = fixture("kimi-linear-48b-a3b.json");
        fullRank["linear_attn_config"]["use_full_rank_gate"] = true;
        QVERIFY(refusal(fullRank).find("linear_attn_config.use_full_rank_gate") != std::string::npos);
    }

    // Jamba 1.5 Mini (modeling_jamba.py), hidden 4096, 32 layers: layer i attends when i % 8 == 4
    // (4 layers), else a Mamba-1 mixer (28); a mixture of experts when i % 2 == 1 (16 layers).
    //  Mamba-1 (d_inner 8192, d_state 16, dt_rank 256, d_conv 4): in_proj 4096 x 16,384, conv1d
    //    8192 x 4 + bias 8192, x_proj 8192 x (256 + 32), dt_proj 256 x 8192 + bias 8192, A_log
    //    8192 x 16, D 8192, out_proj 8192 x 4096, dt/B/C norms 256 + 16 + 16 = 105,308,448;
    //  attention 2 x 4096 x 4096 + 2 x 4096 x 1024 = 41,943,040;
    //  MLP 3 x 4096 x 14,336 = 176,160,768; MoE 16 of them and the router 4096 x 16;
    //  two norms per layer, untied embeddings 2 x 65,536 x 4096, the final norm:
    //  = 51,570,323,328 (Jamba-v0.1's total, the same shapes; AI21: 52B total, 12B active).
    void jamba()
    {
        const HfImport hf = import("jamba-1.5-mini.json");
        const ModelArch &a = hf.arch;
        QCOMPARE(a.layersOfKind(LayerKind::Full), 4);
        QCOMPARE(a.layersOfKind(LayerKind::Mamba1), 28);
        QCOMPARE(a.layerKind(4), LayerKind::Full);
        QCOMPARE(a.layerKind(12), LayerKind::Full);
        QCOMPARE(a.moeLayers(), 16);
        QVERIFY(a.isMoeLayer(1) && !a.isMoeLayer(0));
        const std::uint64_t h = 4096, inner = 8192;
        const std::uint64_t mamba = h * 2 * inner + inner * 4 + inner + inner * (256 + 32) + 256 * inner + inner +
                                    inner * 16 + inner + inner * h + 256 + 32;
        QCOMPARE(mamba, 105'308'448ull);
        const std::uint64_t mlp = 3 * h * 14336;
        const std::uint64_t hand = 28 * mamba + 4 * (2 * h * h + 2 * h * 1024) + 16 * mlp + 16 * (16 * mlp + h * 16) +
                                   32 * 2 * h + 2 * 65'536ull * h + h;
        QCOMPARE(hand, 51'570'323'328ull);
        const ParamCounts c = countParams(a);
        QCOMPARE(c.total, hand);
        // Active: 14 idle experts in 16 layers, and the input table.
        QCOMPARE(c.active, hand - 14 * mlp * 16 - 65'536ull * h);
        QCOMPARE(c.active, 11'841'875'840ull);

        // bf16: 4 attention layers x 2 x 8 x 128 x 2 B = 16,384 B per token; every Mamba-1
        // layer keeps, per sequence, a conv state of 8192 x (4 - 1) and an 8192 x 16 SSM
        // state: 28 x (24,576 + 131,072) x 2 B = 8,716,288 B.
        const Scenario s = inferenceWith(a);
        const KvLayout layout = kvLayout(s);
        QCOMPARE(kvBytesPerToken(layout), 16'384ull);
        QCOMPARE(stateBytesPerSequence(layout), 8'716'288ull);
        QCOMPARE(kvCacheBytes(layout, 3, 1000), 3 * (1000 * 16'384ull + 8'716'288));
        // Two tensor-parallel ranks split the KV heads and the inner channels.
        Scenario split = inferenceWith(a, R"(, "parallel": {"gpus": 2, "tensor": 2})");
        const KvLayout half = kvLayout(split);
        QCOMPARE(kvBytesPerToken(half), 8'192ull);
        QCOMPARE(stateBytesPerSequence(half), 28ull * (4096 * 3 + 4096 * 16) * 2);

        // The scenario keys round-trip: layer_kinds "mamba1" and linear_dt_rank.
        Scenario saved;
        saved.model = a;
        const Scenario back = scenarioFromJson(scenarioToJson(saved));
        QCOMPARE(back.model.linear.dtRank, 256);
        QCOMPARE(countParams(back.model).total, hand);
        // dt_rank "auto": ceil(4096 / 16) = 256, the same model.
        json automatic = fixture("jamba-1.5-mini.json");
        automatic["mamba_dt_rank"] = "auto";
        QCOMPARE(countParams(importHfConfig(automatic).arch).total, hand);
        json windowed = fixture("jamba-1.5-mini.json");
        windowed["sliding_window"] = 4096;
        QVERIFY(refusal(windowed).find("sliding_window") != std::string::npos);
    }

    // vLLM's hybrid allocator on two tensor-parallel ranks: a Mamba-1 layer's state page is
    // (4096 x 3 + 4096 x 16) x 2 B = 155,648 B, an attention layer's token 2 x 4 x 128 x 2 B =
    // 2,048 B, so the block grows to 16 x ceil(155,648 / (16 x 2,048)) = 80 tokens. The 4
    // attention layers form one KV group (4 x 80 x 2,048 B a block), the 28 Mamba layers seven
    // more; a request takes ceil(tokens / 80) blocks of the first and one of each other.
    void jambaUnderVllm()
    {
        Scenario s = scenarioFrom(R"({"task": "inference", "precision": {"weights": "bf16"},
            "serving": {"engine": "vllm", "max_model_len": 32768}, "gpus": ["h100-80gb"],
            "parallel": {"gpus": 2, "tensor": 2}})");
        s.model = import("jamba-1.5-mini.json").arch;
        const Estimate e = estimate(s);
        QVERIFY(e.serving);
        QCOMPARE(e.serving->blockSize, 80u);
        const std::uint64_t blockBytes = 4ull * 80 * 2048;
        QCOMPARE(e.serving->kvCacheBytes % blockBytes, 0ull);
        QCOMPARE(e.serving->kvCacheBytes / blockBytes, e.serving->blocks);
        QCOMPARE(e.serving->maxConcurrency, double(e.serving->blocks) / double((32768 + 79) / 80 + 7));
    }

    // What stays refused names what is missing.
    void stillRefused_data()
    {
        QTest::addColumn<QByteArray>("type");
        QTest::addColumn<QString>("missing");
        QTest::newRow("falcon_h1") << QByteArray("falcon_h1") << "Mamba-2";
        QTest::newRow("gemma3n_text") << QByteArray("gemma3n_text") << "per-layer embeddings";
    }
    void stillRefused()
    {
        QFETCH(QByteArray, type);
        QFETCH(QString, missing);
        const std::string error = refusal(json{{"model_type", type.toStdString()}});
        QVERIFY2(QString::fromStdString(error).contains(missing), error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestMoreFamilies)
#include "tst_morefamilies.moc"
