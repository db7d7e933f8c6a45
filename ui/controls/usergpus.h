// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

namespace headroom {

/// The most GPUs a user keeps (each is a capacity line on the chart).
inline constexpr std::size_t kMaxUserGpus = 32;

/// A GPU the user added by name and capacity; kept in QSettings, never in scenario files.
struct UserGpu
{
    QString name;
    std::uint64_t bytes = 0;
    bool shown = true; ///< drawn as a capacity line

    bool operator==(const UserGpu &) const = default;
};

/// The user's GPUs as saved in QSettings (empty when none). Damaged entries are dropped and the
/// key rewritten (listed in resetPreferences()).
std::vector<UserGpu> loadUserGpus();
/// Saves the user's GPUs to QSettings.
void saveUserGpus(const std::vector<UserGpu> &gpus);

} // namespace headroom
