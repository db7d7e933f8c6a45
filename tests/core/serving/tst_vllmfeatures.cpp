// SPDX-License-Identifier: GPL-3.0-or-later
// vLLM features users turn on, hand-worked from vLLM's code (docs/serving.md): LoRA slots
// (vllm/lora/layers/base_linear.py create_lora_weights) and --cpu-offload-gb
// (vllm/model_executor/models/utils.py maybe_offload_to_cpu), on the Llama 3 8B / RTX 4090
// launch of tst_serving (0.10.1: 5,391,208,612 B of KV memory, blocks of 2,097,152 B).
#include "testutil.h"

#include "serving/servingengines.h"
#include "serving/servingjson.h"

using namespace headroom;
using test::describe;
using test::scenarioFrom;

namespace {

std::string llama8bOn4090(const std::string &extra, const std::string &parallel = "")
{
    return R"({"task": "inference", "model": {"preset": "llama-3-8b"}, "gpus": ["rtx-4090"])" + parallel + R"(,
        "serving": {"engine": "vllm", "version": "0.10.1", "gpu_memory_utilization": 0.9,
                    "max_model_len": 8192, "max_num_seqs": 256, "max_num_batched_tokens": 2048,
                    "block_size": 16, "sampler": "pytorch")" + extra + "}}";
}

std::string refusal(const std::string &extra)
{
    try {
        scenarioFrom(llama8bOn4090(extra));
    } catch (const ScenarioError &error) {
        return error.what();
    }
    return {};
}

} // namespace

class TestVllmFeatures : public QObject
{
    Q_OBJECT
private slots:
    // One slot at rank 16 in one layer (TP 1): A [16, 4,096] for q, k, v, gate and up, A
    // [16, 4,096] for o_proj and [16, 14,336] for down_proj; B [4,096 + 2 x 1,024, 16] for qkv,
    // [2 x 14,336, 16] for gate_up, [4,096, 16] for o_proj and for down_proj:
    //   16 x (5 x 4,096 + 6,144 + 28,672 + 4,096 + 14,336 + 2 x 4,096) = 16 x 81,920 = 1,310,720
    // At TP 2 the column outputs and row inputs halve: 16 x (20,480 + 3,072 + 14,336 + 9,216 +
    //   8,192) = 884,736.
    void loraSlotValues()
    {
        const Scenario s = scenarioFrom(llama8bOn4090(""));
        QCOMPARE(detail::vllmLoraSlotElements(s.model, 16, 1), 1310720ull);
        QCOMPARE(detail::vllmLoraSlotElements(s.model, 16, 2), 884736ull);
        QCOMPARE(detail::vllmLoraSlotElements(s.model, 64, 1), 4ull * 1310720);
    }

    // max_loras 4 at rank 16: 4 x 1,310,720 x 32 layers x 2 B = 335,544,320 B on the GPU, in
    // "Model loading took"; the KV memory shrinks by as much: floor((5,391,208,612 - 335,544,320)
    // / 2,097,152) = 2,410 blocks. max_cpu_loras 8 adapters in host RAM: 8 x 83,886,080 B.
    void loraSlotsTakeFromTheCache()
    {
        const Estimate plain = estimate(scenarioFrom(llama8bOn4090("")));
        const Estimate e = estimate(scenarioFrom(llama8bOn4090(
            R"(, "enable_lora": true, "max_loras": 4, "max_lora_rank": 16, "max_cpu_loras": 8)")));
        QCOMPARE(plain.serving->blocks, 2570ull);
        QCOMPARE(e.serving->weightsBytes, 16060522496ull + 335544320ull);
        QVERIFY2(e.serving->blocks == 2410ull, describe(e));
        QCOMPARE(e.hostBytes, 8ull * 83886080);
        // max_cpu_loras left out: the CPU cache holds max_loras adapters.
        const Estimate d = estimate(scenarioFrom(llama8bOn4090(R"(, "enable_lora": true, "max_loras": 4)")));
        QCOMPARE(d.hostBytes, 4ull * 83886080);
    }

    // --cpu-offload-gb 4: 4 GiB of the weights stay in CPU RAM; the KV memory grows by as much:
    // floor((5,391,208,612 + 4,294,967,296) / 2,097,152) = 4,618 blocks.
    void cpuOffload()
    {
        const Estimate e = estimate(scenarioFrom(llama8bOn4090(R"(, "cpu_offload_gb": 4)")));
        QCOMPARE(e.serving->weightsBytes, 16060522496ull - 4294967296ull);
        QCOMPARE(e.hostBytes, 4294967296ull);
        // In CPU RAM, by consumer: the offloaded weights (the chart's CPU RAM bar).
        QCOMPARE(e.host.size(), std::size_t(1));
        QCOMPARE(e.host.front().id, ConsumerId::Weights);
        QCOMPARE(e.host.front().bytes, 4294967296ull);
        QVERIFY2(e.serving->blocks == 4618ull, describe(e));
        // More than the weights: all of them, no more.
        const Estimate all = estimate(scenarioFrom(llama8bOn4090(R"(, "cpu_offload_gb": 100)")));
        QCOMPARE(all.hostBytes, 16060522496ull);
    }

    // The keys as vLLM checks them, refused naming the field.
    void refusals()
    {
        QVERIFY(refusal(R"(, "max_loras": 2)").find("needs \"enable_lora\"") != std::string::npos);
        QVERIFY(refusal(R"(, "enable_lora": true, "max_lora_rank": 24)").find("possible_max_ranks") !=
                std::string::npos);
        QVERIFY(refusal(R"(, "enable_lora": true, "max_loras": 4, "max_cpu_loras": 2)").find("at least max_loras") !=
                std::string::npos);
        try {
            scenarioFrom(R"({"task": "inference", "model": {"preset": "mixtral-8x7b"}, "gpus": ["h100-80gb"],
                "serving": {"engine": "vllm", "enable_lora": true}})");
            QFAIL("LoRA on a mixture of experts was accepted");
        } catch (const ScenarioError &error) {
            QVERIFY(std::string(error.what()).find("serving.enable_lora") != std::string::npos);
        }
        // Round trip.
        const Scenario s = scenarioFrom(llama8bOn4090(R"(, "enable_lora": true, "max_loras": 2, "cpu_offload_gb": 1.5)"));
        QCOMPARE(servingFromJson(servingToJson(*s.serving), s), *s.serving);
    }
};

QTEST_APPLESS_MAIN(TestVllmFeatures)
#include "tst_vllmfeatures.moc"
