// SPDX-License-Identifier: GPL-3.0-or-later
// The serving engines' behaviours by release (docs/serving.md), each worked by hand and checked
// on a published log of that release: vLLM on llm-d-planner's sweep (tests/data/serving; an H100
// 80GB at gpu_memory_utilization 0.95, max_model_len 8192, the `vllm serve` defaults of 8,192
// batched tokens and 1,024 sequences), SGLang's closed-form mem_fraction_static default.
#include "testutil.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace headroom;
using test::describe;
using test::scenarioFrom;

namespace {

constexpr double kGiB = 1073741824.0;

/// Llama 3.1 8B bf16 under vLLM on one H100 (or `tensor` of them) at util 0.95, 8k context.
std::string llama31(const std::string &version, const std::string &extra = {}, int tensor = 1)
{
    return R"({"task": "inference", "model": {"preset": "llama-3.1-8b"}, "gpus": ["h100-80gb"],
        "parallel": {"gpus": )" + std::to_string(tensor) + R"(, "tensor": )" + std::to_string(tensor) + R"(},
        "serving": {"engine": "vllm", "version": ")" + version + R"(", "gpu_memory_utilization": 0.95,
                    "max_model_len": 8192)" + extra + "}}";
}

/// Qwen3-14B (its config.json: 40 layers, hidden 5,120, 40 heads and 8 KV heads of 128, MLP
/// 17,408, vocab 151,936), the llm-d-planner version sweep's model.
std::string qwen3_14b(const std::string &version)
{
    return R"({"task": "inference", "gpus": ["h100-80gb"],
        "model": {"layers": 40, "hidden": 5120, "intermediate": 17408, "heads": 40, "kv_heads": 8,
                  "head_dim": 128, "vocab": 151936, "tied_embeddings": false, "mlp": "gated",
                  "norm": "rmsnorm", "bias": "none", "position": "rope", "max_positions": 40960},
        "serving": {"engine": "vllm", "version": ")" + version + R"(", "gpu_memory_utilization": 0.95,
                    "max_model_len": 8192}})";
}

ServingFigures figures(const std::string &keys)
{
    const Estimate e = estimate(scenarioFrom(keys));
    if (!e.serving)
        throw std::runtime_error("no serving figures");
    return *e.serving;
}

/// Llama 3.1 8B under SGLang on `tensor` GPUs of one kind; `extra` adds serving keys.
std::string sglangLlama(const std::string &gpu, int tensor, const std::string &version, const std::string &extra)
{
    return R"({"task": "inference", "model": {"preset": "llama-3.1-8b"}, "gpus": [")" + gpu +
           R"("], "parallel": {"gpus": )" + std::to_string(tensor) + R"(, "tensor": )" + std::to_string(tensor) +
           R"(}, "serving": {"engine": "sglang", "version": ")" + version + "\"" + extra + "}}";
}

std::string fractionKey(double fraction) { return ", \"mem_fraction_static\": " + std::to_string(fraction); }

} // namespace

class TestServingReleases : public QObject
{
    Q_OBJECT
private slots:
    // The Triton top-k/top-p sampler, the default from 0.17 (apply_top_k_top_p sends batches of
    // 8 rows or more to apply_top_k_top_p_triton). Llama 3.1 8B on 0.19.0, 1,024 dummy rows:
    //   logits   1,024 x 128,256 x (2 + 12) B          = 1,838,678,016 B (bf16 logits, fp32 copy,
    //                                                     probabilities, exponential draws)
    //   hidden   (8,192 + 2 x 1,024) x 4,096 x 2 B     =    83,886,080 B
    //   scratch  min(132 SMs, 1,024) x 128,256 x 4 B   =    67,719,168 B
    //   peak                                           = 1,990,283,264 B = 1.854 GiB
    // The log (vllm-0.19-llama-3.1-8b-h100-8k) printed a torch peak increase of 1.89 GiB. The
    // sort-based sampler of 0.16 would have needed 1,024 x 128,256 x 38 + 83,886,080 =
    // 5,074,583,552 B (4.73 GiB).
    void tritonSampler()
    {
        const ServingFigures f = figures(llama31("0.19.0"));
        QCOMPARE(f.activationBytes, 1990283264ull);
        QVERIFY(std::fabs(double(f.activationBytes) / kGiB - 1.89) < 0.05);
        QCOMPARE(figures(llama31("0.16.0")).activationBytes, 5074583552ull);
        // Asked for explicitly, each sampler is used in any release.
        QCOMPARE(figures(llama31("0.19.0", R"(, "sampler": "pytorch")")).activationBytes, 5074583552ull);
        QCOMPARE(figures(llama31("0.10.1", R"(, "sampler": "triton")")).activationBytes, 1990283264ull);
        // Fewer than 8 rows stay on the sort: 4 x 128,256 x 38 + (8,192 + 8) x 4,096 x 2 B =
        // 19,494,912 + 67,174,400 = 86,669,312 B, under the forward's 8,192 x 110,592 B =
        // 905,969,664 B (3 x 4,096 + 3 x 14,336 values x 2 B per token), which is the peak.
        QCOMPARE(figures(llama31("0.19.0", R"(, "max_num_seqs": 4)")).activationBytes, 905969664ull);
    }

    // The version boundary on logs of each side: Qwen3-14B's peak on 0.16.0 and 0.17.0 (the
    // llm-d-planner sweep printed 5.64 and 2.23 GiB):
    //   0.16: 1,024 x 151,936 x 38 + 10,240 x 5,120 x 2                    = 6,016,991,232 B (5.60 GiB)
    //   0.17: 1,024 x 151,936 x 14 + 10,240 x 5,120 x 2 + 132 x 151,936 x 4 = 2,363,234,304 B (2.20 GiB)
    void samplerBoundary()
    {
        const ServingFigures before = figures(qwen3_14b("0.16.0"));
        const ServingFigures after = figures(qwen3_14b("0.17.0"));
        QCOMPARE(before.activationBytes, 6016991232ull);
        QCOMPARE(after.activationBytes, 2363234304ull);
        QVERIFY(std::fabs(double(before.activationBytes) / kGiB - 5.64) < 0.05);
        QVERIFY(std::fabs(double(after.activationBytes) / kGiB - 2.23) < 0.05);
    }

    // Non-torch memory as the logs measured it: 128 MiB at tensor parallel 1 before 0.18, 256 MiB
    // from 0.18 (0.13 GiB on 0.17.0, 0.25 GiB on 0.18.0 and 0.19.0); 560 MiB above tensor
    // parallel 1 before 0.19, 2,140 MiB from 0.19 (the all-reduce fusion workspace; the 0.19.0
    // Llama 3.1 8B logs printed 2.07 GiB at tensor parallel 2 and 2.13 at 4).
    void nonTorchByRelease()
    {
        QCOMPARE(figures(qwen3_14b("0.17.0")).nonTorchBytes, 128ull << 20);
        QCOMPARE(figures(qwen3_14b("0.18.0")).nonTorchBytes, 256ull << 20);
        QCOMPARE(figures(llama31("0.10.1", {}, 2)).nonTorchBytes, 560ull << 20);
        const ServingFigures tp2 = figures(llama31("0.19.0", {}, 2));
        QCOMPARE(tp2.nonTorchBytes, 2140ull << 20);
        QVERIFY(std::fabs(double(tp2.nonTorchBytes) / kGiB - 2.07) < 0.1);
        QVERIFY(std::fabs(double(figures(llama31("0.19.0", {}, 4)).nonTorchBytes) / kGiB - 2.13) < 0.1);
        // The fusion has sizes for Hopper and Blackwell only: an A100 keeps 560 MiB.
        std::string a100 = llama31("0.19.0", {}, 2);
        a100.replace(a100.find("h100-80gb"), 9, "a100-80gb");
        QCOMPARE(figures(a100).nonTorchBytes, 560ull << 20);
    }

    // The CUDA graph pool by release: capture sizes from vLLM's code, 166 KiB per graph and
    // layer on the rank plus 340 MiB (fitted on the 0.18/0.19 H100 logs of dense models).
    //   0.19.0, 1,024 sequences, 8,192 batched tokens: largest size min(2 x 1,024, 512, 8,192) =
    //     512: [1, 2, 4] + 8..248 step 8 (31) + 256..512 step 16 (17) = 51 piecewise graphs, all
    //     51 also as full decode graphs (sizes up to 1,024): 102 graphs.
    //     32 layers: 340 + 166/1,024 x 102 x 32 = 869.125 MiB = 0.849 GiB (the log: "Graph
    //     capturing finished in 3 secs, took 0.91 GiB");
    //     pipeline 4 (8 layers a stage): 340 + 132.28125 = 472.28125 MiB = 0.461 GiB (log 0.51).
    //   0.10.1.1 on an A100 80GB (256 sequences, 2,048 batched tokens, PIECEWISE only): [1, 2, 4] +
    //     8..512 step 8 = 67 graphs; Qwen2-7B's 28 layers: 340 + 166/1,024 x 67 x 28 = 644.1 MiB =
    //     0.629 GiB (the dennislee22 log: 0.5 GiB).
    //   V0 (0.6): [1, 2, 4] + 8..256 step 8 up to max_num_seqs 256 = 35 full graphs; 32 layers:
    //     340 + 166/1,024 x 35 x 32 = 521.5625 MiB, outside the budget (captured after the KV cache).
    //   enforce_eager: no pool; cuda_graph_mib overrides.
    void cudaGraphPool()
    {
        const auto mib = [](std::uint64_t bytes) { return double(bytes) / double(1ull << 20); };
        const ServingFigures f = figures(llama31("0.19.0"));
        QCOMPARE(mib(f.cudaGraphBytes), 869.125);
        QVERIFY(!f.cudaGraphInBudget);
        QVERIFY(std::fabs(double(f.cudaGraphBytes) / kGiB - 0.91) < 0.25);
        const std::string pp4 = R"({"task": "inference", "model": {"preset": "llama-3.1-8b"}, "gpus": ["h100-80gb"],
            "parallel": {"gpus": 4, "tensor": 1, "pipeline": 4},
            "serving": {"engine": "vllm", "version": "0.19.0", "gpu_memory_utilization": 0.95, "max_model_len": 8192}})";
        QCOMPARE(mib(figures(pp4).cudaGraphBytes), 472.28125);
        const std::string qwen2 = R"({"task": "inference", "gpus": ["a100-80gb"],
            "model": {"layers": 28, "hidden": 3584, "intermediate": 18944, "heads": 28, "kv_heads": 4,
                      "head_dim": 128, "vocab": 152064, "tied_embeddings": false, "mlp": "gated",
                      "norm": "rmsnorm", "bias": "qkv", "position": "rope", "max_positions": 32768},
            "serving": {"engine": "vllm", "version": "0.10.1.1", "max_model_len": 8192}})";
        const ServingFigures old = figures(qwen2);
        QCOMPARE(mib(old.cudaGraphBytes), 340.0 + 166.0 / 1024.0 * 67 * 28);
        QVERIFY(std::fabs(double(old.cudaGraphBytes) / kGiB - 0.5) < 0.25);
        const ServingFigures v0 = figures(llama31("0.6.3", R"(, "max_num_seqs": 256)"));
        QCOMPARE(mib(v0.cudaGraphBytes), 521.5625);
        QVERIFY(!v0.cudaGraphInBudget);
        QCOMPARE(figures(llama31("0.19.0", R"(, "enforce_eager": true)")).cudaGraphBytes, 0ull);
        QCOMPARE(figures(llama31("0.19.0", R"(, "cuda_graph_mib": 100)")).cudaGraphBytes, 100ull << 20);
    }

    // The sampler warm-up after the KV cache (compile_or_warm_up_model): Llama 3.1 8B on an H100
    // (85,018,877,624 B), 0.19.0, 1,024 dummy requests. The warm-up needs the logits at 14 B a
    // logit, 1,024 x 128,256 x 14 = 1,838,678,016 B, the Triton scratch 67,719,168 B and two
    // rows of hidden states 2 x 1,024 x 4,096 x 2 = 16,777,216 B: 1,923,174,400 B. Beside the KV
    // cache, what stays is the weights, non-torch memory, the graph pool (869.125 MiB =
    // 911,343,616 B) and the CUDA context; the profile's peak (1,990,283,264 B) was released, so
    // roughly total x (1 - util) + 1,990,283,264 - 911,343,616 - context is left:
    //   util 0.99: 850,188,776 + 1,078,939,648 - context < 1,923,174,400 -> vLLM's "CUDA out of
    //              memory occurred when warming up sampler with 1024 dummy requests";
    //   util 0.98: 1,700,377,552 + 1,078,939,648 - context > 1,923,174,400 with a context under
    //              856 MB -> starts; the 0.19.0 log at 0.95 started.
    void samplerWarmup()
    {
        const auto at = [](double util) {
            return figures(R"({"task": "inference", "model": {"preset": "llama-3.1-8b"}, "gpus": ["h100-80gb"],
                "serving": {"engine": "vllm", "version": "0.19.0", "gpu_memory_utilization": )" +
                           std::to_string(util) + R"(, "max_model_len": 8192}})");
        };
        const ServingFigures refused = at(0.99);
        QVERIFY(!refused.startsOk);
        QVERIFY(refused.maxLenThatFits >= 8192); // the KV cache itself holds a request
        QVERIFY(std::any_of(refused.notes.begin(), refused.notes.end(), [](const std::string &note) {
            return note.find("warming up sampler with 1024 dummy requests") != std::string::npos;
        }));
        QVERIFY(at(0.98).startsOk);
        QVERIFY(at(0.95).startsOk);
    }

    // A multimodal checkpoint's vision encoder: loaded with the text model, split across the
    // tensor-parallel ranks (mm_encoder_tp_mode "weights"). Mistral Small 3.1's Pixtral encoder
    // and projector, 438,958,080 params in bf16: 877,916,160 B on one GPU, 438,958,080 B a rank
    // at TP 2. The 0.19.0 log of its w8a8 checkpoint at TP 2 prints 12.11 GiB of weights (the
    // case vllm-0.19-mistral-small-3.1-24b-w8a8-2xh100-tp2 is within 0.1 GiB).
    void visionEncoderWeights()
    {
        const auto mistral = [](int tensor, bool vision) {
            return R"({"task": "inference", "gpus": ["h100-80gb"],
                "model": {"preset": "mistral-small-3.1-24b")" +
                   std::string(vision ? R"(, "vision_params": 438958080)" : "") + R"(},
                "parallel": {"gpus": )" + std::to_string(tensor) + R"(, "tensor": )" + std::to_string(tensor) + R"(},
                "serving": {"engine": "vllm", "version": "0.19.0", "gpu_memory_utilization": 0.95, "max_model_len": 8192}})";
        };
        QCOMPARE(figures(mistral(1, true)).weightsBytes - figures(mistral(1, false)).weightsBytes, 877916160ull);
        QCOMPARE(figures(mistral(2, true)).weightsBytes - figures(mistral(2, false)).weightsBytes, 438958080ull);
    }

    // The whole budget on the 0.19.0 log (H100 CUDA total 79.18 GiB from the GPU table):
    //   requested 85,018,877,624 x 0.95                            = 80,767,933,743 B
    //   available - 16,060,522,496 weights - 1,990,283,264 - 268,435,456 = 62,448,692,527 B
    //   blocks    floor(62,448,692,527 / 2,097,152)                 = 29,777 -> 476,432 tokens
    // The log printed 58.11 GiB available and 58.16 is 62,448,692,527 / 2^30.
    void budget()
    {
        const ServingFigures f = figures(llama31("0.19.0"));
        QCOMPARE(f.blocks, 29777ull);
        QCOMPARE(f.kvCacheTokens, 476432ull);
        QVERIFY(std::fabs(double(f.kvCacheBytes) / kGiB - 58.11) / 58.11 < 0.01);
    }

    // SGLang's mem_fraction_static default from PR #10975 (ServerArgs._handle_gpu_memory_settings),
    // in MiB of the GPU as nvidia-smi reports it (H100 80GB: 81,559 MiB; RTX 4090: 24,564 MiB):
    //   H100, TP 1:  512 + 8,192 x 1.5 + 256 x 2 + 1/8 x 1,024 = 13,440 -> (81,559 - 13,440) / 81,559 = 0.835
    //   H100, TP 4:  512 + 12,288 + 512 x 2 + 4/8 x 1,024      = 14,336 -> 0.824
    //   4090, TP 1:  512 + 2,048 x 1.5 + 24 x 2 + 128          =  3,760 -> (24,564 - 3,760) / 24,564 = 0.847
    // The H100 figure is what SGLang's documentation notebooks print when run in CI in February
    // 2026 (server_args=ServerArgs(... mem_fraction_static=0.835, ... tp_size=1 ...)).
    // Each default equals the fraction typed out; releases before 0.5.4 keep the table by
    // tensor-parallel size (0.85 at TP 4: the QwQ-32B log on 4x L4 prints mem_fraction_static=0.85).
    void sglangClosedForm_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("tensor");
        QTest::addColumn<QString>("version");
        QTest::addColumn<double>("fraction");
        QTest::newRow("h100-tp1") << QStringLiteral("h100-80gb") << 1 << QString() << 0.835;
        QTest::newRow("h100-tp4") << QStringLiteral("h100-80gb") << 4 << QStringLiteral("0.5.6") << 0.824;
        QTest::newRow("4090-tp1") << QStringLiteral("rtx-4090") << 1 << QString() << 0.847;
        QTest::newRow("0.4.3-tp4") << QStringLiteral("l4") << 4 << QStringLiteral("0.4.3.post4") << 0.85;
    }
    void sglangClosedForm()
    {
        QFETCH(QString, gpu);
        QFETCH(int, tensor);
        QFETCH(QString, version);
        QFETCH(double, fraction);
        const auto scenario = [&](const std::string &extra) {
            return sglangLlama(gpu.toStdString(), tensor, version.toStdString(), extra);
        };
        const ServingFigures byDefault = figures(scenario({}));
        QCOMPARE(byDefault.budgetBytes, figures(scenario(fractionKey(fraction))).budgetBytes);
        QVERIFY(byDefault.budgetBytes != figures(scenario(fractionKey(fraction + 0.001))).budgetBytes);
    }

    // The "#tokens" line as SGLang prints it, on the January 2025 log of Llama 3.1 8B on an H100
    // (sglang-0.4.1-llama-3.1-8b-h100: "#tokens: 444500, K size: 27.13 GB"): the estimate's line
    // has the same form, its tokens within 0.1% and K size within 0.05 GB of the log's.
    void sglangTokensLine()
    {
        const ServingFigures f = figures(sglangLlama("h100-80gb", 1, "0.4.1", fractionKey(0.88)));
        QVERIFY(std::fabs(double(f.kvCacheTokens) - 444500.0) / 444500.0 < 0.001);
        char half[32];
        std::snprintf(half, sizeof half, "%.2f", double(f.kvCacheBytes / 2) / kGiB);
        QVERIFY(std::fabs(std::atof(half) - 27.13) < 0.05);
        const std::string line = "KV Cache is allocated. #tokens: " + std::to_string(f.kvCacheTokens) +
                                 ", K size: " + half + " GB, V size: " + half + " GB";
        QVERIFY2(std::find(f.notes.begin(), f.notes.end(), line) != f.notes.end(), line.c_str());
    }
};

QTEST_GUILESS_MAIN(TestServingReleases)
#include "tst_servingreleases.moc"
