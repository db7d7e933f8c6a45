// SPDX-License-Identifier: GPL-3.0-or-later
// GGUF files (llama.cpp's model format, versions 2 and 3, one file or a split
// `-0000N-of-0000M.gguf` set): the header, the metadata and every tensor's name, type, shape and
// offset, read without the tensor data and checked as ggml/src/gguf.cpp checks them
// (gguf_init_from_file_impl). Bounded: docs/input-limits.md.
#pragma once

#include "io/inputpolicy.h"
#include "io/safetensors.h"
#include "model/ggmltypes.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// A GGUF file or split set that cannot be read; says what is wrong (an InputError without a
/// key: the readers' own errors are shown as they are).
class GgufError : public InputError
{
public:
    explicit GgufError(const std::string &message) : InputError({}, message) {}
};

/// The bytes given end before the header does while the file goes on: read at least `needed`
/// bytes from the start and parse again (not an error the user sees).
struct GgufNeedMore
{
    std::uint64_t needed = 0;
};

/// The most bytes one file's header (metadata and tensor infos, before the data) may take: the
/// largest real ones (a 262,144-token vocabulary with its merges) are about 15 MB.
inline constexpr std::uint64_t kGgufMaxHeaderBytes = 128ull * 1024 * 1024;
/// Metadata keys of one file (real ones have about 50).
inline constexpr std::uint64_t kGgufMaxKeys = 65'536;
/// Files of a split set (gguf-split's `split.count` is a uint16).
inline constexpr std::uint64_t kGgufMaxSplits = 1024;
/// ggml's GGML_MAX_NAME: a tensor name has at most 63 bytes.
inline constexpr std::size_t kGgufMaxNameBytes = 63;

/// GGUF value types (gguf.h `enum gguf_type`).
enum class GgufValueType : std::uint32_t {
    U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7, String = 8, Array = 9,
    U64 = 10, I64 = 11, F64 = 12,
};

/// One metadata value. Arrays keep their element type and count; arrays of whole numbers of at
/// most kGgufKeptArray elements also keep their values (per-layer head counts, window patterns),
/// longer ones (a vocabulary's token ids, scores and strings) only their count.
struct GgufValue
{
    GgufValueType type = GgufValueType::U32;
    std::int64_t integer = 0; ///< any whole-number type and bool (unsigned 64-bit past 2^63: see `big`)
    std::uint64_t big = 0;    ///< U64 as written
    double real = 0;          ///< F32 and F64
    std::string text;         ///< String
    GgufValueType elementType = GgufValueType::U8; ///< Array
    std::uint64_t count = 0;                       ///< Array
    std::vector<std::int64_t> integers;            ///< Array of whole numbers (or bools), when kept
    bool isInteger() const;
};
inline constexpr std::uint64_t kGgufKeptArray = 4096;

/// One tensor info.
struct GgufTensor
{
    std::string name;
    GgmlType type;
    std::uint32_t dims = 0;
    std::array<std::uint64_t, 4> shape{1, 1, 1, 1}; ///< ne[0..3], ne[0] the row (contiguous) length
    std::uint64_t offset = 0;   ///< from the start of the data section
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;    ///< ggml_nbytes: elements / block size x bytes per block
};

/// One parsed file.
struct GgufFile
{
    std::uint32_t version = 0;
    std::uint64_t alignment = 32; ///< general.alignment
    std::map<std::string, GgufValue> metadata;
    std::vector<GgufTensor> tensors; ///< in file order
    std::uint64_t headerBytes = 0;   ///< through the last tensor info
    std::uint64_t dataOffset = 0;    ///< the header padded to the alignment
    std::uint64_t dataBytes = 0;     ///< the tensors, each padded to the alignment
};

/// Parses the first `bytes` of a file of `fileSize` bytes. Throws GgufNeedMore when the header
/// goes on past `bytes` (and the file does), GgufError when it is malformed, truncated or past
/// the limits: wrong magic, version 1 or newer than 3, big-endian, a key twice, an unknown or
/// removed ggml type, a row that is not whole blocks, a tensor named twice, offsets that are
/// not the running total of the padded sizes (gguf.cpp's own rule), data past the end.
GgufFile parseGgufHeader(std::string_view bytes, std::uint64_t fileSize);

/// One file of a set, as read.
struct GgufShard
{
    std::string file;
    std::uint64_t fileSize = 0;
    GgufFile header;
};

/// What a GGUF model holds, from its headers alone.
struct GgufModel
{
    WeightsSummary weights;     ///< totals, bytes by ggml type name
    std::vector<GgufTensor> tensors; ///< every tensor of the set, file by file
    std::map<std::string, GgufValue> metadata; ///< the first file's
    std::string architecture;   ///< general.architecture
    std::map<int, std::uint64_t> layerBytes; ///< "blk.N." tensors' bytes by N
    std::uint64_t otherBytes = 0; ///< tensors outside the blocks (token_embd, output, norms)
    std::optional<std::uint32_t> fileType; ///< general.file_type (llama_ftype)
};

/// Adds up one file or a split set (in split order). A set must agree on split.count, number
/// its files 0..count-1 once each, hold split.tensors.count tensors in all, and name no tensor
/// twice. Throws GgufError.
GgufModel summarizeGguf(const std::vector<GgufShard> &shards);

/// A metadata value as a whole number when it is one (any integer type), else nothing.
std::optional<std::int64_t> ggufInteger(const std::map<std::string, GgufValue> &metadata, const std::string &key);

/// "PREFIX-00001-of-00003.gguf": the split's number (1-based) and count; nothing for another name.
std::optional<std::pair<int, int>> ggufSplitName(std::string_view fileName);

} // namespace headroom
