// SPDX-License-Identifier: GPL-3.0-or-later
// Serving in the window, driven through its widgets: the engine group sets the serving section
// and shows the engine's figures, the chart splits the KV pool into used and free, capacity
// lines carry the chosen limit, the Solve panel applies an answer, the frontier draws and exports.
#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/frontierchart.h"
#include "classroom/frontierview.h"
#include "controls/controlpanel.h"
#include "controls/servinggroup.h"
#include "controls/sliderfield.h"
#include "controls/solvepanel.h"
#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "model/architecture.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include <QBarSet>
#include <QCheckBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

void chooseCombo(QComboBox *combo, int data)
{
    const int index = combo->findData(data);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

QComboBox *namedCombo(const QWidget &panel, const QString &name)
{
    for (QComboBox *box : panel.findChildren<QComboBox *>())
        if (box->accessibleName() == name)
            return box;
    return nullptr;
}

} // namespace

class TestServingUi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_servingui"); }

    void engineGroupSetsTheSection()
    {
        MainWindow window;
        window.resize(1400, 900);
        QVERIFY(test::showActive(window));
        ScenarioModel *model = window.model();
        model->apply(QStringLiteral("serve"), [](Scenario &s) {
            s.task = Task::Inference;
            s.gpus = {"rtx-4090", "a100-80gb"};
        });
        auto *group = window.controls()->findChild<ServingGroup *>();
        QVERIFY(group);
        QVERIFY(group->isVisible());
        chooseCombo(group->engine(), int(Engine::Vllm));
        QVERIFY(model->scenario().serving);
        QCOMPARE(model->scenario().serving->engine, Engine::Vllm);
        QVERIFY(model->estimate().serving);
        QVERIFY(group->figures()->text().contains(QStringLiteral("maximum concurrency")));
        // The concurrency field edits the requests; one undo step undoes it.
        group->concurrency()->field()->setValue(12);
        emit group->concurrency()->field()->editingFinished();
        QTRY_COMPARE(model->scenario().serving->requests.concurrency, 12u);
        // The chart draws the reservation: KV in use and the pool left free, no fragmentation.
        const ChartData data = chartDataFor(*model);
        const ChartColumn &column = data.columns.front();
        QVERIFY(column.bytes[std::size_t(ConsumerId::KvCache)] > 0);
        QCOMPARE(column.bytes[std::size_t(ConsumerId::KvCache)] + column.bytes[std::size_t(ConsumerId::KvCacheFree)],
                 model->estimate().serving->kvCacheBytes);
        QCOMPARE(column.bytes[std::size_t(ConsumerId::Fragmentation)], 0ull);
        QVERIFY(window.chart()->barSet(ConsumerId::KvCacheFree));
        // Back to no engine: the section goes.
        chooseCombo(group->engine(), -1);
        QVERIFY(!model->scenario().serving);
    }

    // The capacity lines carry the chosen variable's limit; the Solve panel applies an answer.
    // Issue 29: 3- and 2-bit GPTQ weights are a choice of the Weights combo, saved as "int3" /
    // "int2" and shown again when the file is reopened in another window.
    void gptqLowBitWeightsRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const auto &[dtype, name, text] : {std::tuple{DType::INT3, "int3", "int3 (GPTQ 3-bit)"},
                                                std::tuple{DType::INT2, "int2", "int2 (GPTQ 2-bit)"}}) {
            MainWindow window;
            QVERIFY(test::showActive(window));
            ScenarioModel *model = window.model();
            model->apply(QStringLiteral("serve"), [](Scenario &s) { s.task = Task::Inference; });
            QComboBox *weights = namedCombo(*window.controls(), QStringLiteral("Weight precision"));
            QVERIFY(weights);
            const std::uint64_t before = model->estimate().bytes(ConsumerId::Weights);
            chooseCombo(weights, int(dtype));
            QCOMPARE(model->scenario().precision.weights, dtype);
            QCOMPARE(weights->currentText(), QString::fromLatin1(text));
            // The block matrices at 3 (2) bits, the rest kept at the compute dtype's 2 bytes,
            // and the metadata line appears.
            const ParamCounts counts = countParams(model->scenario().model);
            const int bits = dtype == DType::INT3 ? 3 : 2;
            QCOMPARE(before, counts.total * 2);
            QCOMPARE(model->estimate().bytes(ConsumerId::Weights),
                     (counts.blockLinear * bits + 7) / 8 + (counts.total - counts.blockLinear) * 2);
            QVERIFY(model->estimate().bytes(ConsumerId::QuantMetadata) > 0);

            const QString path = dir.filePath(QStringLiteral("%1.headroom.json").arg(QLatin1String(name)));
            QCOMPARE(writeDocumentFile(path, documentOf(*model)), QString());
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const nlohmann::json saved = nlohmann::json::parse(file.readAll().toStdString());
            QCOMPARE(QString::fromStdString(saved.at("precision").at("weights").get<std::string>()), QString::fromLatin1(name));

            const ScenarioDocument reopened = readDocumentFile(path);
            QCOMPARE(reopened.current.precision.weights, dtype);
            MainWindow other;
            QVERIFY(test::showActive(other));
            other.model()->apply(QStringLiteral("open"), [&](Scenario &s) { s = reopened.current; });
            QComboBox *shown = namedCombo(*other.controls(), QStringLiteral("Weight precision"));
            QVERIFY(shown);
            QCOMPARE(shown->currentText(), QString::fromLatin1(text));
            QCOMPARE(other.model()->estimate().peak.deviceBytes, model->estimate().peak.deviceBytes);
        }
    }

    void solvePanel()
    {
        MainWindow window;
        window.resize(1400, 900);
        QVERIFY(test::showActive(window));
        ScenarioModel *model = window.model();
        model->apply(QStringLiteral("train"), [model](Scenario &s) {
            s.model = model->catalog().findModel("llama-3.2-1b")->arch;
            s.task = Task::Train;
            s.train.method = Method::Lora;
            s.train.microBatch = 1;
            s.kernels.attention = Attention::Flash;
            s.gpus = {"rtx-4090", "a100-80gb"};
        });
        model->setSolveFor(SolveFor::MaxMicroBatch);
        const ChartData data = chartDataFor(*model);
        const std::vector<Solution> answers = solveForGpus(model->scenario(), SolveFor::MaxMicroBatch,
                                                           {"rtx-4090", "a100-80gb"});
        QCOMPARE(data.lines.size(), std::size_t(2));
        QVERIFY(answers[0].value > 1 && answers[1].value > answers[0].value);
        QCOMPARE(data.lines[0].limit, QStringLiteral("micro-batch <= %1").arg(answers[0].value));
        QCOMPARE(data.lines[1].limit, QStringLiteral("micro-batch <= %1").arg(answers[1].value));

        // Scenario > Solve: the dock is made when first asked for (not before the first frame).
        QAction *solve = nullptr;
        for (QAction *action : window.findChildren<QAction *>())
            if (action->text() == QLatin1String("Solve: exact limits"))
                solve = action;
        QVERIFY(solve && solve->isCheckable() && !solve->isChecked());
        QVERIFY(!window.findChild<QDockWidget *>(QStringLiteral("solveDock")));
        solve->trigger();
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("solveDock"));
        QVERIFY(dock && !dock->isHidden());
        SolvePanel *panel = window.solvePanel();
        QVERIFY(panel && dock->isAncestorOf(panel));
        panel->refresh();
        QPushButton *apply = panel->applyButton(SolveFor::MaxMicroBatch);
        QVERIFY(apply->isVisible());
        QVERIFY(apply->isEnabled());
        QVERIFY(panel->answer(SolveFor::MaxMicroBatch)->text().contains(QStringLiteral("fits")));
        QTest::mouseClick(apply, Qt::LeftButton);
        // The panel answers for the verdict's GPU (the largest ticked: the A100), issue 22.
        QCOMPARE(panel->gpu()->currentData().toString(), QStringLiteral("a100-80gb"));
        QCOMPARE(model->scenario().train.microBatch, std::uint32_t(answers[1].value));
        // Applied: the answer is now the scenario, so there is nothing more to apply.
        QVERIFY(!panel->applyButton(SolveFor::MaxMicroBatch)->isEnabled());
        // Serving variables do not apply to training.
        QVERIFY(!panel->applyButton(SolveFor::MaxConcurrency)->isVisible());
        // Closed with its own button: the menu item follows.
        dock->close();
        QVERIFY(!solve->isChecked());
    }

    void frontierView()
    {
        ScenarioModel model;
        model.apply(QStringLiteral("serve"), [](Scenario &s) {
            s.task = Task::Inference;
            s.gpus = {"rtx-4090", "a100-80gb"};
            ServingConfig cfg;
            cfg.maxModelLen = 8192;
            cfg.requests.concurrency = 8;
            s.serving = cfg;
        });
        FrontierView view(&model);
        view.resize(1000, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.chart()->curves().size(), std::size_t(2));
        QVERIFY(view.chart()->curves().front()->count() > 3);
        QVERIFY(view.status()->text().contains(QStringLiteral("limited by")));
        view.contiguous()->setChecked(true);
        QCOMPARE(view.chart()->curves().size(), std::size_t(4));
        view.tensorSizes()->setText(QStringLiteral("1,2"));
        emit view.tensorSizes()->editingFinished();
        QCOMPARE(view.chart()->curves().size(), std::size_t(6));
        QTemporaryDir dir;
        QCOMPARE(view.exportTo(dir.filePath(QStringLiteral("f.png"))), QString());
        QVERIFY(QImage(dir.filePath(QStringLiteral("f.png"))).width() > 100);
        QCOMPARE(view.exportTo(dir.filePath(QStringLiteral("f.csv"))), QString());
        QFile csv(dir.filePath(QStringLiteral("f.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QVERIFY(csv.readLine().startsWith("gpu,tensor,allocation,tokens,sequences,limit"));
        QCOMPARE(view.exportTo(dir.filePath(QStringLiteral("f.json"))), QString());
        QFile json(dir.filePath(QStringLiteral("f.json")));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QCOMPARE(nlohmann::json::parse(json.readAll().toStdString())["format"].get<std::string>(),
                 std::string("headroom-frontier"));
    }
};

QTEST_MAIN(TestServingUi)
#include "tst_servingui.moc"
