// SPDX-License-Identifier: GPL-3.0-or-later
#include "measure/enginelog.h"

#include "io/inputpolicy.h"
#include "measure/logtext.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace headroom {

using logtext::Line;

const char *logEngineName(LogEngine engine)
{
    switch (engine) {
    case LogEngine::Vllm: return "vLLM";
    case LogEngine::Sglang: return "SGLang";
    case LogEngine::TensorrtLlm: return "TensorRT-LLM";
    case LogEngine::LlamaCpp: return "llama.cpp";
    }
    return "?";
}

const char *logEngineScenarioKey(LogEngine engine)
{
    switch (engine) {
    case LogEngine::Vllm: return "vllm";
    case LogEngine::Sglang: return "sglang";
    case LogEngine::LlamaCpp: return "llama_cpp";
    case LogEngine::TensorrtLlm: return "";
    }
    return "";
}

const LogFigure *EngineLog::figure(std::string_view key) const
{
    for (const LogFigure &f : figures)
        if (f.key == key)
            return &f;
    return nullptr;
}

const LogSetting *EngineLog::setting(std::string_view key) const
{
    for (const LogSetting &s : settings)
        if (s.key == key)
            return &s;
    return nullptr;
}

namespace logtext {

namespace {
/// True when `count` digits start at `at`.
bool digitsAt(std::string_view text, std::size_t at, std::size_t count)
{
    if (at + count > text.size())
        return false;
    for (std::size_t k = 0; k < count; ++k)
        if (!std::isdigit(static_cast<unsigned char>(text[at + k])))
            return false;
    return true;
}
} // namespace

std::optional<double> number(std::string_view text, std::size_t from, std::size_t *end)
{
    std::size_t i = from;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
        ++i;
    std::string digits;
    const std::size_t start = i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+'))
        digits += text[i++];
    bool any = false, point = false;
    for (; i < text.size() && digits.size() < 40; ++i) {
        const char ch = text[i];
        if (std::isdigit(static_cast<unsigned char>(ch))) {
            digits += ch;
            any = true;
        } else if (ch == ',' && any && !point && digitsAt(text, i + 1, 3) &&
                   !digitsAt(text, i + 4, 1)) {
            continue; // a thousands separator: "75,840"
        } else if (ch == '.' && !point && i + 1 < text.size() &&
                   std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
            digits += ch;
            point = true;
        } else if ((ch == 'e' || ch == 'E') && any && i + 1 < text.size() &&
                   (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '-')) {
            digits += ch;
            if (text[i + 1] == '-')
                digits += text[++i];
        } else {
            break;
        }
    }
    if (!any || i == start)
        return std::nullopt;
    const double value = std::strtod(digits.c_str(), nullptr);
    if (!std::isfinite(value))
        return std::nullopt;
    if (end)
        *end = i;
    return value;
}

std::optional<double> numberAfter(const Line &line, std::string_view marker, std::size_t *end)
{
    const std::size_t at = line.text.find(marker);
    if (at == std::string_view::npos)
        return std::nullopt;
    return number(line.text, at + marker.size(), end);
}

std::optional<double> bytesAfter(const Line &line, std::string_view marker, GbMeans gb, std::size_t *end)
{
    std::size_t after = 0;
    const auto value = numberAfter(line, marker, &after);
    if (!value)
        return std::nullopt;
    std::size_t i = after;
    while (i < line.text.size() && line.text[i] == ' ')
        ++i;
    const std::string_view rest = line.text.substr(i);
    struct UnitName { std::string_view name; double bytes; };
    const double gbBytes = gb == GbMeans::Gib ? 1073741824.0 : 1e9;
    const std::array<UnitName, 7> units{{{"GiB", 1073741824.0}, {"GB", gbBytes}, {"MiB", 1048576.0},
                                         {"MB", gb == GbMeans::Gib ? 1048576.0 : 1e6}, {"KiB", 1024.0},
                                         {"KB", 1e3}, {"B", 1.0}}};
    for (const UnitName &u : units)
        if (rest.substr(0, u.name.size()) == u.name) {
            if (end)
                *end = i + u.name.size();
            return *value * u.bytes;
        }
    return std::nullopt;
}

std::string valueAfter(const Line &line, std::string_view marker, std::string_view stop)
{
    const std::size_t at = line.text.find(marker);
    if (at == std::string_view::npos)
        return {};
    std::string_view rest = line.text.substr(at + marker.size());
    const std::size_t cut = rest.find(stop);
    if (cut != std::string_view::npos)
        rest = rest.substr(0, cut);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\'' || rest.front() == '"'))
        rest.remove_prefix(1);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\'' || rest.back() == '"' || rest.back() == '\r'))
        rest.remove_suffix(1);
    return std::string(rest.substr(0, 300));
}

std::string shown(const Line &line)
{
    std::string_view t = line.text;
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
        t.remove_prefix(1);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\r' || t.back() == '\t'))
        t.remove_suffix(1);
    return quoteText(t, 200);
}

/// `name=value` or `name: value` in a config line or a dict: the value as text.
std::string configValue(const Line &line, std::string_view name)
{
    for (const char *sep : {"=", "': ", "\": "}) {
        const std::string marker = std::string(name) + sep;
        std::size_t at = 0;
        while ((at = line.text.find(marker, at)) != std::string_view::npos) {
            // A whole key: not the tail of a longer one (max_seq_len_to_capture vs max_seq_len).
            const char before = at ? line.text[at - 1] : ' ';
            if (!(std::isalnum(static_cast<unsigned char>(before)) || before == '_'))
                return valueAfter(Line{line.text.substr(at), line.number}, marker, ",");
            at += marker.size();
        }
    }
    return {};
}

/// The value after a command-line flag (`--max-model-len 2048`, `--max-model-len=2048`).
std::string flagValue(const Line &line, std::string_view flag)
{
    const std::string spaced = " " + std::string(flag);
    const std::size_t at = line.text.find(spaced);
    if (at == std::string_view::npos)
        return {};
    std::size_t i = at + spaced.size();
    if (i < line.text.size() && line.text[i] != ' ' && line.text[i] != '=')
        return {}; // a longer flag
    while (i < line.text.size() && (line.text[i] == ' ' || line.text[i] == '='))
        ++i;
    std::size_t j = i;
    while (j < line.text.size() && line.text[j] != ' ')
        ++j;
    return std::string(line.text.substr(i, std::min<std::size_t>(j - i, 300)));
}

/// A whole number for a setting; nothing for "None" and the like.
std::optional<double> wholeNumber(const std::string &text)
{
    const auto v = number(text, 0);
    if (!v || *v < 0 || *v != std::floor(*v))
        return std::nullopt;
    return v;
}

void integerSetting(Collector &c, const char *key, const std::string &text, const Line &line)
{
    // A setting's range is checked by the scenario reader; past 2^53 it is no setting.
    if (const auto v = wholeNumber(text); v && *v < 9007199254740992.0)
        c.setting(key, std::uint64_t(*v), line);
}

void boolSetting(Collector &c, const char *key, const std::string &text, const Line &line)
{
    if (text == "True" || text == "true")
        c.setting(key, true, line);
    else if (text == "False" || text == "false")
        c.setting(key, false, line);
}

void Collector::figure(const char *key, double value, FigureUnit unit, const Line &line)
{
    if (m_log.figure(key))
        return;
    // A figure past a double (1e400, printed as inf), past 2^64 bytes or tokens, or a negative
    // size is no engine's: refused, never compared as inf or a wrapped number. llama.cpp's
    // "unaccounted" is total - free - the rest and goes below zero when the driver under-reports.
    if (!std::isfinite(value) || std::fabs(value) >= 18446744073709551616.0)
        throw EngineLogError(line.number, std::string(key) + ": the figure is too large (" + shown(line) + ")");
    if (value < 0 && std::string_view(key) != "unaccounted")
        throw EngineLogError(line.number, std::string(key) + ": a negative figure (" + shown(line) + ")");
    m_log.figures.push_back({key, value, unit, line.number, shown(line)});
}

void Collector::bytes(const char *key, const Line &line, std::string_view marker, GbMeans gb)
{
    const auto value = bytesAfter(line, marker, gb);
    if (!value)
        truncated(line, marker);
    figure(key, *value, FigureUnit::Bytes, line);
}

void Collector::count(const char *key, const Line &line, std::string_view marker, FigureUnit unit)
{
    const auto value = numberAfter(line, marker);
    if (!value || *value < 0)
        truncated(line, marker);
    figure(key, *value, unit, line);
}

void Collector::setting(const char *key, nlohmann::json value, const Line &line)
{
    if (m_log.setting(key))
        return;
    m_log.settings.push_back({key, std::move(value), line.number});
}

void Collector::model(std::string text, const Line &line)
{
    if (!m_log.model.empty() || text.empty() || text == "None")
        return;
    m_log.model = std::move(text);
    m_log.modelLine = line.number;
}

void Collector::version(std::string text)
{
    if (m_log.version.empty())
        m_log.version = std::move(text);
}

void Collector::gpu(std::string name, const Line &line)
{
    if (!m_log.gpuName.empty() || name.empty())
        return;
    m_log.gpuName = std::move(name);
    m_log.gpuLine = line.number;
}

void Collector::refusal(const Line &line)
{
    if (!m_log.refusal)
        m_log.refusal = LogFigure{"refusal", 0, FigureUnit::Count, line.number, shown(line)};
}

void Collector::truncated(const Line &line, std::string_view marker) const
{
    throw EngineLogError(line.number, "\"" + std::string(marker) + "\" has no figure after it (a cut-off line?): " +
                                          quoteText(line.text, limits::kQuoteChars * 2));
}

} // namespace logtext

namespace {

struct EngineEntry
{
    LogEngine engine;
    bool (*is)(const Line &);
    bool (*read)(logtext::Collector &, const Line &);
};

constexpr std::array<EngineEntry, 4> kEngines{{
    {LogEngine::Vllm, logtext::isVllmLine, logtext::readVllmLine},
    {LogEngine::Sglang, logtext::isSglangLine, logtext::readSglangLine},
    {LogEngine::TensorrtLlm, logtext::isTrtllmLine, logtext::readTrtllmLine},
    {LogEngine::LlamaCpp, logtext::isLlamaCppLine, logtext::readLlamaCppLine},
}};

/// Calls `each(line)` for every line of the text, numbered from 1.
template <typename F>
void forEachLine(std::string_view text, F &&each)
{
    std::size_t number = 0, start = 0;
    while (start <= text.size()) {
        if (start == text.size() && start > 0)
            break; // the line break that ends the last line
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        ++number;
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (!each(Line{line, number}))
            return;
        if (end == text.size())
            break;
        start = end + 1;
    }
}

} // namespace

bool looksLikeEngineLog(std::string_view text)
{
    bool found = false;
    forEachLine(text.substr(0, std::min<std::size_t>(text.size(), kEngineLogBytes)), [&](const Line &line) {
        if (line.text.size() > kEngineLogLineBytes)
            return true;
        for (const EngineEntry &e : kEngines)
            if (e.is(line)) {
                found = true;
                return false;
            }
        return true;
    });
    return found;
}

EngineLog readEngineLog(std::string_view text)
{
    if (text.size() > kEngineLogBytes)
        throw EngineLogError(0, "the log is " + std::to_string(text.size()) + " bytes, more than the " +
                                    std::to_string(kEngineLogBytes / (1024 * 1024)) + " MiB read");
    const std::size_t bad = firstInvalidUtf8(text);
    if (bad != std::string_view::npos) {
        std::size_t line = 1;
        for (std::size_t i = 0; i < bad; ++i)
            line += text[i] == '\n';
        throw EngineLogError(line, "not UTF-8 text (byte " + std::to_string(bad) + ")");
    }
    // Which engine: the first line each engine's own markers recognise.
    std::array<std::size_t, kEngines.size()> first{};
    std::size_t lines = 0;
    forEachLine(text, [&](const Line &line) {
        lines = line.number;
        if (line.text.size() > kEngineLogLineBytes)
            return true;
        for (std::size_t e = 0; e < kEngines.size(); ++e)
            if (!first[e] && kEngines[e].is(line))
                first[e] = line.number;
        return true;
    });
    std::optional<std::size_t> chosen;
    for (std::size_t e = 0; e < kEngines.size(); ++e) {
        if (!first[e])
            continue;
        if (chosen)
            throw EngineLogError(first[e], std::string("a ") + logEngineName(kEngines[e].engine) +
                                               " line in a log whose line " + std::to_string(first[*chosen]) +
                                               " is " + logEngineName(kEngines[*chosen].engine) +
                                               "'s: give one engine's log at a time");
        chosen = e;
    }
    if (!chosen)
        throw EngineLogError(0, "no line of a vLLM, SGLang, TensorRT-LLM or llama.cpp start-up (" +
                                    std::to_string(lines) + " lines read)");
    EngineLog log;
    log.engine = kEngines[*chosen].engine;
    log.lines = lines;
    logtext::Collector collector(log);
    // A shell command continued with "\" is read as one line (numbered by its first).
    std::string continued;
    std::size_t continuedFrom = 0;
    forEachLine(text, [&](const Line &line) {
        if (line.text.size() > kEngineLogLineBytes)
            return true;
        if (!line.text.empty() && line.text.back() == '\\' && continued.size() < kEngineLogLineBytes) {
            if (continued.empty())
                continuedFrom = line.number;
            continued.append(line.text.substr(0, line.text.size() - 1));
            return true;
        }
        if (!continued.empty()) {
            continued.append(line.text);
            const std::string whole = std::move(continued);
            continued.clear();
            if (kEngines[*chosen].read(collector, Line{whole, continuedFrom}))
                ++log.recognised;
            return true;
        }
        if (kEngines[*chosen].read(collector, line))
            ++log.recognised;
        return true;
    });
    if (log.engine == LogEngine::LlamaCpp)
        logtext::finishLlamaCpp(collector);
    if (log.figures.empty() && log.breakdown.empty() && !log.refusal)
        throw EngineLogError(first[*chosen], std::string("a ") + logEngineName(log.engine) +
                                                 " log without a memory figure (its first line is line " +
                                                 std::to_string(first[*chosen]) + "): paste the start-up up to the KV cache lines");
    return log;
}

} // namespace headroom
