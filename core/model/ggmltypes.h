// SPDX-License-Identifier: GPL-3.0-or-later
// The tensor types of ggml (llama.cpp's tensor library) as GGUF files store them: each type's
// block of elements and the bytes of one block, from ggml/src/ggml.c `type_traits` and the block
// structs of ggml/src/ggml-common.h. Used by the GGUF reader and by the llama.cpp file types'
// per-tensor sizing alike (no reader: plain data).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace headroom {

/// One ggml tensor type.
struct GgmlType
{
    std::uint32_t id = 0;       ///< the `ggml_type` number written in a GGUF tensor info
    const char *name = "";      ///< ggml_type_name(): "f16", "q4_K", "iq4_xs", "mxfp4"
    std::uint32_t blockSize = 1; ///< elements per block (ggml_blck_size)
    std::uint32_t typeSize = 0;  ///< bytes per block (ggml_type_size)
};

/// ggml type numbers (ggml/include/ggml.h `enum ggml_type`).
namespace ggml {
inline constexpr std::uint32_t F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8,
                               Q8_1 = 9, Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14,
                               Q8_K = 15, IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19,
                               IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23, I8 = 24, I16 = 25,
                               I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30, TQ1_0 = 34,
                               TQ2_0 = 35, MXFP4 = 39;
} // namespace ggml

/// The type numbered `id`, or nothing for a number ggml never had, one it removed (4, 5, 31-33,
/// 36-38: repacked layouts no GGUF file may hold) or one newer than this table (40 on).
std::optional<GgmlType> ggmlType(std::uint32_t id);

/// The type named `name` as ggml_type_name() spells it (case-insensitive), or nothing.
std::optional<GgmlType> ggmlTypeNamed(std::string_view name);

/// Bytes of a row of `elements` elements of `type`; 0 when `elements` is not a whole number of
/// blocks (ggml_row_size asserts it is).
std::uint64_t ggmlRowBytes(const GgmlType &type, std::uint64_t elements);

} // namespace headroom
