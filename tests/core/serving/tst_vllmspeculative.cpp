// SPDX-License-Identifier: GPL-3.0-or-later
// vLLM's speculative decoding (serving.speculative), hand-worked from vLLM's V1 code
// (docs/serving.md "Speculative decoding"): the draft heads' parameters from
// llama_eagle.py / llama_eagle3.py / deepseek_mtp.py, EagleProposer's buffers and its sharing of
// embed_tokens and lm_head (vllm/v1/spec_decode/eagle.py), the drafter's layers in every KV block.
//
// The launch: Llama 3.1 8B in bf16 on an H100 reported as 80 GiB total, vLLM's current release,
// gpu_memory_utilization 0.9, enforce_eager (no graph pool), non-torch 256 MiB, max_model_len 8,192;
// the batch defaults of a >= 70 GiB GPU: max_num_batched_tokens 8,192, max_num_seqs 1,024.
//   requested = 85,899,345,920 x 0.9 = 77,309,411,328 B
//   weights   = 8,030,261,248 x 2 = 16,060,522,496 B
//   profile   = the Triton sampler over 1,024 dummy requests: 1,024 x 128,256 x 14 B
//               + (8,192 + 2 x 1,024) x 4,096 x 2 B hidden + 132 SMs x 128,256 x 4 B
//             = 1,990,283,264 B (the target's forward, 8,192 x 110,592 B, is smaller)
//   KV        = 77,309,411,328 - 16,060,522,496 - 1,990,283,264 - 268,435,456 = 58,990,170,112 B,
//               in blocks of 32 layers x 16 tokens x 2 x 8 x 128 x 2 B = 2,097,152 B: 28,128.
#include "testutil.h"

#include "scenario/scenariojson.h"
#include "serving/servingjson.h"

#include <nlohmann/json.hpp>

using namespace headroom;
using test::describe;
using test::scenarioFrom;

namespace {

constexpr const char *kLlamaLayer = R"("layers": 1, "hidden": 4096, "intermediate": 14336, "heads": 32,
    "kv_heads": 8, "head_dim": 128, "vocab": 128256, "norms_per_layer": 2, "max_positions": 131072)";

std::string llama8b(const std::string &speculative, const std::string &requests = "")
{
    return R"({"task": "inference", "model": {"preset": "llama-3.1-8b"}, "gpus": ["h100-80gb"],
        "serving": {"engine": "vllm", "gpu_memory_utilization": 0.9, "max_model_len": 8192,
                    "enforce_eager": true, "non_torch_mib": 256, "total_gpu_memory_gib": 80)" +
           (speculative.empty() ? std::string() : ", \"speculative\": " + speculative) +
           (requests.empty() ? std::string() : ", \"requests\": " + requests) + "}}";
}

std::string refusal(const std::string &document)
{
    try {
        scenarioFrom(document);
    } catch (const ScenarioError &error) {
        return error.what();
    }
    return {};
}

} // namespace

class TestVllmSpeculative : public QObject
{
    Q_OBJECT
private slots:
    void baseline()
    {
        const Estimate e = estimate(scenarioFrom(llama8b("")));
        QCOMPARE(e.serving->weightsBytes, 16060522496ull);
        QCOMPARE(e.serving->activationBytes, 1990283264ull);
        QVERIFY2(e.serving->blocks == 28128ull, describe(e));
    }

    // yuhuili/EAGLE-LLaMA3.1-Instruct-8B's config: one Llama layer of the target's shape.
    // llama_eagle.py: layer 0 without input_layernorm, fc 2 x 4,096 -> 4,096, no final norm; the
    // embeddings and lm_head are the target's.
    //   qkv 4,096 x 6,144 = 25,165,824; o 16,777,216; gate_up/down 3 x 4,096 x 14,336 =
    //   176,160,768; post_attention_layernorm 4,096; fc 33,554,432: 251,662,336 params x 2 B
    //   = 503,324,672 B.
    // The profile: the drafter's dummy_run (8,192 x (110,592 + 8,192) B = 973,078,528) stays
    // below the sampler; EagleProposer's buffers add 8,192 x (4 + 8 + 2 x 4,096 x 2) + 4 x 8,192
    // = 134,348,800 B. KV blocks hold 33 layers: 2,162,688 B.
    //   (77,309,411,328 - 16,563,847,168 - 2,124,632,064 - 268,435,456) / 2,162,688 = 26,981
    //   blocks, 431,696 tokens, 26,981 / 512 = 52.70x at 8,192 tokens.
    void eagleHead()
    {
        const Estimate e = estimate(scenarioFrom(llama8b(R"({"method": "eagle", "num_speculative_tokens": 3,
            "model": {)" + std::string(kLlamaLayer) + "}}")));
        QCOMPARE(e.serving->weightsBytes, 16060522496ull + 503324672ull);
        QCOMPARE(e.serving->activationBytes, 1990283264ull + 134348800ull);
        QCOMPARE(e.serving->kvBytesPerToken, 33ull * 2 * 8 * 128 * 2);
        QVERIFY2(e.serving->blocks == 26981ull, describe(e));
        QCOMPARE(e.serving->kvCacheTokens, 431696ull);
        QVERIFY(std::abs(e.serving->maxConcurrency - 26981.0 / 512) < 1e-9);
        // The explanation says each term with these numbers.
        const QByteArray text = describe(e);
        QVERIFY2(text.contains("33,554,432 fc"), text.constData());
        QVERIFY2(text.contains("134,348,800 B EagleProposer buffers"), text.constData());
        // A checkpoint with its own embed_tokens: + 128,256 x 4,096 = 525,336,576 params.
        const Estimate own = estimate(scenarioFrom(llama8b(R"({"method": "eagle", "num_speculative_tokens": 3,
            "own_embed_tokens": true, "model": {)" + std::string(kLlamaLayer) + "}}")));
        QCOMPARE(own.serving->weightsBytes, 16060522496ull + 503324672ull + 2ull * 525336576);
    }

    // yuhuili/EAGLE3-LLaMA3.1-Instruct-8B: one layer, draft_vocab_size 32,000. llama_eagle3.py:
    // the layer (218,112,000 with both norms) + 4,096 x 6,144 = 25,165,824 more for qkv_proj on
    // 2 x hidden + hidden_norm 4,096 + fc 3 x 4,096 x 4,096 = 50,331,648 + norm 4,096 + lm_head
    // 32,000 x 4,096 = 131,072,000: 424,689,664 params x 2 B + draft_id_to_target_id 32,000 x 8 B
    // = 849,635,328 B. The target's forward with three auxiliary hidden states (905,969,664 +
    // 201,326,592) stays below the sampler; the buffers as for EAGLE.
    //   (77,309,411,328 - 16,910,157,824 - 2,124,632,064 - 268,435,456) / 2,162,688 = 26,821.
    void eagle3Head()
    {
        const Estimate e = estimate(scenarioFrom(llama8b(R"({"method": "eagle3", "num_speculative_tokens": 3,
            "draft_vocab_size": 32000, "model": {)" + std::string(kLlamaLayer) + "}}")));
        QCOMPARE(e.serving->weightsBytes, 16060522496ull + 849635328ull);
        QCOMPARE(e.serving->activationBytes, 1990283264ull + 134348800ull);
        QVERIFY2(e.serving->blocks == 26821ull, describe(e));
        QVERIFY2(describe(e).contains("lm_head (draft_vocab_size 32,000)"), describe(e).constData());
    }

    // DeepSeek-V3 in fp8 (128 x 128 blocks), tensor parallel 1: its one MTP layer (the catalog's
    // mtp_layers) as deepseek_mtp.py loads it, the embed_tokens copy shared with the target:
    //   block: MLA 187,105,280 + routed experts 256 x 3 x 7,168 x 2,048 = 11,274,289,152 + the
    //   shared expert 44,040,192 = 11,505,434,624 fp8 values x 1 B; router 1,835,008, its bias
    //   256, q_a/kv_a norms 2,048, two norms 14,336: 1,851,648 x 2 B = 3,703,296;
    //   fp32 scales per 128 x 128: q_a 672 + q_b 2,304 + kv_a 280 + kv_b 1,024 + o 7,168 +
    //   257 experts x 3 x 896 = 702,264 x 4 B = 2,809,056;
    //   shared_head: head 129,280 x 7,168 = 926,679,040 x 2 B, norm 7,168 x 2 B;
    //   eh_proj 2 x 7,168 x 7,168 = 102,760,448 and enorm/hnorm 14,336, x 2 B = 205,549,568.
    //   Sum: 13,570,868,960 B. The KV: one more MLA layer, (512 + 64) x 2 B per token.
    void deepseekMtp()
    {
        const std::string doc = R"({"task": "inference", "model": {"preset": "deepseek-v3"}, "gpus": ["h200"],
            "precision": {"weights": "fp8", "fp8_scales": "block"},
            "serving": {"engine": "vllm", "max_model_len": 8192, "enforce_eager": true)";
        const Estimate plain = estimate(scenarioFrom(doc + "}}"));
        const Estimate e = estimate(scenarioFrom(doc + R"(, "speculative": {"method": "deepseek_mtp"}}})"));
        QCOMPARE(e.serving->weightsBytes - plain.serving->weightsBytes, 13570868960ull);
        QCOMPARE(plain.serving->kvBytesPerToken, 61ull * 1152);
        QCOMPARE(e.serving->kvBytesPerToken, 62ull * 1152);
        // num_speculative_tokens defaults to num_nextn_predict_layers; the name is kept.
        const Scenario s = scenarioFrom(doc + R"(, "speculative": {"method": "deepseek_mtp"}}})");
        QCOMPARE(s.serving->speculative->numSpeculativeTokens, 1u);
        QCOMPARE(s.serving->speculative->method, SpeculativeMethod::Mtp);
    }

    // ngram: no weights, no KV layers, no buffers; the rejection sampler's phase (hidden states
    // + 1,024 x 128,256 x (3 x 2 + 4) B = 1,397,227,520) stays below the sampler. Each request
    // holds 3 lookahead slots: 4 requests of 2,000 tokens take ceil(2,003 / 16) = 126 blocks each.
    void ngramChangesOnlyTheLookahead()
    {
        const std::string requests = R"({"concurrency": 4, "prompt_tokens": 1000, "output_tokens": 1000})";
        const Estimate plain = estimate(scenarioFrom(llama8b("", requests)));
        const Estimate e = estimate(scenarioFrom(llama8b(R"({"method": "ngram", "num_speculative_tokens": 3,
            "prompt_lookup_max": 4})", requests)));
        QCOMPARE(e.serving->weightsBytes, 16060522496ull);
        QCOMPARE(e.serving->activationBytes, 1990283264ull);
        QCOMPARE(e.serving->blocks, 28128ull);
        QCOMPARE(plain.serving->requestKvBytes, 4ull * 125 * 2097152);
        QCOMPARE(e.serving->requestKvBytes, 4ull * 126 * 2097152);
        QVERIFY2(describe(e).contains("num_lookahead_tokens"), describe(e).constData());
    }

    // The keys are written back and read again to the same scenario.
    void roundTrip()
    {
        for (const std::string &speculative :
             {std::string(R"({"method": "eagle3", "num_speculative_tokens": 2, "draft_vocab_size": 32000, "model": {)") +
                  kLlamaLayer + "}}",
              std::string(R"({"method": "ngram", "num_speculative_tokens": 4})")}) {
            const Scenario s = scenarioFrom(llama8b(speculative));
            const Scenario back = scenarioFromJson(scenarioToJson(s));
            QVERIFY(back.serving->speculative);
            QCOMPARE(*back.serving, *s.serving);
        }
        const Scenario s = scenarioFrom(llama8b(R"({"method": "eagle", "num_speculative_tokens": 3, "model": {)" +
                                                std::string(kLlamaLayer) + "}}"));
        const nlohmann::json written = scenarioToJson(s).at("serving").at("speculative");
        QCOMPARE(written.at("method").get<std::string>(), std::string("eagle"));
        QCOMPARE(written.at("num_speculative_tokens").get<int>(), 3);
        QCOMPARE(written.at("model").at("layers").get<int>(), 1);
    }

    // What is not modelled is refused naming the field.
    void refusals()
    {
        const std::string draft = std::string(R"("model": {)") + kLlamaLayer + "}";
        QVERIFY(refusal(llama8b(R"({"method": "medusa", "num_speculative_tokens": 3})"))
                    .find("serving.speculative.method") != std::string::npos);
        QVERIFY(refusal(llama8b(R"({"method": "qwen3_next_mtp", "num_speculative_tokens": 1})"))
                    .find("not modelled") != std::string::npos);
        QVERIFY(refusal(llama8b(R"({"method": "mtp", "num_speculative_tokens": 1})"))
                    .find("serving.speculative.method") != std::string::npos);
        QVERIFY(refusal(llama8b(R"({"method": "eagle", "num_speculative_tokens": 3})"))
                    .find("serving.speculative.model") != std::string::npos);
        QVERIFY(refusal(llama8b(R"({"method": "ngram", "num_speculative_tokens": 3, )" + draft + "}"))
                    .find("serving.speculative.model") != std::string::npos);
        QVERIFY(refusal(llama8b(R"({"method": "eagle", )" + draft + "}"))
                    .find("serving.speculative.num_speculative_tokens") != std::string::npos);
        QVERIFY(refusal(llama8b(R"({"method": "eagle", "num_speculative_tokens": 3, "draft_tensor_parallel_size": 2, )" +
                                draft + "}"))
                    .find("serving.speculative.draft_tensor_parallel_size") != std::string::npos);
        const std::string sglang = refusal(R"({"task": "inference", "model": {"preset": "llama-3.1-8b"},
            "gpus": ["h100-80gb"], "serving": {"engine": "sglang",
            "speculative": {"method": "eagle", "num_speculative_tokens": 3}}})");
        QVERIFY2(sglang.find("serving.speculative") != std::string::npos &&
                     sglang.find("vllm only") != std::string::npos,
                 sglang.c_str());
        QVERIFY(refusal(R"({"task": "inference", "model": {"preset": "llama-3.1-8b"}, "gpus": ["h100-80gb"],
            "serving": {"engine": "vllm", "version": "0.6.3",
            "speculative": {"method": "ngram", "num_speculative_tokens": 3}}})")
                    .find("V1 engine") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestVllmSpeculative)
#include "tst_vllmspeculative.moc"
