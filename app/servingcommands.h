// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "serving/servingfigures.h"
#include "scenario/units.h"

#include <QStringList>
#include <QTextStream>

namespace headroom::cli {

/// `headroom solve FILE --for VARIABLE --gpu ID [--margin 0.9] [--strategies a,b] [--format text|json]`
int runSolve(const QStringList &arguments);
/// `headroom fit FILE --gpu ID [--ram-gib N] [--target-mib 1024] [--format text|json]`
int runFit(const QStringList &arguments);
/// `headroom fits --gpu ID [--ram-gib N] [--context T] [--concurrency C] [--engine E] [--format text|json|csv]`
int runFits(const QStringList &arguments);
/// `headroom frontier FILE [--gpu ID]... [--tensor 1,2,4] [--contiguous] [--format text|json|csv]`
int runFrontier(const QStringList &arguments);
/// `headroom models --local [--cache DIR] [--format text|json]`: the local Hugging Face hub cache
int runModels(const QStringList &arguments);
/// `headroom validate DIR` on a folder of serving start-up logs (headroom-serving-log).
int runServingValidate(const QString &directory, const QStringList &files, bool json);
/// The engine's own start-up figures under an estimate's consumers.
void printServingFigures(QTextStream &out, const ServingFigures &figures, Unit unit);

} // namespace headroom::cli
