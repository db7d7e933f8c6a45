// SPDX-License-Identifier: GPL-3.0-or-later
// The window's objective controls, offscreen: GRPO is chosen in the objective combo, its vLLM
// controls show only with vLLM colocated, and the memory share moves the generation engine's bar.
#include "uitestutil.h"
#include "controls/controlpanel.h"
#include "controls/posttraininggroup.h"
#include "document/scenariomodel.h"
#include "window/mainwindow.h"
#include "model/architecture.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSettings>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

void choose(QComboBox *combo, int value)
{
    const int index = combo->findData(value);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

} // namespace

class TestPostTrainingUi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { headroom::test::isolateSettings("tst_posttrainingui"); }
    void init() { QSettings().clear(); }

    void grpoWithColocatedVllm()
    {
        MainWindow w;
        w.model()->apply(QStringLiteral("start"), [](Scenario &s) {
            s = Scenario{};
            s.model = builtinCatalog().findModel("llama-3.1-8b")->arch;
            s.train.method = Method::Lora;
            s.train.seqLen = 1024;
            s.train.microBatch = 4;
            s.gpus = {"h100-80gb"};
        });
        auto *group = w.controls()->findChild<PostTrainingGroup *>();
        QVERIFY(group);
        QVERIFY(group->isVisibleTo(&w));
        QVERIFY(!group->utilization()->isVisibleTo(&w)); // SFT: no generation controls
        choose(group->objective(), int(Objective::Grpo));
        QCOMPARE(w.model()->scenario().train.objective, Objective::Grpo);
        // Default completion 512 < seq_len 1024; vLLM colocated by default, its share shown.
        QCOMPARE(w.model()->scenario().train.grpo.completionLength, 512u);
        // num_generations 8 does not divide 4 x 1 GPU x 1 step: the largest divisor, 4, is kept.
        QCOMPARE(w.model()->scenario().train.grpo.numGenerations, 4u);
        QVERIFY(group->utilization()->isVisibleTo(&w));
        w.model()->apply(QStringLiteral("len"), [](Scenario &s) { s.train.grpo.vllmMaxModelLen = 1024; });
        const std::uint64_t at30 = w.model()->estimate().bytes(ConsumerId::GenerationEngine);
        QVERIFY(at30 > 0);
        group->utilization()->setValue(0.5);
        QCOMPARE(w.model()->scenario().train.grpo.vllmGpuMemoryUtilization, 0.5);
        // A larger share is a larger KV pool: 0.2 x 79.18 GiB more, less nothing else.
        QVERIFY(w.model()->estimate().bytes(ConsumerId::GenerationEngine) > at30);
        group->sleep()->setChecked(true);
        QVERIFY(w.model()->scenario().train.grpo.vllmSleep);
        choose(group->rollout(), int(Rollout::VllmServer));
        QVERIFY(!group->utilization()->isVisibleTo(&w));
        QCOMPARE(w.model()->estimate().bytes(ConsumerId::GenerationEngine), std::uint64_t(0));
        // Inference: the group is hidden.
        w.model()->apply(QStringLiteral("serve"), [](Scenario &s) { s.task = Task::Inference; });
        QVERIFY(!group->isVisibleTo(&w));
    }

    void ppoDistillationAndRewardOneUndoStepEach()
    {
        MainWindow w;
        w.model()->apply(QStringLiteral("start"), [](Scenario &s) {
            s = Scenario{};
            s.model = builtinCatalog().findModel("llama-3.2-1b")->arch;
            s.train.method = Method::Full;
            s.train.seqLen = 1024;
            s.gpus = {"h100-80gb"};
        });
        auto *group = w.controls()->findChild<PostTrainingGroup *>();
        QVERIFY(group);
        QUndoStack *undo = w.model()->undoStack();
        const int start = undo->count();
        QVERIFY(!group->responseLength()->isVisibleTo(&w));
        choose(group->objective(), int(Objective::Ppo));
        QCOMPARE(undo->count(), start + 1);
        QVERIFY(group->responseLength()->isVisibleTo(&w));
        QVERIFY(!group->teacher()->isVisibleTo(&w));
        group->responseLength()->setValue(100);
        QCOMPARE(w.model()->scenario().train.ppo.responseLength, 100u);
        QCOMPARE(undo->count(), start + 2);
        // Four models in the GPU: more weights than SFT.
        QVERIFY(w.model()->estimate().bytes(ConsumerId::Weights) > 0);

        choose(group->objective(), int(Objective::Distillation));
        QCOMPARE(undo->count(), start + 3);
        QVERIFY(group->teacher()->isVisibleTo(&w));
        QVERIFY(!group->responseLength()->isVisibleTo(&w));
        // Until a teacher is chosen it is the student itself (same vocabulary).
        QCOMPARE(w.model()->scenario().train.distillation.teacher.vocab, w.model()->scenario().model.vocab);
        const std::uint64_t self = w.model()->estimate().bytes(ConsumerId::Weights);
        const int index = group->teacher()->findData(QStringLiteral("llama-3.1-8b"));
        QVERIFY(index >= 0);
        group->teacher()->setCurrentIndex(index);
        emit group->teacher()->activated(index);
        QCOMPARE(undo->count(), start + 4);
        QCOMPARE(w.model()->scenario().train.distillation.teacher.preset, std::string("llama-3.1-8b"));
        // The 8B teacher (8,030,261,248 x 2 B) in place of the 1B student's copy.
        const std::uint64_t student = std::uint64_t(countParams(w.model()->scenario().model).total) * 2;
        QCOMPARE(w.model()->estimate().bytes(ConsumerId::Weights), self - student + 8'030'261'248ull * 2);
        undo->undo();
        QCOMPARE(w.model()->estimate().bytes(ConsumerId::Weights), self);

        choose(group->objective(), int(Objective::Reward));
        QVERIFY(!group->teacher()->isVisibleTo(&w));
        QCOMPARE(w.model()->scenario().train.objective, Objective::Reward);
    }

    void rewardHeadChoosesTheValueHead()
    {
        MainWindow w;
        w.resize(1280, 900);
        w.model()->apply(QStringLiteral("start"), [](Scenario &s) {
            s = Scenario{};
            s.model = builtinCatalog().findModel("llama-3.2-1b")->arch;
            s.train.method = Method::Lora;
            s.train.seqLen = 1024;
            s.gpus = {"rtx-4090"};
        });
        auto *group = w.controls()->findChild<PostTrainingGroup *>();
        QVERIFY(group);
        QVERIFY(!group->rewardHead()->isVisibleTo(&w)); // SFT: no reward head
        choose(group->objective(), int(Objective::Reward));
        QVERIFY(group->rewardHead()->isVisibleTo(&w));
        QCOMPARE(w.model()->scenario().train.rewardHead, RewardHead::Score);
        const std::uint64_t score = w.model()->estimate().bytes(ConsumerId::Logits);
        QUndoStack *undo = w.model()->undoStack();
        const int before = undo->count();
        choose(group->rewardHead(), int(RewardHead::ValueHead));
        QCOMPARE(undo->count(), before + 1);
        QCOMPARE(w.model()->scenario().train.rewardHead, RewardHead::ValueHead);
        // One pair of 1,024 tokens: the value head's forward returns 2,048 x 128,256 logits in
        // bf16 and fp32 (6 B each), which the score head never computes.
        QVERIFY(w.model()->estimate().bytes(ConsumerId::Logits) >= score + 2048ull * 128'256 * 6);
        if (const QByteArray shots = qgetenv("HEADROOM_SHOTS"); !shots.isEmpty())
            w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/reward-value-head.png"));
        undo->undo();
        QCOMPARE(w.model()->scenario().train.rewardHead, RewardHead::Score);
        QCOMPARE(group->rewardHead()->currentData().toInt(), int(RewardHead::Score));
    }
};

QTEST_MAIN(TestPostTrainingUi)
#include "tst_posttrainingui.moc"
