// SPDX-License-Identifier: GPL-3.0-or-later
// Renders the window in a few states to PNG (offscreen), for the README and for looking at:
//   headroom_screenshots OUTDIR
#include "controlpanel.h"
#include "mainwindow.h"
#include "scenariomodel.h"

#include <QApplication>
#include <QDir>
#include <QStandardPaths>
#include <cstdio>

using namespace headroom;

namespace {

bool save(MainWindow &window, const QString &path)
{
    QCoreApplication::processEvents();
    const bool ok = window.grab().save(path);
    std::printf("%s %s\n", ok ? "wrote" : "FAILED", qPrintable(path));
    return ok;
}

void set(ScenarioModel *model, const std::function<void(Scenario &)> &edit)
{
    model->apply(QStringLiteral("screenshot"), edit);
}

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    const QString out = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral(".");
    QDir().mkpath(out);
    bool ok = true;

    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    ok &= save(window, out + QStringLiteral("/default.png"));

    // The ladder on Llama 3 8B: five pinned rungs and the current one.
    ScenarioModel *model = window.model();
    set(model, [](Scenario &s) {
        s.train.method = Method::Full;
        s.precision.weights = DType::BF16;
        s.train.masterWeights = true;
        s.train.gradDType = GradDType::FP32;
    });
    model->pinCurrent();
    set(model, [](Scenario &s) {
        s.train.masterWeights = false;
        s.train.gradDType = GradDType::Auto;
    });
    model->pinCurrent();
    set(model, [](Scenario &s) { s.train.method = Method::Lora; });
    model->pinCurrent();
    set(model, [](Scenario &s) {
        s.train.method = Method::Qlora;
        s.precision.weights = DType::NF4;
        s.precision.doubleQuant = true;
    });
    model->pinCurrent();
    set(model, [](Scenario &s) { s.train.checkpointing = Checkpointing::Full; });
    model->pinCurrent();
    set(model, [](Scenario &s) { s.kernels.loss = Loss::Fused; });
    ok &= save(window, out + QStringLiteral("/comparison.png"));

    model->clearPins();
    set(model, [](Scenario &s) {
        s.train.method = Method::Lora;
        s.precision.weights = DType::BF16;
        s.train.checkpointing = Checkpointing::None;
        s.kernels.loss = Loss::Standard;
        s.train.gradAccum = 4;
    });
    model->setView(ChartView::Phases);
    ok &= save(window, out + QStringLiteral("/phases.png"));

    model->setView(ChartView::Bars);
    model->pinCurrent();
    set(model, [](Scenario &s) { s.kernels.attention = Attention::Eager; });
    model->setDark(true);
    ok &= save(window, out + QStringLiteral("/dark.png"));
    return ok ? 0 : 1;
}
