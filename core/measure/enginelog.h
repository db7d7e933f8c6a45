// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A serving engine's start-up log (vLLM, SGLang, TensorRT-LLM, llama.cpp) read as the engine
// wrote it: which engine, the launch it describes (model, version, options, GPU, parallelism)
// and the memory figures it printed, each with the line it came from. The reader never guesses:
// a log whose lines belong to no engine, or to two, is refused, and so is a memory line whose
// figure is cut off. docs/scenario-format.md ("Measurements") lists the lines each engine prints.

#include "io/inputpolicy.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// A log that holds up to this many bytes is read (real start-up logs are under a megabyte).
inline constexpr std::uint64_t kEngineLogBytes = 16 * 1024 * 1024;
/// Lines longer than this are not read as memory lines (a vLLM config line is a few KB).
inline constexpr std::size_t kEngineLogLineBytes = 64 * 1024;

enum class LogEngine { Vllm, Sglang, TensorrtLlm, LlamaCpp };
/// "vLLM", "SGLang", "TensorRT-LLM", "llama.cpp".
const char *logEngineName(LogEngine engine);
/// The scenario's `serving.engine` value; empty for engines the scenario cannot name yet.
const char *logEngineScenarioKey(LogEngine engine);

/// What a figure counts.
enum class FigureUnit { Bytes, Tokens, Count, Ratio };

/// One figure the engine printed, and where.
struct LogFigure
{
    std::string key;    ///< "weights", "kv_cache", "kv_tokens", ... (docs: the measurement keys)
    double value = 0;   ///< bytes for FigureUnit::Bytes (the engine's unit applied)
    FigureUnit unit = FigureUnit::Bytes;
    std::size_t line = 0; ///< 1-based line number in the log
    std::string text;   ///< the line, trimmed and shortened for messages
};

/// One setting of the launch as the log states it, as a v1 scenario key ("serving.max_model_len").
struct LogSetting
{
    std::string key;
    nlohmann::json value;
    std::size_t line = 0;
};

/// One row of llama.cpp's `memory breakdown [MiB]` table (MiB as printed; -1 where blank).
struct LlamaBreakdownRow
{
    std::string device; ///< "CUDA0 (RTX 4090)", "Host"
    double total = -1, free = -1, self = -1, model = -1, context = -1, compute = -1, unaccounted = -1;
    std::size_t line = 0;
};

struct EngineLog
{
    LogEngine engine = LogEngine::Vllm;
    std::string version;   ///< as printed ("0.10.1.1"); empty when the log does not say
    std::string model;     ///< as printed: a hub id or a path; empty when not stated
    std::size_t modelLine = 0;
    std::string gpuName;   ///< "NVIDIA GeForce RTX 4090" where the log names the device
    std::size_t gpuLine = 0;
    /// llama.cpp: the device whose buffers are read ("CUDA0"), the first GPU device it names.
    std::string device;
    std::vector<LogSetting> settings;
    std::vector<LogFigure> figures;
    std::vector<LlamaBreakdownRow> breakdown;
    /// The engine refused to start (not enough memory for one sequence, a failed allocation).
    std::optional<LogFigure> refusal;
    std::size_t lines = 0;
    /// Lines recognised, for the caller to say how much of the log was read.
    std::size_t recognised = 0;

    /// The first figure with `key` (the first rank's, where every rank prints one), or null.
    const LogFigure *figure(std::string_view key) const;
    const LogSetting *setting(std::string_view key) const;
};

/// The log could not be read: `line` (1-based; 0 for the whole log) and why. Its key is
/// "line N", so that what() reads "line 12: ...".
class EngineLogError : public InputError
{
public:
    EngineLogError(std::size_t lineNumber, const std::string &message)
        : InputError(lineNumber ? "line " + std::to_string(lineNumber) : std::string(), message), line(lineNumber)
    {
    }
    std::size_t line;
};

/// True when the text has a line that one of the engines prints at start-up (for File > Open and
/// drag and drop: a log rather than a JSON document).
bool looksLikeEngineLog(std::string_view text);

/// Reads a start-up log. Throws EngineLogError: larger than kEngineLogBytes, not UTF-8, lines of
/// no engine or of two, a memory line without its figure, no memory figure at all.
EngineLog readEngineLog(std::string_view text);

} // namespace headroom
