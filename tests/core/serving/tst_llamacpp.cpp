// SPDX-License-Identifier: GPL-3.0-or-later
// llama.cpp's weights as its code places and types them: file types sized tensor by tensor with
// llama-quantize's rules (src/llama-quant.cpp llama_tensor_get_type_impl), the output layer
// offloaded first (llama_model::load_tensors: i_gpu_start = max(n_layer + 1 - ngl, 0)), and
// --n-cpu-moe / --cpu-moe keeping expert tensors in CPU RAM. Every number is hand arithmetic in
// ggml's block sizes: q4_K 144 B per 256 values, q6_K 210 per 256, q8_0 34 per 32, q4_0 18 per 32.
#include "testutil.h"

#include "model/architecture.h"
#include "scenario/catalog.h"
#include "serving/llamacppweights.h"

#include <QtTest>

using namespace headroom;
using test::scenarioFrom;

namespace {

Estimate llama(const std::string &model, const std::string &serving)
{
    return estimate(scenarioFrom(R"({"task": "inference", "model": {"preset": ")" + model +
                                 R"("}, "gpus": ["h100-80gb"], "serving": {"engine": "llama_cpp", "n_ctx": 4096)" +
                                 serving + "}}"));
}

const LlamaTensor *find(const LlamaWeights &w, int layer, const char *name)
{
    for (const LlamaTensor &t : w.tensors)
        if (t.layer == layer && std::string_view(t.name) == name)
            return &t;
    return nullptr;
}

// Llama 3 8B (32 layers, hidden 4,096, MLP 14,336, 8 KV heads of 128, vocabulary 128,256) in
// Q4_K_M: everything q4_K except output.weight (q6_K) and, in the 16 layers use_more_bits picks
// (i < 4, i >= 28, (i - 4) % 3 == 2: 0-3, 6, 9, ..., 27, 28-31), attn_v and ffn_down in q6_K.
//   token_embd  4,096 x 128,256 / 256 x 144                     = 295,501,824
//   output      4,096 x 128,256 / 256 x 210 + norm 16,384       = 430,956,544
//   block, q4_K: q 9,437,184 + k 2,359,296 + v 2,359,296 + o 9,437,184
//                + gate, up, down 3 x 33,030,144 + norms 32,768 = 122,716,160
//   the 16 bumped: + v (3,440,640 - 2,359,296) + down (48,168,960 - 33,030,144) = + 16,220,160
//   blocks 32 x 122,716,160 + 16 x 16,220,160                   = 4,186,439,680
// The file: 4,912,898,048 B of tensors (Meta-Llama-3-8B-Instruct-Q4_K_M.gguf is 4.92 GB with
// its ~8 MB header).
constexpr std::uint64_t kEmbd = 295'501'824, kOutput = 430'956'544, kBlocks = 4'186'439'680;

} // namespace

class TestLlamaCpp : public QObject
{
    Q_OBJECT

private slots:
    void q4KMediumTypesEachTensor()
    {
        const Scenario s = scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"}})");
        const LlamaWeights w = llamaWeights(s.model, countParams(s.model), GgufType::Q4_K_M);
        QCOMPARE(w.embeddingBytes, kEmbd);
        QCOMPARE(w.outputBytes, kOutput);
        QCOMPARE(w.totalBytes, kEmbd + kOutput + kBlocks);
        QCOMPARE(QString::fromLatin1(find(w, -1, "output.weight")->type.name), QStringLiteral("q6_K"));
        for (const int layer : {0, 3, 6, 27, 28, 31})
            QCOMPARE(QString::fromLatin1(find(w, layer, "attn_v.weight")->type.name), QStringLiteral("q6_K"));
        for (const int layer : {4, 5, 7, 26})
            QCOMPARE(QString::fromLatin1(find(w, layer, "ffn_down.weight")->type.name), QStringLiteral("q4_K"));
        QCOMPARE(w.layerBytes[0], 122'716'160ull + 16'220'160ull);
        QCOMPARE(w.layerBytes[4], 122'716'160ull);
    }

    void everyLayerOnTheGpu()
    {
        // Upper case is read as llama-quantize writes it.
        const Estimate e = llama("llama-3-8b", R"(, "n_gpu_layers": -1, "weight_type": "Q4_K_M")");
        QCOMPARE(e.serving->weightsBytes, kBlocks + kOutput);
        QCOMPARE(e.serving->gpuLayers, 32u);
        // CPU RAM: the token embeddings, the logits buffer (128,256 x 4 B) and the CPU backend's
        // compute buffer (f16 KQ mask 4,096 x 512 x 2 B + token embeddings 2 x 512 x 4,096 x 4 B);
        // the cache is on the GPU.
        QCOMPARE(e.hostBytes, kEmbd + 128'256ull * 4 + 4'194'304 + 16'777'216);
    }

    void theOutputLayerGoesFirst()
    {
        // -ngl 1: i_gpu_start = 32 + 1 - 1 = 32, the output layer alone.
        const Estimate one = llama("llama-3-8b", R"(, "n_gpu_layers": 1, "weight_type": "q4_k_m")");
        QCOMPARE(one.serving->weightsBytes, kOutput);
        QCOMPARE(one.serving->gpuLayers, 0u);
        QCOMPARE(one.serving->kvCacheBytes, 0ull);
        // -ngl 3: the output layer and blocks 31 and 30 (both bumped: 138,936,320 B each).
        const Estimate three = llama("llama-3-8b", R"(, "n_gpu_layers": 3, "weight_type": "Q4_K_M")");
        QCOMPARE(three.serving->weightsBytes, kOutput + 2 * (122'716'160ull + 16'220'160ull));
        QCOMPARE(three.serving->gpuLayers, 2u);
        // Their cache: 2 layers x 4,096 cells x 2 (K, V) x 1,024 values x 2 B.
        QCOMPARE(three.serving->kvCacheBytes, 2ull * 4096 * 2 * 1024 * 2);
    }

    void expertsStayInCpuRam()
    {
        // Mixtral 8x7B in q8_0 (n_expert 8: attn_v and attn_k in q8_0 anyway): each layer's
        // ffn_{gate,up,down}_exps are 3 x 4,096 x 14,336 x 8 / 32 x 34 = 1,497,366,528 B.
        const std::uint64_t perLayer = 3ull * 4096 * 14336 * 8 / 32 * 34;
        const Estimate all = llama("mixtral-8x7b", R"(, "weight_type": "q8_0")");
        const Estimate four = llama("mixtral-8x7b", R"(, "weight_type": "q8_0", "n_cpu_moe": 4)");
        const Estimate cpu = llama("mixtral-8x7b", R"(, "weight_type": "q8_0", "cpu_moe": true)");
        QCOMPARE(all.serving->weightsBytes - four.serving->weightsBytes, 4 * perLayer);
        QCOMPARE(four.hostBytes - all.hostBytes, 4 * perLayer);
        QCOMPARE(all.serving->weightsBytes - cpu.serving->weightsBytes, 32 * perLayer);
        // The cache does not move with the experts.
        QCOMPARE(cpu.serving->kvCacheBytes, all.serving->kvCacheBytes);
    }

    void overrideTensorRulesPlaceTensorsByName()
    {
        // -ot "blk\.(0|1)\.ffn_(up|down|gate)=CPU": blocks 0 and 1 (both bumped) keep their MLP
        // in CPU RAM: gate and up 2 x 33,030,144 + down in q6_K 48,168,960 = 114,229,248 B each.
        const std::string rule = ", \"weight_type\": \"Q4_K_M\", \"override_tensor\": "
                                 "[\"blk\\\\.(0|1)\\\\.ffn_(up|down|gate)=CPU\"]";
        const Estimate e = llama("llama-3-8b", rule);
        QCOMPARE(e.serving->weightsBytes, kBlocks + kOutput - 2 * 114'229'248ull);
        QCOMPARE(e.hostBytes, kEmbd + 2 * 114'229'248ull + 128'256ull * 4 + 4'194'304 + 16'777'216);
        // The first rule that matches wins; CUDA0 brings the token embeddings onto the GPU.
        const Estimate up = llama("llama-3-8b", ", \"weight_type\": \"Q4_K_M\", "
                                                "\"override_tensor\": [\"token_embd=CUDA0\", \"token_embd=CPU\"]");
        QCOMPARE(up.serving->weightsBytes, kBlocks + kOutput + kEmbd);
        for (const char *bad : {"\"blk.(=CPU\"", "\"x=METAL\"", "\"noequals\""}) {
            try {
                llama("llama-3-8b", std::string(", \"override_tensor\": [") + bad + "]");
                QFAIL(bad);
            } catch (const ScenarioError &error) {
                QVERIFY2(QString::fromStdString(error.what()).contains(QLatin1String("serving.override_tensor[0]")),
                         error.what());
            }
        }
    }

    void lowBitFileTypes()
    {
        // IQ2_M (base iq2_s) on Llama 3 8B: attn_v q4_K (n_gqa 4 >= 4), token_embd iq3_s, output
        // q5_K, ffn_down iq3_s while i_ffn_down < 32 / 8, attn_output iq3_s.
        const Scenario s = scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"}})");
        const LlamaWeights w = llamaWeights(s.model, countParams(s.model), GgufType::Iq2_M);
        QCOMPARE(QString::fromLatin1(find(w, 5, "attn_v.weight")->type.name), QStringLiteral("q4_K"));
        QCOMPARE(QString::fromLatin1(find(w, -1, "token_embd.weight")->type.name), QStringLiteral("iq3_s"));
        QCOMPARE(QString::fromLatin1(find(w, -1, "output.weight")->type.name), QStringLiteral("q5_K"));
        QCOMPARE(QString::fromLatin1(find(w, 3, "ffn_down.weight")->type.name), QStringLiteral("iq3_s"));
        QCOMPARE(QString::fromLatin1(find(w, 4, "ffn_down.weight")->type.name), QStringLiteral("iq2_s"));
        QCOMPARE(QString::fromLatin1(find(w, 9, "attn_output.weight")->type.name), QStringLiteral("iq3_s"));
        QCOMPARE(QString::fromLatin1(find(w, 9, "ffn_up.weight")->type.name), QStringLiteral("iq2_s"));
        // ffn_up in iq2_s: 4,096 x 14,336 / 256 x 82.
        QCOMPARE(find(w, 9, "ffn_up.weight")->bytes, 4096ull * 14336 / 256 * 82);
    }

    void rowsThatAreNotWholeBlocksFallBack()
    {
        // gpt-oss-20b rows of 2,880 are not whole 256-blocks: q4_K falls back to q5_0 (22 B per
        // 32) and the q6_K output to q8_0 (tensor_type_fallback; the output rule itself picks
        // q8_0 when nx % 256 != 0). MXFP4_MOE puts the experts in mxfp4 (17 B per 32), the rest q8_0.
        const Scenario s = scenarioFrom(R"({"task": "inference", "model": {"preset": "gpt-oss-20b"}})");
        const LlamaWeights q4 = llamaWeights(s.model, countParams(s.model), GgufType::Q4_K_M);
        QCOMPARE(QString::fromLatin1(find(q4, 0, "attn_q.weight")->type.name), QStringLiteral("q5_0"));
        QCOMPARE(QString::fromLatin1(find(q4, -1, "output.weight")->type.name), QStringLiteral("q8_0"));
        const LlamaWeights mx = llamaWeights(s.model, countParams(s.model), GgufType::Mxfp4_Moe);
        const LlamaTensor *up = find(mx, 0, "ffn_up_exps.weight");
        QCOMPARE(QString::fromLatin1(up->type.name), QStringLiteral("mxfp4"));
        QCOMPARE(up->bytes, 2880ull / 32 * 17 * up->rows);
        QCOMPARE(QString::fromLatin1(find(mx, 0, "attn_k.weight")->type.name), QStringLiteral("q8_0"));
    }

    void unknownFileTypesAreRefused()
    {
        try {
            llama("llama-3-8b", R"(, "weight_type": "Q4_K_X")");
            QFAIL("Q4_K_X was read");
        } catch (const ScenarioError &error) {
            QVERIFY2(QString::fromStdString(error.what()).contains(QLatin1String("serving.weight_type")) &&
                         QString::fromStdString(error.what()).contains(QLatin1String("q4_k_m")),
                     error.what());
        }
        // MXFP4 is llama-quantize's MXFP4_MOE.
        QCOMPARE(llama("gpt-oss-20b", R"(, "weight_type": "MXFP4")").serving->weightsBytes,
                 llama("gpt-oss-20b", R"(, "weight_type": "mxfp4_moe")").serving->weightsBytes);
    }
};

QTEST_GUILESS_MAIN(TestLlamaCpp)
#include "tst_llamacpp.moc"
