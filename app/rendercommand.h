// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace headroom::cli {

/// `headroom render FILE --out chart.png|svg|pdf [...]`: the window's chart, headless.
int runRender(const QStringList &arguments);

} // namespace headroom::cli
