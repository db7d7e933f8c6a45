// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

namespace headroom {

/// The source articles, by the titles users know them by.
inline constexpr std::string_view kArticleWhereMemoryGoes = "Where the memory actually goes";
inline constexpr std::string_view kArticleMakeRoom = "Make room on your GPU";
inline constexpr std::string_view kArticleMemoryGame = "The Memory Game";

} // namespace headroom
