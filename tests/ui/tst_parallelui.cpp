// SPDX-License-Identifier: GPL-3.0-or-later
// The window's GPUs-and-parallelism group, offscreen: the GPU count and sharding divide the bars
// as the estimator does, a layout the GPUs cannot form says why in the group and on the chart,
// CPU offload draws the host bar against the machine's RAM (typed, or from a catalog machine),
// and View > Every rank draws each pipeline stage and survives a restart.
#include "uitestutil.h"
#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "controls/controlpanel.h"
#include "controls/parallelgroup.h"
#include "document/documentcontroller.h"
#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "estimate/estimate.h"
#include "processutil.h"
#include "scenario/scenariojson.h"
#include "window/mainwindow.h"

#include <QAction>
#include <QBarSet>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

ParallelGroup *parallelGroup(const MainWindow &w) { return w.controls()->findChild<ParallelGroup *>(); }

void choose(QComboBox *combo, const QVariant &value)
{
    const int index = combo->findData(value);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

/// Llama 3 70B full fine-tune (bf16, fp32 master weights, AdamW), the H100 line only.
void seventyB(MainWindow &w)
{
    w.model()->apply(QStringLiteral("start"), [](Scenario &s) {
        s = Scenario{};
        s.model = builtinCatalog().findModel("llama-3-70b")->arch;
        s.model.preset = "llama-3-70b";
        s.train.method = Method::Full;
        s.train.masterWeights = true;
        s.train.checkpointing = Checkpointing::Full;
        s.kernels.attention = Attention::Flash;
        s.gpus = {"h100-80gb"};
    });
}

QAction *action(const MainWindow &w, const QString &text)
{
    for (QAction *candidate : w.findChildren<QAction *>())
        if (candidate->text() == text)
            return candidate;
    return nullptr;
}

} // namespace

class TestParallelUi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { headroom::test::isolateSettings("tst_parallelui"); }
    void init() { QSettings().clear(); }

    // 8 GPUs under ZeRO-3: every GPU keeps an eighth of the bf16 weights (2 B x 70,553,706,496 / 8).
    void gpusAndShardingDivideTheBars()
    {
        MainWindow w;
        seventyB(w);
        ParallelGroup *group = parallelGroup(w);
        QVERIFY(group);
        const std::uint64_t alone = w.model()->estimate().peak.deviceBytes;
        const int steps = w.model()->undoStack()->count();
        group->gpus()->setValue(8);
        choose(group->strategy(), int(Strategy::Zero3));
        QCOMPARE(w.model()->scenario().parallel.gpus, 8u);
        QCOMPARE(w.model()->scenario().parallel.strategy, Strategy::Zero3);
        QCOMPARE(w.model()->undoStack()->count(), steps + 2);
        QVERIFY(w.model()->estimateError().isEmpty());
        QCOMPARE(w.model()->estimate().bytes(ConsumerId::Weights), 70'553'706'496ull * 2 / 8);
        QVERIFY(w.model()->estimate().peak.deviceBytes < alone);
        QVERIFY2(group->layout()->text().contains(QLatin1String("8 GPUs")), qPrintable(group->layout()->text()));
        QVERIFY2(chartDataFor(*w.model()).title.contains(QLatin1String("per GPU of 8")),
                 qPrintable(chartDataFor(*w.model()).title));
        w.model()->undoStack()->undo();
        QCOMPARE(group->strategy()->currentData().toInt(), int(Strategy::None));
    }

    // Tensor 3 on 8 GPUs cannot be formed: the group and the chart name the key and the divisor.
    void aLayoutTheGpusCannotFormSaysWhy()
    {
        MainWindow w;
        seventyB(w);
        ParallelGroup *group = parallelGroup(w);
        group->gpus()->setValue(8);
        group->tensor()->setValue(3);
        const QString error = w.model()->estimateError();
        QVERIFY2(error.contains(QLatin1String("parallel.gpus")) && error.contains(QLatin1String("(3)")), qPrintable(error));
        QCOMPARE(group->layout()->text(), error);
        const ChartData data = chartDataFor(*w.model());
        QCOMPARE(data.columns.front().error, error);
        group->tensor()->setValue(2);
        QVERIFY(w.model()->estimateError().isEmpty());
        QVERIFY2(group->layout()->text().contains(QLatin1String("tensor 2")), qPrintable(group->layout()->text()));
    }

    // Issue 22: the fields pass through layouts the rules refuse (tensor 16 typed before the 16
    // GPUs). Whatever the window reaches it saves, and the file opens again, in a window and on
    // the command line, to the same scenario and the same refusal; a pinned refused layout too.
    void aRefusedLayoutSavesAndReopensToTheSameRefusal()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        MainWindow w;
        seventyB(w);
        ParallelGroup *group = parallelGroup(w);
        group->tensor()->setValue(16);
        QCOMPARE(w.model()->scenario().parallel.gpus, 1u);
        QCOMPARE(w.model()->scenario().parallel.tensor, 16u);
        // 16 x 1 x 1 does not divide 1 GPU: the gpus rule is checked first.
        const QString refusal = w.model()->estimateError();
        QCOMPARE(refusal, QStringLiteral("parallel.gpus: must be a multiple of tensor x pipeline x context (16)"));
        // The command line refuses the saved file with the same words (exit 2), never a number.
        const QString single = dir.filePath(QStringLiteral("tp16-alone.headroom.json"));
        QCOMPARE(writeDocumentFile(single, documentOf(*w.model())), QString());
        const test::Run run = test::runHeadroom({QStringLiteral("estimate"), single});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(refusal), qPrintable(run.err));
        QVERIFY2(run.out.isEmpty(), qPrintable(run.out));

        // Pinned, it is saved in a comparison.
        QVERIFY(w.model()->pinCurrent());
        const QString path = dir.filePath(QStringLiteral("tp16.headroom.json"));
        QCOMPARE(writeDocumentFile(path, documentOf(*w.model())), QString());

        // The reader gives back what was saved; the estimate refuses it with the window's words.
        const ScenarioDocument reopened = readDocumentFile(path);
        QCOMPARE(scenarioToJson(reopened.current), scenarioToJson(w.model()->scenario()));
        QCOMPARE(reopened.pins.size(), std::size_t(1));
        // The pin keeps its name in the file (the scenario's name); its layout is the one pinned.
        QCOMPARE(scenarioToJson(reopened.pins.front()).at("parallel"), scenarioToJson(w.model()->scenario()).at("parallel"));
        QCOMPARE(reopened.pins.front().parallel.tensor, 16u);
        try {
            estimate(reopened.current);
            QFAIL("the reopened layout was estimated");
        } catch (const std::exception &error) {
            QCOMPARE(QString::fromUtf8(error.what()), refusal);
        }

        // A second window opens it to the same refusal, beside the fields and on the pin.
        MainWindow second;
        second.document()->setMessageHandler([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(second.document()->openFile(path));
        QCOMPARE(second.model()->estimateError(), refusal);
        QCOMPARE(parallelGroup(second)->layout()->text(), refusal);
        QCOMPARE(second.model()->pins().size(), std::size_t(1));
        QCOMPARE(second.model()->pins().front().error, refusal);
        // The user goes on where they stopped: 16 GPUs pass the gpus rule; the next says that 16
        // tensor ranks cannot split Llama 3 70B's 8 KV heads; tensor 8 (16 = 8 x 2 data-parallel).
        parallelGroup(second)->gpus()->setValue(16);
        QVERIFY2(second.model()->estimateError().startsWith(QLatin1String("parallel.tensor: 16 must divide model.kv_heads (8)")),
                 qPrintable(second.model()->estimateError()));
        parallelGroup(second)->tensor()->setValue(8);
        QCOMPARE(second.model()->estimateError(), QString());
    }

    // CPU Adam: the host bar appears beside the current one; the RAM typed, then a DGX H100
    // (2 TB, 8 GPUs, its H100 80GB line becomes the verdict's).
    void offloadDrawsTheHostBarAgainstTheRam()
    {
        MainWindow w;
        seventyB(w);
        w.model()->apply(QStringLiteral("gpus"), [](Scenario &s) { s.gpus = {"a100-80gb"}; });
        ParallelGroup *group = parallelGroup(w);
        group->gpus()->setValue(16);
        choose(group->strategy(), int(Strategy::Zero3));
        QCOMPARE(chartDataFor(*w.model()).columns.size(), std::size_t(1));
        group->offloadOptimizer()->setChecked(true);
        QVERIFY(w.model()->scenario().parallel.offloadOptimizer);
        ChartData data = chartDataFor(*w.model());
        QCOMPARE(data.columns.size(), std::size_t(2));
        QVERIFY(data.columns[1].host);
        QCOMPARE(data.columns[1].totalBytes, w.model()->estimate().hostBytes);
        group->ramGiB()->setValue(512);
        QCOMPARE(w.model()->scenario().host.ramGiB, 512.0);
        QCOMPARE(chartDataFor(*w.model()).columns[1].ownLine.bytes, (512ull << 30) / 8);
        group->ramGiB()->setValue(0);
        choose(group->machine(), QStringLiteral("dgx-h100"));
        const Scenario &s = w.model()->scenario();
        QCOMPARE(s.host.machine, std::string("dgx-h100"));
        QCOMPARE(s.targetGpu, std::string("h100-80gb"));
        QCOMPARE(w.model()->estimate().hostMachine.ramBytes, 2048ull << 30);
        QVERIFY2(group->ramGiB()->specialValueText().contains(QLatin1String("2048")),
                 qPrintable(group->ramGiB()->specialValueText()));
        data = chartDataFor(*w.model());
        QCOMPARE(data.columns[1].ownLine.bytes, (2048ull << 30) / 8);
        QCOMPARE(data.lines[std::size_t(data.targetLine)].name, QStringLiteral("NVIDIA H100 80GB SXM (HBM3)"));
    }

    // Serving has no sharding or CPU-Adam rows; the GPU count and tensor parallelism stay.
    void trainingRowsHideForServing()
    {
        MainWindow w;
        w.show();
        ParallelGroup *group = parallelGroup(w);
        auto *form = static_cast<QFormLayout *>(group->QWidget::layout());
        QVERIFY(form->isRowVisible(group->strategy()));
        w.model()->apply(QStringLiteral("serve"), [](Scenario &s) { s.task = Task::Inference; });
        QVERIFY(!form->isRowVisible(group->strategy()));
        QVERIFY(!form->isRowVisible(group->offloadOptimizer()));
        QVERIFY(form->isRowVisible(group->tensor()));
        QVERIFY(form->isRowVisible(group->gpus()));
    }

    // The window's chart in the ranks view with CPU Adam (what tst_monkey's seeds 2 and 5 read as
    // a mismatch): a bar per pipeline stage, the busiest at the peak, then the host bar of CPU
    // RAM per GPU (not a GPU's bar), every bar in the axis's scale; with a 65,536 GiB custom line
    // the axis is in TiB and so are the bars (peak / 1024), not GiB.
    void ranksViewDrawsTheHostBarLastInTheAxisScale()
    {
        MainWindow w;
        w.show();
        seventyB(w);
        ParallelGroup *group = parallelGroup(w);
        group->gpus()->setValue(16);
        group->pipeline()->setValue(2);
        choose(group->strategy(), int(Strategy::Zero3));
        group->offloadOptimizer()->setChecked(true);
        w.model()->setView(ChartView::Ranks);
        const Estimate &e = w.model()->estimate();
        QCOMPARE(e.ranks.size(), std::size_t(2));
        QVERIFY(e.hostBytes > 0);
        const auto columnTotal = [&w](int column) {
            double total = 0;
            for (int i = 0; i < kConsumerCount; ++i) {
                const QBarSet *set = w.chart()->barSet(ConsumerId(i));
                total += column < set->count() ? set->at(column) : 0;
            }
            return total;
        };
        for (const std::uint64_t custom : {std::uint64_t(0), std::uint64_t(65536) << 30}) {
            w.model()->setCustomCapacityBytes(custom);
            const ByteScale scale = w.chart()->layout().scale;
            QCOMPARE(scale.power, custom ? 4 : 3); // 65,536 GiB needs 10,000 or more GiB: TiB
            QCOMPARE(w.chart()->barSet(ConsumerId::Weights)->count(), 3);
            const double busiest = std::max(columnTotal(0), columnTotal(1));
            QVERIFY2(std::abs(busiest - toScale(e.peak.deviceBytes, scale)) < 1e-9 * busiest, qPrintable(QString::number(busiest)));
            QVERIFY2(std::abs(columnTotal(2) - toScale(e.hostBytes, scale)) < 1e-9 * columnTotal(2),
                     qPrintable(QString::number(columnTotal(2))));
            QCOMPARE(w.chart()->data().columns[2].host, true);
        }
    }

    // View > Every rank: one bar per pipeline stage; the choice is remembered.
    void everyRankViewSurvivesARestart()
    {
        {
            MainWindow w;
            w.show();
            seventyB(w);
            ParallelGroup *group = parallelGroup(w);
            group->gpus()->setValue(16);
            group->pipeline()->setValue(4);
            group->tensor()->setValue(2);
            QAction *ranks = action(w, QStringLiteral("Every &rank of the current scenario"));
            QVERIFY(ranks);
            QCOMPARE(ranks->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_3));
            ranks->trigger();
            QCOMPARE(w.model()->view(), ChartView::Ranks);
            const ChartData data = chartDataFor(*w.model());
            QCOMPARE(data.columns.size(), w.model()->estimate().ranks.size());
            QVERIFY(data.columns.size() >= 2);
            w.close();
        }
        MainWindow again;
        QCOMPARE(again.model()->view(), ChartView::Ranks);
    }
};

QTEST_MAIN(TestParallelUi)
#include "tst_parallelui.moc"
