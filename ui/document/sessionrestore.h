// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <string>

namespace headroom {

/// What a saved session's scenario became: the scenario (nothing when not even the document
/// could be read) and, for each top-level section that had to go back to its default, one
/// readable line ("serving: needs \"task\": \"inference\" ...").
struct RestoredScenario
{
    std::optional<Scenario> scenario;
    QStringList resetSections;
};

/// Parses the session's scenario text; when a section is refused (the error names its key), that
/// section alone is removed and the rest parsed again (at most 16 sections), so one bad section
/// does not cost the whole session.
RestoredScenario restoreScenario(const std::string &text);

} // namespace headroom
