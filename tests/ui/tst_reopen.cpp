// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22, "never lose work": what the window saves reopens, in the core reader, to the same
// scenario and the same estimate. Two defects tst_monkey found (seeds 4, 6, 16 and the
// framework-filled reopenings): a rough model whose shape was edited in the window lost the
// edits on save, a file saved with a framework came back with precision.unquantized filled
// in although the window left it unset, and the advisor's GPU picker on a full GPU list (seed 18)
// set a target_gpu the file could not reopen with.
#include "uitestutil.h"
#include "classroom/advisorview.h"
#include "controls/controlpanel.h"
#include "controls/frameworkgroup.h"
#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "estimate/estimate.h"
#include "scenario/catalog.h"
#include "scenario/documentjson.h"
#include "scenario/scenariojson.h"
#include "training/framework.h"
#include "window/mainwindow.h"

#include <QComboBox>
#include <QFile>
#include <QDoubleSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

/// Types `value` into the control panel's field named `name`, as a user does.
void type(const MainWindow &w, const QString &name, const QString &value)
{
    QDoubleSpinBox *field = nullptr;
    for (QDoubleSpinBox *box : w.controls()->findChildren<QDoubleSpinBox *>())
        if (box->accessibleName() == name)
            field = box;
    QVERIFY2(field, qPrintable(name));
    field->setFocus();
    field->selectAll();
    QTest::keyClicks(field, value);
    QTest::keyClick(field, Qt::Key_Return);
    emit field->editingFinished();
}

void choose(QComboBox *combo, int value)
{
    const int index = combo->findData(value);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

/// Saves the window's document and reads the file back through the core reader.
struct Reopened
{
    nlohmann::json file;
    Scenario scenario;
};

Reopened saveAndReopen(const MainWindow &w, const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("saved.headroom.json"));
    const QString written = writeDocumentFile(path, documentOf(*w.model()));
    if (!written.isEmpty())
        qFatal("save failed: %s", qPrintable(written));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read back %s", qPrintable(path));
    const QByteArray text = file.readAll();
    const ScenarioDocument document = parseDocument(std::string_view(text.constData(), std::size_t(text.size())));
    return {nlohmann::json::parse(text.toStdString()), document.current};
}

} // namespace

class TestReopen : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        headroom::test::isolateSettings("tst_reopen");
        QVERIFY(m_dir.isValid());
    }

    void roughModelKeepsItsEditedShape()
    {
        MainWindow w;
        // A rough 70B model: the reader fills in 8192 / 128 = 64 heads, 64 KV heads, head_dim
        // 128 and intermediate 4 x 8192 = 32768. Eager attention keeps a micro_batch x heads x
        // seq_len^2 score tensor, so the head count moves the peak.
        w.model()->setScenario(parseScenario(R"({"format": "headroom-scenario", "version": 1,
            "model": {"params": 70000000000, "hidden": 8192, "layers": 80},
            "kernels": {"attention": "eager"},
            "train": {"method": "lora", "micro_batch": 1, "seq_len": 2048}})"),
                               QStringLiteral("start"));
        QVERIFY(w.model()->scenario().model.rough);
        QCOMPARE(w.model()->scenario().model.heads, 64);
        const std::uint64_t before = w.model()->estimate().peak.deviceBytes;

        type(w, QStringLiteral("Attention heads"), QStringLiteral("32"));
        type(w, QStringLiteral("KV heads"), QStringLiteral("8"));
        type(w, QStringLiteral("Intermediate size"), QStringLiteral("28672"));
        const ModelArch &edited = w.model()->scenario().model;
        QCOMPARE(edited.heads, 32);
        QCOMPARE(edited.kvHeads, 8);
        QCOMPARE(edited.headDim, 8192 / 32);
        QCOMPARE(edited.intermediate, 28672);
        QVERIFY(edited.rough);
        // The total is all a rough model knows of its size: an architecture edit keeps it.
        QCOMPARE(edited.params.value_or(0), std::uint64_t(70'000'000'000));
        const std::uint64_t windowPeak = w.model()->estimate().peak.deviceBytes;
        QVERIFY(windowPeak != before); // the edits reach the estimate, so losing them would show

        const Reopened reopened = saveAndReopen(w, m_dir);
        const nlohmann::json &model = reopened.file.at("model"); // one scenario, no pins
        QCOMPARE(model.value("heads", 0), 32);
        QCOMPARE(model.value("kv_heads", 0), 8);
        QCOMPARE(model.value("intermediate", 0), 28672);
        QVERIFY(!model.contains("head_dim")); // 8192 / 32, what the reader derives
        QCOMPARE(model.value("rough", false), true);
        QVERIFY(reopened.scenario.model == edited);
        QCOMPARE(estimate(reopened.scenario).peak.deviceBytes, windowPeak);
    }

    void roughModelHiddenEditKeepsItsHeads()
    {
        MainWindow w;
        w.model()->setScenario(parseScenario(R"({"format": "headroom-scenario", "version": 1,
            "model": {"params": 7000000000, "hidden": 4096, "layers": 32},
            "kernels": {"attention": "eager"}})"),
                               QStringLiteral("start"));
        QCOMPARE(w.model()->scenario().model.heads, 32); // 4096 / 128
        // The window keeps 32 heads (head_dim 8192 / 32 = 256); the reader's fill-in for hidden
        // 8192 would be 64 heads, so the file must say 32.
        type(w, QStringLiteral("Hidden size"), QStringLiteral("8192"));
        QCOMPARE(w.model()->scenario().model.hidden, 8192);
        QCOMPARE(w.model()->scenario().model.heads, 32);
        QCOMPARE(w.model()->scenario().model.headDim, 256);
        const Reopened reopened = saveAndReopen(w, m_dir);
        QCOMPARE(reopened.scenario.model.heads, 32);
        QCOMPARE(reopened.scenario.model.headDim, 256);
        QVERIFY(reopened.scenario.model == w.model()->scenario().model);
        QCOMPARE(estimate(reopened.scenario).peak.deviceBytes, w.model()->estimate().peak.deviceBytes);
    }

    void roughFileWithoutEditsIsUnchanged()
    {
        // The v1 contract: a rough model the window did not reshape is written as before.
        const Scenario s = parseScenario(R"({"format": "headroom-scenario", "version": 1,
            "model": {"params": 7000000000, "hidden": 4096, "layers": 32}})");
        const nlohmann::json expected = {{"params", 7000000000}, {"hidden", 4096}, {"layers", 32},
                                         {"vocab", 32000}, {"tied_embeddings", false}};
        QCOMPARE(scenarioToJson(s).at("model").dump(), expected.dump());
    }

    void roughReaderRefusesWhatItDoesNotModel()
    {
        const auto refusal = [](const char *model) -> std::string {
            try {
                parseScenario(std::string(R"({"format": "headroom-scenario", "version": 1, "model": )") + model + "}");
            } catch (const ScenarioError &error) {
                return error.key;
            }
            return {};
        };
        QCOMPARE(refusal(R"({"params": 7000000000, "hidden": 4096, "layers": 32, "mlp": "gated"})"),
                 std::string("model.mlp"));
        QCOMPARE(refusal(R"({"params": 7000000000, "hidden": 4096, "layers": 32, "heads": 32, "kv_heads": 5})"),
                 std::string("model.kv_heads"));
        QCOMPARE(refusal(R"({"hidden": 4096, "layers": 32, "intermediate": 1, "heads": 32, "vocab": 10, "rough": true})"),
                 std::string("model.rough"));
        QCOMPARE(refusal(R"({"params": 7000000000, "hidden": 4096, "layers": 32, "rough": false})"),
                 std::string("model.rough"));
        QCOMPARE(refusal(R"({"preset": "llama-3-8b", "rough": true})"), std::string("model.rough"));
    }

    void advisorPickOnAFullGpuListStaysAmongTheGpus()
    {
        // tst_monkey seed 18: with 16 GPUs ticked (the most a scenario holds), picking another
        // GPU in the advisor made it the target without adding it; the reader refuses such a
        // target_gpu, so the saved file did not reopen.
        MainWindow w;
        const Catalog &catalog = builtinCatalog();
        QVERIFY(catalog.gpus.size() > 16);
        w.model()->apply(QStringLiteral("start"), [&catalog](Scenario &s) {
            s.gpus.clear();
            for (std::size_t i = 0; i < 16; ++i)
                s.gpus.push_back(catalog.gpus[i].id);
            s.targetGpu.clear();
        });
        const std::string outside = catalog.gpus[16].id;
        AdvisorView *advisor = w.advisor();
        advisor->show();
        QComboBox *picker = advisor->gpuPicker();
        const int index = picker->findData(QString::fromStdString(outside));
        QVERIFY(index >= 0);
        picker->setCurrentIndex(index);
        emit picker->activated(index);
        const Scenario &s = w.model()->scenario();
        QCOMPARE(s.targetGpu, outside);
        QCOMPARE(s.gpus.size(), std::size_t(16));
        QVERIFY(std::find(s.gpus.begin(), s.gpus.end(), outside) != s.gpus.end());
        QCOMPARE(s.gpus.front(), catalog.gpus[1].id); // the first ticked GPU gave way
        const Reopened reopened = saveAndReopen(w, m_dir);
        QCOMPARE(reopened.scenario.targetGpu, outside);
        QCOMPARE(estimate(reopened.scenario).peak.deviceBytes, w.model()->estimate().peak.deviceBytes);
    }

    void frameworkLeavesUnquantizedAsTheWindowHasIt()
    {
        MainWindow w;
        w.model()->setScenario(parseScenario(R"({"format": "headroom-scenario", "version": 1,
            "model": {"preset": "llama-3-8b"}, "train": {"method": "lora"}})"),
                               QStringLiteral("start"));
        FrameworkGroup *group = w.controls()->findChild<FrameworkGroup *>();
        QVERIFY(group);
        // Transformers on a bf16 LoRA run: nothing to keep unquantized, the key stays unset.
        choose(group->framework(), int(Framework::HfTransformers));
        QVERIFY(!w.model()->scenario().precision.unquantized);
        // Then QLoRA: the window keeps its unset key (the compute dtype), which the reader
        // would fill with PEFT's fp32 for a file that leaves it out.
        QComboBox *task = nullptr;
        for (QComboBox *combo : w.controls()->findChildren<QComboBox *>())
            if (combo->accessibleName() == QLatin1String("Task"))
                task = combo;
        QVERIFY(task);
        choose(task, 2 /* TrainQlora */);
        QCOMPARE(w.model()->scenario().train.method, Method::Qlora);
        QVERIFY(!w.model()->scenario().precision.unquantized);

        const Reopened reopened = saveAndReopen(w, m_dir);
        QCOMPARE(reopened.file.at("precision").at("unquantized").get<std::string>(), std::string("compute"));
        QVERIFY(!reopened.scenario.precision.unquantized);
        QCOMPARE(scenarioToJson(reopened.scenario).dump(), scenarioToJson(w.model()->scenario()).dump());
        QCOMPARE(estimate(reopened.scenario).peak.deviceBytes, w.model()->estimate().peak.deviceBytes);

        // A file that leaves the key out still gets the framework's behaviour: PEFT's
        // prepare_model_for_kbit_training keeps the unquantized parameters in fp32.
        nlohmann::json handWritten = reopened.file;
        handWritten["precision"].erase("unquantized");
        QCOMPARE(scenarioFromJson(handWritten).precision.unquantized.value_or(DType::BF16), DType::FP32);
    }
};

QTEST_MAIN(TestReopen)
#include "tst_reopen.moc"
