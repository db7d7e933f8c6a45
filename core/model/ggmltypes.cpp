// SPDX-License-Identifier: GPL-3.0-or-later
#include "ggmltypes.h"

#include <array>
#include <cctype>

namespace headroom {

namespace {

// Block sizes and bytes per block: ggml/src/ggml.c `type_traits` (blck_size, type_size =
// sizeof(block_*)); the struct sizes from ggml/src/ggml-common.h, QK_K = 256, ggml_half 2 bytes:
//   q4_0  {d; qs[16]}                        2 + 16          = 18 per 32
//   q4_1  {d, m; qs[16]}                     4 + 16          = 20 per 32
//   q5_0  {d; qh[4]; qs[16]}                 2 + 4 + 16      = 22 per 32
//   q5_1  {d, m; qh[4]; qs[16]}              4 + 4 + 16      = 24 per 32
//   q8_0  {d; qs[32]}                        2 + 32          = 34 per 32
//   q8_1  {d, s; qs[32]}                     4 + 32          = 36 per 32
//   q2_K  {scales[16]; qs[64]; d, dmin}      16 + 64 + 4     = 84 per 256
//   q3_K  {hmask[32]; qs[64]; scales[12]; d} 32 + 64 + 12 + 2 = 110 per 256
//   q4_K  {d, dmin; scales[12]; qs[128]}     4 + 12 + 128    = 144 per 256
//   q5_K  {d, dmin; scales[12]; qh[32]; qs[128]} 4 + 12 + 32 + 128 = 176 per 256
//   q6_K  {ql[128]; qh[64]; scales[16]; d}   128 + 64 + 16 + 2 = 210 per 256
//   q8_K  {float d; qs[256]; bsums[16] i16}  4 + 256 + 32    = 292 per 256
//   iq2_xxs {d; qs[32] u16}                  2 + 64          = 66 per 256
//   iq2_xs  {d; qs[32] u16; scales[8]}       2 + 64 + 8      = 74 per 256
//   iq3_xxs {d; qs[96]}                      2 + 96          = 98 per 256
//   iq1_s   {d; qs[32]; qh[8] u16}           2 + 32 + 16     = 50 per 256
//   iq4_nl  {d; qs[16]}                      2 + 16          = 18 per 32
//   iq3_s   {d; qs[64]; qh[8]; signs[32]; scales[4]} 2 + 64 + 8 + 32 + 4 = 110 per 256
//   iq2_s   {d; qs[64]; qh[8]; scales[8]}    2 + 64 + 8 + 8  = 82 per 256
//   iq4_xs  {d; scales_h u16; scales_l[4]; qs[128]} 2 + 2 + 4 + 128 = 136 per 256
//   iq1_m   {qs[32]; qh[16]; scales[8]}      32 + 16 + 8     = 56 per 256
//   tq1_0   {qs[48]; qh[4]; d}               48 + 4 + 2      = 54 per 256
//   tq2_0   {qs[64]; d}                      64 + 2          = 66 per 256
//   mxfp4   {e; qs[16]}                      1 + 16          = 17 per 32
constexpr std::array<GgmlType, 33> kTypes{{
    {ggml::F32, "f32", 1, 4},          {ggml::F16, "f16", 1, 2},
    {ggml::Q4_0, "q4_0", 32, 18},      {ggml::Q4_1, "q4_1", 32, 20},
    {ggml::Q5_0, "q5_0", 32, 22},      {ggml::Q5_1, "q5_1", 32, 24},
    {ggml::Q8_0, "q8_0", 32, 34},      {ggml::Q8_1, "q8_1", 32, 36},
    {ggml::Q2_K, "q2_K", 256, 84},     {ggml::Q3_K, "q3_K", 256, 110},
    {ggml::Q4_K, "q4_K", 256, 144},    {ggml::Q5_K, "q5_K", 256, 176},
    {ggml::Q6_K, "q6_K", 256, 210},    {ggml::Q8_K, "q8_K", 256, 292},
    {ggml::IQ2_XXS, "iq2_xxs", 256, 66}, {ggml::IQ2_XS, "iq2_xs", 256, 74},
    {ggml::IQ3_XXS, "iq3_xxs", 256, 98}, {ggml::IQ1_S, "iq1_s", 256, 50},
    {ggml::IQ4_NL, "iq4_nl", 32, 18},  {ggml::IQ3_S, "iq3_s", 256, 110},
    {ggml::IQ2_S, "iq2_s", 256, 82},   {ggml::IQ4_XS, "iq4_xs", 256, 136},
    {ggml::I8, "i8", 1, 1},            {ggml::I16, "i16", 1, 2},
    {ggml::I32, "i32", 1, 4},          {ggml::I64, "i64", 1, 8},
    {ggml::F64, "f64", 1, 8},          {ggml::IQ1_M, "iq1_m", 256, 56},
    {ggml::BF16, "bf16", 1, 2},        {ggml::TQ1_0, "tq1_0", 256, 54},
    {ggml::TQ2_0, "tq2_0", 256, 66},   {ggml::MXFP4, "mxfp4", 32, 17},
    {0, "", 0, 0}, // end
}};

} // namespace

std::optional<GgmlType> ggmlType(std::uint32_t id)
{
    // One slot per type number (the table is sorted by number, a few numbers unused).
    static const std::array<std::optional<GgmlType>, 40> byId = [] {
        std::array<std::optional<GgmlType>, 40> table{};
        for (const GgmlType &type : kTypes)
            if (type.blockSize > 0 && type.id < table.size())
                table[type.id] = type;
        return table;
    }();
    return id < byId.size() ? byId[id] : std::nullopt;
}

std::optional<GgmlType> ggmlTypeNamed(std::string_view name)
{
    for (const GgmlType &type : kTypes) {
        const std::string_view own = type.name;
        if (type.blockSize == 0 || own.size() != name.size())
            continue;
        bool same = true;
        for (std::size_t i = 0; i < own.size() && same; ++i)
            same = std::tolower(static_cast<unsigned char>(own[i])) ==
                   std::tolower(static_cast<unsigned char>(name[i]));
        if (same)
            return type;
    }
    return std::nullopt;
}

std::uint64_t ggmlRowBytes(const GgmlType &type, std::uint64_t elements)
{
    if (type.blockSize == 0 || elements % type.blockSize != 0)
        return 0;
    return elements / type.blockSize * type.typeSize;
}

} // namespace headroom
