// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson format (strict, like scenarios) and the shipped lessons: every step estimates, and
// the article lessons reproduce the numbers their articles print (docs/domain-notes.md).
#include "lesson/lesson.h"
#include "testutil.h"

#include <QDir>
#include <QFile>

using namespace headroom;
using C = ConsumerId;

namespace {

/// A shipped lesson by id; fails the test when it is missing.
const Lesson &shipped(const std::string &id)
{
    static std::map<std::string, Lesson> cache;
    if (!cache.count(id))
        for (const BuiltinLesson &lesson : builtinLessons())
            if (lesson.id == id)
                cache[id] = parseLesson(lesson.json);
    return cache.at(id);
}

Estimate stepEstimate(const std::string &id, int step)
{
    return estimate(shipped(id).steps.at(std::size_t(step)).scenario);
}

std::string lessonText(const std::string &steps)
{
    return R"({"format": "headroom-lesson", "version": 1, "title": "T", "steps": )" + steps + "}";
}

const char *kFirstStep = R"({"title": "a", "caption": "b", "scenario": {"format": "headroom-scenario",
    "version": 1, "model": {"preset": "llama-2-7b"}, "train": {"micro_batch": 2}}})";

} // namespace

class TestLesson : public QObject
{
    Q_OBJECT
private slots:
    void shippedLessonsAreTheResourceFiles()
    {
        const QDir dir(QStringLiteral(HEADROOM_SOURCE_DIR "/resources/lessons"));
        const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        QCOMPARE(builtinLessons().size(), std::size_t(files.size()));
        QVERIFY(files.size() >= 6);
        for (std::size_t i = 0; i < builtinLessons().size(); ++i) {
            QFile file(dir.filePath(files.at(int(i))));
            QVERIFY(file.open(QIODevice::ReadOnly));
            QCOMPARE(QString::fromStdString(std::string(builtinLessons()[i].id)) + QStringLiteral(".json"),
                     files.at(int(i)));
            QCOMPARE(QByteArray(builtinLessons()[i].json.data(), qsizetype(builtinLessons()[i].json.size())),
                     file.readAll());
        }
    }

    void everyStepEstimates_data()
    {
        QTest::addColumn<QString>("id");
        for (const BuiltinLesson &lesson : builtinLessons())
            QTest::newRow(std::string(lesson.id).c_str()) << QString::fromStdString(std::string(lesson.id));
    }
    void everyStepEstimates()
    {
        QFETCH(QString, id);
        const Lesson &lesson = shipped(id.toStdString());
        QVERIFY(!lesson.title.empty());
        QVERIFY(lesson.steps.size() >= 2);
        for (const LessonStep &step : lesson.steps) {
            QVERIFY(!step.title.empty() && !step.caption.empty());
            const Estimate e = estimate(step.scenario);
            QVERIFY2(e.peak.deviceBytes > 0, step.title.c_str());
            QVERIFY(!e.gpus.empty());
            // A step's scenario is a valid v1 document on its own.
            QCOMPARE(scenarioFromJson(scenarioToJson(step.scenario)), step.scenario);
        }
    }

    void requiredLessonsShip()
    {
        for (const char *id : {"ladder", "where-the-memory-actually-goes", "make-room-on-your-gpu",
                               "the-memory-game", "serving-the-other-10-gb", "long-context", "grpo-trainer-and-vllm"})
            QVERIFY2(!shipped(id).steps.empty(), id);
    }

    // The ladder: the bar shrinks at every rung, from over 80 GB to under 24 GB.
    void ladderShrinks()
    {
        const Lesson &ladder = shipped("ladder");
        QCOMPARE(ladder.steps.size(), std::size_t(6));
        std::uint64_t previous = UINT64_MAX;
        for (const LessonStep &step : ladder.steps) {
            const Estimate e = estimate(step.scenario);
            QVERIFY2(e.peak.deviceBytes < previous, step.title.c_str());
            previous = e.peak.deviceBytes;
            QCOMPARE(e.gpus.size(), std::size_t(2));
        }
        QVERIFY(!estimate(ladder.steps.front().scenario).gpus[1].fits); // not even 80 GB
        QVERIFY(estimate(ladder.steps.back().scenario).gpus[0].fits);   // the 24 GB card
        QCOMPARE(ladder.steps[0].scenario.precision.weights, DType::FP32);
        QCOMPARE(ladder.steps[3].scenario.train.method, Method::Qlora);
        QCOMPARE(ladder.steps[5].scenario.kernels.loss, Loss::Fused);
        QCOMPARE(ladder.steps[5].scenario.train.checkpointing, Checkpointing::Full);
    }

    // The numbers the articles print, each from its lesson step.
    void articleNumbers_data()
    {
        QTest::addColumn<QString>("lesson");
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("what");
        QTest::addColumn<qulonglong>("bytes");
        const QString s000 = QStringLiteral("where-the-memory-actually-goes");
        const QString s002 = QStringLiteral("make-room-on-your-gpu");
        const QString s003 = QStringLiteral("the-memory-game");
        const auto row = [](const char *name, const QString &lesson, int step, const char *what, qulonglong bytes) {
            QTest::newRow(name) << lesson << step << QString::fromLatin1(what) << bytes;
        };
        // Seed 002's table (and seed 000's 14/28 GB).
        row("s002-7b-fp32-28gb", s002, 0, "weights", 28'000'000'000ull);
        row("s002-7b-bf16-14gb", s002, 1, "weights", 14'000'000'000ull);
        row("s002-7b-int8-7gb", s002, 2, "weights", 7'000'000'000ull);
        row("s002-7b-int4-3.5gb", s002, 3, "weights", 3'500'000'000ull);
        row("s002-70b-int4-35gb", s002, 4, "weights", 35'000'000'000ull);
        row("s002-70b-bf16-140gb", s002, 5, "weights", 140'000'000'000ull);
        row("s002-subtotal-126gb", s002, 6, "state", 126'000'000'000ull);
        row("s002-fsdp-8-15.75gb", s002, 10, "state", 15'750'000'000ull);
        row("s000-7b-bf16-14gb", s000, 0, "weights", 14'000'000'000ull);
        row("s000-7b-fp32-28gb", s000, 1, "weights", 28'000'000'000ull);
        row("s000-nf4-3.9gb", s000, 2, "weights+metadata", 3'865'591'808ull);
        row("s000-full-bf16-grads-14gb", s000, 3, "gradients", 14'000'000'000ull);
        row("s000-full-adamw-56gb", s000, 3, "optimizer", 56'000'000'000ull);
        row("s000-lora-20m-grads-80mb", s000, 4, "gradients", 19'988'480ull * 4);
        row("s000-lora-20m-adam-160mb", s000, 4, "optimizer", 19'988'480ull * 8);
        row("s000-c10-21.5gb", s000, 5, "activations", 10 * 2'147'483'648ull);
        row("s000-c20-43gb", s000, 6, "activations", 20 * 2'147'483'648ull);
        row("s000-c5-10.7gb", s000, 7, "activations", 5 * 2'147'483'648ull);
        row("s000-eager-4.29gb-per-layer", s000, 9, "prefill-scores", 4'294'967'296ull);
        row("s000-eager-training-32-layers", s000, 10, "scores", 32 * 4'294'967'296ull);
        row("s000-logits-2.1-plus-4.2gb", s000, 12, "logits", 1'048'576'000ull * (2 + 4));
        row("s000-qlora-t4-weights-3.9gb", s000, 14, "weights+metadata", 3'865'591'808ull);
        row("s000-qlora-t4-c6", s000, 14, "activations", 6 * 1'073'741'824ull);
        row("s003-gpt2-weights-496mb", s003, 0, "weights", 496'000'000ull);
        row("s003-gpt2-adam-992mb", s003, 0, "optimizer", 992'000'000ull);
        row("s003-gpt2-grads-496mb", s003, 0, "gradients", 496'000'000ull);
        row("s003-7b-weights-28gb", s003, 1, "weights", 28'000'000'000ull);
        row("s003-7b-adam-56gb", s003, 1, "optimizer", 56'000'000'000ull);
        row("s003-7b-grads-28gb", s003, 1, "gradients", 28'000'000'000ull);
        row("s003-lora-16777216", s003, 4, "trainable", 16'777'216ull);
        row("s003-lora-adam-134mb", s003, 4, "optimizer", 134'217'728ull);
        row("s003-lora-grads-67mb", s003, 4, "gradients", 67'108'864ull);
        row("s003-recipe-adam-134mb-not-268", s003, 7, "optimizer", 134'217'728ull);
        row("s003-recipe-grads-67mb", s003, 7, "gradients", 67'108'864ull);
        row("s003-recipe-nf4-3.9gb", s003, 7, "weights+metadata", 3'865'591'808ull);
        row("serving-kv-512kib-per-token", QStringLiteral("serving-the-other-10-gb"), 0, "kv", 4096ull * 512 * 1024);
        row("serving-gqa-128kib-per-token", QStringLiteral("serving-the-other-10-gb"), 5, "kv", 4ull * 4096 * 128 * 1024);
    }
    void articleNumbers()
    {
        QFETCH(QString, lesson);
        QFETCH(int, step);
        QFETCH(QString, what);
        QFETCH(qulonglong, bytes);
        const Estimate e = stepEstimate(lesson.toStdString(), step);
        using test::maxOverPhases;
        std::uint64_t actual = 0;
        if (what == QLatin1String("weights"))
            actual = maxOverPhases(e, C::Weights);
        else if (what == QLatin1String("weights+metadata")) {
            // The base model: without the LoRA adapters, which are weights too.
            const Scenario &s = shipped(lesson.toStdString()).steps.at(std::size_t(step)).scenario;
            const std::uint64_t adapters = s.task == Task::Train && s.train.method != Method::Full
                                               ? e.trainableParams * std::uint64_t(dtypeBits(s.train.lora.dtype) / 8)
                                               : 0;
            actual = maxOverPhases(e, C::Weights) + maxOverPhases(e, C::QuantMetadata) - adapters;
        }
        else if (what == QLatin1String("gradients"))
            actual = maxOverPhases(e, C::Gradients);
        else if (what == QLatin1String("optimizer"))
            actual = maxOverPhases(e, C::OptimizerState);
        else if (what == QLatin1String("state"))
            actual = maxOverPhases(e, C::Weights) + maxOverPhases(e, C::MasterWeights) +
                     maxOverPhases(e, C::Gradients) + maxOverPhases(e, C::OptimizerState);
        else if (what == QLatin1String("activations"))
            actual = test::phaseBytes(e, PhaseId::Forward, C::Activations);
        else if (what == QLatin1String("scores"))
            actual = test::phaseBytes(e, PhaseId::Forward, C::AttentionScores);
        else if (what == QLatin1String("prefill-scores"))
            actual = test::phaseBytes(e, PhaseId::Prefill, C::AttentionScores);
        else if (what == QLatin1String("logits"))
            actual = test::phaseBytes(e, PhaseId::Forward, C::Logits);
        else if (what == QLatin1String("kv"))
            actual = maxOverPhases(e, C::KvCache);
        else if (what == QLatin1String("trainable"))
            actual = e.trainableParams;
        QVERIFY2(actual == bytes, test::describe(e));
    }

    // What the articles conclude about fitting, and where their arithmetic slips.
    void articleConclusions()
    {
        // Seed 000: QLoRA 7B at batch 2 x 2048 with its own c: ~11 GB, fits a T4 ...
        const Estimate t4 = stepEstimate("where-the-memory-actually-goes", 14);
        QVERIFY(t4.peak.allocatedBytes > 10'000'000'000ull && t4.peak.allocatedBytes < 12'500'000'000ull);
        QVERIFY(t4.gpus.at(0).fits);
        // ... but counted tensor by tensor it does not, until checkpointing is on.
        QVERIFY(!stepEstimate("where-the-memory-actually-goes", 15).gpus.at(0).fits);
        QVERIFY(stepEstimate("where-the-memory-actually-goes", 16).gpus.at(0).fits);
        // Seed 003: the 134 GB sum is not the peak.
        const Estimate full = stepEstimate("the-memory-game", 1);
        QVERIFY(full.peak.deviceBytes < 134'000'000'000ull);
        QVERIFY(test::phaseBytes(full, PhaseId::Forward, C::Activations) > 15'000'000'000ull);
        // Seed 003's recipe fits its 12 GB card, with LoRA state far under its 268 MB.
        const Estimate recipe = stepEstimate("the-memory-game", 7);
        QVERIFY(recipe.gpus.at(0).fits);
        QVERIFY(!stepEstimate("the-memory-game", 8).gpus.at(0).fits);
        // Seed 002: 126 GB is before activations; at batch 32 they add tens of GB.
        QVERIFY(stepEstimate("make-room-on-your-gpu", 7).peak.allocatedBytes > 160'000'000'000ull);
        // Serving: four 4k conversations cross the 24 GB line; an fp8 cache brings them back.
        QVERIFY(!stepEstimate("serving-the-other-10-gb", 2).gpus.at(0).fits);
        QVERIFY(stepEstimate("serving-the-other-10-gb", 3).gpus.at(0).fits);
    }

    // GRPO: the trainer and the colocated vLLM on one GPU; the captions quote the estimator's
    // own split, and their verdicts are the estimate's.
    void grpoSplitsBetweenTrainerAndVllm()
    {
        const Lesson &lesson = shipped("grpo-trainer-and-vllm");
        QCOMPARE(lesson.steps.size(), std::size_t(3));
        for (const LessonStep &step : lesson.steps) {
            QCOMPARE(step.scenario.train.objective, Objective::Grpo);
            QCOMPARE(step.scenario.train.grpo.rollout, Rollout::VllmColocate);
            const Estimate e = estimate(step.scenario);
            const std::string caption = expandCaption(step.caption, e, Unit::GiB);
            // The bar's two halves, as the caption names them: vLLM's bytes and the trainer's.
            QVERIFY(e.bytes(C::GenerationEngine) > 0);
            QVERIFY2(caption.find(formatBytes(e.bytes(C::GenerationEngine), Unit::GiB)) != std::string::npos,
                     caption.c_str());
            QVERIFY2(caption.find(formatBytes(e.bytes(C::Weights), Unit::GiB)) != std::string::npos, caption.c_str());
            const bool saysFits = caption.find("does not fit") == std::string::npos;
            QCOMPARE(e.gpus.at(0).fits, saysFits);
        }
        const Estimate at30 = stepEstimate("grpo-trainer-and-vllm", 0);
        const Estimate at70 = stepEstimate("grpo-trainer-and-vllm", 1);
        const Estimate asleep = stepEstimate("grpo-trainer-and-vllm", 2);
        QVERIFY(at30.gpus.at(0).fits);
        QVERIFY(!at70.gpus.at(0).fits);
        QVERIFY(asleep.gpus.at(0).fits);
        // A larger share is a larger pool; sleep mode frees the weights and pool in training.
        QVERIFY(test::phaseBytes(at70, PhaseId::Decode, C::GenerationEngine) >
                test::phaseBytes(at30, PhaseId::Decode, C::GenerationEngine));
        QVERIFY(test::phaseBytes(asleep, PhaseId::Optimizer, C::GenerationEngine) <
                test::phaseBytes(at30, PhaseId::Optimizer, C::GenerationEngine));
    }

    // Long context: eager scores quadruple per doubling, flash stays linear.
    void longContextGrowth()
    {
        const Lesson &lesson = shipped("long-context");
        std::vector<std::uint64_t> eagerScores, flashActivations;
        for (const LessonStep &step : lesson.steps) {
            const Estimate e = estimate(step.scenario);
            if (step.scenario.kernels.attention == Attention::Eager)
                eagerScores.push_back(test::maxOverPhases(e, C::AttentionScores));
            else {
                QCOMPARE(test::maxOverPhases(e, C::AttentionScores), 0ull);
                flashActivations.push_back(test::phaseBytes(e, PhaseId::Forward, C::Activations));
            }
        }
        QVERIFY(eagerScores.size() >= 3 && flashActivations.size() >= 3);
        for (std::size_t i = 1; i < eagerScores.size(); ++i)
            QCOMPARE(eagerScores[i], 4 * eagerScores[i - 1]);
        for (std::size_t i = 1; i < flashActivations.size(); ++i) {
            const double ratio = double(flashActivations[i]) / double(flashActivations[i - 1]);
            QVERIFY2(ratio > 1.9 && ratio < 2.1, QByteArray::number(ratio));
        }
    }

    void setAppliesToThePreviousStep()
    {
        const Lesson lesson = parseLesson(lessonText(std::string("[") + kFirstStep +
            R"(, {"title": "c", "caption": "d", "set": {"train.micro_batch": 8, "kernels.attention": "eager",
                  "train.lora.targets": ["q", "v"]}},
                {"title": "e", "caption": "f", "set": {"train.method": "qlora"}}])"));
        QCOMPARE(lesson.steps.size(), std::size_t(3));
        Scenario expected = lesson.steps[0].scenario;
        QCOMPARE(expected.train.microBatch, 2u);
        expected.train.microBatch = 8;
        expected.kernels.attention = Attention::Eager;
        expected.train.lora.targets = {LoraTarget::Q, LoraTarget::V};
        QCOMPARE(lesson.steps[1].scenario, expected);
        // Changes apply to the document, so defaults follow: qlora means an NF4 base.
        QCOMPARE(lesson.steps[2].scenario.precision.weights, DType::NF4);
        QCOMPARE(lesson.steps[2].scenario.train.microBatch, 8u);
    }

    void axisIsTheLessonsChoice()
    {
        // Two steps: micro-batch 2, then 8. The second has more activations, so a larger peak.
        const std::string steps = std::string("[") + kFirstStep +
                                  R"(, {"title": "c", "caption": "d", "set": {"train.micro_batch": 8}}])";
        const auto withKeys = [&](const std::string &keys) {
            return R"({"format": "headroom-lesson", "version": 1, "title": "T", )" + keys + R"("steps": )" + steps + "}";
        };
        const Lesson shared = parseLesson(withKeys(""));
        QCOMPARE(shared.axis, LessonAxis::Shared); // the default: v1 lessons keep their one axis
        QCOMPARE(shared.comparison, false);
        const std::uint64_t first = estimate(shared.steps[0].scenario).peak.deviceBytes;
        const std::uint64_t second = estimate(shared.steps[1].scenario).peak.deviceBytes;
        QVERIFY(second > first);
        // Shared: every step drawn against the largest step's peak.
        QCOMPARE(lessonAxisBytes(shared), second);
        QCOMPARE(lessonAxisBytes(parseLesson(withKeys(R"("axis": "shared", )"))), second);
        // Per step: no lesson-wide minimum, each step's chart scales to itself.
        const Lesson perStep = parseLesson(withKeys(R"("axis": "per-step", "comparison": true, )"));
        QCOMPARE(perStep.axis, LessonAxis::PerStep);
        QCOMPARE(perStep.comparison, true);
        QCOMPARE(lessonAxisBytes(perStep), std::uint64_t(0));
        QCOMPARE(lessonPeakBytes(perStep), second); // the largest peak itself is unchanged
        // Both keys survive writing and reading back; the default writes neither.
        QCOMPARE(lessonFromJson(lessonToJson(perStep)), perStep);
        QVERIFY(!lessonToJson(shared).contains("axis"));
        QVERIFY(!lessonToJson(shared).contains("comparison"));
    }

    void strictErrorsNameTheKey_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        const auto row = [](const char *name, const std::string &text, const char *key) {
            QTest::newRow(name) << QString::fromStdString(text) << QString::fromLatin1(key);
        };
        const std::string first = kFirstStep;
        row("unknown-top-key", R"({"format": "headroom-lesson", "version": 1, "title": "T", "steps": [)" + first +
                                   R"(], "titel": "x"})", "titel");
        row("wrong-format", R"({"format": "headroom-scenario", "version": 1, "title": "T", "steps": []})", "format");
        row("wrong-version", R"({"format": "headroom-lesson", "version": 2, "title": "T", "steps": []})", "version");
        row("no-title", R"({"format": "headroom-lesson", "version": 1, "steps": [)" + first + "]}", "title");
        row("no-steps", lessonText("[]"), "steps");
        row("unknown-step-key", lessonText("[" + first.substr(0, first.size() - 1) + R"(, "note": 1}])"), "steps[0].note");
        row("no-caption", lessonText(R"([{"title": "a", "scenario": {}}])"), "steps[0].caption");
        row("first-step-set", lessonText(R"([{"title": "a", "caption": "b", "set": {"train.micro_batch": 2}}])"),
            "steps[0].set");
        row("scenario-and-set", lessonText("[" + first + R"(, {"title": "a", "caption": "b", "scenario": {}, "set": {}}])"),
            "steps[1]");
        row("bad-scenario-key", lessonText(R"([{"title": "a", "caption": "b", "scenario": {"format": "headroom-scenario",
            "version": 1, "train": {"micro_bach": 2}}}])"), "steps[0].scenario.train.micro_bach");
        row("bad-set-key", lessonText("[" + first + R"(, {"title": "a", "caption": "b", "set": {"train.micro_bach": 2}}])"),
            "steps[1].set.train.micro_bach");
        row("bad-set-value", lessonText("[" + first + R"(, {"title": "a", "caption": "b", "set": {"train.micro_batch": 0}}])"),
            "steps[1].set.train.micro_batch");
        row("empty-set", lessonText("[" + first + R"(, {"title": "a", "caption": "b", "set": {}}])"), "steps[1].set");
        // Named as written, not as the path before the '=' ("train").
        row("equals-in-set-key", lessonText("[" + first + R"(, {"title": "a", "caption": "b", "set": {"train=x": 2}}])"),
            "steps[1].set.train=x");
        row("duplicate-set-key",
            lessonText("[" + first + R"(, {"title": "a", "caption": "b", "set": {"task": "train", "task": "x"}}])"),
            "steps[1].set.task");
        std::string twoHundredMore;
        for (int i = 0; i < 200; ++i)
            twoHundredMore += R"(, {"title": "a", "caption": "b", "set": {"train.micro_batch": 2}})";
        row("bad-axis", R"({"format": "headroom-lesson", "version": 1, "title": "T", "axis": "each", "steps": [)" +
                            first + "]}", "axis");
        row("axis-not-text", R"({"format": "headroom-lesson", "version": 1, "title": "T", "axis": 1, "steps": [)" +
                                 first + "]}", "axis");
        row("bad-comparison", R"({"format": "headroom-lesson", "version": 1, "title": "T", "comparison": "yes", "steps": [)" +
                                  first + "]}", "comparison");
        row("too-many-steps", lessonText("[" + first + twoHundredMore + "]"), "steps");
    }
    void strictErrorsNameTheKey()
    {
        QFETCH(QString, text);
        QFETCH(QString, key);
        try {
            parseLesson(text.toStdString());
            QFAIL("no error");
        } catch (const ScenarioError &error) {
            QCOMPARE(QString::fromStdString(error.key), key);
            QVERIFY2(QString::fromUtf8(error.what()).startsWith(key + QLatin1String(": ")), error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestLesson)
#include "tst_lesson.moc"
