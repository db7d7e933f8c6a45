// SPDX-License-Identifier: GPL-3.0-or-later
// Sweeps: memory against sequence length and micro-batch, where each GPU line is crossed, and
// the quadratic (eager) against linear (flash) growth.
#include "solve/sweep.h"
#include "testutil.h"

using namespace headroom;
using C = ConsumerId;

namespace {

Scenario longContext(const char *attention)
{
    return test::scenarioFrom(std::string(R"({"model": {"preset": "llama-3.1-8b"},
        "train": {"method": "lora", "gradient_checkpointing": "full"},
        "kernels": {"loss": "fused", "attention": ")") + attention + R"("},
        "gpus": ["rtx-4090", "a100-80gb", "b200"]})");
}

/// (f(4s) - f(2s)) / (f(2s) - f(s)) over the device peak: 2 for linear growth, 4 for quadratic.
double growthRatio(const Sweep &sweep, std::size_t i)
{
    const auto at = [&](std::size_t k) { return double(sweep.points.at(k).estimate.peak.deviceBytes); };
    return (at(i + 2) - at(i + 1)) / (at(i + 1) - at(i));
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT
private slots:
    void doublingsAreInclusive()
    {
        QCOMPARE(doublings(512, 4096), (std::vector<std::uint32_t>{512, 1024, 2048, 4096}));
        QCOMPARE(doublings(1, 5), (std::vector<std::uint32_t>{1, 2, 4}));
        QVERIFY(doublings(8, 4).empty());
    }

    void everyPointIsASingleEstimate_data()
    {
        QTest::addColumn<QString>("keys");
        QTest::addColumn<int>("axis");
        QTest::newRow("train-seq-len") << QStringLiteral(R"({"model": {"preset": "llama-2-7b"}, "train": {"method": "lora"}})")
                                       << int(SweepAxis::SeqLen);
        QTest::newRow("train-micro-batch") << QStringLiteral(R"({"model": {"preset": "mistral-7b"}, "train": {"method": "qlora"}})")
                                           << int(SweepAxis::MicroBatch);
        QTest::newRow("inference-context") << QStringLiteral(R"({"model": {"preset": "llama-3-8b"}, "task": "inference"})")
                                           << int(SweepAxis::SeqLen);
        QTest::newRow("inference-batch") << QStringLiteral(R"({"model": {"preset": "llama-3-8b"}, "task": "inference"})")
                                         << int(SweepAxis::MicroBatch);
    }
    void everyPointIsASingleEstimate()
    {
        QFETCH(QString, keys);
        QFETCH(int, axis);
        const Scenario s = test::scenarioFrom(keys.toStdString());
        const SweepAxis a = SweepAxis(axis);
        const std::vector<std::uint32_t> values =
            a == SweepAxis::SeqLen ? doublings(256, 32768) : doublings(1, 64);
        const Sweep result = sweep(s, a, values);
        QCOMPARE(result.points.size(), values.size());
        QVERIFY(!result.truncated);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const Scenario single = withAxisValue(s, a, values[i]);
            QCOMPARE(axisValue(single, a), values[i]);
            QCOMPARE(result.points[i].value, values[i]);
            QCOMPARE(result.points[i].estimate, estimate(single, Detail::BytesOnly));
            if (i > 0) // more tokens never take less memory
                QVERIFY(result.points[i].estimate.peak.deviceBytes >= result.points[i - 1].estimate.peak.deviceBytes);
        }
    }

    void crossingIsTheFirstPointOverTheLine()
    {
        const Scenario s = longContext("flash");
        const Sweep result = sweep(s, SweepAxis::SeqLen, doublings(1024, 131072));
        QCOMPARE(result.crossings.size(), std::size_t(3));
        for (const SweepCrossing &crossing : result.crossings) {
            QCOMPARE(crossing.capacityBytes, builtinCatalog().findGpu(crossing.gpuId)->capacityBytes());
            for (std::size_t i = 0; i < result.points.size(); ++i) {
                const bool over = result.points[i].estimate.peak.deviceBytes > crossing.capacityBytes;
                if (crossing.firstOver && i >= *crossing.firstOver)
                    QVERIFY(i > *crossing.firstOver || over);
                else
                    QVERIFY2(!over, crossing.gpuId.c_str());
            }
        }
        QCOMPARE(result.crossings[0].gpuId, std::string("rtx-4090"));
        QVERIFY(result.crossings[0].firstOver.has_value());
        QVERIFY(*result.crossings[0].firstOver < *result.crossings[1].firstOver); // 24 GB before 80 GB
    }

    // Eager attention materialises batch x heads x seq^2 scores; flash keeps only linear terms.
    void eagerIsQuadraticFlashIsLinear()
    {
        const std::vector<std::uint32_t> lengths = doublings(2048, 65536);
        const Sweep eager = sweep(longContext("eager"), SweepAxis::SeqLen, lengths);
        const Sweep flash = sweep(longContext("flash"), SweepAxis::SeqLen, lengths);
        QCOMPARE(eager.points.size(), lengths.size());
        for (std::size_t i = 1; i < lengths.size(); ++i) {
            QCOMPARE(eager.points[i].estimate.bytes(C::AttentionScores),
                     4 * eager.points[i - 1].estimate.bytes(C::AttentionScores));
            QCOMPARE(flash.points[i].estimate.bytes(C::AttentionScores), 0ull);
        }
        for (std::size_t i = 0; i + 2 < lengths.size(); ++i) {
            const double flashRatio = growthRatio(flash, i);
            QVERIFY2(flashRatio > 1.9 && flashRatio < 2.1, QByteArray::number(flashRatio));
        }
        // The eager peak's growth tends to 4x per doubling as the quadratic term takes over.
        const double eagerRatio = growthRatio(eager, lengths.size() - 3);
        QVERIFY2(eagerRatio > 3.5 && eagerRatio <= 4.0, QByteArray::number(eagerRatio));
        QVERIFY(eager.points.back().estimate.peak.deviceBytes > 5 * flash.points.back().estimate.peak.deviceBytes);
    }

    void microBatchIsLinear()
    {
        const Scenario s = test::scenarioFrom(R"({"model": {"preset": "llama-2-7b"},
            "train": {"method": "lora", "seq_len": 1024}, "kernels": {"attention": "eager"}})");
        const Sweep result = sweep(s, SweepAxis::MicroBatch, doublings(1, 32));
        for (std::size_t i = 0; i + 2 < result.points.size(); ++i) {
            const double ratio = growthRatio(result, i);
            QVERIFY2(ratio > 1.9 && ratio < 2.1, QByteArray::number(ratio));
        }
    }

    void beyondRangeTruncates()
    {
        Scenario s = longContext("eager");
        s.model.heads = 65536;
        s.model.kvHeads = 1;
        const Sweep result = sweep(s, SweepAxis::SeqLen, {1024, 16777216});
        QVERIFY(result.truncated);
        QCOMPARE(result.points.size(), std::size_t(1));
    }

    void pointsAreBounded()
    {
        // 300 values asked, limits::kSweepPoints (256) estimated: the first 256, then truncated.
        std::vector<std::uint32_t> values;
        for (std::uint32_t v = 1; v <= 300; ++v)
            values.push_back(v);
        const Sweep result = sweep(longContext("flash"), SweepAxis::MicroBatch, values);
        QVERIFY(result.truncated);
        QCOMPARE(result.points.size(), std::size_t(256));
        QCOMPARE(result.points.back().value, 256u);
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
