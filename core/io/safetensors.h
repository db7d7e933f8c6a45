// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// A safetensors file or index that cannot be read; says what is wrong.
class SafetensorsError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// The most header bytes a file may declare (the safetensors reference implementation's cap).
inline constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

/// One tensor entry of a safetensors header.
struct SafetensorsTensor
{
    std::string name;
    std::string dtype; ///< as written: "BF16", "I32", "F8_E4M3", ...
    std::vector<std::uint64_t> shape;
    std::uint64_t begin = 0; ///< data_offsets, relative to the end of the header
    std::uint64_t end = 0;
    std::uint64_t elements = 0;
    bool operator==(const SafetensorsTensor &) const = default;
};

/// A parsed and validated safetensors header.
struct SafetensorsHeader
{
    std::vector<SafetensorsTensor> tensors; ///< in data order
    std::map<std::string, std::string> metadata; ///< the "__metadata__" entry
    std::uint64_t headerBytes = 0; ///< the JSON header's length (without the 8-byte prefix)
    std::uint64_t dataBytes = 0;   ///< the byte buffer after the header
};

/// model.safetensors.index.json: which shard holds each tensor.
struct SafetensorsIndex
{
    std::map<std::string, std::string> weightMap; ///< tensor name -> shard file name
    std::vector<std::string> shards;              ///< distinct shard files, sorted
    std::optional<std::uint64_t> totalSize;       ///< metadata.total_size when given
};

/// Bits per element of a safetensors dtype name, or 0 when the name is unknown.
int safetensorsDTypeBits(std::string_view dtype);

/// The header length from the first 8 bytes of a file of `fileSize` bytes. Throws when fewer
/// than 8 bytes are given, when the length is 0, beyond kSafetensorsMaxHeaderBytes, or runs
/// past the end of the file. Call it before reading (or allocating) the header.
std::uint64_t safetensorsHeaderLength(std::string_view firstBytes, std::uint64_t fileSize);

/// Parses and validates a header: known dtypes, shapes, and data_offsets that are ordered,
/// contiguous (no gaps, no overlaps), of shape x dtype size each, and exactly fill the
/// `fileSize - 8 - header length` bytes after the header. Throws SafetensorsError.
SafetensorsHeader parseSafetensorsHeader(std::string_view headerJson, std::uint64_t fileSize);

/// Parses model.safetensors.index.json. Throws SafetensorsError.
SafetensorsIndex parseSafetensorsIndex(std::string_view text);

/// Totals for one dtype.
struct DTypeTotal
{
    std::uint64_t tensors = 0;
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
    bool operator==(const DTypeTotal &) const = default;
};

/// What a checkpoint holds, from its headers alone.
struct WeightsSummary
{
    std::uint64_t files = 0;
    std::uint64_t tensors = 0;
    std::uint64_t elements = 0;   ///< stored elements of every tensor
    std::uint64_t params = 0;     ///< model parameters: packed 2- to 8-bit weights unpacked, scales excluded
    std::uint64_t bytes = 0;      ///< tensor data bytes (what loading the weights costs)
    std::uint64_t quantMetadataBytes = 0; ///< scales, zero points, absmax, ... (part of bytes)
    std::uint64_t fileBytes = 0;  ///< file sizes including headers
    std::map<std::string, DTypeTotal> byDType;
    std::vector<std::string> notes;
};

/// One parsed shard and its file name (as the index names it).
struct SafetensorsShard
{
    std::string file;
    std::uint64_t fileSize = 0;
    SafetensorsHeader header;
};

/// Adds up the shards. With an index, every tensor it lists must be in the shard it names, and
/// no tensor may appear twice. Quantized checkpoints: GPTQ/AWQ `qweight` int32 tensors count
/// 32 / bits parameters per element, the bits (2, 3, 4 or 8) read from the qzeros, scales and
/// g_idx shapes beside them, `packedBits` where no shape tells (compressed-tensors
/// weight_packed); bitsandbytes 4-bit weights 2 per byte; scales, zero points and absmax
/// tensors are quantization metadata, not parameters.
WeightsSummary summarizeSafetensors(const std::vector<SafetensorsShard> &shards,
                                    const SafetensorsIndex *index = nullptr, int packedBits = 4);

} // namespace headroom
