// SPDX-License-Identifier: GPL-3.0-or-later
// File > Open measurement... in the window (issue 28): a published start-up log opened through
// the action's function, its printed figures shown beside the estimate, drawn across the chart,
// and saved as the measured case `headroom compare --save-case` writes.
#include "chart/budgetchart.h"
#include "document/scenariomodel.h"
#include "scenario/scenariojson.h"
#include "uitestutil.h"
#include "window/mainwindow.h"
#include "window/measurementview.h"

#include <QDropEvent>
#include <QFile>
#include <QLabel>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>
#include <cmath>
#include <map>

using namespace headroom;

namespace {

constexpr double kGiB = 1073741824.0;

QString logPath(const char *name)
{
    return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/logs/") + QLatin1String(name);
}

/// A vLLM scenario of the published serving cases (tests/data/serving), so that a vLLM log
/// compares with the scenario as it is.
Scenario vllmScenario()
{
    QFile f(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/serving/vllm-0.10-llama-3.1-8b-h100.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read the serving case");
    return scenarioFromJson(nlohmann::json::parse(f.readAll().toStdString())["scenario"]);
}

/// The row of the table whose first cell is `label`, or -1.
int rowOf(const QTableWidget *table, const QString &label)
{
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0) && table->item(row, 0)->text() == label)
            return row;
    return -1;
}

} // namespace

class TestMeasureUi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings("tst_measureui"); }

    void openedLogBesideTheEstimate()
    {
        MainWindow w;
        w.model()->setUnit(Unit::GiB);
        w.model()->setScenario(vllmScenario(), QStringLiteral("test"));
        QStringList reported;
        w.measurements()->setReporter([&](const QString &text) { reported << text; });
        QVERIFY(w.measurements()->open(logPath("vllm-0.10.2-qwen3-next-80b-2xh200-tp2.log")));
        QVERIFY2(reported.isEmpty(), qPrintable(reported.join(QLatin1Char('\n'))));
        const QTableWidget *table = w.measurements()->dialog()->table();
        QVERIFY(w.measurements()->dialog()->isVisible());

        // The log prints "Available KV cache memory: 44.59 GiB" (line 10) and "GPU KV cache size:
        // 973,760 tokens" (line 12): the log's column shows them as printed.
        const int kv = rowOf(table, QStringLiteral("KV cache"));
        QVERIFY(kv >= 0);
        QCOMPARE(table->item(kv, 1)->text(), QStringLiteral("44.59 GiB"));
        QCOMPARE(table->item(kv, 4)->text(), QStringLiteral("10"));
        const int tokens = rowOf(table, QStringLiteral("KV cache tokens"));
        QVERIFY(tokens >= 0);
        QCOMPARE(table->item(tokens, 1)->text(), QStringLiteral("973,760"));
        // Beside it, the estimate of the current scenario, not tuned to the log.
        QVERIFY(w.model()->estimate().serving);
        QCOMPARE(table->item(kv, 2)->text(),
                 QString::fromStdString(formatBytes(w.model()->estimate().serving->kvCacheBytes, Unit::GiB)));
        QCOMPARE(table->item(tokens, 2)->text(),
                 QString::fromStdString(groupDigits(w.model()->estimate().serving->kvCacheTokens)));
        // The log ran tensor 2 and max_model_len 262144; the scenario says otherwise, and the
        // dialog says the two are different launches.
        QVERIFY(w.findChildren<QLabel *>().size() > 0);
        bool warned = false;
        for (const QLabel *label : w.measurements()->dialog()->findChildren<QLabel *>())
            warned = warned || label->text().contains(QStringLiteral("serving.max_model_len 262144"));
        QVERIFY(warned);

        // The chart: the summary line's budget, 139.81 GiB x 0.9 = "125.83 GiB", across the bar.
        QCOMPARE(w.chart()->data().measuredBytes, std::uint64_t(std::llround(125.83 * kGiB)));
        QVERIFY(w.chart()->data().footnote.contains(QStringLiteral("vLLM log")));
        if (const QByteArray shots = qgetenv("HEADROOM_SHOTS"); !shots.isEmpty()) {
            w.resize(1280, 720);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QTest::qWait(200);
            w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/vllm-window.png"));
            w.measurements()->dialog()->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/vllm-dialog.png"));
        }
    }

    void sglangBesideItsPublishedCase()
    {
        // The serving case of the same post (tests/data/serving) and the SGLang log it quotes:
        // "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB" (line 2).
        QFile f(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/serving/sglang-qwen3-235b-fp8-4xh100-tp4.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        MainWindow w;
        w.model()->setUnit(Unit::GiB);
        w.model()->setScenario(scenarioFromJson(nlohmann::json::parse(f.readAll().toStdString())["scenario"]),
                               QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(w.measurements()->open(logPath("sglang-qwen3-235b-fp8-tp4-issue21348.log")));
        const QTableWidget *table = w.measurements()->dialog()->table();
        // SGLang's "GB" are GiB (its code divides by 1 << 30): K + V = 8.23 + 8.23 = 16.46 GiB.
        const int kv = rowOf(table, QStringLiteral("KV cache"));
        QVERIFY(kv >= 0);
        QCOMPARE(table->item(kv, 1)->text(), QStringLiteral("16.46 GiB"));
        const int tokens = rowOf(table, QStringLiteral("KV cache tokens"));
        QVERIFY(tokens >= 0);
        QCOMPARE(table->item(tokens, 1)->text(), QStringLiteral("367,404"));
        QCOMPARE(table->item(kv, 2)->text(),
                 QString::fromStdString(formatBytes(w.model()->estimate().serving->kvCacheBytes, Unit::GiB)));

        // HEADROOM_SHOTS=DIR: the window at 1280x720 and the dialog, to look at.
        if (const QByteArray shots = qgetenv("HEADROOM_SHOTS"); !shots.isEmpty()) {
            w.resize(1280, 720);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QTest::qWait(200);
            w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/window.png"));
            w.measurements()->dialog()->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/dialog.png"));
        }
    }

    void savedCaseIsTheCliCase()
    {
        MainWindow w;
        w.model()->setScenario(vllmScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(w.measurements()->open(logPath("vllm-0.10.2-qwen3-next-80b-2xh200-tp2.log")));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("my-run.json"));
        QCOMPARE(w.measurements()->saveCaseTo(path), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const nlohmann::json doc = nlohmann::json::parse(f.readAll().toStdString());
        QCOMPARE(doc["format"], "headroom-serving-log");
        QCOMPARE(doc["id"], "my-run");
        QCOMPARE(doc["engine_version"], "0.10.2");
        QCOMPARE(doc["measured"]["kv_cache_gib"].get<double>(), 44.59);
        QCOMPARE(doc["measured"]["kv_tokens"].get<std::uint64_t>(), std::uint64_t(973760));
        // The scenario as the user described it, not the log's.
        QCOMPARE(doc["scenario"], scenarioToJson(w.model()->scenario()));
        QCOMPARE(doc["source"]["path"], "vllm-0.10.2-qwen3-next-80b-2xh200-tp2.log");
        QCOMPARE(w.measurements()->saveCaseTo(dir.filePath(QStringLiteral("no-extension"))),
                 QStringLiteral("The case file must be ID.json"));
    }

    void probeAcrossThePhases()
    {
        // The probe's file (tests/data/probe): a serving scenario is not compared with it, so the
        // window takes the scenario its facts state, and draws each phase's measured peak across
        // the phases view's bar of the same phase.
        const QString path = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/probe/probe-tiny-llama-bf16-adamw.json");
        MainWindow w;
        w.model()->setScenario(vllmScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QVERIFY(w.measurements()->open(path));
        QVERIFY(!w.model()->scenario().serving);
        w.model()->setView(ChartView::Phases);
        // The file read independently: the last step's peak_allocated_bytes of each phase.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        std::map<std::string, std::uint64_t> peak;
        const nlohmann::json file = nlohmann::json::parse(f.readAll().toStdString());
        for (const nlohmann::json &r : file["readings"])
            peak[r["phase"].get<std::string>()] = r["peak_allocated_bytes"].get<std::uint64_t>();
        const auto &phases = w.model()->estimate().phases;
        const auto &columns = w.chart()->data().columns;
        QVERIFY2(!phases.empty(), qPrintable(w.model()->estimateError()));
        QCOMPARE(columns.size(), phases.size());
        int drawn = 0;
        for (std::size_t i = 0; i < phases.size(); ++i) {
            const auto it = peak.find(phaseKey(phases[i].id));
            if (it == peak.end())
                continue;
            QCOMPARE(columns[i].measuredBytes, it->second);
            ++drawn;
        }
        QCOMPARE(drawn, 4); // load, forward, backward, optimizer
        // The dialog lists the four phases; the run's peak is saved as a measured case
        // (tst_measuretorch reads one back).
        QCOMPARE(w.measurements()->dialog()->table()->rowCount(), 4);
        QVERIFY(w.measurements()->dialog()->saveButton()->isEnabled());
        // What explains the difference: backward differs most (53.10 MiB estimated, 15.47 measured)
        // and grows little over forward, so the finding names what the phase holds, the largest
        // first: the 32 MiB cuBLAS workspace the probe's stand-in CUDA never allocated.
        const QString findings = w.measurements()->dialog()->findings()->toPlainText();
        QVERIFY2(findings.contains(QStringLiteral("backward +37.63 MiB beside the probe")), qPrintable(findings));
        QVERIFY2(findings.contains(QStringLiteral("this phase holds workspace 32.00 MiB")), qPrintable(findings));
        // The axis to the run's scale: the tiny model's phases beside an 80 GiB card.
        QVERIFY(w.chart()->data().axisToRun);
        if (const QByteArray shots = qgetenv("HEADROOM_SHOTS"); !shots.isEmpty()) {
            w.resize(1280, 720);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QTest::qWait(200);
            w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/probe-window.png"));
            w.measurements()->dialog()->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/probe-dialog.png"));
        }
    }

    void droppedLogOpens()
    {
        MainWindow w;
        w.model()->setScenario(vllmScenario(), QStringLiteral("test"));
        w.measurements()->setReporter([](const QString &text) { QFAIL(qPrintable(text)); });
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(logPath("vllm-0.10.2-qwen3-next-80b-2xh200-tp2.log"))});
        // As a drag does: the window accepts it on entering, then receives the drop.
        QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY(w.measurements()->current());
        QVERIFY(w.measurements()->current()->log);
        QCOMPARE(w.measurements()->current()->log->engine, LogEngine::Vllm);
    }

    void refusedNamingWhy()
    {
        MainWindow w;
        QStringList reported;
        w.measurements()->setReporter([&](const QString &text) { reported << text; });
        QTemporaryDir dir;
        QFile prose(dir.filePath(QStringLiteral("prose.log")));
        QVERIFY(prose.open(QIODevice::WriteOnly));
        prose.write("nothing to see\n");
        prose.close();
        QVERIFY(!w.measurements()->open(prose.fileName()));
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains(QStringLiteral("no line of a vLLM, SGLang, TensorRT-LLM or llama.cpp")),
                 qPrintable(reported[0]));
        QVERIFY(!w.measurements()->current());
        QCOMPARE(w.chart()->data().measuredBytes, std::uint64_t(0));
    }
};

QTEST_MAIN(TestMeasureUi)
#include "tst_measureui.moc"
