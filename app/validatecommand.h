// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace headroom::cli {

/// `headroom validate DIR [--format text|json]`: every measured case against its estimate.
int runValidate(const QStringList &arguments);

} // namespace headroom::cli
