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
#include "displaytext.h"
#include "scenario/units.h"
#include "solve/frontier.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include <QBarSet>
#include <QChart>
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

    // Issue 22: the window's frontier stops where vLLM refuses (no point beyond max_model_len,
    // none where the pool holds not one sequence), marks max_model_len at its x, labels the
    // first curve's points with their concurrency and reads a hovered point out. Llama 3 8B's
    // KV cache: 2 (K, V) x 32 layers x 8 KV heads x 128 dims x 2 bytes = 131,072 B a token, so
    // a sequence of 8,192 tokens holds 8,192 x 131,072 = 1,073,741,824 B (1 GiB; 512 blocks of 16).
    void frontierStopsWhereTheEngineRefuses()
    {
        ScenarioModel model;
        model.apply(QStringLiteral("serve"), [](Scenario &s) {
            s.task = Task::Inference;
            s.model = builtinCatalog().findModel("llama-3-8b")->arch;
            s.gpus = {"a100-80gb"};
            ServingConfig cfg;
            cfg.maxModelLen = 8192;
            cfg.requests.concurrency = 8;
            s.serving = cfg;
        });
        QVERIFY2(model.estimateError().isEmpty(), qPrintable(model.estimateError()));
        FrontierView view(&model);
        view.resize(1280, 720);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        FrontierChart *chart = view.chart();
        const Frontier &f = chart->data().frontier;
        QCOMPARE(f.maxModelLen, std::uint64_t(8192));
        QCOMPARE(f.curves.size(), std::size_t(1));
        const FrontierCurve &curve = f.curves.front();
        QVERIFY(curve.points.size() >= 4);
        for (const FrontierPoint &p : curve.points) {
            QVERIFY2(p.tokens <= 8192, qPrintable(QString::number(p.tokens)));
            QVERIFY(p.sequences > 0);
        }
        QCOMPARE(curve.points.back().tokens, std::uint64_t(8192)); // the curve reaches the mark
        // The command line's frontier (max_model_len raised to each length) goes past it.
        const Frontier raised = servingFrontier(model.scenario());
        QVERIFY(std::any_of(raised.curves.front().points.begin(), raised.curves.front().points.end(),
                            [](const FrontierPoint &p) { return p.tokens > 8192; }));
        // The same lengths give the same answers: only the ones beyond the limit are gone.
        for (const FrontierPoint &p : curve.points)
            for (const FrontierPoint &q : raised.curves.front().points)
                if (q.tokens == p.tokens)
                    QCOMPARE(q.sequences, p.sequences);
        // KV per user at 8,192 tokens: 1 GiB, from the engine's own figures.
        QCOMPARE(curve.points.back().kvBytesPerSequence, std::uint64_t(1073741824ull));
        // The mark: a vertical line at x = 8,192, through the last point's x on screen.
        QLineSeries *limit = chart->limitLine();
        QVERIFY(limit->isVisible());
        QCOMPARE(limit->count(), 2);
        QCOMPARE(limit->at(0).x(), 8192.0);
        QCOMPARE(limit->at(1).x(), 8192.0);
        QCOMPARE(chart->limitLabel(), QStringLiteral("max_model_len 8,192"));
        QLineSeries *drawn = chart->curves().front();
        QCOMPARE(drawn->count(), int(curve.points.size()));
        QCOMPARE(chart->chart()->mapToPosition(drawn->at(drawn->count() - 1), drawn).x(),
                 chart->chart()->mapToPosition(limit->at(0), limit).x());
        // Point labels: each the concurrency of one of the curve's points, left to right.
        const QStringList labels = chart->pointLabels();
        QVERIFY(labels.size() >= 2);
        int at = 0;
        for (const QString &label : labels) {
            while (at < int(curve.points.size()) &&
                   label != QString::fromStdString(groupDigits(curve.points[std::size_t(at)].sequences)))
                ++at;
            QVERIFY2(at < int(curve.points.size()), qPrintable(label));
            ++at;
        }
        // No label crosses the dashed max_model_len mark (the point on it has its label to its left).
        const double markX = chart->chart()->mapToPosition(limit->at(0), limit).x();
        for (const QRectF &box : chart->pointLabelBoxes())
            QVERIFY2(box.right() < markX || box.left() > markX,
                     qPrintable(QStringLiteral("label %1..%2 crosses the mark at %3").arg(box.left()).arg(box.right()).arg(markX)));
        // Hovering the last point reads it out; leaving clears it.
        const FrontierPoint &last = curve.points.back();
        emit drawn->hovered(QPointF(8000, double(last.sequences)), true);
        const QString users = QString::fromStdString(groupDigits(last.sequences));
        const QString expected = QStringLiteral("A100 80GB \u00b7 8,192 tokens \u00b7 %1 users \u00b7 KV %2 per user \u00b7 vLLM \u00b7 limited by %3")
                                     .arg(users, bytesText(1073741824ull, Unit::GiB), servingLimitText(last.limit));
        QCOMPARE(chart->currentReadout(), expected);
        QCOMPARE(view.readout()->text(), expected);
        emit drawn->hovered(QPointF(8000, double(last.sequences)), false);
        QVERIFY(chart->currentReadout().isEmpty());
        QVERIFY(!view.readout()->text().contains(QLatin1String("tokens")));
        // Without an engine limit (plain inference) there is no mark.
        model.apply(QStringLiteral("plain"), [](Scenario &s) { s.serving.reset(); });
        QVERIFY(!chart->limitLine()->isVisible());
        QCOMPARE(chart->limitLabel(), QString());
    }
};

QTEST_MAIN(TestServingUi)
#include "tst_servingui.moc"
