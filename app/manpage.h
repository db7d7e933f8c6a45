// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace headroom::cli {

/// headroom(1) in roff, made from every command's help (commandHelp()): the build writes it
/// with the hidden `headroom --help-all-man`, so the man page and --help cannot drift.
QString manPage();

} // namespace headroom::cli
