// SPDX-License-Identifier: GPL-3.0-or-later
#include "measure/torchsummary.h"

#include "measure/enginelog.h"
#include "measure/logtext.h"

#include <array>
#include <cmath>

namespace headroom {

using logtext::Line;

namespace {

constexpr std::string_view kTitle = "PyTorch CUDA memory summary, device ID";

struct RowName { std::string_view label; const char *key; };
constexpr std::array<RowName, 5> kRows{{{"Allocated memory", "allocated"},
                                        {"Active memory", "active"},
                                        {"Requested memory", "requested"},
                                        {"GPU reserved memory", "reserved"},
                                        {"Non-releasable memory", "non_releasable"}}};

/// "   1062 MB " -> bytes and the unit's bytes; nothing for another text.
std::optional<std::pair<double, double>> size(std::string_view cell)
{
    std::size_t end = 0;
    const auto value = logtext::number(cell, 0, &end);
    if (!value || *value < 0 || *value != std::floor(*value))
        return std::nullopt;
    std::string_view unit = cell.substr(end);
    while (!unit.empty() && unit.front() == ' ')
        unit.remove_prefix(1);
    while (!unit.empty() && (unit.back() == ' ' || unit.back() == '\r'))
        unit.remove_suffix(1);
    const std::array<std::pair<std::array<std::string_view, 2>, double>, 6> units{{
        {{"B", "B"}, 1.0},
        {{"KB", "KiB"}, 1024.0},
        {{"MB", "MiB"}, 1048576.0},
        {{"GB", "GiB"}, 1073741824.0},
        {{"TB", "TiB"}, 1099511627776.0},
        {{"PB", "PiB"}, 1125899906842624.0},
    }};
    for (const auto &[names, bytes] : units)
        if (unit == names[0] || unit == names[1])
            return std::pair{*value * bytes, bytes};
    return std::nullopt;
}

std::vector<std::string_view> cells(std::string_view line)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (parts.size() < 16) {
        const std::size_t bar = line.find('|', start);
        parts.push_back(line.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
        if (bar == std::string_view::npos)
            break;
        start = bar + 1;
    }
    return parts;
}

} // namespace

const TorchSummaryRow *TorchMemorySummary::row(std::string_view key) const
{
    for (const TorchSummaryRow &r : rows)
        if (r.key == key)
            return &r;
    return nullptr;
}

bool looksLikeTorchMemorySummary(std::string_view text)
{
    return text.substr(0, std::min<std::size_t>(text.size(), kEngineLogBytes)).find(kTitle) != std::string_view::npos;
}

TorchMemorySummary readTorchMemorySummary(std::string_view text)
{
    if (text.size() > kEngineLogBytes)
        throw InputError("", "the text is " + std::to_string(text.size()) + " bytes, more than the 16 MiB read");
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw InputError("", "not UTF-8 text (byte " + std::to_string(bad) + ")");
    TorchMemorySummary s;
    bool titled = false;
    std::size_t number = 0, start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        const Line line{text.substr(start, std::min<std::size_t>(end - start, kEngineLogLineBytes)), ++number};
        start = end + 1;
        if (line.has(kTitle)) {
            const auto device = logtext::numberAfter(line, kTitle);
            if (!device || *device < 0 || *device > 65535)
                throw InputError("line " + std::to_string(line.number), "the summary's title has no device number");
            s.device = int(*device);
            titled = true;
            continue;
        }
        if (!titled)
            continue;
        if (line.has("CUDA OOMs:")) {
            if (const auto n = logtext::numberAfter(line, "CUDA OOMs:"); n && *n >= 0 && *n < 1e15)
                s.ooms = std::uint64_t(*n);
            if (const auto n = logtext::numberAfter(line, "cudaMalloc retries:"); n && *n >= 0 && *n < 1e15)
                s.mallocRetries = std::uint64_t(*n);
            continue;
        }
        for (const RowName &r : kRows) {
            const std::size_t at = line.text.find(r.label);
            if (at == std::string_view::npos)
                continue;
            // The label's cell ends at the next bar; then current, peak, allocated in total and
            // freed in total.
            const std::string_view rest = line.text.substr(at + r.label.size());
            const std::size_t bar = rest.find('|');
            if (bar == std::string_view::npos || rest.substr(0, bar).find_first_not_of(' ') != std::string_view::npos)
                continue;
            const std::vector<std::string_view> parts = cells(rest.substr(bar + 1));
            std::array<std::pair<double, double>, 4> values{};
            for (std::size_t k = 0; k < 4; ++k) {
                const auto v = k < parts.size() ? size(parts[k]) : std::nullopt;
                if (!v)
                    throw InputError("line " + std::to_string(line.number),
                                     "\"" + std::string(r.label) + "\" has no size in column " + std::to_string(k + 2) +
                                         " (a cut-off line, or a unit PyTorch does not print): " +
                                         quoteText(line.text, 80));
                values[k] = *v;
            }
            if (!s.row(r.key))
                s.rows.push_back({r.key, std::string(r.label), values[0].first, values[1].first, values[2].first,
                                  values[3].first, values[1].second, line.number});
        }
    }
    s.lines = number;
    if (!titled)
        throw InputError("", "no \"" + std::string(kTitle) + "\" line: not a torch.cuda.memory_summary() table");
    if (!s.row("allocated"))
        throw InputError("", "the summary has no \"Allocated memory\" row (cut off?)");
    return s;
}

} // namespace headroom
