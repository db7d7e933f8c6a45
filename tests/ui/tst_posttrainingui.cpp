// SPDX-License-Identifier: GPL-3.0-or-later
// The window's objective controls, offscreen: GRPO is chosen in the objective combo, its vLLM
// controls show only with vLLM colocated, and the memory share moves the generation engine's bar.
#include "uitestutil.h"
#include "controls/controlpanel.h"
#include "controls/posttraininggroup.h"
#include "document/scenariomodel.h"
#include "window/mainwindow.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSettings>
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
};

QTEST_MAIN(TestPostTrainingUi)
#include "tst_posttrainingui.moc"
