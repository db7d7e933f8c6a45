// SPDX-License-Identifier: GPL-3.0-or-later
// Exports as the File menu and `headroom render` write them, offscreen, into a temporary folder:
// the example's chart with two pinned scenarios as PNG (1920x1080 at scale 2), SVG and PDF, the
// six-step ladder lesson as a handout PDF and as six PNG and six SVG pages, and a 256-point
// sweep chart as PNG.
#include "benchutil.h"
#include "chart/chartdata.h"
#include "chart/chartexport.h"
#include "chart/sweepchart.h"
#include "classroom/lessonexport.h"
#include "document/scenariomodel.h"
#include "lesson/lesson.h"
#include "scenario/scenariojson.h"

#include <QApplication>
#include <QFile>
#include <QTemporaryDir>
#include <cstdio>

using namespace headroom;

namespace {

Scenario example()
{
    QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return parseScenario(file.readAll().toStdString());
}

Lesson ladder()
{
    for (const BuiltinLesson &lesson : builtinLessons())
        if (lesson.id == "ladder")
            return parseLesson(lesson.json);
    return {};
}

} // namespace

int main(int argc, char *argv[])
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QTemporaryDir dir;
    bool ok = dir.isValid();

    ScenarioModel model;
    model.assign(example());
    model.pinCurrent();
    model.apply(QStringLiteral("bench"), [](Scenario &s) { s.train.microBatch = 1; });
    model.pinCurrent();
    const ChartData chart = chartDataFor(model);
    const ChartExportOptions options; // 1920x1080, scale 2, light
    const auto exportAs = [&](const char *name, ExportFormat format) {
        bench::measure(name, 2, 30, [&] {
            ok &= exportChart(dir.filePath(QStringLiteral("chart")), format, chart, options).isEmpty();
        });
    };
    exportAs("export_chart_png", ExportFormat::Png);
    exportAs("export_chart_svg", ExportFormat::Svg);
    exportAs("export_chart_pdf", ExportFormat::Pdf);

    const Lesson lesson = ladder();
    ok &= lesson.steps.size() == 6;
    LessonExportOptions deck;
    bench::measure("export_lesson_6_steps_pdf", 1, 15, [&] {
        ok &= exportLesson(dir.filePath(QStringLiteral("deck.pdf")), ExportFormat::Pdf, lesson, -1, deck).isEmpty();
    });
    const auto pages = [&](const char *name, ExportFormat format) {
        bench::measure(name, 1, 15, [&] {
            for (int step = 0; step < int(lesson.steps.size()); ++step)
                ok &= exportLesson(dir.filePath(QStringLiteral("step%1").arg(step)), format, lesson, step, deck).isEmpty();
        });
    };
    pages("export_lesson_6_steps_png", ExportFormat::Png);
    pages("export_lesson_6_steps_svg", ExportFormat::Svg);

    SweepChartData sweepData;
    sweepData.axisTitle = QStringLiteral("Sequence length (tokens)");
    std::vector<std::uint32_t> values;
    for (std::uint32_t i = 1; i <= 256; ++i)
        values.push_back(i * 128);
    sweepData.sweep = sweep(model.scenario(), SweepAxis::SeqLen, values);
    ok &= sweepData.sweep.points.size() == 256;
    bench::measure("sweep_256_points_chart_png", 2, 30, [&] {
        ok &= exportSweep(dir.filePath(QStringLiteral("sweep")), ExportFormat::Png, sweepData,
                          {QSize(1600, 900), 1, false}).isEmpty();
    });
    if (!ok)
        std::fputs("bench_export: an export failed\n", stderr);
    return ok ? 0 : 1;
}
