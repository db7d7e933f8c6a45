// SPDX-License-Identifier: GPL-3.0-or-later
// One slider step through the model, the estimate, the chart update and a render of the chart
// at 1600x900 with 8 pinned scenarios, offscreen:  bench_slider [NAME]  (default slider_step;
// scripts/bench runs it again while another process keeps one core busy).
#include "benchutil.h"
#include "chart/budgetchart.h"
#include "controls/controlpanel.h"
#include "window/mainwindow.h"
#include "document/scenariomodel.h"
#include "controls/sliderfield.h"

#include <QApplication>
#include <QChartView>
#include <QDoubleSpinBox>
#include <QImage>
#include <QPainter>
#include <QSlider>
#include <QStandardPaths>

using namespace headroom;

int main(int argc, char *argv[])
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    MainWindow window;
    window.resize(1600, 900);
    window.show();
    for (int i = 0; i < ScenarioModel::kMaxPins; ++i) {
        window.controls()->microBatch()->field()->setValue(1 << (i % 6));
        window.model()->pinCurrent();
    }
    QSlider *slider = window.controls()->seqLen()->slider();
    QImage image(1600, 900, QImage::Format_ARGB32_Premultiplied);
    int direction = 1;
    const auto step = [&] {
        if (slider->value() >= slider->maximum() - 5 || slider->value() <= slider->minimum() + 5)
            direction = -direction;
        slider->setValue(slider->value() + direction * 3);
    };
    const auto render = [&] {
        QPainter painter(&image);
        window.chartView()->render(&painter, QRectF(0, 0, 1600, 900));
    };
    const char *name = argc > 1 ? argv[1] : "slider_step";
    bench::measure(name, 50, 600, [&] {
        step();
        render();
    });
    if (argc <= 1) {
        // Where a step's time goes: the model, estimate, chart and breakdown update, then the
        // chart's repaint.
        bench::measure("slider_step_update", 20, 300, step);
        bench::measure("slider_step_repaint", 20, 300, render);
    }
    return 0;
}
