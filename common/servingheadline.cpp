// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingheadline.h"

#include "displaytext.h"
#include "scenario/catalog.h"
#include "scenario/names.h"

#include <QCoreApplication>
#include <cmath>

namespace headroom {

QString servingHeadline(const Scenario &scenario, const Estimate &e, bool twoLines)
{
    if (scenario.task != Task::Inference || !scenario.serving || !e.serving)
        return {};
    const Engine engine = scenario.serving->engine;
    if (engine != Engine::Vllm && engine != Engine::Sglang && engine != Engine::Trtllm)
        return {};
    const ServingFigures &f = *e.serving;
    const Gpu *gpu = builtinCatalog().findGpu(f.gpuId);
    if (!gpu || !f.deviceTotalBytes)
        return {};
    const auto tr = [](const char *text) { return QCoreApplication::translate("serving", text); };
    const QString name = engine == Engine::Vllm     ? QStringLiteral("vLLM")
                         : engine == Engine::Sglang ? QStringLiteral("SGLang")
                                                    : QStringLiteral("TensorRT-LLM");
    const QString gpuName = shortGpuName(QString::fromStdString(gpu->name));
    // The share of the device the engine takes (vLLM: gpu_memory_utilization of the CUDA total).
    const int percent = int(std::lround(100.0 * double(f.budgetBytes) / double(f.deviceTotalBytes)));
    const QString reserves = tr("(%1 reserves %2%)").arg(name).arg(percent);
    std::uint64_t tokens = 0;
    for (const RequestClass &kind : scenario.serving->requests.classes)
        tokens = std::max(tokens, kind.tokens());
    const std::uint64_t concurrency = scenario.serving->requests.concurrency;
    const QString users = QString::fromStdString(groupDigits(concurrency)) +
                          (concurrency == 1 ? tr(" user") : tr(" users"));
    const QString length = QString::fromStdString(groupDigits(tokens));
    const QString gap = twoLines ? QStringLiteral("\n") : QStringLiteral(" ");
    if (!f.startsOk)
        return tr("%1 does not start on %2 %3").arg(name, gpuName, reserves);
    if (!f.requestsFit && concurrency == 1)
        return tr("%1 at %2 tokens does not run on %3%4%5").arg(users, length, gpuName, gap, reserves);
    if (!f.requestsFit)
        return tr("%1 at %2 tokens do not all run at once on %3%4%5").arg(users, length, gpuName, gap, reserves);
    return tr("%1 at %2 tokens on %3%4%5").arg(users, length, gpuName, gap, reserves);
}

} // namespace headroom
