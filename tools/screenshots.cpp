// SPDX-License-Identifier: GPL-3.0-or-later
// Renders the window in a few states to PNG (offscreen), for the README and for looking at:
//   headroom_screenshots OUTDIR [WIDTHxHEIGHT]   (the window's size; 1600x1000 by default)
#include "chart/frontierchart.h"
#include "classroom/advisorview.h"
#include "classroom/fitsview.h"
#include "classroom/frontierview.h"
#include "controls/mygpubox.h"
#include "controls/controlpanel.h"
#include "classroom/lessoncontroller.h"
#include "classroom/lessonplayer.h"
#include "window/mainwindow.h"
#include "classroom/presenterview.h"
#include "document/scenariomodel.h"
#include "scenario/catalog.h"
#include "chart/sweepchart.h"
#include "classroom/sweepview.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QLineSeries>
#include <QScrollArea>
#include <QStandardPaths>
#include <algorithm>
#include <functional>
#include <cstdio>

using namespace headroom;

namespace {

bool save(QWidget &window, const QString &path)
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

    QSize size(1600, 1000);
    if (argc > 2) {
        const QStringList parts = QString::fromLocal8Bit(argv[2]).split(QLatin1Char('x'));
        if (parts.size() == 2)
            size = QSize(parts[0].toInt(), parts[1].toInt());
    }
    MainWindow window;
    window.resize(size);
    window.show();
    ok &= save(window, out + QStringLiteral("/default.png"));

    // The ladder on Llama 3 8B: five pinned rungs and the current one.
    ScenarioModel *model = window.model();
    set(model, [](Scenario &s) {
        s.name.clear();
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
    model->setDark(false);
    model->clearPins();

    // Presenter mode at 1920 x 1080 on the ladder's third step.
    window.lessons()->openBuiltin(QStringLiteral("ladder"));
    window.lessons()->player()->goTo(2);
    PresenterView *presenter = window.presenter();
    presenter->enter();
    presenter->showNormal();
    presenter->setGeometry(QRect(QPoint(0, 0), size.width() >= 1600 ? QSize(1920, 1080) : size));
    QCoreApplication::processEvents();
    ok &= save(*presenter, out + QStringLiteral("/presenter.png"));
    presenter->leave();

    // What should I change? A full fine-tune of the ladder's first step against the 24 GB card.
    window.lessons()->player()->goTo(0);
    set(model, [](Scenario &s) { s.targetGpu = "rtx-4090"; });
    AdvisorView *advisor = window.advisor();
    advisor->resize(std::min(1100, size.width()), std::min(800, size.height()));
    advisor->show();
    ok &= save(*advisor, out + QStringLiteral("/advisor.png"));
    advisor->hide();

    // Sweeps: sequence length with eager and with flash attention (the long-context lesson), micro-batch.
    window.lessons()->openBuiltin(QStringLiteral("long-context"));
    SweepView *sweeps = window.sweeps();
    sweeps->resize(std::min(1400, size.width()), std::min(850, size.height()));
    sweeps->show();
    sweeps->attentionPicker()->setCurrentIndex(sweeps->attentionPicker()->findData(int(Attention::Eager)));
    ok &= save(*sweeps, out + QStringLiteral("/sweep-seqlen-eager.png"));
    sweeps->attentionPicker()->setCurrentIndex(sweeps->attentionPicker()->findData(int(Attention::Flash)));
    ok &= save(*sweeps, out + QStringLiteral("/sweep-seqlen-flash.png"));
    window.lessons()->openBuiltin(QStringLiteral("ladder"));
    window.lessons()->player()->goTo(3);
    sweeps->attentionPicker()->setCurrentIndex(0);
    sweeps->axisPicker()->setCurrentIndex(sweeps->axisPicker()->findData(int(SweepAxis::MicroBatch)));
    ok &= save(*sweeps, out + QStringLiteral("/sweep-microbatch.png"));
    const QString exported = out + QStringLiteral("/sweep-export.png");
    const QString error = sweeps->exportTo(exported, {QSize(1600, 900), 1, false});
    std::printf("%s %s %s\n", error.isEmpty() ? "wrote" : "FAILED", qPrintable(exported), qPrintable(error));
    ok &= error.isEmpty();
    sweeps->hide();
    window.lessons()->player()->stop();

    // Beyond one GPU: Llama 3 70B on two DGX H100 under ZeRO-3 with CPU Adam (the host bar
    // against the machine's RAM), then 16 GPUs as TP2 x PP4 x DP2 with every rank drawn.
    set(model, [](Scenario &s) {
        s = Scenario{};
        s.model = builtinCatalog().findModel("llama-3-70b")->arch;
        s.model.preset = "llama-3-70b";
        s.train.method = Method::Full;
        s.train.masterWeights = true;
        s.train.checkpointing = Checkpointing::Full;
        s.kernels.attention = Attention::Flash;
        s.parallel.gpus = 16;
        s.parallel.strategy = Strategy::Zero3;
        s.parallel.offloadOptimizer = true;
        s.host.machine = "dgx-h100";
        s.gpus = {"a100-80gb", "h100-80gb"};
        s.targetGpu = "h100-80gb";
    });
    model->setView(ChartView::Bars);
    if (QWidget *group = window.controls()->findChild<QWidget *>(QStringLiteral("parallelGroup")))
        for (QWidget *parent = group->parentWidget(); parent; parent = parent->parentWidget())
            if (auto *area = qobject_cast<QScrollArea *>(parent)) {
                area->ensureWidgetVisible(group, 0, 0);
                break;
            }
    ok &= save(window, out + QStringLiteral("/multi-gpu.png"));
    set(model, [](Scenario &s) {
        s.parallel.strategy = Strategy::Zero1;
        s.parallel.offloadOptimizer = false;
        s.parallel.tensor = 2;
        s.parallel.pipeline = 4;
        s.train.gradAccum = 8;
    });
    model->setView(ChartView::Ranks);
    ok &= save(window, out + QStringLiteral("/ranks.png"));
    model->setView(ChartView::Bars);

    // Issue 22: "24 GiB" typed in My GPU is the target, beside A100 80GB and H100 (80 and 79.65
    // GiB, drawn apart); Llama 3.1 8B LoRA at 4,096 tokens.
    set(model, [](Scenario &s) {
        s = Scenario{};
        s.model = builtinCatalog().findModel("llama-3.1-8b")->arch;
        s.train.method = Method::Lora;
        s.train.seqLen = 4096;
        s.gpus = {"a100-80gb", "h100-80gb"};
    });
    if (auto *box = window.controls()->findChild<MyGpuBox *>())
        box->choose(QStringLiteral("24 GiB"));
    set(model, [](Scenario &s) {
        for (const char *id : {"a100-80gb", "h100-80gb"})
            if (std::find(s.gpus.begin(), s.gpus.end(), id) == s.gpus.end())
                s.gpus.push_back(id);
    });
    ok &= save(window, out + QStringLiteral("/mygpu-24gib.png"));

    // How many 8k-token users can vLLM serve with Qwen3-30B-A3B on one H100? The frontier, with a
    // point hovered.
    set(model, [](Scenario &s) {
        s = Scenario{};
        s.task = Task::Inference;
        s.model = builtinCatalog().findModel("qwen3-30b-a3b")->arch;
        s.gpus = {"h100-80gb"};
        ServingConfig cfg;
        cfg.maxModelLen = 32768;
        cfg.requests.concurrency = 10;
        cfg.requests.classes.front().promptTokens = 7168;
        cfg.requests.classes.front().outputTokens = 1024;
        s.serving = cfg;
    });
    FrontierView *frontier = window.frontier();
    frontier->resize(std::min(1100, size.width()), std::min(700, size.height()));
    frontier->show();
    QCoreApplication::processEvents();
    if (!frontier->chart()->curves().empty()) {
        QLineSeries *curve = frontier->chart()->curves().front();
        if (curve->count() > 2)
            emit curve->hovered(curve->at(curve->count() - 2), true);
    }
    ok &= save(*frontier, out + QStringLiteral("/frontier.png"));
    frontier->hide();

    // Issue 25: llama.cpp across an RTX 4090 + an RTX 3090 (a bar per device and the CPU RAM),
    // then gpt-oss-120b on one RTX 4090 with 24 layers' experts in RAM (--n-cpu-moe 24).
    const auto llamaCpp = [&](const char *preset, std::vector<std::string> gpus, double ramGiB,
                              const std::function<void(ServingConfig &)> &edit) {
        set(model, [&](Scenario &s) {
            s = Scenario{};
            s.task = Task::Inference;
            s.model = builtinCatalog().findModel(preset)->arch;
            s.gpus = gpus;
            s.host.ramGiB = ramGiB;
            ServingConfig cfg;
            cfg.engine = Engine::LlamaCpp;
            cfg.nCtx = 8192;
            edit(cfg);
            s.serving = cfg;
        });
    };
    llamaCpp("llama-3-70b", {"rtx-4090", "rtx-3090"}, 64, [](ServingConfig &cfg) {
        cfg.weightType = GgufType::Q4_K_M;
        cfg.tensorSplit = {1, 1};
    });
    ok &= save(window, out + QStringLiteral("/llamacpp-two-devices.png"));
    llamaCpp("gpt-oss-120b", {"rtx-4090"}, 96, [](ServingConfig &cfg) {
        cfg.nCtx = 32768;
        cfg.nCpuMoe = 24;
    });
    ok &= save(window, out + QStringLiteral("/llamacpp-expert-offload.png"));
    FitsView *fits = window.fits();
    fits->resize(std::min(1280, size.width()), std::min(720, size.height()));
    fits->show();
    QCoreApplication::processEvents();
    ok &= save(*fits, out + QStringLiteral("/fits.png"));
    fits->hide();
    return ok ? 0 : 1;
}
