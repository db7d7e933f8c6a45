// SPDX-License-Identifier: GPL-3.0-or-later
// Reading the headers of a split GGUF set as large as DeepSeek-V3's Q4_K_M (about 400 GB in 9
// files, 61 blocks of MoE tensors, a 129,280-token vocabulary with its merges in the first file)
// as --model-weights and File > Import do: sparse files, only the headers read, warm page cache.
// Goal (issue 24): <= 100 ms.
#include "benchutil.h"
#include "ggufimport.h"
#include "ggufwriter.h"

#include <QTemporaryDir>
#include <cstdio>

using namespace headroom;
using headroom::test::GgufTensorSpec;
using headroom::test::GgufWriter;

int main()
{
    QTemporaryDir dir;
    if (!dir.isValid())
        return 1;
    constexpr int kParts = 9, kLayers = 61;
    constexpr std::uint32_t Q4_K = 12, F32 = 0;
    // 61 blocks x (3 expert tensors of 7168 x 2048 x 256 in q4_K + 8 smaller ones): each expert
    // tensor 7168 x 2048 x 256 / 256 x 144 = 2,113,929,216 B, 3 x 61 of them 387 GB.
    std::vector<GgufTensorSpec> tensors;
    tensors.push_back({"token_embd.weight", Q4_K, {7168, 129280}, 7168ull * 129280 / 256 * 144});
    for (int layer = 0; layer < kLayers; ++layer) {
        const std::string b = "blk." + std::to_string(layer) + ".";
        for (const char *name : {"ffn_gate_exps.weight", "ffn_up_exps.weight", "ffn_down_exps.weight"})
            tensors.push_back({b + name, Q4_K, {7168, 2048, 256}, 7168ull * 2048 * 256 / 256 * 144});
        for (const char *name : {"attn_q_a.weight", "attn_q_b.weight", "attn_kv_a_mqa.weight", "attn_kv_b.weight",
                                 "attn_output.weight", "ffn_gate_shexp.weight", "ffn_up_shexp.weight"})
            tensors.push_back({b + name, Q4_K, {7168, 2048}, 7168ull * 2048 / 256 * 144});
        for (const char *name : {"attn_norm.weight", "ffn_norm.weight", "attn_q_a_norm.weight", "attn_kv_a_norm.weight",
                                 "exp_probs_b.bias"})
            tensors.push_back({b + name, F32, {7168}, 7168 * 4});
    }
    std::vector<std::string> vocabulary, merges;
    for (int i = 0; i < 129280; ++i)
        vocabulary.push_back("tok" + std::to_string(i));
    for (int i = 0; i < 127741; ++i)
        merges.push_back("a" + std::to_string(i) + " b");
    const std::size_t perPart = (tensors.size() + kParts - 1) / kParts;
    QString first;
    for (int part = 0; part < kParts; ++part) {
        GgufWriter w;
        if (part == 0) {
            w.keyString("general.architecture", "deepseek2");
            w.keyU32("deepseek2.block_count", kLayers);
            w.keyStrings("tokenizer.ggml.tokens", vocabulary);
            w.keyStrings("tokenizer.ggml.merges", merges);
            w.keyI32s("tokenizer.ggml.token_type", std::vector<std::int32_t>(129280, 1));
        }
        w.keyU16("split.no", std::uint16_t(part));
        w.keyU16("split.count", kParts);
        w.keyI32("split.tensors.count", std::int32_t(tensors.size()));
        for (std::size_t i = std::size_t(part) * perPart; i < std::min(tensors.size(), (part + 1) * perPart); ++i)
            w.tensor(tensors[i]);
        const QString name = dir.filePath(QStringLiteral("deepseek-%1-of-%2.gguf")
                                              .arg(part + 1, 5, 10, QLatin1Char('0'))
                                              .arg(kParts, 5, 10, QLatin1Char('0')));
        if (!w.write(name))
            return 1;
        if (part == 0)
            first = name;
    }
    std::uint64_t bytes = 0;
    bench::measure("gguf_split_set_400gb_headers", 3, 50, [&] { bytes = readGgufModel(first).weights.bytes; });
    if (bytes < 380'000'000'000ull) {
        std::fprintf(stderr, "bench_gguf: read %llu bytes of tensors\n", static_cast<unsigned long long>(bytes));
        return 1;
    }
    return 0;
}
