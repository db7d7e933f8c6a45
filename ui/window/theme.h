// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace headroom {

/// Applies the light or dark palette (Fusion style) to the whole application.
void applyApplicationTheme(bool dark);

} // namespace headroom
