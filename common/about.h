// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace headroom {

/// What Help > About and `headroom --version` both say, one fact per line: the name and
/// version, the Qt it runs on, the licence and the Qt Charts GPL notice.
QStringList aboutFacts();

} // namespace headroom
