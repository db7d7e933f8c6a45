// SPDX-License-Identifier: GPL-3.0-or-later
// llama.cpp on several devices (core/serving/llamacppdevices.h), by hand from its code:
// src/llama-model.cpp llama_model::load_tensors sums and normalises tensor_split into split
// points (by free memory when every proportion is 0) and gives layer il (il = n_layer: the output
// layer) of the offloaded ones the device upper_bound(points, float(il - i_gpu_start) /
// act_gpu_layers); the KV cache of a layer is on its layer's device; split_mode none keeps the
// main GPU alone; row cuts every offloaded matrix by rows in the split's proportions.
#include "testutil.h"

#include "estimate/verdict.h"
#include "scenario/scenariojson.h"
#include "serving/llamacppdevices.h"

#include <QtTest>
#include <algorithm>

using namespace headroom;
using test::scenarioFrom;

namespace {

Scenario twoCards(const std::string &gpus, const std::string &serving, const std::string &model = "llama-3-8b")
{
    return scenarioFrom(R"({"task": "inference", "model": {"preset": ")" + model + R"("}, "gpus": [)" + gpus +
                        R"(], "serving": {"engine": "llama_cpp", "n_ctx": 4096, "weight_type": "Q4_K_M")" + serving +
                        "}}");
}

// Llama 3 8B Q4_K_M (tst_llamacpp's arithmetic): a block is 122,716,160 B in q4_K, and the 16
// blocks use_more_bits picks (0-3, 6, 9, ..., 27, 28-31) carry 16,220,160 B more (attn_v and
// ffn_down in q6_K); the output layer is 430,956,544 B, token_embd 295,501,824 B (CPU RAM).
constexpr std::uint64_t kBlock = 122'716'160, kBump = 16'220'160, kOutput = 430'956'544, kEmbd = 295'501'824;
// f16 K and V of 8 KV heads x 128 for 4,096 cells: 2 x 8 x 128 x 2 B x 4,096 = 16,777,216 B a layer.
constexpr std::uint64_t kKvLayer = 16'777'216;
// The compute buffer (n_ubatch 512, f32, flash attention): the FFN 512 x 14,336 x 12 =
// 88,080,384 B outweighs attention 512 x (32 + 2 x 8) x 128 x 4 = 12,582,912 B; the logits
// 512 x 128,256 x 4 = 262,668,288 B on the output layer's device; plus the residual stream
// 512 x 4,096 x 12 = 25,165,824 B.
constexpr std::uint64_t kComputeBlocks = 88'080'384 + 25'165'824, kComputeOutput = 262'668'288 + 25'165'824;
constexpr std::uint64_t kContext = 500ull << 20; // overhead.cuda_context_mib, on every device

} // namespace

class TestLlamaCppDevices : public QObject
{
    Q_OBJECT

private slots:
    void layersFollowTheCumulativeSplit()
    {
        // -ts 3,1 and every layer (-ngl 33 of 32 blocks + output): points 0.75, 1. Layer il goes
        // to device 0 while il / 33 < 0.75: il 0..24 (24/33 = 0.727; 25/33 = 0.758), the rest and
        // the output layer (il 32) to device 1.
        const std::vector<float> points = llamaSplitPoints({3, 1}, {0, 0});
        QVERIFY(points == (std::vector<float>{0.75f, 1.0f}));
        const std::vector<int> device = llamaLayerDevices(32, 33, points);
        QCOMPARE(device.size(), std::size_t(33));
        QCOMPARE(int(std::count(device.begin(), device.end(), 0)), 25);
        QCOMPARE(device[24], 0);
        QCOMPARE(device[25], 1);
        QCOMPARE(device[32], 1);
        // -ngl 20, -ts 1,1: i_gpu_start = 33 - 20 = 13, so blocks 0..12 stay on the CPU; of the
        // 20 offloaded, (il - 13) / 20 < 0.5 puts il 13..22 on device 0, il 23..32 on device 1.
        const std::vector<int> partial = llamaLayerDevices(32, 20, llamaSplitPoints({1, 1}, {0, 0}));
        QCOMPARE(int(std::count(partial.begin(), partial.end(), -1)), 13);
        QCOMPARE(partial[12], -1);
        QCOMPARE(partial[13], 0);
        QCOMPARE(partial[22], 0);
        QCOMPARE(partial[23], 1);
        // Every proportion 0: the free memory is the split (here 3 GiB and 1 GiB free: 0.75, 1).
        QVERIFY(llamaSplitPoints({0, 0}, {3ull << 30, 1ull << 30}) == (std::vector<float>{0.75f, 1.0f}));
    }

    void eachDeviceHoldsItsLayersCacheAndBuffer()
    {
        // Llama 3 8B Q4_K_M on an RTX 4090 (CUDA0) and an RTX 3090 (CUDA1), -ts 3,1.
        const Estimate e = estimate(twoCards(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [3, 1])"));
        QVERIFY(e.serving);
        const std::vector<LlamaDevice> &d = e.serving->devices;
        QCOMPARE(d.size(), std::size_t(2));
        QCOMPARE(d[0].gpuId, std::string("rtx-4090"));
        QCOMPARE(d[1].gpuId, std::string("rtx-3090"));
        QCOMPARE(d[0].layers, 25u);
        QCOMPARE(d[1].layers, 7u);
        QVERIFY(!d[0].output && d[1].output);
        // Blocks 0..24 hold 11 of the bumped blocks (0-3 and 6, 9, ..., 24); 25..31 the other 5.
        QCOMPARE(d[0].weightsBytes, 25 * kBlock + 11 * kBump);         // 3,246,325,760
        QCOMPARE(d[1].weightsBytes, 7 * kBlock + 5 * kBump + kOutput); // 1,371,070,464
        QCOMPARE(d[0].kvCacheBytes, 25 * kKvLayer);                    // 419,430,400
        QCOMPARE(d[1].kvCacheBytes, 7 * kKvLayer);                     // 117,440,512
        QCOMPARE(d[0].computeBytes, kComputeBlocks);                   // 113,246,208
        QCOMPARE(d[1].computeBytes, kComputeOutput);                   // 287,834,112
        QCOMPARE(d[0].deviceBytes, 25 * kBlock + 11 * kBump + 25 * kKvLayer + kComputeBlocks + kContext);
        QCOMPARE(d[1].deviceBytes, 7 * kBlock + 5 * kBump + kOutput + 7 * kKvLayer + kComputeOutput + kContext);
        // CPU RAM: the token embeddings, the output buffer (1 sequence x 128,256 x f32) and the
        // CPU backend's compute buffer (f16 KQ mask 4,096 x 512 x 2 B + 2 x 512 x 4,096 x 4 B).
        QCOMPARE(e.serving->hostWeightsBytes, kEmbd);
        QCOMPARE(e.serving->hostBufferBytes, 128'256ull * 4);
        QCOMPARE(e.serving->hostComputeBytes, 4'194'304ull + 16'777'216ull);
        QCOMPARE(e.hostBytes, kEmbd + 128'256ull * 4 + 4'194'304 + 16'777'216);
        // The verdict per device; the figures and the peak are the tightest device's (CUDA0).
        QCOMPARE(e.gpus.size(), std::size_t(2));
        QCOMPARE(e.gpus[0].headroomBytes, std::int64_t(d[0].capacityBytes) - std::int64_t(d[0].deviceBytes));
        QCOMPARE(e.gpus[1].headroomBytes, std::int64_t(d[1].capacityBytes) - std::int64_t(d[1].deviceBytes));
        QCOMPARE(e.peak.deviceBytes, d[0].deviceBytes);
        QCOMPARE(e.serving->gpuId, std::string("rtx-4090"));
        // Every layer on two devices split by layer: llama.cpp turns on pipeline parallelism,
        // whose extra copies are said, not counted.
        QVERIFY(e.serving->pipelineParallel);
        QVERIFY(!e.warnings.empty());
    }

    void theDevicesAddUpToOneDevice()
    {
        // The same layers on one device or on two: the weights and the cache are the same bytes.
        const Estimate one = estimate(twoCards(R"("h100-80gb")", ""));
        const Estimate two = estimate(twoCards(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [0, 0], "n_gpu_layers": 21)"));
        const Estimate oneSame = estimate(twoCards(R"("h100-80gb")", R"(, "n_gpu_layers": 21)"));
        QCOMPARE(one.serving->devices.size(), std::size_t(0)); // one device: the v1 figures only
        std::uint64_t weights = 0, kv = 0;
        for (const LlamaDevice &d : two.serving->devices) {
            weights += d.weightsBytes;
            kv += d.kvCacheBytes;
        }
        QCOMPARE(weights, oneSame.serving->weightsBytes);
        QCOMPARE(kv, oneSame.serving->kvCacheBytes);
        // -ngl 21: i_gpu_start 12, 20 blocks (12..31) and the output layer: 20 x 16 MiB of cache.
        QCOMPARE(kv, 20 * kKvLayer);
    }

    void theDefaultSplitIsByFreeMemory()
    {
        // tensor_split [0, 0]: the free memory at load, CUDA's total less the context: RTX 4090
        // 23.65 GiB - 500 MiB = 24,869,706,138 B, RTX 3090 23.58 GiB - 500 MiB = 24,794,544,210 B;
        // the first point 0.50076 falls between 16/33 and 17/33: blocks 0..16 on CUDA0.
        const Estimate e = estimate(twoCards(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [0, 0])"));
        const std::vector<LlamaDevice> &d = e.serving->devices;
        QCOMPARE(d[0].freeBytes, 24'869'706'138ull);
        QCOMPARE(d[1].freeBytes, 24'794'544'210ull);
        QCOMPARE(d[0].layers, 17u);
        QCOMPARE(d[1].layers, 15u);
    }

    void splitModeNoneKeepsTheMainGpu()
    {
        // split_mode none, main_gpu 1: the RTX 3090 alone holds the 32 blocks and the output.
        const Estimate e = estimate(
            twoCards(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [1, 1], "split_mode": "none", "main_gpu": 1)"));
        const std::vector<LlamaDevice> &d = e.serving->devices;
        QCOMPARE(d.size(), std::size_t(1));
        QCOMPARE(d[0].index, 1u);
        QCOMPARE(d[0].gpuId, std::string("rtx-3090"));
        QCOMPARE(d[0].weightsBytes, 32 * kBlock + 16 * kBump + kOutput);
        QCOMPARE(d[0].kvCacheBytes, 32 * kKvLayer);
        QVERIFY(!e.serving->pipelineParallel);
        // Its buffer is CUDA1: an -ot rule naming it keeps token_embd there; CUDA0 is refused.
        const Estimate embd = estimate(twoCards(R"("rtx-4090", "rtx-3090")",
            R"(, "tensor_split": [1, 1], "split_mode": "none", "main_gpu": 1, "override_tensor": ["token_embd=CUDA1"])"));
        QCOMPARE(embd.serving->devices[0].weightsBytes, 32 * kBlock + 16 * kBump + kOutput + kEmbd);
        QVERIFY_THROWS_EXCEPTION(ScenarioError, twoCards(R"("rtx-4090", "rtx-3090")",
            R"(, "tensor_split": [1, 1], "split_mode": "none", "main_gpu": 1, "override_tensor": ["token_embd=CUDA0"])"));
        // Its verdict is on the second entry of gpus; the first is a capacity line.
        QCOMPARE(e.gpus[1].headroomBytes, d[0].headroomBytes);
    }

    void splitModeRowCutsTheMatrices()
    {
        // -sm row -ts 1,1: half the offloaded weights on each device (4,617,396,224 B in all:
        // 32 blocks + 16 bumps + output), the cache still on each layer's device (17 and 15 blocks:
        // il 0..16 on CUDA0 as 16/33 < 0.5 <= 17/33).
        const Estimate e =
            estimate(twoCards(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [1, 1], "split_mode": "row")"));
        const std::vector<LlamaDevice> &d = e.serving->devices;
        const std::uint64_t all = 32 * kBlock + 16 * kBump + kOutput;
        QCOMPARE(d[0].weightsBytes, all / 2);
        QCOMPARE(d[0].weightsBytes + d[1].weightsBytes, all);
        QCOMPARE(d[0].kvCacheBytes, 17 * kKvLayer);
        QCOMPARE(d[1].kvCacheBytes, 15 * kKvLayer);
        QVERIFY(!e.serving->pipelineParallel);
    }

    void overridesNameADevice()
    {
        // -ot "blk\.0\.=CUDA1": block 0 (a bumped one) moves to the second device.
        const Estimate e = estimate(twoCards(R"("rtx-4090", "rtx-3090")",
                                             R"(, "tensor_split": [3, 1], "override_tensor": ["blk\\.0\\.=CUDA1"])"));
        const std::vector<LlamaDevice> &d = e.serving->devices;
        QCOMPARE(d[0].weightsBytes, 24 * kBlock + 10 * kBump);
        QCOMPARE(d[1].weightsBytes, 8 * kBlock + 6 * kBump + kOutput);
        QCOMPARE(d[0].kvCacheBytes, 25 * kKvLayer); // the cache stays with the layer's device
        QVERIFY(!e.serving->pipelineParallel);
    }

    void theVerdictIsEveryDevices()
    {
        // Llama 3 8B in f16 (about 16 GB) with -ts 1,0 on an RTX 3060 12GB + an RTX 4090: the
        // split points are 1, 1, so every offloaded layer lands on CUDA0 (upper_bound of any
        // place below 1 is the first point), which cannot hold them; the 4090 holds only its
        // context. The verdict is the 3060's, not the larger card's.
        const Scenario s = scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["rtx-3060-12gb", "rtx-4090"], "serving": {"engine": "llama_cpp", "n_ctx": 4096,
            "weight_type": "f16", "tensor_split": [1, 0]}})");
        const Estimate e = estimate(s);
        QCOMPARE(e.serving->devices[0].layers, 32u);
        QCOMPARE(e.serving->devices[1].layers, 0u);
        QCOMPARE(e.serving->devices[1].deviceBytes, kContext);
        QVERIFY(!e.gpus[0].fits);
        QVERIFY(e.gpus[1].fits);
        const std::optional<GpuFit> fit = targetFit(s, e);
        QVERIFY(fit);
        QCOMPARE(fit->id, std::string("rtx-3060-12gb"));
        const std::optional<FitState> state = targetState(s, e);
        // 15.24 GiB on a 12 GiB card: over it, though inside the +/-23% band (borderline).
        QVERIFY(state && *state != FitState::Fits);
    }

    void theKeysRoundTripAndRefuse()
    {
        const Scenario s = twoCards(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [3, 1], "split_mode": "row", "main_gpu": 1)");
        const Scenario back = scenarioFromJson(scenarioToJson(s));
        QVERIFY(back.serving->tensorSplit == (std::vector<double>{3, 1}));
        QCOMPARE(back.serving->splitMode, LlamaSplitMode::Row);
        QCOMPARE(back.serving->mainGpu, 1u);
        auto refused = [](const std::string &gpus, const std::string &serving, const char *key) {
            try {
                twoCards(gpus, serving);
            } catch (const ScenarioError &error) {
                return std::string(error.what()).find(key) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refused(R"("rtx-4090")", R"(, "tensor_split": [1, 1])", "serving.tensor_split"));
        QVERIFY(refused(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [1])", "serving.tensor_split"));
        QVERIFY(refused(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [1, -1])", "serving.tensor_split[1]"));
        QVERIFY(refused(R"("rtx-4090")", R"(, "split_mode": "row")", "serving.split_mode"));
        QVERIFY(refused(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [1, 1], "main_gpu": 2)", "serving.main_gpu"));
        QVERIFY(refused(R"("rtx-4090", "rtx-3090")", R"(, "tensor_split": [1, 1], "override_tensor": ["x=CUDA2"])",
                        "serving.override_tensor[0]"));
    }
};

QTEST_GUILESS_MAIN(TestLlamaCppDevices)
#include "tst_llamacppdevices.moc"
