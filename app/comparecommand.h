// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace headroom::cli {

/// `headroom compare LOG [SCENARIO] ...`: a serving engine's start-up log beside the estimate.
int runCompare(const QStringList &arguments);

} // namespace headroom::cli
