// SPDX-License-Identifier: GPL-3.0-or-later
// One input policy for every reader (scenario, comparison, lesson, config.json, safetensors
// header and index, settings, measurement cases): the limits, a strict JSON parse and the
// rules for quoting input in messages. File access is in common/inputfile.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace headroom {

/// The limits every reader enforces (docs/input-limits.md lists them for users).
namespace limits {
/// A scenario, comparison, lesson or measurement-case file (real ones are a few KB).
inline constexpr std::uint64_t kDocumentBytes = 4 * 1024 * 1024;
/// A Hugging Face config.json (real ones are under 100 KB).
inline constexpr std::uint64_t kConfigBytes = 4 * 1024 * 1024;
/// model.safetensors.index.json (the largest public ones are a few MB).
inline constexpr std::uint64_t kIndexBytes = 64 * 1024 * 1024;
/// One JSON value kept in the settings (the session's scenario, the user's GPUs).
inline constexpr std::uint64_t kSettingsValueBytes = 1024 * 1024;
/// Nesting of JSON arrays and objects (a lesson nests 7 deep, a config.json about 5).
inline constexpr int kJsonDepth = 64;
/// Steps of a lesson (each is drawn on a handout page).
inline constexpr std::size_t kLessonSteps = 200;
/// Pinned scenarios of a comparison.
inline constexpr std::size_t kPins = 8;
/// Shard files of a safetensors checkpoint (the largest public checkpoints have a few hundred).
inline constexpr std::size_t kShards = 1024;
/// Tensors of a safetensors checkpoint, all shards together.
inline constexpr std::size_t kTensors = 1'000'000;
/// Header bytes of a safetensors checkpoint, all shards together.
inline constexpr std::uint64_t kCheckpointHeaderBytes = 256 * 1024 * 1024;
/// Points of one sweep.
inline constexpr std::size_t kSweepPoints = 256;
/// Pixels of an exported PNG (width x height x scale^2): 8192 x 8192, 256 MiB in memory.
inline constexpr std::uint64_t kImagePixels = 8192ull * 8192ull;
/// Characters of a scenario name, a lesson title or a step title.
inline constexpr std::size_t kTitleBytes = 1000;
/// Bytes of a scenario's `model.name` (what the user calls the model; hub repo names are at most 96).
inline constexpr std::size_t kModelNameBytes = 200;
/// The local Hugging Face hub cache (File > Models on this computer, `headroom models --local`):
/// model folders listed, snapshots read per model, and folder entries looked at per folder.
inline constexpr std::size_t kHubRepos = 1000;
inline constexpr std::size_t kHubSnapshots = 16;
inline constexpr std::size_t kHubFolderEntries = 10000;
/// Characters of a lesson step's caption.
inline constexpr std::size_t kCaptionBytes = 4000;
/// How much of a value an error message quotes.
inline constexpr std::size_t kQuoteChars = 40;
/// Characters of a key path given on the command line (`--set`, `--train-arg`): the longest real
/// one is under 40.
inline constexpr std::size_t kKeyPathChars = 200;
/// Training configuration files of one run (`--train-config`, File > Import training config):
/// a run has at most six (TrainingArguments, PEFT, BitsAndBytes, DeepSpeed, Accelerate, Axolotl).
inline constexpr std::size_t kTrainConfigFiles = 8;
/// Bytes of one training configuration file (real ones are a few KB).
inline constexpr std::uint64_t kTrainConfigBytes = 4 * 1024 * 1024;
/// Bytes of all the training configuration files of one run together.
inline constexpr std::uint64_t kTrainConfigTotalBytes = 8 * 1024 * 1024;
} // namespace limits

/// Input that a reader refuses: names the key (a dotted path, possibly empty) and the problem.
class InputError : public std::runtime_error
{
public:
    InputError(std::string keyPath, const std::string &message)
        : std::runtime_error(keyPath.empty() ? message : keyPath + ": " + message),
          key(std::move(keyPath)), detail(message)
    {
    }
    std::string key;    ///< where, e.g. "pins[1].train.seq_len"; empty for the whole input
    std::string detail; ///< what, without the key
};

/// Why a strict JSON parse failed.
enum class JsonProblem {
    Syntax,       ///< not JSON at all
    TooLarge,     ///< more bytes than allowed
    TooDeep,      ///< nested deeper than allowed
    DuplicateKey, ///< an object names a key twice
    TooLargeNumber, ///< a number past a double, or a whole number past 64 bits
};

/// A JSON text that breaks the JSON rules or the input policy.
class JsonInputError : public InputError
{
public:
    JsonInputError(JsonProblem kind, std::string keyPath, const std::string &message)
        : InputError(std::move(keyPath), message), problem(kind)
    {
    }
    JsonProblem problem;
};

/// Limits of one strict parse.
struct JsonLimits
{
    std::uint64_t maxBytes = limits::kDocumentBytes;
    int maxDepth = limits::kJsonDepth;
};

/// Parses JSON text, enforcing the size and the depth while parsing (a deep value never
/// reaches a recursive function) and rejecting an object that names a key twice (the key path
/// is in the error). Throws JsonInputError; syntax errors give the line and column.
nlohmann::json parseStrictJson(std::string_view text, const JsonLimits &limits = {});

/// A JSON value for a message: at most `maxChars` characters of its compact text ("..." marks
/// a cut), never serializing more than that, control characters escaped.
std::string quoteJson(const nlohmann::json &value, std::size_t maxChars = limits::kQuoteChars);

/// Text for a message: at most `maxChars` bytes (cut at a character boundary, "..." added),
/// control characters escaped.
std::string quoteText(std::string_view text, std::size_t maxChars = limits::kQuoteChars);

/// Text for a message in double quotes: `"` + quoteText(text) + `"`.
std::string quotedText(std::string_view text, std::size_t maxChars = limits::kQuoteChars);

/// Text safe to print on a terminal: control characters (C0, DEL, C1), bidirectional
/// overrides and invalid UTF-8 bytes are written as escapes (\n, \x1b, \u202e); the rest of
/// the UTF-8 text is kept.
std::string printable(std::string_view text);

/// The offset of the first byte that is not part of valid UTF-8 (overlong forms and surrogates
/// included), or npos.
std::size_t firstInvalidUtf8(std::string_view text);

/// A key for a key path: as written when short and printable, else quoted and shortened.
std::string keyForPath(std::string_view key);

/// A whole key path for a message: as it is up to limits::kKeyPathChars characters, else
/// shortened; control characters escaped.
std::string keyPathText(std::string_view path);

/// Why a dotted key path given on the command line (`--set`, `--train-arg`) is refused: longer
/// than limits::kKeyPathChars, or an empty part (`a..b`, `.a`); empty when it is fine.
std::string keyPathProblem(std::string_view path);

/// The rounded value of a finite double in [0, 2^64), or false (NaN, infinite, negative or
/// past 2^64): the one conversion from floating point to bytes.
bool toUint64(double value, std::uint64_t &result);

} // namespace headroom
