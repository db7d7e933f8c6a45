// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario/modelsearch.h"

#include <algorithm>
#include <cctype>

namespace headroom {

namespace {

/// Lower case, every separator a space, one space between words, none at the ends.
std::string normalised(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (std::isalnum(u))
            out += char(std::tolower(u));
        else if (!out.empty() && out.back() != ' ')
            out += ' ';
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

std::vector<std::string> words(const std::string &text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find(' ', start), text.size());
        if (end > start)
            out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

bool isVariantWord(const std::string &word)
{
    return word == "instruct" || word == "chat" || word == "it" || word == "hf" || word == "base";
}

/// Every word of the query occurs in the haystack (a trailing variant word may be missing).
bool matches(const std::vector<std::string> &query, const std::string &haystack)
{
    for (std::size_t i = 0; i < query.size(); ++i) {
        if (haystack.find(query[i]) != std::string::npos)
            continue;
        if (i + 1 == query.size() && i > 0 && isVariantWord(query[i]))
            continue;
        return false;
    }
    return true;
}

} // namespace

std::vector<const ModelPreset *> findModels(std::string_view query, const Catalog &catalog)
{
    const std::string q = normalised(query);
    std::vector<std::string> wanted = words(q);
    if (wanted.empty())
        return {};
    struct Hit
    {
        int rank;
        std::size_t order;
        const ModelPreset *preset;
    };
    std::vector<Hit> hits;
    for (std::size_t i = 0; i < catalog.models.size(); ++i) {
        const ModelPreset &preset = catalog.models[i];
        const std::string name = normalised(preset.name), id = normalised(preset.id), hub = normalised(preset.hfId);
        const std::string haystack = name + " | " + id + " | " + hub + " | " + normalised(preset.family);
        if (!matches(wanted, haystack))
            continue;
        int rank = 3;
        std::string withoutVariant = q;
        if (wanted.size() > 1 && isVariantWord(wanted.back()))
            withoutVariant = q.substr(0, q.size() - wanted.back().size() - 1);
        if (q == hub || q == id || (!hub.empty() && withoutVariant == hub))
            rank = 0;
        else if (name.rfind(q, 0) == 0 || q == name)
            rank = 1;
        else if (hub.find(withoutVariant) != std::string::npos || name.find(q) != std::string::npos)
            rank = 2;
        hits.push_back({rank, i, &preset});
    }
    std::stable_sort(hits.begin(), hits.end(), [](const Hit &a, const Hit &b) { return a.rank < b.rank; });
    std::vector<const ModelPreset *> out;
    for (const Hit &hit : hits)
        out.push_back(hit.preset);
    return out;
}

} // namespace headroom
