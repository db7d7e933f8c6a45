// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace headroom {
struct Estimate;
struct Scenario;
} // namespace headroom

namespace headroom::cli {

/// `headroom compare LOG [SCENARIO] ...`: a serving engine's start-up log beside the estimate.
int runCompare(const QStringList &arguments);
/// The same for torch.cuda.memory_summary() text or a memory snapshot pickle (comparetorch.cpp).
int runCompareTorch(const QString &inputPath, const QByteArray &bytes, const QString &scenarioPath,
                    const QStringList &overrides, const QString &saveCasePath, bool json);
/// The same for the probe's measurement file (compareprobe.cpp).
int runCompareProbe(const QString &inputPath, const QByteArray &bytes, const QString &scenarioPath,
                    const QStringList &overrides, const QString &modelPreset, const QString &gpuId,
                    const QString &saveCasePath, bool json);
/// `--save-case FILE` of a measured peak allocated: the headroom-measurement case (ID.json) of
/// common/torchcompare.h, written atomically. ExitOk, or the failure reported.
int saveMeasuredCase(const QString &path, const QString &inputPath, const char *tool, const Scenario &scenario,
                     const Estimate &e, double measuredBytes, const QString &readingNote);

} // namespace headroom::cli
