// SPDX-License-Identifier: GPL-3.0-or-later
// llama.cpp on several devices in the window: one bar per device against its own card's
// capacity plus the CPU RAM bar (ui/chart/chartdata.cpp deviceColumns), and "Fit for llama.cpp"
// beside Solve (ui/controls/llamafitpanel.cpp) showing the core's plan and the flags to copy.
#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "controls/llamafitpanel.h"
#include "document/scenariomodel.h"
#include "testutil.h"

#include <QChart>
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QtTest>

using namespace headroom;

namespace {

Scenario twoCards(const std::string &model, const std::string &type, const std::string &split)
{
    return test::scenarioFrom(R"({"task": "inference", "model": {"preset": ")" + model +
                              R"("}, "gpus": ["rtx-4090", "rtx-3090"], "host": {"ram_gib": 64},
        "serving": {"engine": "llama_cpp", "n_ctx": 8192, "weight_type": ")" + type +
                              R"(", "tensor_split": )" + split + "}}");
}

} // namespace

class TestLlamaCppUi : public QObject
{
    Q_OBJECT
private slots:
    void oneBarPerDeviceAndTheRam()
    {
        // Llama 3 8B Q4_K_M, -ts 3,1 on an RTX 4090 + an RTX 3090 (tst_llamacppdevices has the
        // arithmetic): a bar per device with its own card as its line, then the CPU RAM bar.
        ScenarioModel model;
        model.assign(twoCards("llama-3-8b", "Q4_K_M", "[3, 1]"));
        QVERIFY2(model.estimateError().isEmpty(), qPrintable(model.estimateError()));
        const Estimate &e = model.estimate();
        const std::vector<LlamaDevice> &d = e.serving->devices;
        QCOMPARE(d.size(), std::size_t(2));
        const ChartData data = chartDataFor(model);
        QCOMPARE(int(data.columns.size()), 3);
        for (std::size_t i = 0; i < 2; ++i) {
            const ChartColumn &c = data.columns[i];
            QVERIFY(!c.host && c.ownVerdict);
            QCOMPARE(c.totalBytes, d[i].deviceBytes);
            QCOMPARE(c.ownLine.bytes, d[i].capacityBytes);
            QCOMPARE(c.bytes[std::size_t(ConsumerId::Weights)], d[i].weightsBytes);
            QCOMPARE(c.bytes[std::size_t(ConsumerId::KvCache)], d[i].kvCacheBytes);
            std::uint64_t sum = 0;
            for (const std::uint64_t bytes : c.bytes)
                sum += bytes;
            QCOMPARE(sum, d[i].deviceBytes);
        }
        QVERIFY(data.columns[0].label.startsWith(QLatin1String("CUDA0")));
        QVERIFY(data.columns[1].label.contains(QLatin1String("RTX 3090")));
        const ChartColumn &host = data.columns[2];
        QVERIFY(host.host);
        QCOMPARE(host.totalBytes, e.hostBytes);
        // No line across the plot judges every card by the tightest device's peak.
        QVERIFY(data.lines.empty());
        QCOMPARE(data.targetLine, -1);
        QCOMPARE(host.ownLine.bytes, 64ull << 30);
        BudgetChart chart;
        chart.chart()->resize(1280, 720);
        chart.setData(data);
        const QStringList marks = chart.fitMarks();
        QCOMPARE(marks.size(), 3);
        // Each device's verdict names its own card, not the target GPU.
        QVERIFY2(marks[0].contains(QLatin1String("RTX 4090")) && marks[1].contains(QLatin1String("RTX 3090")),
                 qPrintable(marks.join(QLatin1String(" | "))));
        QVERIFY2(chart.ownLineMarks().size() == 3, qPrintable(chart.ownLineMarks().join(QLatin1String(" | "))));
    }

    void aDeviceThatDoesNotFitSaysSo()
    {
        // Llama 3 70B Q4_K_M (about 42 GB) all on the 4090 (-ts 1,0): that bar is over its line,
        // the 3090's holds only its context.
        ScenarioModel model;
        model.assign(twoCards("llama-3-70b", "Q4_K_M", "[1, 0]"));
        const ChartData data = chartDataFor(model);
        BudgetChart chart;
        chart.chart()->resize(1280, 720);
        chart.setData(data);
        const QStringList marks = chart.fitMarks();
        QVERIFY2(marks.size() == 3 && !marks[0].startsWith(QLatin1String("fits")) && marks[1].startsWith(QLatin1String("fits")),
                 qPrintable(marks.join(QLatin1String(" | "))));
    }

    void everyDeviceVerdictKnowsTheBand()
    {
        // Llama 3 70B Q4_K_M split evenly: each card has about 2.5 GiB spare of 21.5 GiB, inside
        // the estimate's band, so each device's verdict says "may not fit", not only the
        // tightest device's (whose bar carries the estimate).
        ScenarioModel model;
        model.assign(twoCards("llama-3-70b", "Q4_K_M", "[1, 1]"));
        QVERIFY2(model.estimateError().isEmpty(), qPrintable(model.estimateError()));
        const Estimate &e = model.estimate();
        QVERIFY(e.errorBandPercent > 0);
        BudgetChart chart;
        chart.chart()->resize(1280, 720);
        chart.setData(chartDataFor(model));
        const QStringList marks = chart.fitMarks();
        QCOMPARE(marks.size(), 3);
        for (std::size_t i = 0; i < 2; ++i) {
            const LlamaDevice &d = e.serving->devices[i];
            QVERIFY(d.headroomBytes > 0);
            const bool inBand = double(d.headroomBytes) < double(d.deviceBytes) * e.errorBandPercent / 100.0;
            QVERIFY2(inBand, "the scenario must leave each device inside the band");
            QVERIFY2(marks[int(i)].startsWith(QLatin1String("fits")) && marks[int(i)].contains(QLatin1String("may not fit")),
                     qPrintable(marks.join(QLatin1String(" | "))));
        }
    }

    void fitForLlamaCppShowsTheFlags()
    {
        ScenarioModel model;
        model.assign(twoCards("llama-3-70b", "Q4_K_M", "[0, 0]"));
        LlamaFitPanel panel(&model);
        QVERIFY(!panel.isHidden());
        QVERIFY(!panel.copyButton()->isEnabled());
        QTest::mouseClick(panel.fitButton(), Qt::LeftButton);
        QVERIFY(panel.lastPlan());
        const LlamaFitPlan &plan = *panel.lastPlan();
        QCOMPARE(plan.devices.size(), std::size_t(2));
        QVERIFY(panel.flags()->isReadOnly());
        const QString ts = QStringLiteral("-ts %1,%2").arg(plan.tensorSplit[0]).arg(plan.tensorSplit[1]);
        QVERIFY2(panel.flags()->text().contains(ts), qPrintable(panel.flags()->text()));
        QVERIFY(panel.flags()->text().startsWith(QLatin1String("-c 8192 -ngl ")));
        QVERIFY2(panel.plan()->text().contains(QLatin1String("CUDA1 ")) && panel.plan()->text().contains(QLatin1String("RTX 3090")),
                 qPrintable(panel.plan()->text()));
        QVERIFY(panel.copyButton()->isEnabled());
        QTest::mouseClick(panel.copyButton(), Qt::LeftButton);
        if (QClipboard *clipboard = QGuiApplication::clipboard(); clipboard && !clipboard->text().isEmpty())
            QCOMPARE(clipboard->text(), panel.flags()->text());
        // Another engine: the panel goes; another model: the old plan is cleared.
        Scenario s = model.scenario();
        s.model = twoCards("llama-3-8b", "Q4_K_M", "[0, 0]").model;
        model.assign(s);
        panel.refresh();
        QVERIFY(!panel.lastPlan());
        QVERIFY(panel.flags()->text().isEmpty());
        model.assign(test::scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-3-8b"},
            "gpus": ["rtx-4090"], "serving": {"engine": "vllm"}})"));
        panel.refresh();
        QVERIFY(panel.isHidden());
    }
};

QTEST_MAIN(TestLlamaCppUi)
#include "tst_llamacppui.moc"
