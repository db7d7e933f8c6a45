// SPDX-License-Identifier: GPL-3.0-or-later
#include "articles.h"

#include <utility>

namespace headroom {

std::string citeArticles(std::string text)
{
    // "seed 000's c" reads better as "the c of ...".
    for (auto at = text.find("seed 000's c"); at != std::string::npos; at = text.find("seed 000's c", at))
        text.replace(at, 12, "the c of \u201c" + std::string(kArticleWhereMemoryGoes) + "\u201d");
    static const std::pair<std::string_view, std::string_view> names[] = {
        {"seed 000", kArticleWhereMemoryGoes},
        {"seed 002", kArticleMakeRoom},
        {"seed 003", kArticleMemoryGame}};
    for (const auto &[internal, title] : names) {
        const std::string quoted = "\u201c" + std::string(title) + "\u201d";
        for (auto at = text.find(internal); at != std::string::npos; at = text.find(internal, at))
        {
            text.replace(at, internal.size(), quoted);
            at += quoted.size();
        }
    }
    return text;
}

} // namespace headroom
