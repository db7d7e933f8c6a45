// SPDX-License-Identifier: GPL-3.0-or-later
// What the chart says: titles that describe the scenario drawn (after an edit, a preset change,
// --set, --model-config, a lesson step), pin names given once, a lesson's one axis, values on the
// bars and a legend with the shown bar's sizes.
#include "fileutil.h"
#include "processutil.h"
#include "testutil.h"
#include "uitestutil.h"

#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/chartexport.h"
#include "chart/chartlayout.h"
#include "chart/consumerstyle.h"
#include "classroom/lessonbuilder.h"
#include "classroom/lessoncontroller.h"
#include "classroom/lessonexport.h"
#include "classroom/lessonplayer.h"
#include "classroom/presenterview.h"
#include "controls/controlpanel.h"
#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "lesson/lesson.h"
#include "measure/probefile.h"
#include "scenario/scenariojson.h"
#include "scenario/scenariotitle.h"
#include "window/mainwindow.h"
#include "window/measurementview.h"

#include <QChart>
#include <QComboBox>
#include <QTableWidget>
#include <QUndoStack>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

const QString kExample = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");

Lesson shippedLesson(const char *id)
{
    for (const BuiltinLesson &lesson : builtinLessons())
        if (lesson.id == id)
            return parseLesson(lesson.json);
    return {};
}

QString svgText(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QXmlStreamReader xml(file.readAll());
    QString text;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isCharacters())
            text += xml.text().toString() + QLatin1Char('\n');
    }
    return text;
}

} // namespace

class TestChartData : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        test::isolateSettings("tst_chartdata");
        QVERIFY(m_dir.isValid());
    }

    // The title is a function of the scenario: model, method, precision.
    void titleDescribesTheScenario_data()
    {
        QTest::addColumn<QString>("keys");
        QTest::addColumn<QString>("title");
        QTest::newRow("lora") << R"({"model": {"preset": "llama-2-7b"}, "train": {"method": "lora", "lora": {"rank": 8, "targets": ["q", "v"]}}})"
                              << "Llama 2 7B \u00b7 LoRA r8 on q, v \u00b7 bf16 base";
        QTest::newRow("full-fp32") << R"({"model": {"preset": "llama-2-7b"}, "precision": {"weights": "fp32", "compute": "fp32"}})"
                                   << "Llama 2 7B \u00b7 full fine-tune \u00b7 fp32";
        QTest::newRow("autocast") << R"({"model": {"preset": "llama-2-7b"}, "precision": {"weights": "fp32"}})"
                                  << "Llama 2 7B \u00b7 full fine-tune \u00b7 fp32 weights, bf16 compute";
        QTest::newRow("qlora-all-linear")
            << R"({"model": {"preset": "llama-3-8b"}, "train": {"method": "qlora", "lora": {"rank": 16, "targets": ["q","k","v","o","gate","up","down"]}}})"
            << "Llama 3 8B \u00b7 QLoRA r16 on all linear layers \u00b7 nf4 base (double quant)";
        QTest::newRow("serving") << R"({"model": {"preset": "llama-3-8b"}, "task": "inference"})"
                                 << "Llama 3 8B \u00b7 serving \u00b7 bf16 weights";
        QTest::newRow("rough") << R"({"model": {"params": 7000000000, "hidden": 4096, "layers": 32}})"
                               << "custom 7.0B \u00b7 full fine-tune \u00b7 bf16";
    }
    void titleDescribesTheScenario()
    {
        QFETCH(QString, keys);
        QFETCH(QString, title);
        const Scenario s = test::scenarioFrom(keys.toStdString());
        QCOMPARE(QString::fromStdString(scenarioTitle(s)), title);
        // The subtitle never repeats the model or the method.
        const QString subtitle = scenarioSummary(s);
        QVERIFY2(!subtitle.contains(QString::fromStdString(modelDisplayName(s))), qPrintable(subtitle));
    }

    // An edit or a preset change in the window: the title follows; a file's name drops out once
    // it no longer describes the scenario.
    void titleFollowsEditsAndPresets()
    {
        MainWindow window;
        window.show();
        ScenarioModel *model = window.model();
        loadDocument(*model, readDocumentFile(kExample));
        QVERIFY(window.chart()->data().title.startsWith(QLatin1String("Llama 2 7B")));
        QVERIFY(window.chart()->data().subtitle.contains(QString::fromStdString(model->scenario().name)));
        QComboBox *preset = window.controls()->preset();
        const int index = preset->findData(QStringLiteral("llama-3-70b"));
        QVERIFY(index >= 0);
        preset->setCurrentIndex(index);
        emit preset->activated(index);
        QVERIFY2(window.chart()->data().title.startsWith(QStringLiteral("Llama 3 70B \u00b7 LoRA r8 on q, v")),
                 qPrintable(window.chart()->data().title));
        QVERIFY(!window.chart()->data().subtitle.contains(QLatin1String("Llama 2 7B")));
        model->undoStack()->undo(); // back to the file's scenario: its name describes it again
        QVERIFY(window.chart()->data().subtitle.contains(QString::fromStdString(model->scenario().name)));
    }

    // `headroom render --set`: the SVG's title is the scenario drawn, and every shown segment's
    // value is text in it.
    void renderAfterSetCarriesTitleAndValues()
    {
        const QString out = m_dir.filePath(QStringLiteral("set.svg"));
        const test::Run run = test::runHeadroom({QStringLiteral("render"), kExample, QStringLiteral("--out"), out,
                                                 QStringLiteral("--set"), QStringLiteral("model.preset=llama-3-70b"),
                                                 QStringLiteral("--width"), QStringLiteral("1600"),
                                                 QStringLiteral("--height"), QStringLiteral("900")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString text = svgText(out);
        QVERIFY2(text.contains(QStringLiteral("Llama 3 70B")), qPrintable(text.left(400)));
        QVERIFY(!text.contains(QStringLiteral("Llama 2 7B")));
        // What the window draws for the same scenario: each of its values appears.
        ScenarioModel model;
        Scenario s = readDocumentFile(kExample).current;
        s.model = builtinCatalog().findModel("llama-3-70b")->arch;
        s.name.clear();
        model.assign(s);
        BudgetChart chart;
        chart.chart()->resize(1600, 900);
        chart.setScale(exportTextScale(QSize(1600, 900)));
        chart.setData(chartDataFor(model));
        QVERIFY(!chart.segmentValues(0).isEmpty());
        for (const QString &value : chart.segmentValues(0))
            QVERIFY2(text.contains(value), qPrintable(value));
        // The legend carries every non-zero consumer with its size.
        for (const Consumer &consumer : model.estimate().consumers)
            QVERIFY2(text.contains(bytesText(consumer.bytes, Unit::GiB)), qPrintable(consumerDisplayName(consumer.id)));
    }

    // `--model-config`: the title names the config's model, not the file's.
    void titleAfterModelConfig()
    {
        const QString config = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/gpt2.json");
        // GPT-2 has 1,024 learned positions: the example's 2,048 tokens would be refused.
        const test::Run run = test::runHeadroom({QStringLiteral("estimate"), kExample, QStringLiteral("--model-config"), config,
                                                 QStringLiteral("--set"), QStringLiteral("train.seq_len=1024")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        // Named as the user calls it (issue 22): gpt2.json has no _name_or_path, so its file name.
        QVERIFY2(run.out.contains(QStringLiteral("gpt2 \u00b7 LoRA r8 on q, v")), qPrintable(run.out.left(600)));
        QVERIFY(!run.out.contains(QStringLiteral("Llama 2 7B, LoRA r8")));
    }

    // A lesson step's chart says what that step is, not what step 1 was called.
    void lessonStepTitles()
    {
        const Lesson ladder = shippedLesson("ladder");
        ScenarioModel model;
        LessonPlayer player(&model);
        player.start(ladder);
        player.goTo(4); // + gradient checkpointing, on QLoRA
        const ChartData data = chartDataFor(model);
        QVERIFY2(data.title.contains(QLatin1String("QLoRA")), qPrintable(data.title));
        QVERIFY(!data.title.contains(QLatin1String("full fine-tune")));
        QVERIFY2(!data.subtitle.contains(QLatin1String("fp32")), qPrintable(data.subtitle));
        QVERIFY(data.subtitle.contains(QLatin1String("full checkpointing")));
        // The "set" steps do not inherit step 1's name.
        for (std::size_t i = 1; i < ladder.steps.size(); ++i)
            QVERIFY(ladder.steps[i].scenario.name.empty());
    }

    // One axis for every step of a lesson: the window, the presenter and the handout.
    void lessonStepsShareOneAxis()
    {
        const Lesson ladder = shippedLesson("ladder");
        const std::uint64_t largest = lessonPeakBytes(ladder);
        std::uint64_t expected = 0;
        for (const LessonStep &step : ladder.steps)
            expected = std::max(expected, estimate(step.scenario).peak.deviceBytes);
        QCOMPARE(largest, expected);
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        window.lessons()->openBuiltin(QStringLiteral("ladder"));
        PresenterView *presenter = window.presenter();
        presenter->enter();
        presenter->showNormal();
        presenter->resize(1280, 720);
        double axis = -1, presenterAxis = -1;
        for (int step = 0; step < int(ladder.steps.size()); ++step) {
            window.lessons()->player()->goTo(step);
            QCoreApplication::processEvents();
            const ChartLayout &layout = window.chart()->layout();
            if (axis < 0) {
                axis = layout.axisMax;
                presenterAxis = presenter->chart()->layout().axisMax;
            }
            QCOMPARE(layout.axisMax, axis); // the ladder visibly shrinks against a fixed axis
            QVERIFY(layout.axisMax >= toScale(largest, layout.scale));
            QCOMPARE(presenter->chart()->layout().axisMax, presenterAxis);
            // The handout draws each step with the same floor.
            ScenarioModel page;
            page.assign(ladder.steps[std::size_t(step)].scenario);
            page.setAxisMinimumBytes(lessonPeakBytes(ladder));
            QCOMPARE(chartDataFor(page).axisMinimumBytes, largest);
        }
        presenter->leave();
        window.lessons()->player()->stop();
        QCOMPARE(window.model()->axisMinimumBytes(), 0ull);
    }

    // A segment too thin for its size is labelled beside the bar (a callout), never dropped:
    // on the ladder's shared axis the last steps' gradients and Adam state are slivers.
    void smallSegmentsGetACallout()
    {
        const Lesson ladder = shippedLesson("ladder");
        QVERIFY(ladder.axis == LessonAxis::Shared);
        int callouts = 0;
        for (const double scale : {1.0, 2.0}) {
            for (std::size_t step = 0; step < ladder.steps.size(); ++step) {
                ScenarioModel page;
                page.assign(ladder.steps[step].scenario);
                page.setAxisMinimumBytes(lessonAxisBytes(ladder));
                const ChartData data = chartDataFor(page);
                const ChartLayout layout = layoutChart(data, QSizeF(1280, 720) * scale, scale, QFont());
                QCOMPARE(int(data.columns.size()), 1);
                const ChartColumn &column = data.columns[0];
                for (int i = 0; i < kConsumerCount; ++i) {
                    if (!column.bytes[std::size_t(i)])
                        continue;
                    const auto label = std::find_if(layout.texts.begin(), layout.texts.end(), [&](const ChartText &t) {
                        return t.role == ChartText::SegmentValue && t.column == 0 && t.consumer == i;
                    });
                    QVERIFY2(label != layout.texts.end(),
                             qPrintable(QStringLiteral("step %1: no value for %2").arg(step).arg(QLatin1String(consumerKey(ConsumerId(i))))));
                    // A callout sits beside the bar, in the text colour; its swatch names the segment.
                    const double barPixels = layout.plot.width() * layout.barWidth;
                    const double barLeft = layout.plot.center().x() - barPixels / 2, barRight = barLeft + barPixels;
                    if (label->rect.left() >= barRight || label->rect.right() <= barLeft) {
                        ++callouts;
                        // The size, or the number alone where the gap is narrow; the tooltip has it whole.
                        const QString size = bytesText(column.bytes[std::size_t(i)], layout.scale);
                        // (32 MiB on a GiB axis reads "0.03": 32 / 1,024 = 0.031.)
                        bool number = false;
                        const double shown = label->text.toDouble(&number);
                        QVERIFY2(label->text == size ||
                                     (number && qAbs(shown - toScale(column.bytes[std::size_t(i)], layout.scale)) <= 0.05),
                                 qPrintable(label->text + QLatin1String(" / ") + size));
                        QCOMPARE(label->toolTip, size);
                        QVERIFY(layout.plot.contains(label->rect));
                    }
                }
                // No two plot texts meet, nor a callout's swatch a text.
                for (std::size_t a = 0; a < layout.texts.size(); ++a) {
                    if (!layout.texts[a].insidePlot())
                        continue;
                    for (std::size_t b = a + 1; b < layout.texts.size(); ++b)
                        QVERIFY2(!layout.texts[b].insidePlot() || !layout.texts[a].rect.intersects(layout.texts[b].rect),
                                 qPrintable(layout.texts[a].text + QLatin1String(" meets ") + layout.texts[b].text));
                    for (const ChartSwatch &swatch : layout.swatches)
                        QVERIFY(!swatch.rect.intersects(layout.texts[a].rect));
                }
            }
        }
        QVERIFY(callouts > 0); // the last steps' slivers are there, and labelled
    }

    // The closing comparison: one bar per step, each the step's own device peak, after the last step.
    void closingComparisonHasEveryStep()
    {
        const Lesson ladder = shippedLesson("ladder");
        QVERIFY(ladder.comparison);
        QCOMPARE(lessonPageCount(ladder), int(ladder.steps.size()) + 1);
        const ChartData data = lessonComparisonData(ladder, Unit::GiB, false);
        QCOMPARE(data.columns.size(), ladder.steps.size());
        for (std::size_t i = 0; i < ladder.steps.size(); ++i) {
            const Estimate e = estimate(ladder.steps[i].scenario);
            QCOMPARE(data.columns[i].totalBytes, e.peak.deviceBytes);
            QVERIFY(data.columns[i].label.contains(QString::fromStdString(ladder.steps[i].title)));
        }
        // Drawn against the last step's target GPU.
        QCOMPARE(data.targetLine, targetLineIndex(ladder.steps.back().scenario));
        // The handout has it as its last page; asking for a page past it is refused.
        LessonExportOptions options;
        options.chart.size = QSize(960, 540);
        const QByteArray pdf = renderLessonPdf(ladder, options);
        static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?!s)"));
        QCOMPARE(int(QString::fromLatin1(pdf).count(page)), lessonPageCount(ladder));
        QTemporaryDir dir;
        QVERIFY(exportLesson(dir.filePath(QStringLiteral("last.png")), ExportFormat::Png, ladder,
                             lessonPageCount(ladder) - 1, options).isEmpty());
        QVERIFY(!exportLesson(dir.filePath(QStringLiteral("past.png")), ExportFormat::Png, ladder,
                              lessonPageCount(ladder), options).isEmpty());
        QImage image(dir.filePath(QStringLiteral("last.png")));
        QCOMPARE(image.size(), QSize(960, 540) * options.chart.scale);
    }

    // A per-step lesson leaves every step on its own axis, in the window.
    void perStepLessonKeepsEachStepsAxis()
    {
        nlohmann::json doc = nlohmann::json::parse(lessonToJson(shippedLesson("ladder")).dump());
        doc["axis"] = "per-step";
        const Lesson lesson = lessonFromJson(doc);
        ScenarioModel model;
        LessonPlayer player(&model);
        player.start(lesson);
        for (int step = 0; step < int(lesson.steps.size()); ++step) {
            QVERIFY(player.goTo(step));
            QCOMPARE(model.axisMinimumBytes(), 0ull);
            QCOMPARE(chartDataFor(model).axisMinimumBytes, std::uint64_t(0));
        }
        player.start(shippedLesson("ladder"));
        QCOMPARE(model.axisMinimumBytes(), lessonPeakBytes(shippedLesson("ladder")));
        player.stop();
        QCOMPARE(model.axisMinimumBytes(), 0ull);
    }

    // Pins get a readable name when pinned, keep it, and an identical scenario is not pinned twice.
    void pinNamesAreGivenOnce()
    {
        ScenarioModel model;
        model.assign(test::scenarioFrom(R"({"model": {"preset": "llama-3-8b"}, "train": {"micro_batch": 4}})"));
        QVERIFY(model.pinCurrent());
        QCOMPARE(model.pinLabel(0), QStringLiteral("#1 full FT \u00b7 bf16 \u00b7 mb 4"));
        QVERIFY(!model.pinCurrent());
        QCOMPARE(model.duplicatePin(), 0);
        model.apply(QStringLiteral("lora"), [](Scenario &s) {
            s.train.method = Method::Lora;
            s.train.microBatch = 8;
        });
        QCOMPARE(model.pinLabel(0), QStringLiteral("#1 full FT \u00b7 bf16 \u00b7 mb 4")); // never renamed
        QVERIFY(model.pinCurrent());
        QCOMPARE(model.pinLabel(1), QStringLiteral("#2 LoRA \u00b7 mb 8"));
        model.apply(QStringLiteral("eager"), [](Scenario &s) { s.kernels.attention = Attention::Eager; });
        QVERIFY(model.pinCurrent());
        QCOMPARE(model.pinLabel(2), QStringLiteral("#3 eager"));
        model.removePin(0);
        QCOMPARE(model.pinLabel(0), QStringLiteral("#2 LoRA \u00b7 mb 8"));
        model.renamePin(0, QStringLiteral("  adapters  "));
        QCOMPARE(model.pinLabel(0), QStringLiteral("#2 adapters"));
        // The names travel with a comparison file.
        const QString path = m_dir.filePath(QStringLiteral("pins.headroom.json"));
        QCOMPARE(writeDocumentFile(path, documentOf(model)), QString());
        ScenarioModel again;
        loadDocument(again, readDocumentFile(path));
        QCOMPARE(again.pins().size(), std::size_t(2));
        QCOMPARE(again.pins()[0].name, QStringLiteral("adapters"));
        QCOMPARE(again.pins()[1].name, QStringLiteral("eager"));
    }

    // "Save pins as lesson": the pins become the steps, in order, titled by their names, written
    // in the lesson format and read back as it was.
    void pinsBecomeALesson()
    {
        ScenarioModel model;
        model.assign(test::scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "train": {"micro_batch": 2}})"));
        QVERIFY(model.pinCurrent());
        model.apply(QStringLiteral("lora"), [](Scenario &s) { s.train.method = Method::Lora; });
        QVERIFY(model.pinCurrent());
        const Lesson lesson = LessonBuilderDialog::lessonFromPins(model, QStringLiteral("From my pins"));
        QCOMPARE(lesson.steps.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(lesson.steps[0].title), model.pins()[0].name);
        QCOMPARE(QString::fromStdString(lesson.steps[1].title), model.pins()[1].name);
        QVERIFY(lesson.steps[1].scenario.train.method == Method::Lora);
        // The default caption quotes each step's own peak.
        const QString caption = QString::fromStdString(
            expandCaption(lesson.steps[0].caption, estimate(lesson.steps[0].scenario), Unit::GiB));
        QVERIFY2(caption.contains(bytesText(estimate(lesson.steps[0].scenario).peak.deviceBytes, Unit::GiB)), qPrintable(caption));
        LessonBuilderDialog dialog(model);
        dialog.steps()->item(1, 1)->setText(QStringLiteral("Adapters only: {trainable} trainable parameters."));
        const QString path = m_dir.filePath(QStringLiteral("mine.json"));
        QCOMPARE(writeLessonFile(path, dialog.lesson()), QString());
        const Lesson again = readLessonFile(path);
        QCOMPARE(again.steps.size(), std::size_t(2));
        QCOMPARE(again.steps[1].caption, std::string("Adapters only: {trainable} trainable parameters."));
        QVERIFY(again.steps[0].scenario == lesson.steps[0].scenario);
        // A caption with an unknown placeholder is refused before anything is written.
        dialog.steps()->item(0, 1)->setText(QStringLiteral("{weight}"));
        QVERIFY(!writeLessonFile(m_dir.filePath(QStringLiteral("bad.json")), dialog.lesson()).isEmpty());
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("bad.json"))));
    }

    // The legend lists each consumer of the shown bar with its size; segments tall enough carry it.
    void legendAndValuesFollowTheShownBar()
    {
        ScenarioModel model;
        model.assign(test::scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "train": {"micro_batch": 4},
                                            "precision": {"weights": "fp32", "compute": "fp32"}})"));
        BudgetChart chart;
        chart.chart()->resize(1600, 900);
        chart.setData(chartDataFor(model));
        const QStringList legend = chart.legendEntries();
        QCOMPARE(legend.size(), int(model.estimate().consumers.size()));
        for (const Consumer &consumer : model.estimate().consumers)
            QVERIFY2(legend.contains(consumerDisplayName(consumer.id) + QLatin1Char(' ') +
                                     bytesText(consumer.bytes, chart.layout().scale)),
                     qPrintable(legend.join(QLatin1String(" | "))));
        // Weights, Adam state, activations and the allocator's slack are tall enough to be
        // labelled (the peak is early in backward: one gradient, 500 MiB, is too thin).
        const QStringList values = chart.segmentValues(0);
        for (ConsumerId id : {ConsumerId::Weights, ConsumerId::OptimizerState, ConsumerId::Activations, ConsumerId::Fragmentation})
            QVERIFY2(values.contains(bytesText(model.estimate().bytes(id), chart.layout().scale)),
                     qPrintable(values.join(QLatin1String(" | "))));
    }

    // The host bar: what one GPU's rank keeps in CPU RAM (ZeRO-3 with CPU Adam), beside the
    // current bar, with the machine's RAM share per GPU as its own line and its verdict about it.
    void hostBarAgainstTheRamShare()
    {
        ScenarioModel model;
        model.assign(test::scenarioFrom(R"({"model": {"preset": "llama-3-70b"},
            "train": {"method": "full", "master_weights": true, "gradient_checkpointing": "full"},
            "kernels": {"attention": "flash"},
            "parallel": {"gpus": 16, "strategy": "zero3", "offload_optimizer": true},
            "host": {"ram_gib": 1024, "gpus_per_machine": 8}, "gpus": ["h100-80gb"]})"));
        QVERIFY2(model.estimateError().isEmpty(), qPrintable(model.estimateError()));
        model.pinCurrent();
        const Estimate &e = model.estimate();
        QVERIFY(e.hostBytes > 0);
        ChartData data = chartDataFor(model);
        QVERIFY2(data.title.contains(QLatin1String("per GPU of 16")), qPrintable(data.title));
        QCOMPARE(int(data.columns.size()), 3); // current, its CPU RAM, the pin
        const ChartColumn &host = data.columns[1];
        QVERIFY(host.host);
        QCOMPARE(host.totalBytes, e.hostBytes);
        std::uint64_t sum = 0;
        for (std::uint64_t bytes : host.bytes)
            sum += bytes;
        QCOMPARE(sum, e.hostBytes);
        QCOMPARE(host.ownLine.bytes, 1024ull << 30 >> 3); // 1,024 GiB over 8 GPUs
        QCOMPARE(data.columns[2].pin, 0);
        BudgetChart chart;
        chart.chart()->resize(1600, 900);
        chart.setData(data);
        QVERIFY2(chart.ownLineMarks().join(QString()).contains(QLatin1String("/ 8 GPUs")),
                 qPrintable(chart.ownLineMarks().join(QLatin1String(" | "))));
        const QStringList marks = chart.fitMarks();
        QVERIFY2(marks.size() == 3 && marks[1].contains(QLatin1String("its RAM share")), qPrintable(marks.join(QLatin1String(" | "))));
        QCOMPARE(marks[1].startsWith(QLatin1String("fits")), e.hostBytes <= (1024ull << 30 >> 3));
        // Without the machine's RAM the bar says so and draws no line.
        Scenario s = model.scenario();
        s.host.ramGiB = 0;
        model.assign(s);
        data = chartDataFor(model);
        QVERIFY(data.columns[1].label.contains(QLatin1String("machine RAM not given")));
        QCOMPARE(data.columns[1].ownLine.bytes, 0ull);
    }

    // A small run's measured phases beside an 80 GiB card (issue 28): the axis to the run's scale,
    // each phase's measured line apart from the others, and the card marked off-scale.
    void smallRunZoomsThePhases()
    {
        const QString probePath = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/probe/probe-tiny-llama-bf16-adamw.json");
        QFile f(probePath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const ProbeFile probe = readProbeFile(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        const LogScenario fromProbe = scenarioFromProbe(probe, {std::string(), "h100-80gb"});
        QVERIFY(fromProbe.missing.empty());
        ScenarioModel model;
        model.assign(scenarioFromJson(fromProbe.document));
        model.setView(ChartView::Phases);
        QVERIFY2(model.estimateError().isEmpty(), qPrintable(model.estimateError()));
        OpenedMeasurement opened;
        QCOMPARE(openMeasurement(probePath, model, opened), QString());
        ChartData data = chartDataFor(model);
        addMeasuredOverlay(opened, model, data);
        QVERIFY(data.axisToRun);
        QCOMPARE(data.lines.size(), std::size_t(1));
        std::uint64_t run = 0;
        for (const ChartColumn &column : data.columns)
            run = std::max({run, column.totalBytes, column.measuredBytes});
        const std::uint64_t card = data.lines[0].bytes;
        QVERIFY2(run * 4 < card, "the probe's run is a small fraction of the card");

        const ChartLayout layout = layoutChart(data, QSizeF(1280, 720), 1, QFont());
        const double runInScale = toScale(run, layout.scale), cardInScale = toScale(card, layout.scale);
        // The axis reaches the run, not the card: at most twice the run (a round step above it).
        QVERIFY2(layout.axisMax >= runInScale && layout.axisMax <= 2 * runInScale,
                 qPrintable(QStringLiteral("axis %1, run %2").arg(layout.axisMax).arg(runInScale)));
        QVERIFY(layout.axisMax < cardInScale);
        // The card's line at the plot's top, its label saying it is above: "↑ 79.6 GiB".
        QCOMPARE(layout.lineY.size(), std::size_t(1));
        QVERIFY(std::abs(layout.lineY[0] - layout.plot.top()) < 5);
        bool marked = false;
        for (const ChartText &text : layout.texts)
            marked = marked || (text.role == ChartText::LineName &&
                                text.text == QStringLiteral("\u2191 ") + capacityText(card, data.unit));
        QVERIFY(marked);
        // Each measured phase drawn in the plot. The tiny run's bars are mostly the 500 MiB CUDA
        // context, so its phases (3.7 to 15.5 MiB allocated) are still close; on the card's axis
        // (80 GiB against about 0.7) they would be about 100 times closer, under a pixel apart.
        const auto spread = [](const ChartLayout &l) {
            double top = l.plot.bottom(), bottom = l.plot.top();
            for (const QLineF &line : l.columnMeasured) {
                top = std::min(top, line.y1());
                bottom = std::max(bottom, line.y1());
            }
            return bottom - top;
        };
        QCOMPARE(layout.columnMeasured.size(), std::size_t(4));
        for (const QLineF &line : layout.columnMeasured)
            QVERIFY(line.y1() >= layout.plot.top() && line.y1() <= layout.plot.bottom());
        QVERIFY2(spread(layout) > 8, qPrintable(QString::number(spread(layout))));

        // Without the overlay's zoom the axis reaches the card, as before, and the phases crowd.
        data.axisToRun = false;
        const ChartLayout full = layoutChart(data, QSizeF(1280, 720), 1, QFont());
        QVERIFY(full.axisMax >= toScale(card, full.scale));
        QVERIFY2(spread(layout) > 20 * spread(full),
                 qPrintable(QStringLiteral("%1 vs %2").arg(spread(layout)).arg(spread(full))));
    }

    // Every rank: one bar per pipeline stage, the busiest marked and listed in the legend.
    void ranksViewShowsEveryStage()
    {
        ScenarioModel model;
        model.assign(test::scenarioFrom(R"({"model": {"preset": "llama-3-70b"},
            "train": {"method": "full", "gradient_checkpointing": "full", "grad_accum": 8},
            "kernels": {"attention": "flash"},
            "parallel": {"gpus": 16, "tensor": 2, "pipeline": 4, "strategy": "zero1"}, "gpus": ["h100-80gb"]})"));
        QVERIFY2(model.estimateError().isEmpty(), qPrintable(model.estimateError()));
        const Estimate &e = model.estimate();
        QVERIFY(e.ranks.size() > 1);
        model.setView(ChartView::Ranks);
        const ChartData data = chartDataFor(model);
        QCOMPARE(data.columns.size(), e.ranks.size());
        for (std::size_t i = 0; i < e.ranks.size(); ++i) {
            QCOMPARE(data.columns[i].totalBytes, e.ranks[i].peak.deviceBytes);
            QCOMPARE(data.columns[i].label.contains(QLatin1String("busiest")), e.ranks[i].role == e.rankRole);
        }
        QVERIFY(data.legendTitle.contains(QLatin1String("busiest")));
        // The command line draws the same view.
        const QString path = test::writeFile(m_dir, "pp.headroom.json",
                                             QByteArray::fromStdString(scenarioToJson(model.scenario()).dump()));
        const QString out = m_dir.filePath(QStringLiteral("ranks.svg"));
        const test::Run run = test::runHeadroom({QStringLiteral("render"), path, QStringLiteral("--view"),
                                                 QStringLiteral("ranks"), QStringLiteral("--out"), out});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(QFile::exists(out));
    }

    // A sequence past the model's positions: an error for learned positions, a warning for RoPE.
    void positionsBeyondTheModel()
    {
        ScenarioModel model;
        model.assign(test::scenarioFrom(R"({"model": {"preset": "gpt2"}, "train": {"seq_len": 2048}})"));
        QVERIFY2(model.estimateError().contains(QLatin1String("learned positions")), qPrintable(model.estimateError()));
        model.assign(test::scenarioFrom(R"({"model": {"preset": "llama-2-7b"}, "train": {"seq_len": 8192}})"));
        QVERIFY(model.estimateError().isEmpty());
        QVERIFY2(chartDataFor(model).warning.contains(QLatin1String("RoPE")), qPrintable(chartDataFor(model).warning));
        const QString path = test::writeFile(m_dir, "gpt2.headroom.json",
                                             R"({"format": "headroom-scenario", "version": 1, "model": {"preset": "gpt2"},
                                                 "train": {"seq_len": 2048}})");
        const test::Run run = test::runHeadroom({QStringLiteral("estimate"), path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("train.seq_len")), qPrintable(run.err));
    }
};

QTEST_MAIN(TestChartData)
#include "tst_chartdata.moc"
