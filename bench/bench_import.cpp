// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a sharded safetensors checkpoint as --model-weights and File > Import do: an index of
// 1,000 tensors over 4 shards (sparse files: only the headers are read), from a warm page cache.
#include "benchutil.h"
#include "modelimport.h"

#include <QFile>
#include <QTemporaryDir>
#include <cstdio>
#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;

namespace {

/// Writes one shard: the 8-byte header length, the header, and sparse data of the size it names.
bool writeShard(const QString &path, const json &header, std::uint64_t dataBytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    const std::string text = header.dump();
    char length[8];
    for (int i = 0; i < 8; ++i)
        length[i] = char((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
    file.write(length, 8);
    file.write(text.data(), qint64(text.size()));
    return file.resize(qint64(8 + text.size() + dataBytes));
}

} // namespace

int main()
{
    QTemporaryDir dir;
    if (!dir.isValid())
        return 1;
    constexpr int kShards = 4, kTensors = 1000;
    json weightMap = json::object();
    std::uint64_t total = 0;
    for (int shard = 0; shard < kShards; ++shard) {
        const std::string name = "model-0000" + std::to_string(shard + 1) + "-of-0000" +
                                 std::to_string(kShards) + ".safetensors";
        json header = json::object();
        std::uint64_t offset = 0;
        for (int i = shard; i < kTensors; i += kShards) {
            const std::string tensor = "model.layers." + std::to_string(i / 10) + ".t" + std::to_string(i) + ".weight";
            const std::uint64_t rows = 4096, columns = 1024 + std::uint64_t(i % 7) * 512;
            const std::uint64_t bytes = rows * columns * 2;
            header[tensor] = {{"dtype", "BF16"}, {"shape", {rows, columns}}, {"data_offsets", {offset, offset + bytes}}};
            offset += bytes;
            weightMap[tensor] = name;
        }
        total += offset;
        if (!writeShard(dir.filePath(QString::fromStdString(name)), header, offset))
            return 1;
    }
    QFile index(dir.filePath(QStringLiteral("model.safetensors.index.json")));
    if (!index.open(QIODevice::WriteOnly))
        return 1;
    index.write(QByteArray::fromStdString(json{{"metadata", {{"total_size", total}}}, {"weight_map", weightMap}}.dump(2)));
    index.close();

    std::uint64_t tensors = 0;
    bench::measure("safetensors_index_1000_tensors", 5, 200, [&] {
        tensors += readModelWeights(index.fileName()).tensors;
    });
    if (tensors != 205ull * kTensors) {
        std::fprintf(stderr, "bench_import: read %llu tensors\n", static_cast<unsigned long long>(tensors));
        return 1;
    }
    return 0;
}
