// SPDX-License-Identifier: GPL-3.0-or-later
// Properties over many seeded random scenarios: growth never shrinks memory, the
// memory-saving techniques never raise the peak, the peak is the largest phase.
#include "testutil.h"

#include <random>

using namespace headroom;
using C = ConsumerId;

namespace {

constexpr int kScenarios = 400;

/// A random but valid training scenario drawn from a fixed seed.
Scenario randomScenario(std::mt19937 &rng)
{
    static const char *presets[] = {"gpt2", "llama-2-7b", "llama-3-8b", "mistral-7b",
                                    "qwen2.5-7b", "phi-3-mini", "llama-3.2-1b", "mixtral-8x7b"};
    auto pick = [&](int count) { return int(rng() % unsigned(count)); };
    Scenario s = test::scenarioFrom(std::string(R"({"model": {"preset": ")") + presets[pick(8)] + "\"}}");
    s.train.method = static_cast<Method>(pick(3));
    s.precision.weights = s.train.method == Method::Qlora ? DType::NF4
                                                          : (pick(4) == 0 ? DType::FP32 : DType::BF16);
    s.precision.doubleQuant = pick(2) == 0;
    s.precision.compute = pick(5) == 0 ? DType::FP32 : DType::BF16;
    s.train.microBatch = 1u << pick(5);
    s.train.seqLen = 128u << pick(6);
    s.train.gradAccum = 1 + pick(3);
    s.train.optimizer = static_cast<Optimizer>(pick(8));
    s.train.masterWeights = pick(2) == 0;
    s.train.optimizerInBackward = pick(4) == 0;
    s.train.checkpointing = static_cast<Checkpointing>(pick(3));
    s.train.lora.rank = 4 << pick(5);
    s.train.lora.dropout = pick(2) ? 0.05 : 0.0;
    s.kernels.attention = static_cast<Attention>(pick(3));
    s.kernels.loss = static_cast<Loss>(pick(3));
    s.kernels.profile = static_cast<Profile>(pick(2));
    if (pick(4) == 0) {
        s.parallel.gpus = 8;
        s.parallel.strategy = static_cast<Strategy>(pick(6));
    }
    return s;
}

/// Every consumer's largest amount over the phases, and the peak, never decrease.
void verifyNotSmaller(const Estimate &small, const Estimate &large, const char *what)
{
    QVERIFY2(large.peak.allocatedBytes >= small.peak.allocatedBytes,
             QByteArray(what) + "\n" + test::describe(small) + "\n" + test::describe(large));
    for (int i = 0; i < kConsumerCount; ++i) {
        const auto id = static_cast<ConsumerId>(i);
        QVERIFY2(test::maxOverPhases(large, id) >= test::maxOverPhases(small, id),
                 QByteArray(what) + ": " + consumerKey(id));
    }
}

} // namespace

class TestProperties : public QObject
{
    Q_OBJECT
private slots:
    void growthNeverShrinks_data()
    {
        QTest::addColumn<QString>("dimension");
        QTest::newRow("micro-batch") << QStringLiteral("micro_batch");
        QTest::newRow("seq-len") << QStringLiteral("seq_len");
        QTest::newRow("layers") << QStringLiteral("layers");
        QTest::newRow("hidden") << QStringLiteral("hidden");
    }
    void growthNeverShrinks()
    {
        QFETCH(QString, dimension);
        std::mt19937 rng(20261129);
        for (int i = 0; i < kScenarios; ++i) {
            const Scenario base = randomScenario(rng);
            Scenario grown = base;
            if (dimension == QLatin1String("micro_batch"))
                grown.train.microBatch *= 2;
            else if (dimension == QLatin1String("seq_len"))
                grown.train.seqLen *= 2;
            else if (dimension == QLatin1String("layers"))
                grown.model.layers += 1 + int(rng() % 8);
            else
                grown.model.hidden += 64 * (1 + int(rng() % 8));
            verifyNotSmaller(estimate(base, Detail::BytesOnly), estimate(grown, Detail::BytesOnly),
                             qPrintable(dimension));
        }
    }

    void savingTechniquesNeverRaiseThePeak()
    {
        std::mt19937 rng(7);
        for (int i = 0; i < kScenarios; ++i) {
            Scenario s = randomScenario(rng);
            auto peak = [](const Scenario &x) { return estimate(x, Detail::BytesOnly).peak.allocatedBytes; };

            Scenario none = s, selective = s, full = s;
            none.train.checkpointing = Checkpointing::None;
            selective.train.checkpointing = Checkpointing::Selective;
            full.train.checkpointing = Checkpointing::Full;
            QVERIFY(peak(selective) <= peak(none));
            QVERIFY(peak(full) <= peak(none));

            Scenario eager = s, sdpa = s, flash = s;
            eager.kernels.attention = Attention::Eager;
            sdpa.kernels.attention = Attention::Sdpa;
            flash.kernels.attention = Attention::Flash;
            // Under Megatron-style selective checkpointing eager attention recomputes its scores
            // and keeps nothing per head, while SDPA keeps its log-sum-exp (4 B per head and
            // token): the one case where SDPA's forward is a few MB larger.
            if (s.train.checkpointing != Checkpointing::Selective)
                QVERIFY2(peak(sdpa) <= peak(eager), QByteArray::fromStdString(scenarioToJson(s).dump()) + "\n" + test::describe(estimate(sdpa)) + test::describe(estimate(eager)));
            QVERIFY(peak(flash) <= peak(sdpa));

            Scenario standard = s, chunked = s, fused = s;
            standard.kernels.loss = Loss::Standard;
            chunked.kernels.loss = Loss::Chunked;
            fused.kernels.loss = Loss::Fused;
            // Against an upcasting cross-entropy; the fused profile's standard loss is Unsloth's
            // fused kernel (bf16 logits, a log-sum-exp per row), which torchtune's eager chunked
            // loss (an fp32 log-softmax per chunk) does not beat.
            if (s.kernels.profile != Profile::Fused)
                QVERIFY(peak(chunked) <= peak(standard));
            // The fused kernel computes a training lm_head's gradient in forward (Liger allocates
            // grad_weight there, beside the persistent .grad under accumulation): on a short
            // sequence that can outweigh the logits it saves, never by more than that gradient.
            const std::uint64_t lmHeadGrad =
                s.train.method == Method::Full ? std::uint64_t(s.model.vocab) * s.model.hidden * 4 : 0; // at most fp32
            QVERIFY(peak(fused) <= peak(standard) + lmHeadGrad);
        }
    }

    void peakIsTheLargestPhase()
    {
        std::mt19937 rng(42);
        for (int i = 0; i < kScenarios; ++i) {
            Scenario s = randomScenario(rng);
            if (i % 3 == 0)
                s.task = Task::Inference;
            const Estimate e = estimate(s, Detail::BytesOnly);
            std::uint64_t largest = 0;
            PhaseId largestPhase = PhaseId::Load;
            for (const Phase &phase : e.phases) {
                std::uint64_t sum = 0;
                for (std::uint64_t bytes : phase.bytes)
                    sum += bytes;
                QCOMPARE(sum, phase.allocatedBytes);
                if (phase.allocatedBytes > largest) {
                    largest = phase.allocatedBytes;
                    largestPhase = phase.id;
                }
            }
            QCOMPARE(e.peak.allocatedBytes, largest);
            QVERIFY(e.peak.phase == largestPhase);
            QCOMPARE(e.phases.size(), std::size_t(s.task == Task::Train ? 4 : 3));
        }
    }
};

QTEST_GUILESS_MAIN(TestProperties)
#include "tst_properties.moc"
