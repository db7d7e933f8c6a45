// SPDX-License-Identifier: GPL-3.0-or-later
// The "what should I change?" advisor: levers in the documented order, applied cumulatively,
// every step lowering the peak, stopping at the first configuration that fits.
#include "solve/advicejson.h"
#include "solve/advisor.h"
#include "scenario/checked.h"
#include "lesson/lesson.h"

#include <algorithm>
#include "testutil.h"

#include <random>

using namespace headroom;

namespace {

/// Checks every promise the advisor makes; returns an empty string or what was broken.
std::string brokenPromise(const Advice &advice)
{
    std::uint64_t previous = advice.startPeakDeviceBytes;
    for (std::size_t i = 0; i < advice.steps.size(); ++i) {
        const AdviceStep &step = advice.steps[i];
        const std::string where = "step " + std::to_string(i + 1) + " (" + leverKey(step.lever) + "): ";
        if (step.peakDeviceBytes >= previous)
            return where + "does not lower the peak";
        if (step.savedBytes != previous - step.peakDeviceBytes)
            return where + "saved bytes do not add up";
        if (estimate(step.scenario).peak.deviceBytes != step.peakDeviceBytes)
            return where + "peak differs from a fresh estimate";
        if (step.fits != (step.peakDeviceBytes <= advice.capacityBytes))
            return where + "fits flag is wrong";
        if (step.fits && i + 1 != advice.steps.size())
            return where + "fits but the advice goes on";
        const Scenario &before = advice.before(i);
        if (step.lever == Lever::SmallerMicroBatch &&
            std::uint64_t(before.train.microBatch) * before.train.gradAccum !=
                std::uint64_t(step.scenario.train.microBatch) * step.scenario.train.gradAccum)
            return where + "effective batch changed";
        if (scenarioFromJson(scenarioToJson(step.scenario)) != step.scenario)
            return where + "not a valid scenario document";
        previous = step.peakDeviceBytes;
    }
    if (advice.fits != (advice.finalPeakDeviceBytes() <= advice.capacityBytes))
        return "final fits flag is wrong";
    if (advice.fits && estimate(advice.final()).peak.deviceBytes > advice.capacityBytes)
        return "the final configuration does not fit";
    return {};
}

/// A random scenario document built from valid choices (it may still be rejected).
nlohmann::json randomScenario(std::mt19937 &rng)
{
    const auto pick = [&](std::initializer_list<const char *> options) {
        std::uniform_int_distribution<std::size_t> d(0, options.size() - 1);
        return std::string(*(options.begin() + d(rng)));
    };
    const auto between = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
    nlohmann::json doc = {{"format", "headroom-scenario"}, {"version", 1}};
    doc["model"] = {{"preset", pick({"llama-2-7b", "llama-3-8b", "llama-2-13b", "mistral-7b", "qwen2.5-14b",
                                     "gpt2-xl", "llama-3.2-3b", "llama-2-70b", "mixtral-8x7b", "gemma-2-9b"})}};
    const bool train = between(0, 4) > 0;
    doc["task"] = train ? "train" : "inference";
    const std::string method = pick({"full", "full", "lora", "qlora"});
    doc["train"] = {{"method", method},
                    {"micro_batch", 1 << between(0, 4)},
                    {"seq_len", 256 << between(0, 6)},
                    {"grad_accum", between(1, 4)},
                    {"optimizer", pick({"adamw", "adamw", "adamw_8bit", "sgd", "paged_adamw", "lion"})},
                    {"master_weights", between(0, 1) == 1},
                    {"gradient_checkpointing", pick({"none", "none", "selective", "full"})}};
    doc["precision"] = {{"compute", pick({"bf16", "fp32"})}};
    if (method != "qlora")
        doc["precision"]["weights"] = train ? pick({"bf16", "fp32", "fp16"}) : pick({"bf16", "fp32", "int8"});
    doc["inference"] = {{"batch", 1 << between(0, 6)}, {"context", 1024 << between(0, 5)}};
    doc["kernels"] = {{"attention", pick({"eager", "sdpa", "flash"})},
                      {"loss", pick({"standard", "chunked", "fused"})},
                      {"profile", pick({"huggingface", "fused"})}};
    const int gpus = 1 << between(0, 3);
    doc["parallel"] = {{"gpus", gpus}, {"strategy", gpus > 1 ? pick({"ddp", "zero1", "zero2"}) : "none"}};
    doc["overhead"] = {{"fragmentation", between(0, 15) / 100.0}};
    return doc;
}

} // namespace

class TestAdvisor : public QObject
{
    Q_OBJECT
private slots:
    // The ladder's first rung (Llama 2 7B, full fine-tune in fp32) against a 24 and an 80 GB card.
    void ladderFirstStep_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::newRow("rtx-4090") << QStringLiteral("rtx-4090");
        QTest::newRow("a100-80gb") << QStringLiteral("a100-80gb");
    }
    void ladderFirstStep()
    {
        QFETCH(QString, gpu);
        const Scenario start = parseLesson(std::find_if(builtinLessons().begin(), builtinLessons().end(), [](const BuiltinLesson &l) { return std::string(l.id) == "ladder"; })->json).steps.front().scenario;
        
        const Advice advice = advise(start, gpu.toStdString());
        QVERIFY2(brokenPromise(advice).empty(), brokenPromise(advice).c_str());
        QVERIFY(advice.fits);
        QVERIFY(advice.startPeakDeviceBytes > advice.capacityBytes);
        // Seed 000's sequence comes first: fragmentation, then checkpointing; LoRA ends it.
        QCOMPARE(advice.steps.front().lever, Lever::ExpandableSegments);
        QCOMPARE(advice.steps.back().lever, Lever::Lora);
        bool checkpointed = false;
        for (const AdviceStep &step : advice.steps)
            checkpointed = checkpointed || step.lever == Lever::GradientCheckpointing;
        QVERIFY(checkpointed);
        QCOMPARE(advice.final().train.method, Method::Lora);
    }

    void leversFollowTheDocumentedOrder()
    {
        const Scenario s = test::scenarioFrom(R"({"model": {"preset": "llama-3-8b"},
            "train": {"micro_batch": 8, "seq_len": 4096}, "kernels": {"attention": "eager"}})");
        const Advice advice = advise(s, "h100-80gb");
        QVERIFY2(brokenPromise(advice).empty(), brokenPromise(advice).c_str());
        std::vector<int> order;
        for (const AdviceStep &step : advice.steps)
            order.push_back(int(step.lever));
        for (const SkippedLever &skipped : advice.skipped)
            order.push_back(int(skipped.lever));
        std::sort(order.begin(), order.end());
        QVERIFY(std::adjacent_find(order.begin(), order.end()) == order.end()); // each lever once
        for (std::size_t i = 1; i < advice.steps.size(); ++i)
            QVERIFY(int(advice.steps[i - 1].lever) < int(advice.steps[i].lever));
        QCOMPARE(advice.steps.at(1).lever, Lever::FlashAttention);
    }

    void fittingScenarioNeedsNoSteps()
    {
        const Scenario s = test::scenarioFrom(R"({"model": {"preset": "llama-3.2-1b"},
            "train": {"method": "lora"}})");
        const Advice advice = advise(s, "a100-80gb");
        QVERIFY(advice.fits);
        QVERIFY(advice.steps.empty());
        QCOMPARE(advice.final(), s);
    }

    void microBatchKeepsTheEffectiveBatch()
    {
        const Scenario s = test::scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "train": {"method": "qlora", "micro_batch": 16, "seq_len": 2048, "grad_accum": 2,
                      "gradient_checkpointing": "full"}, "kernels": {"loss": "fused", "attention": "flash"},
            "overhead": {"fragmentation": 0.02}})");
        const Advice advice = advise(s, "t4");
        QVERIFY2(brokenPromise(advice).empty(), brokenPromise(advice).c_str());
        QVERIFY(advice.fits);
        QCOMPARE(advice.steps.size(), std::size_t(1));
        QCOMPARE(advice.steps[0].lever, Lever::SmallerMicroBatch);
        const TrainConfig &train = advice.final().train;
        QCOMPARE(std::uint64_t(train.microBatch) * train.gradAccum, 32ull);
        QVERIFY(train.microBatch > 1); // the mildest that fits, not the smallest
    }

    void servingUsesServingLevers()
    {
        const Scenario s = test::scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "task": "inference",
            "inference": {"batch": 8, "context": 4096}})");
        const Advice advice = advise(s, "rtx-4090");
        QVERIFY2(brokenPromise(advice).empty(), brokenPromise(advice).c_str());
        QVERIFY(advice.fits);
        for (const AdviceStep &step : advice.steps)
            QVERIFY(step.lever != Lever::GradientCheckpointing && step.lever != Lever::Lora);
        QCOMPARE(advice.final().inference.kvDType, DType::FP8);
    }

    void nothingFitsIsReported()
    {
        const Scenario s = test::scenarioFrom(R"({"model": {"preset": "llama-3.1-405b"}})");
        const Advice advice = advise(s, "t4");
        QVERIFY2(brokenPromise(advice).empty(), brokenPromise(advice).c_str());
        QVERIFY(!advice.fits);
        QVERIFY(!advice.steps.empty());
        QVERIFY(advice.finalPeakDeviceBytes() > advice.capacityBytes);
    }

    void unknownGpuIsAnError()
    {
        QVERIFY_THROWS_EXCEPTION(AdviceError, advise(Scenario{}, "gtx-9999"));
    }

    void jsonHasIdsAndNumbers()
    {
        const Scenario start = parseLesson(std::find_if(builtinLessons().begin(), builtinLessons().end(), [](const BuiltinLesson &l) { return std::string(l.id) == "ladder"; })->json).steps.front().scenario;
        const Advice advice = advise(start, "rtx-4090");
        const nlohmann::json doc = adviceToJson(advice);
        QCOMPARE(doc.at("format").get<std::string>(), std::string("headroom-advice"));
        QCOMPARE(doc.at("steps").size(), advice.steps.size());
        QCOMPARE(doc.at("steps")[0].at("lever").get<std::string>(), std::string("expandable_segments"));
        QCOMPARE(doc.at("steps")[0].at("changes").at("overhead.fragmentation").get<double>(),
                 kExpandableSegmentsFragmentation);
        QCOMPARE(doc.at("final_device_bytes").get<std::uint64_t>(), advice.finalPeakDeviceBytes());
        QCOMPARE(scenarioFromJson(doc.at("steps").back().at("scenario")), advice.final());
    }

    // Many seeded random scenarios that do not fit: every promise holds for each.
    void randomScenariosKeepEveryPromise()
    {
        std::mt19937 rng(20240607);
        int advised = 0, fitted = 0;
        const auto &gpus = builtinCatalog().gpus;
        for (int attempt = 0; attempt < 3000 && advised < 300; ++attempt) {
            Scenario s;
            try {
                s = scenarioFromJson(randomScenario(rng));
            } catch (const ScenarioError &) {
                continue;
            }
            const Gpu &gpu = gpus[std::uniform_int_distribution<std::size_t>(0, gpus.size() - 1)(rng)];
            Estimate e;
            try {
                e = estimate(s, Detail::BytesOnly);
            } catch (const OverflowError &) {
                continue;
            }
            if (e.peak.deviceBytes <= gpu.capacityBytes())
                continue;
            const Advice advice = advise(s, gpu.id);
            const std::string broken = brokenPromise(advice);
            QVERIFY2(broken.empty(), (broken + "\n" + scenarioToJson(s).dump() + " on " + gpu.id).c_str());
            ++advised;
            fitted += advice.fits;
        }
        QCOMPARE(advised, 300);
        QVERIFY2(fitted > 100, QByteArray::number(fitted)); // most reach a fit
    }
};

QTEST_GUILESS_MAIN(TestAdvisor)
#include "tst_advisor.moc"
