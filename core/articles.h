// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace headroom {

/// The source articles, by the titles users know them by.
inline constexpr std::string_view kArticleWhereMemoryGoes = "Where the memory actually goes";
inline constexpr std::string_view kArticleMakeRoom = "Make room on your GPU";
inline constexpr std::string_view kArticleMemoryGame = "The Memory Game";

/// Replaces the project's internal names of the articles ("seed 000", "seed 002's") with their
/// titles in quotes, so text that reaches users cites what they can look up.
std::string citeArticles(std::string text);

} // namespace headroom
