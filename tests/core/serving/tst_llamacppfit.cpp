// SPDX-License-Identifier: GPL-3.0-or-later
// The offline llama.cpp fit (core/serving/llamacppfit.h), confirmed by the estimator: over random
// models, file types, contexts and GPUs, every plan fits with the target left free, and one more
// GPU layer (or one more layer's experts on the GPU) does not.
#include "testutil.h"

#include "scenario/names.h"
#include "serving/llamacppfit.h"

#include <QtTest>
#include <random>

using namespace headroom;
using test::scenarioFrom;

namespace {

Scenario llama(const std::string &model, const std::string &gpu, const std::string &type, std::uint32_t ctx)
{
    return scenarioFrom(R"({"task": "inference", "model": {"preset": ")" + model + R"("}, "gpus": [")" + gpu +
                        R"("], "serving": {"engine": "llama_cpp", "n_ctx": )" + std::to_string(ctx) +
                        R"(, "weight_type": ")" + type + R"("}})");
}

} // namespace

class TestLlamaCppFit : public QObject
{
    Q_OBJECT

    static void checkPlan(const Scenario &s, const LlamaFitOptions &options)
    {
        const LlamaFitPlan plan = planLlamaFit(s, options);
        const int layers = s.model.layers;
        const std::string what = s.model.preset + " " + s.gpus.front() + " " + enumName(s.serving->weightType) +
                                 " n_ctx " + std::to_string(s.serving->nCtx);
        if (!plan.fits) {
            // Nothing fits: not even the output layer alone.
            QVERIFY2(plan.nGpuLayers == 0, what.c_str());
            Scenario one = plan.scenario;
            one.serving->nGpuLayers = 1;
            QVERIFY2(!llamaFitsWith(one, options.targetBytes), what.c_str());
            return;
        }
        QVERIFY2(llamaFitsWith(plan.scenario, options.targetBytes), what.c_str());
        if (plan.nGpuLayers < layers + 1) {
            Scenario more = plan.scenario;
            more.serving->nGpuLayers = plan.nGpuLayers + 1;
            QVERIFY2(!llamaFitsWith(more, options.targetBytes), what.c_str());
        } else if (plan.nCpuMoe > 0) {
            Scenario more = plan.scenario;
            more.serving->nCpuMoe = plan.nCpuMoe - 1;
            QVERIFY2(!llamaFitsWith(more, options.targetBytes), what.c_str());
        }
        QCOMPARE(plan.scenario.serving->nCtx, plan.nCtx);
        QVERIFY(plan.freeBytes >= std::int64_t(options.targetBytes));
    }

private slots:
    void plansAreConfirmedByTheEstimator()
    {
        const std::vector<std::string> models{"llama-3-8b", "llama-3-70b", "qwen2.5-7b", "mixtral-8x7b",
                                              "qwen3-30b-a3b", "gpt-oss-20b", "gemma-2-9b", "llama-3.2-3b",
                                              "qwen3-235b-a22b", "deepseek-v3"};
        const std::vector<std::string> gpus{"rtx-3060-12gb", "rtx-4060-ti-16gb", "rtx-4090", "rtx-5090",
                                            "a100-40gb", "h100-80gb", "t4"};
        const std::vector<std::string> types{"Q4_K_M", "Q8_0", "IQ2_M", "Q6_K", "Q3_K_M", "IQ4_XS", "f16"};
        std::mt19937 random(20261202);
        for (int i = 0; i < 60; ++i) {
            const Scenario s = llama(models[random() % models.size()], gpus[random() % gpus.size()],
                                     types[random() % types.size()], 1024u << (random() % 6));
            LlamaFitOptions options;
            options.targetBytes = (std::uint64_t(random() % 3) * 512) << 20;
            checkPlan(s, options);
        }
    }

    void twoMixedDevicesAreConfirmedByTheEstimator()
    {
        // Two devices, mixed cards: every device keeps the target free, and where layers stay in
        // CPU RAM one more layer on any device overflows it (each device took as many as fit,
        // back to front); where experts stay in CPU RAM, one layer's experts fewer there does not fit.
        const std::vector<std::string> models{"llama-3-8b", "llama-3-70b", "qwen2.5-7b", "mixtral-8x7b",
                                              "qwen3-30b-a3b", "gpt-oss-20b", "gemma-2-9b", "qwen3-235b-a22b"};
        const std::vector<std::string> gpus{"rtx-3060-12gb", "rtx-4060-ti-16gb", "rtx-3090", "rtx-4090", "rtx-5090",
                                            "a100-40gb"};
        const std::vector<std::string> types{"Q4_K_M", "Q8_0", "IQ2_M", "Q6_K", "f16"};
        std::mt19937 random(20261203);
        for (int i = 0; i < 16; ++i) {
            Scenario s = llama(models[random() % models.size()], gpus[random() % gpus.size()],
                               types[random() % types.size()], 1024u << (random() % 5));
            s.gpus.push_back(gpus[random() % gpus.size()]);
            LlamaFitOptions options;
            options.devices = 2;
            options.targetBytes = (std::uint64_t(random() % 3) * 512) << 20;
            const LlamaFitPlan plan = planLlamaFit(s, options);
            const std::string what = s.model.preset + " " + s.gpus[0] + " + " + s.gpus[1] + " " +
                                     enumName(s.serving->weightType) + " n_ctx " + std::to_string(s.serving->nCtx);
            QCOMPARE(plan.tensorSplit.size(), std::size_t(2));
            QCOMPARE(plan.devices.size(), std::size_t(2));
            QCOMPARE(std::int32_t(plan.tensorSplit[0] + plan.tensorSplit[1]), plan.nGpuLayers);
            QVERIFY2(llamaFitsWith(plan.scenario, options.targetBytes), what.c_str());
            for (const LlamaFitDevice &d : plan.devices)
                QVERIFY2(d.freeBytes >= std::int64_t(options.targetBytes), what.c_str());
            const int all = s.model.layers + 1;
            if (plan.nGpuLayers < all) {
                for (std::size_t d = 0; d < 2; ++d) {
                    Scenario more = plan.scenario;
                    more.serving->tensorSplit[d] += 1;
                    more.serving->nGpuLayers += 1;
                    const Estimate e = estimate(more);
                    const LlamaDevice &device = e.serving->devices[d];
                    QVERIFY2(device.headroomBytes < std::int64_t(options.targetBytes), (what + " device " + std::to_string(d)).c_str());
                }
            } else if (plan.nCpuMoe > 0) {
                Scenario more = plan.scenario;
                more.serving->nCpuMoe = plan.nCpuMoe - 1;
                QVERIFY2(!llamaFitsWith(more, options.targetBytes), what.c_str());
            }
        }
    }

    void expertsGoToCpuRamBeforeLayers()
    {
        // Mixtral 8x7B in Q4_K_M (about 26 GB) on a 24 GB RTX 4090: every layer stays on the GPU
        // and some layers' experts go to CPU RAM.
        const LlamaFitPlan plan = planLlamaFit(llama("mixtral-8x7b", "rtx-4090", "Q4_K_M", 4096));
        QVERIFY(plan.fits);
        QCOMPARE(plan.nGpuLayers, 33);
        QVERIFY(plan.nCpuMoe > 0 && plan.nCpuMoe < 32);
        QVERIFY(QString::fromStdString(plan.overrideTensor).startsWith(QLatin1String("blk\\.(0|1|")));
        QVERIFY(plan.flags.back().rfind("--n-cpu-moe ", 0) == 0);
    }

    void denseModelsLoseLayers()
    {
        // Llama 3 70B in Q4_K_M (about 42 GB) on a 24 GB card: fewer layers, the context kept.
        const LlamaFitPlan plan = planLlamaFit(llama("llama-3-70b", "rtx-4090", "Q4_K_M", 8192));
        QVERIFY(plan.fits);
        QVERIFY(plan.nGpuLayers > 1 && plan.nGpuLayers < 81);
        QCOMPARE(plan.nCtx, 8192u);
        QCOMPARE(plan.nCpuMoe, 0u);
    }

    void theContextShrinksOnlyWhenAllowed()
    {
        // Llama 3 8B Q8_0 (about 8 GB) with 131,072 tokens of f16 cache (16 GiB) on a 16 GB card:
        // with --fit-ctx 4096 the context halves until everything fits on the GPU.
        LlamaFitOptions options;
        options.fitCtx = 4096;
        const LlamaFitPlan plan = planLlamaFit(llama("llama-3-8b", "rtx-4060-ti-16gb", "Q8_0", 131072), options);
        QVERIFY(plan.fits);
        QCOMPARE(plan.nGpuLayers, 33);
        QVERIFY(plan.nCtx < 131072 && plan.nCtx >= 4096);
        const LlamaFitPlan kept = planLlamaFit(llama("llama-3-8b", "rtx-4060-ti-16gb", "Q8_0", 131072));
        QCOMPARE(kept.nCtx, 131072u);
        QVERIFY(kept.nGpuLayers < 33);
    }

    void onlyLlamaCpp()
    {
        QVERIFY_THROWS_EXCEPTION(ScenarioError,
                                 planLlamaFit(scenarioFrom(R"({"task": "inference", "gpus": ["rtx-4090"],
                                     "serving": {"engine": "vllm"}})")));
    }
};

QTEST_GUILESS_MAIN(TestLlamaCppFit)
#include "tst_llamacppfit.moc"
