// SPDX-License-Identifier: GPL-3.0-or-later
// Per-layer kinds: what each kind of layer costs in parameters and what it keeps between steps,
// worked by hand from the modeling code (transformers' Qwen3-Next and Nemotron-H, vLLM's
// MambaStateShapeCalculator and HybridAttentionMambaModelConfig, llama.cpp's MLA cache, the
// Transformers DynamicCache), and the scenario keys that state them.
#include "model/architecture.h"
#include "model/hfconfig.h"
#include "serving/kvcache.h"
#include "testutil.h"

using namespace headroom;
using nlohmann::json;
using test::scenarioFrom;

namespace {

/// Qwen3-Next-80B-A3B as Qwen3NextConfig's defaults give it (transformers
/// configuration_qwen3_next.py: the class documents them as that checkpoint's shape).
const char *kQwen3Next = R"({"model_type": "qwen3_next"})";

// Hand count from transformers modeling_qwen3_next.py, hidden 2048, vocab 151,936:
//  gated attention (12 layers): q_proj 2048 x (16 x 256 x 2) + k, v 2048 x 512 + o 4096 x 2048
//      = 27,262,976, q/k norms 2 x 256;
//  Gated DeltaNet (36 layers): in_proj_qkvz 2048 x 12,288 + in_proj_ba 2048 x 64 + out_proj
//      4096 x 2048 = 33,685,504; conv1d 8,192 x 4, dt_bias and A_log 2 x 32, norm 128 = 32,960;
//  MoE (48 layers): 512 x 3 x 2048 x 512 + shared 3 x 2048 x 512 + router 2048 x 512 + shared
//      gate 2048 = 1,614,807,040; two norms 4,096;
//  embeddings and lm_head 2 x 151,936 x 2048, final norm 2048.
constexpr std::uint64_t kQwen3NextTotal = 12ull * (27'262'976 + 512) + 36ull * (33'685'504 + 32'960) +
                                          48ull * (1'610'612'736 + 3'145'728 + 1'048'576 + 2048 + 4096) +
                                          2ull * 151'936 * 2048 + 2048;

Scenario inference(const std::string &model, const std::string &extra = "")
{
    return scenarioFrom(R"({"task": "inference", "model": )" + model + extra + "}");
}

/// Granite-4.0-H-Small's layers (granitemoehybrid): nine Mamba-2 layers to one attention
/// layer, 40 in all, hidden 4096, 32 / 8 heads of 128, 128 Mamba heads of 64, d_state 128.
Scenario graniteSmall(const std::string &scenario)
{
    json types = json::array();
    for (int i = 0; i < 10; ++i)
        types.push_back(i == 9 ? "attention" : "mamba");
    const json config = {{"model_type", "granitemoehybrid"}, {"hidden_size", 4096}, {"num_hidden_layers", 10},
                         {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"vocab_size", 100352},
                         {"num_local_experts", 72}, {"num_experts_per_tok", 10}, {"intermediate_size", 768},
                         {"shared_intermediate_size", 1536}, {"mamba_n_heads", 128}, {"mamba_d_head", "auto"},
                         {"mamba_d_state", 128}, {"mamba_n_groups", 1}, {"mamba_d_conv", 4}, {"layer_types", types}};
    Scenario s = scenarioFrom(scenario);
    s.model = importHfConfig(config).arch;
    s.model.layers = 40; // the pattern of ten, four times
    return s;
}

Scenario qwen3Next(const std::string &extra = "")
{
    Scenario s = scenarioFrom(R"({"task": "inference")" + extra + "}");
    s.model = importHfConfig(std::string_view(kQwen3Next)).arch;
    return s;
}

} // namespace

class TestLayerKinds : public QObject
{
    Q_OBJECT
private slots:
    void qwen3NextReadsItsLayerPattern()
    {
        const HfImport import = importHfConfig(std::string_view(kQwen3Next));
        const ModelArch &m = import.arch;
        QCOMPARE(m.layers, 48);
        QCOMPARE(m.layersOfKind(LayerKind::GatedDeltaNet), 36);
        QCOMPARE(m.layersOfKind(LayerKind::Full), 12);
        QCOMPARE(m.layerKind(3), LayerKind::Full); // (i + 1) % full_attention_interval == 0
        QCOMPARE(m.layerKind(0), LayerKind::GatedDeltaNet);
        QCOMPARE(m.moeLayers(), 48);
        QCOMPARE(countParams(m).total, kQwen3NextTotal);
        QCOMPARE(kQwen3NextTotal, 79'674'391'296ull); // the "80B" of the model card
        // Active: all but 502 of 512 experts in 48 layers and the input embedding table.
        QCOMPARE(countParams(m).active, kQwen3NextTotal - 48ull * 502 * 3 * 2048 * 512 - 151'936ull * 2048);
        // An explicit layer_types list gives the same model.
        json config = json::parse(kQwen3Next);
        json types = json::array();
        for (int i = 0; i < 48; ++i)
            types.push_back((i + 1) % 4 ? "linear_attention" : "full_attention");
        config["layer_types"] = types;
        QCOMPARE(importHfConfig(config).arch, m);
    }

    void qwen3NextRefusesBadLayerTypes()
    {
        json config = json::parse(kQwen3Next);
        config["layer_types"] = json::array({"linear_attention", "mamba"});
        try {
            importHfConfig(config);
            QFAIL("accepted a bad layer_types");
        } catch (const HfConfigError &error) {
            QVERIFY2(std::string(error.what()).find("layer_types") != std::string::npos, error.what());
            QVERIFY2(std::string(error.what()).find("qwen3_next") != std::string::npos, error.what());
        }
    }

    // The plain inference model, bf16: 12 full layers x 2 (K, V) x 2 kv_heads x 256 x 2 B per
    // token; 36 Gated DeltaNet layers hold, per sequence, a conv state of (2 x 16 x 128 + 32 x
    // 128) x (4 - 1) values and a 32 x 128 x 128 recurrent state, 2 B each.
    void qwen3NextCachePerTokenAndPerSequence()
    {
        const Scenario s = qwen3Next();
        const KvLayout layout = kvLayout(s);
        QCOMPARE(kvBytesPerToken(layout), 12ull * 2 * 2 * 256 * 2);
        const std::uint64_t state = 36ull * (8192 * 3 + 32 * 128 * 128) * 2;
        QCOMPARE(stateBytesPerSequence(layout), state);
        QCOMPARE(state, 39'518'208ull);
        QCOMPARE(kvCacheBytes(layout, 3, 1000), 3 * 1000 * 12ull * 2048 + 3 * state);
        // The state does not grow with the sequence.
        QCOMPARE(kvCacheBytes(layout, 1, 2) - kvCacheBytes(layout, 1, 1), 12ull * 2048);
    }

    // Tensor parallelism splits heads and the conv channels: 2 ranks keep half of each.
    void qwen3NextStateSplitsWithTensorParallelism()
    {
        const Scenario s = qwen3Next(R"(, "parallel": {"gpus": 2, "tensor": 2})");
        const KvLayout layout = kvLayout(s);
        QCOMPARE(stateBytesPerSequence(layout), 36ull * (4096 * 3 + 16 * 128 * 128) * 2);
        QCOMPARE(kvBytesPerToken(layout), 12ull * 2 * 1 * 256 * 2);
    }

    // Transformers keeps the recurrent state as fla's kernels return it (fp32). generate()
    // serves the default request: one sequence of 1,024 prompt and 1,024 output tokens.
    void qwen3NextUnderHfGenerate()
    {
        Scenario s = qwen3Next(R"(, "serving": {"engine": "hf_generate"})");
        const Estimate e = estimate(s);
        const std::uint64_t kv = 2048ull * 12 * 2048;
        const std::uint64_t states = 36ull * (8192 * 3 * 2 + 32 * 128 * 128 * 4);
        QCOMPARE(e.bytes(ConsumerId::KvCache), kv + states);
    }

    // vLLM's hybrid allocator: the attention block grows to 16 x ceil(1,097,728 B of state /
    // (16 x 2,048 B per token)) = 544 tokens, the state page is padded to 544 x 2,048 B; the
    // 12 full layers form one KV group and the 36 linear layers three more, each request
    // taking ceil(tokens / 544) blocks of the first and one block of each other.
    void qwen3NextUnderVllm()
    {
        Scenario s = qwen3Next(R"(, "serving": {"engine": "vllm", "max_model_len": 32768}, "gpus": ["h100-80gb"])");
        const Estimate e = estimate(s);
        QVERIFY(e.serving);
        QCOMPARE(e.serving->blockSize, 544u);
        const std::uint64_t blockBytes = 12ull * 544 * 2048;
        QCOMPARE(e.serving->kvCacheBytes % blockBytes, 0ull);
        QCOMPARE(e.serving->kvCacheBytes / blockBytes, e.serving->blocks);
        const double perRequest = double((32768 + 543) / 544 + 3);
        QCOMPARE(e.serving->maxConcurrency, double(e.serving->blocks) / perRequest);
    }

    // DeepSeek-V3's MLA as each engine stores it, per token and layer, bf16/f16:
    //  vLLM, SGLang: the latent, 512 + 64 values;
    //  llama.cpp: K = latent + rope (576), V = the latent (512), apart;
    //  Transformers: 128 heads x (192 K + 128 V) = 40,960 values (71x the latent).
    void latentAttentionPerEngine()
    {
        const std::string model = R"({"preset": "deepseek-v3"})";
        const Scenario s = inference(model, R"(, "precision": {"weights": "bf16"})");
        KvOptions options = kvOptions(s);
        QCOMPARE(kvBytesPerToken(kvLayout(s, options)), 61ull * 576 * 2);
        options.mla = MlaCache::SeparateKv;
        const KvLayout separate = kvLayout(s, options);
        QCOMPARE(kvBytesPerToken(separate), 61ull * (576 + 512) * 2);
        QCOMPARE(kvKeyBytes(separate, 1, 10), 10ull * 61 * 576 * 2);
        QCOMPARE(kvValueBytes(separate, 1, 10), 10ull * 61 * 512 * 2);
        options.mla = MlaCache::PerHead;
        QCOMPARE(kvBytesPerToken(kvLayout(s, options)), 61ull * 128 * (192 + 128) * 2);

        // generate() on the default request (2,048 tokens of one sequence).
        Scenario hf = inference(model, R"(, "precision": {"weights": "bf16"}, "serving": {"engine": "hf_generate"})");
        QCOMPARE(estimate(hf).bytes(ConsumerId::KvCache), 2048ull * 61 * 40'960 * 2);
    }

    // DeepSeek sparse attention: each MLA layer also caches the indexer's 128-value key, in
    // fp8 with a fp32 scale per 128 values in vLLM and SGLang: 132 B per token and layer.
    void sparseAttentionIndexerCache()
    {
        const Scenario s = inference(R"({"preset": "deepseek-v3", "indexer_heads": 64, "indexer_head_dim": 128})",
                                     R"(, "precision": {"weights": "bf16"})");
        KvOptions options = kvOptions(s);
        options.indexerFp8 = true;
        QCOMPARE(kvBytesPerToken(kvLayout(s, options)), 61ull * (576 * 2 + 132));
        // The indexer's weights: wq_b 1536 x (64 x 128), wk 7168 x 128, weights_proj 7168 x 64,
        // k_norm 2 x 128 per layer.
        const Scenario plain = inference(R"({"preset": "deepseek-v3"})");
        QCOMPARE(countParams(s.model).total - countParams(plain.model).total,
                 61ull * (1536 * 64 * 128 + 7168 * 128 + 7168 * 64 + 256));
    }

    // DeepSeek-V3's checkpoint: the 671B main model and the MTP module (one MoE block, eh_proj
    // 2 x 7168 x 7168, enorm, hnorm and the shared head's norm, its own embed_tokens and head):
    // "Total parameters: 685B" with both (DeepSeek-V3 README_WEIGHTS.md).
    void deepseekMultiTokenPredictionModule()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "deepseek-v3"}})");
        const ParamCounts counts = countParams(s.model);
        const std::uint64_t block = 187'105'280ull + 257ull * 3 * 7168 * 2048 + 7168ull * 256 + 256 + 2 * 7168 + 512 + 1536;
        QCOMPARE(counts.mtp, block + 2ull * 7168 * 7168 + 3 * 7168 + 2ull * 129'280 * 7168);
        QCOMPARE(counts.total, 671'026'419'200ull); // the MTP module is not in the total
        // The checkpoint's tensors also hold one fp32 weight_scale_inv per 128 x 128 block of
        // every fp8 matrix of the main model: with them it rounds to the published 685B.
        std::uint64_t scales = 0;
        for (const MatrixShape &shape : matrixShapes(s.model))
            if (shape.group != MatrixGroup::LmHead)
                scales += (shape.inFeatures + 127) / 128 * ((shape.outFeatures + 127) / 128) * shape.copies;
        const long long checkpoint = static_cast<long long>(counts.total + counts.mtp + scales);
        QVERIFY2(std::llabs(checkpoint - 685'000'000'000ll) < 500'000'000ll, qPrintable(QString::number(checkpoint)));
    }

    // llama.cpp's llama_memory_recurrent: r and s states in f32 for each of n_parallel sequences.
    void recurrentStatesInLlamaCpp()
    {
        Scenario s = qwen3Next(R"(, "serving": {"engine": "llama_cpp", "n_ctx": 4096, "n_parallel": 2,
            "cache_type_k": "f16", "cache_type_v": "f16"}, "gpus": ["h100-80gb"])");
        const Estimate e = estimate(s);
        QVERIFY(e.serving);
        const std::uint64_t kv = 4096ull * 12 * 2 * 2 * 256 * 2;   // 4096 cells (a multiple of 256)
        const std::uint64_t states = 2ull * 36 * (8192 * 3 + 32 * 128 * 128) * 4;
        QCOMPARE(e.serving->kvCacheBytes, kv + states);
    }

    // Nemotron-H: one mixer per layer. A three-layer pattern "M*-" with 4 Mamba heads of 8,
    // d_state 16, 2 groups, kernel 4, hidden 64, 4 heads of 16 (2 KV heads), MLP 128, vocab 100:
    //  M: in_proj 64 x (2 x 32 + 2 x 2 x 16 + 4) = 64 x 132, out_proj 32 x 64; conv (32 + 64) x 4
    //     + bias 96; dt_bias, A_log, D 3 x 4; gated norm 32; its block norm 64;
    //  *: q 64 x 64, k, v 64 x 32, o 64 x 64; norm 64;  -: up 64 x 128, down 128 x 64; norm 64;
    //  embeddings and lm_head 2 x 100 x 64, final norm 64.
    void nemotronHCountsEveryLayerKind()
    {
        const json config = {{"model_type", "nemotron_h"}, {"hidden_size", 64}, {"vocab_size", 100},
                             {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 16},
                             {"intermediate_size", 128}, {"hybrid_override_pattern", "M*-"},
                             {"mamba_num_heads", 4}, {"mamba_head_dim", 8}, {"ssm_state_size", 16},
                             {"n_groups", 2}, {"conv_kernel", 4}};
        const ModelArch m = importHfConfig(config).arch;
        QCOMPARE(m.layers, 3);
        const std::uint64_t mamba = 64 * 132 + 32 * 64 + 96 * 4 + 96 + 12 + 32 + 64;
        const std::uint64_t attention = 64 * 64 + 2 * 64 * 32 + 64 * 64 + 64;
        const std::uint64_t mlp = 2 * 64 * 128 + 64;
        QCOMPARE(countParams(m).total, mamba + attention + mlp + 2 * 100 * 64 + 64);
        // Its cache: the attention layer's K and V per token, the Mamba layer's conv state of
        // (32 + 2 x 2 x 16) x 3 and SSM state of 4 x 8 x 16 per sequence.
        Scenario s = scenarioFrom(R"({"task": "inference"})");
        s.model = m;
        const KvLayout layout = kvLayout(s);
        QCOMPARE(kvBytesPerToken(layout), 2ull * 2 * 16 * 2);
        QCOMPARE(stateBytesPerSequence(layout), (96ull * 3 + 4 * 8 * 16) * 2);
    }

    // Granite 4.0-H-Small's cache: 4 attention layers of 8 KV heads of 128 per token, and per
    // sequence 36 Mamba-2 layers of a conv state (8192 + 2 x 128) x (4 - 1) and an SSM state
    // 128 heads x 64 x 128, bf16: 16,384 bytes per token, 77,322,240 bytes per sequence.
    void graniteHybridCache()
    {
        const Scenario s = graniteSmall(R"({"task": "inference"})");
        const KvLayout layout = kvLayout(s);
        QCOMPARE(kvBytesPerToken(layout), 4ull * 2 * 8 * 128 * 2);
        QCOMPARE(stateBytesPerSequence(layout), 36ull * ((8192 + 256) * 3 + 128 * 64 * 128) * 2);
        QCOMPARE(stateBytesPerSequence(layout), 77'322'240ull);
    }

    // Under Transformers' generate() (one sequence of 1,024 + 1,024 tokens): the 4 attention
    // layers' K and V for 2,048 tokens and the Mamba-2 states in the model dtype.
    void graniteHybridUnderHfGenerate()
    {
        const Estimate e = estimate(graniteSmall(R"({"task": "inference", "serving": {"engine": "hf_generate"}})"));
        QCOMPARE(e.bytes(ConsumerId::KvCache), 2048ull * 16'384 + 77'322'240ull);
    }

    // vLLM's hybrid allocator on Granite-4.0-H-Small: the attention block grows to 16 x
    // ceil(2,147,840 B of Mamba state per layer / (16 x 4,096 B per token and layer)) = 528
    // tokens; the 4 attention layers form one KV group and the 36 Mamba layers nine more of 4,
    // each request taking ceil(tokens / 528) blocks of the first and one block of each other.
    void graniteHybridUnderVllm()
    {
        const Estimate e = estimate(graniteSmall(R"({"task": "inference", "serving": {"engine": "vllm",
            "max_model_len": 32768}, "gpus": ["h100-80gb"]})"));
        QVERIFY(e.serving);
        QCOMPARE(e.serving->blockSize, 528u);
        const std::uint64_t blockBytes = 4ull * 528 * 4096;
        QCOMPARE(e.serving->kvCacheBytes % blockBytes, 0ull);
        QCOMPARE(e.serving->kvCacheBytes / blockBytes, e.serving->blocks);
        const double perRequest = double((32768 + 527) / 528 + 9);
        QCOMPARE(e.serving->maxConcurrency, double(e.serving->blocks) / perRequest);
    }

    // llama.cpp's llama_memory_recurrent: the conv and SSM states in f32 for each of n_parallel
    // sequences, beside an f16 KV cache of n_ctx cells for the 4 attention layers.
    void graniteHybridUnderLlamaCpp()
    {
        const Estimate e = estimate(graniteSmall(R"({"task": "inference", "serving": {"engine": "llama_cpp",
            "n_ctx": 4096, "n_parallel": 2, "cache_type_k": "f16", "cache_type_v": "f16"}, "gpus": ["h100-80gb"]})"));
        QVERIFY(e.serving);
        const std::uint64_t kv = 4096ull * 4 * 2 * 8 * 128 * 2;
        const std::uint64_t states = 2ull * 36 * ((8192 + 256) * 3 + 128 * 64 * 128) * 4;
        QCOMPARE(e.serving->kvCacheBytes, kv + states);
    }

    // The 2025 Llama-like families read by their config classes' keys (transformers
    // configuration_seed_oss.py, configuration_olmo3.py, configuration_smollm3.py), counted by
    // hand on a small shape: hidden 64, 4 heads of 16 (2 KV heads), MLP 128, vocab 100. One
    // layer: q and o 64 x 64, k and v 64 x 32, gate/up/down 3 x 64 x 128, two norms of 64.
    void llamaLikeFamilies_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<qulonglong>("total");
        const char *shape = R"("vocab_size": 100, "hidden_size": 64, "intermediate_size": 128,
            "num_attention_heads": 4, "num_key_value_heads": 2)";
        const std::uint64_t layer = 2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 128 + 2 * 64;
        // Seed-OSS: q, k and v biases by default (64 + 32 + 32), untied.
        QTest::newRow("seed-oss") << QByteArray(R"({"model_type": "seed_oss", "num_hidden_layers": 2, "head_dim": 16, )") + shape + "}"
                                  << qulonglong(2 * (layer + 128) + 2 * 6400 + 64);
        QTest::newRow("seed-oss-out-bias")
            << QByteArray(R"({"model_type": "seed_oss", "num_hidden_layers": 2, "head_dim": 16, "attention_out_bias": true, )") + shape + "}"
            << qulonglong(2 * (layer + 128 + 64) + 2 * 6400 + 64);
        // OLMo 3: q/k norms over the projections (64 + 32), untied.
        QTest::newRow("olmo3") << QByteArray(R"({"model_type": "olmo3", "num_hidden_layers": 4, )") + shape + "}"
                               << qulonglong(4 * (layer + 96) + 2 * 6400 + 64);
        // GLM-4.5 (glm4_moe): layer 0 dense (MLP 128), layer 1 with 4 experts of 32 (2 per token),
        // a shared expert of 32, router 4 x 64 and its correction bias 4; q/k norms of 16 each,
        // biases on q, k, v.
        QTest::newRow("glm4-moe") << QByteArray(R"({"model_type": "glm4_moe", "num_hidden_layers": 2, "head_dim": 16,
            "attention_bias": true, "use_qk_norm": true, "n_routed_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 32, "n_shared_experts": 1, "first_k_dense_replace": 1, )") + shape + "}"
                                  << qulonglong(2 * (2 * 64 * 64 + 2 * 64 * 32 + 2 * 64 + 128 + 32) + 3 * 64 * 128 +
                                                5 * 3 * 64 * 32 + 4 * 64 + 4 + 2 * 6400 + 64);
        // ERNIE 4.5 with use_bias: biases on q, k, v, o (64 + 32 + 32 + 64) and the MLP (2 x 128 + 64).
        QTest::newRow("ernie4-5-bias") << QByteArray(R"({"model_type": "ernie4_5", "num_hidden_layers": 2, "head_dim": 16,
            "use_bias": true, "tie_word_embeddings": false, )") + shape + "}"
                                       << qulonglong(2 * (layer + 192 + 320) + 2 * 6400 + 64);
        // Cohere2: one norm per block, tied embeddings.
        QTest::newRow("cohere2") << QByteArray(R"({"model_type": "cohere2", "num_hidden_layers": 4, )") + shape + "}"
                                 << qulonglong(4 * (layer - 64) + 6400 + 64);
        // MiMo: Qwen2's q, k, v biases, untied.
        QTest::newRow("mimo") << QByteArray(R"({"model_type": "mimo", "num_hidden_layers": 2, )") + shape + "}"
                              << qulonglong(2 * (layer + 128) + 2 * 6400 + 64);
        // SmolLM3: tied embeddings.
        QTest::newRow("smollm3") << QByteArray(R"({"model_type": "smollm3", "num_hidden_layers": 2, )") + shape + "}"
                                 << qulonglong(2 * layer + 6400 + 64);
    }
    void llamaLikeFamilies()
    {
        QFETCH(QByteArray, config);
        QFETCH(qulonglong, total);
        QCOMPARE(countParams(importHfConfig(std::string_view(config.constData(), std::size_t(config.size()))).arch).total,
                 std::uint64_t(total));
    }

    // OLMo 3's default pattern: three sliding layers (window 4096) to one full layer.
    void olmo3SlidingLayers()
    {
        Scenario s = scenarioFrom(R"({"task": "inference"})");
        s.model = importHfConfig(std::string_view(R"({"model_type": "olmo3", "num_hidden_layers": 4, "vocab_size": 100,
            "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2})")).arch;
        QCOMPARE(s.model.layersOfKind(LayerKind::Sliding), 3);
        const std::uint64_t perToken = 2 * 2 * 16 * 2; // one layer's K and V, bf16
        QCOMPARE(kvCacheBytes(kvLayout(s), 1, 8192), perToken * 8192 + 3 * perToken * 4096);
    }

    // A 2025-26 family whose layers are not counted yet is refused with what is missing.
    void knownFamiliesNotModelledAreRefused_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("missing");
        QTest::newRow("gemma3n") << QByteArray(R"({"model_type": "gemma3n", "text_config": {"model_type": "gemma3n_text"}})")
                                 << "per-layer embeddings";
        QTest::newRow("falcon-h1") << QByteArray(R"({"model_type": "falcon_h1"})") << "parallel attention and Mamba-2";
        QTest::newRow("minimax") << QByteArray(R"({"model_type": "minimax"})") << "lightning-attention";
    }
    void knownFamiliesNotModelledAreRefused()
    {
        QFETCH(QByteArray, config);
        QFETCH(QString, missing);
        try {
            importHfConfig(std::string_view(config.constData(), std::size_t(config.size())));
            QFAIL("accepted");
        } catch (const HfConfigError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(missing), error.what());
            QCOMPARE(error.missingFields, std::vector<std::string>{"model_type"});
        }
    }

    // Python's json writes float("inf") as Infinity: config.json is read anyway (Nemotron-H's
    // time_step_limit), and a key Headroom sizes from may not be one.
    void pythonJsonInfinityInConfig()
    {
        const std::string text = R"({"model_type": "nemotron_h", "hybrid_override_pattern": "M-",
            "time_step_limit": [0.0, Infinity], "time_step_floor": NaN, "name": "Infinity NaN"})";
        QCOMPARE(importHfConfig(std::string_view(text)).arch.layers, 2);
        try {
            importHfConfig(std::string_view(R"({"model_type": "qwen3_next", "hidden_size": Infinity})"));
            QFAIL("accepted an infinite hidden_size");
        } catch (const HfConfigError &error) {
            QVERIFY2(std::string(error.what()).find("hidden_size") != std::string::npos, error.what());
        }
    }

    // The scenario keys state every kind; the file round-trips.
    void scenarioKeysRoundTrip()
    {
        const Scenario s = scenarioFrom(R"({"model": {"layers": 8, "hidden": 1024, "intermediate": 4096,
            "heads": 8, "kv_heads": 2, "head_dim": 128, "vocab": 32000,
            "layer_kinds": ["mamba2", "mamba2", "mamba2", "full_attention"], "linear_heads": 32,
            "linear_key_dim": 64, "linear_value_dim": 64, "linear_groups": 1, "linear_conv_kernel": 4}})");
        QCOMPARE(s.model.layersOfKind(LayerKind::Mamba2), 6);
        QCOMPARE(scenarioFrom(scenarioToJson(s).dump()).model, s.model);
    }

    void scenarioKeysRefused_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("key");
        QTest::newRow("unknown-kind") << R"("layer_kinds": ["retnet"])" << "model.layer_kinds";
        QTest::newRow("sliding-without-window") << R"("layer_kinds": ["sliding_attention"])" << "model.layer_kinds";
        QTest::newRow("mamba-without-shape") << R"("layer_kinds": ["mamba2"])" << "model.layer_kinds";
        QTest::newRow("mla-without-rank") << R"("layer_kinds": ["mla"])" << "model.layer_kinds";
    }
    void scenarioKeysRefused()
    {
        QFETCH(QString, model);
        QFETCH(QString, key);
        try {
            scenarioFrom(R"({"model": {"preset": "llama-3-8b", )" + model.toStdString() + "}}");
            QFAIL("accepted");
        } catch (const ScenarioError &error) {
            QVERIFY2(std::string(error.what()).find(key.toStdString()) != std::string::npos, error.what());
        }
    }

    // The mixture-of-experts forward term uses the expert width: vLLM's profile forward for
    // Qwen3-30B-A3B reaches 3 x 768 x 8 experts of intermediates per token, not 3 x 6,144 x 8.
    void expertWidthInTheForwardTerm()
    {
        const Scenario s = inference(R"({"preset": "qwen3-30b-a3b"})", R"(, "serving": {"engine": "vllm",
            "max_model_len": 4096, "max_num_batched_tokens": 1000, "max_num_seqs": 1}, "gpus": ["h100-80gb"])");
        const Estimate e = estimate(s);
        QVERIFY(e.serving);
        // max(attention 3 x 2048 + 2 x 4096 + 2 x 512, MLP 3 x 2048 + 3 x 768 x 8 + 8 x 2048) x 2 B.
        const std::uint64_t perToken = std::max<std::uint64_t>(3 * 2048 + 2 * 4096 + 2 * 512,
                                                               3 * 2048 + 3 * 768 * 8 + 8 * 2048) * 2;
        QVERIFY2(e.serving->activationBytes >= 1000 * perToken &&
                     e.serving->activationBytes < 1000 * (3 * 2048 + 3 * 6144 * 8) * 2,
                 qPrintable(QString::number(e.serving->activationBytes)));
    }

    // Active parameters as the model cards count them: gpt-oss-20b 3.61B (total 20,914,757,184
    // less 24 x 28 unrouted experts of 3 x 2880 x 2880 weights and 8,640 biases, less the
    // 201,088 x 2,880 input embedding).
    void activeParametersLeaveOutTheInputEmbedding()
    {
        const Scenario s = scenarioFrom(R"({"model": {"preset": "gpt-oss-20b"}})");
        const ParamCounts counts = countParams(s.model);
        QCOMPARE(counts.total, 20'914'757'184ull);
        QCOMPARE(counts.active, 20'914'757'184ull - 24ull * 28 * (3 * 2880 * 2880 + 8640) - 201'088ull * 2880);
        QCOMPARE(counts.active, 3'608'307'264ull);
    }
};

QTEST_APPLESS_MAIN(TestLayerKinds)
#include "tst_layerkinds.moc"
