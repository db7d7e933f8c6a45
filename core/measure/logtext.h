// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the engine-log readers: finding a marker in a line and the figure after it.

#include "measure/enginelog.h"

#include <optional>
#include <string>
#include <string_view>

namespace headroom::logtext {

class Collector;

/// One line of the log, without its line break.
struct Line
{
    std::string_view text;
    std::size_t number = 0;
    bool has(std::string_view marker) const { return text.find(marker) != std::string_view::npos; }
};

/// How an engine labels its sizes: vLLM and SGLang divide by 2^30 and print "GB" (vLLM's
/// model_runner.py "Loading model weights took %.4f GB" of bytes / 2**30, SGLang's
/// get_available_gpu_memory() of bytes / (1 << 30)); TensorRT-LLM and llama.cpp mean what they say.
enum class GbMeans { Gib, Gb };

/// The number that starts at `from` in `text` (spaces skipped; "75,840", "-0.45", "1.5e3"), and
/// where it ends.
std::optional<double> number(std::string_view text, std::size_t from, std::size_t *end = nullptr);
/// The number after the first `marker` in the line.
std::optional<double> numberAfter(const Line &line, std::string_view marker, std::size_t *end = nullptr);
/// The size after the first `marker`: a number and its unit (GiB, GB, MiB, MB, KiB, KB, B, or
/// the unit glued on: "21.21GiB"), in bytes. Nothing when there is no number or no unit.
std::optional<double> bytesAfter(const Line &line, std::string_view marker, GbMeans gb, std::size_t *end = nullptr);
/// The text between `marker` and the next `stop` (or the end of the line), quotes removed.
std::string valueAfter(const Line &line, std::string_view marker, std::string_view stop = ",");
/// `name=value`, `'name': value` or `"name": value` in a config line or a dict: the value as
/// text, quotes removed; empty when absent.
std::string configValue(const Line &line, std::string_view name);
/// The value after a command-line flag (`--max-model-len 2048`, `--max-model-len=2048`).
std::string flagValue(const Line &line, std::string_view flag);
/// A whole, non-negative number; nothing for "None" and the like.
std::optional<double> wholeNumber(const std::string &text);
/// A setting from a whole number or a Python bool in text; nothing when the text is neither.
void integerSetting(Collector &c, const char *key, const std::string &text, const Line &line);
void boolSetting(Collector &c, const char *key, const std::string &text, const Line &line);
/// The line trimmed and shortened for a message or a figure's `text`.
std::string shown(const Line &line);

/// Collects what one engine's reader found.
class Collector
{
public:
    explicit Collector(EngineLog &log) : m_log(log) {}
    /// Records a figure (the first per key wins; ranks print the same lines again).
    void figure(const char *key, double value, FigureUnit unit, const Line &line);
    /// A size after `marker`; refuses the log when the marker is there but the size is not.
    void bytes(const char *key, const Line &line, std::string_view marker, GbMeans gb);
    void count(const char *key, const Line &line, std::string_view marker, FigureUnit unit = FigureUnit::Count);
    void setting(const char *key, nlohmann::json value, const Line &line);
    void model(std::string text, const Line &line);
    void version(std::string text);
    void gpu(std::string name, const Line &line);
    void refusal(const Line &line);
    [[noreturn]] void truncated(const Line &line, std::string_view marker) const;
    EngineLog &log() { return m_log; }

private:
    EngineLog &m_log;
};

// One engine each (logvllm.cpp, logsglang.cpp, logtrtllm.cpp, logllamacpp.cpp).
/// True for a line only this engine prints at start-up.
bool isVllmLine(const Line &line);
bool isSglangLine(const Line &line);
bool isTrtllmLine(const Line &line);
bool isLlamaCppLine(const Line &line);
/// Reads one line; true when it was one of the engine's memory or launch lines.
bool readVllmLine(Collector &c, const Line &line);
bool readSglangLine(Collector &c, const Line &line);
bool readTrtllmLine(Collector &c, const Line &line);
bool readLlamaCppLine(Collector &c, const Line &line);
/// After the last line: the first GPU's row of llama.cpp's breakdown table gives the figures its
/// buffer lines did not (model, context, compute, unaccounted, the device's total).
void finishLlamaCpp(Collector &c);

} // namespace headroom::logtext
