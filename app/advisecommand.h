// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace headroom::cli {

/// `headroom advise FILE --gpu ID [--format text|json] [--unit GB|GiB] [--set key=value]...`:
/// what to change, lever by lever, until the scenario fits the GPU.
int runAdvise(const QStringList &arguments);

} // namespace headroom::cli
