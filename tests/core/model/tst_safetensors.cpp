// SPDX-License-Identifier: GPL-3.0-or-later
// safetensors headers: files generated here (single, sharded with an index, quantized, a
// sparse 100 GB checkpoint) give exact counts and bytes; every malformed file gives its error
// without reading past the header.
#include "modelimport.h"
#include "io/safetensors.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace headroom;
using nlohmann::json;

namespace {

struct TensorSpec
{
    std::string name;
    std::string dtype;
    std::vector<std::uint64_t> shape;
};

std::uint64_t bytesOf(const TensorSpec &t)
{
    std::uint64_t elements = 1;
    for (std::uint64_t size : t.shape)
        elements *= size;
    return elements * std::uint64_t(safetensorsDTypeBits(t.dtype)) / 8;
}

QByteArray lengthPrefix(std::uint64_t length)
{
    QByteArray bytes(8, '\0');
    for (int i = 0; i < 8; ++i)
        bytes[i] = char((length >> (8 * i)) & 0xff);
    return bytes;
}

/// The header JSON for tensors laid out back to back, and the data size it describes.
std::string headerFor(const std::vector<TensorSpec> &tensors, std::uint64_t &dataBytes,
                      const json &metadata = json())
{
    json header = json::object();
    if (!metadata.is_null())
        header["__metadata__"] = metadata;
    dataBytes = 0;
    for (const TensorSpec &t : tensors) {
        const std::uint64_t size = bytesOf(t);
        header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {dataBytes, dataBytes + size}}};
        dataBytes += size;
    }
    return header.dump();
}

} // namespace

Q_DECLARE_METATYPE(std::vector<TensorSpec>)

class TestSafetensors : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    /// Writes the length, the header and (sparse) zero data of `dataBytes`.
    QString writeFile(const QString &name, const QByteArray &header, std::uint64_t dataBytes,
                      std::optional<std::uint64_t> claimedLength = std::nullopt)
    {
        QFile file(path(name));
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return {};
        file.write(lengthPrefix(claimedLength.value_or(std::uint64_t(header.size()))));
        file.write(header);
        file.resize(qint64(8 + header.size() + qint64(dataBytes)));
        return path(name);
    }

    QString writeTensors(const QString &name, const std::vector<TensorSpec> &tensors,
                         const json &metadata = json())
    {
        std::uint64_t data = 0;
        const std::string header = headerFor(tensors, data, metadata);
        return writeFile(name, QByteArray::fromStdString(header), data);
    }

    QString writeIndex(const QString &name, const json &weightMap, std::uint64_t totalSize)
    {
        QFile file(path(name));
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return {};
        const json index = {{"metadata", {{"total_size", totalSize}}}, {"weight_map", weightMap}};
        file.write(QByteArray::fromStdString(index.dump(2)));
        return path(name);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void singleFileExactCounts()
    {
        const std::vector<TensorSpec> tensors{
            {"model.embed_tokens.weight", "BF16", {1000, 64}},
            {"model.layers.0.self_attn.q_proj.weight", "BF16", {64, 64}},
            {"model.layers.0.input_layernorm.weight", "F32", {64}},
            {"model.layers.0.mlp.up_proj.weight", "F16", {128, 64}},
            {"lm_head.weight", "BF16", {1000, 64}},
            {"step", "I64", {}},
            {"empty", "F32", {0, 4}},
        };
        const QString file = writeTensors(QStringLiteral("model.safetensors"), tensors,
                                          {{"format", "pt"}});
        const WeightsSummary summary = readModelWeights(file);
        QCOMPARE(summary.files, 1ull);
        QCOMPARE(summary.tensors, 7ull);
        const std::uint64_t params = 64000 + 4096 + 64 + 8192 + 64000 + 1 + 0;
        QCOMPARE(summary.params, params);
        QCOMPARE(summary.elements, params);
        QCOMPARE(summary.bytes, (64000 + 4096 + 64000) * 2ull + 64 * 4 + 8192 * 2 + 8);
        QCOMPARE(summary.byDType.at("BF16"), (DTypeTotal{3, 132096, 264192}));
        QCOMPARE(summary.byDType.at("F32"), (DTypeTotal{2, 64, 256}));
        QCOMPARE(summary.byDType.at("F16"), (DTypeTotal{1, 8192, 16384}));
        QCOMPARE(summary.byDType.at("I64"), (DTypeTotal{1, 1, 8}));
        QCOMPARE(summary.quantMetadataBytes, 0ull);
        QCOMPARE(summary.fileBytes, std::uint64_t(QFileInfo(file).size()));

        // The core parser sees the same header and the metadata.
        QFile raw(file);
        QVERIFY(raw.open(QIODevice::ReadOnly));
        const QByteArray bytes = raw.read(8);
        const std::uint64_t length = safetensorsHeaderLength(bytes.toStdString(), std::uint64_t(raw.size()));
        const SafetensorsHeader header = parseSafetensorsHeader(raw.read(qint64(length)).toStdString(),
                                                                std::uint64_t(raw.size()));
        QCOMPARE(header.metadata.at("format"), std::string("pt"));
        QCOMPARE(header.tensors.front().name, std::string("model.embed_tokens.weight")); // data order
        QCOMPARE(header.tensors.back().name, std::string("empty"));
    }

    void shardedIndexExactCounts()
    {
        const std::vector<TensorSpec> first{{"embed.weight", "BF16", {32000, 256}},
                                            {"layers.0.q.weight", "BF16", {256, 256}}};
        const std::vector<TensorSpec> second{{"layers.1.q.weight", "BF16", {256, 256}},
                                             {"norm.weight", "F32", {256}},
                                             {"lm_head.weight", "BF16", {32000, 256}}};
        writeTensors(QStringLiteral("model-00001-of-00002.safetensors"), first);
        writeTensors(QStringLiteral("model-00002-of-00002.safetensors"), second);
        json map;
        for (const auto &t : first)
            map[t.name] = "model-00001-of-00002.safetensors";
        for (const auto &t : second)
            map[t.name] = "model-00002-of-00002.safetensors";
        const std::uint64_t bytes = (2 * 32000 * 256 + 2 * 256 * 256) * 2ull + 256 * 4;
        const QString index = writeIndex(QStringLiteral("model.safetensors.index.json"), map, bytes);

        const WeightsSummary summary = readModelWeights(index);
        QCOMPARE(summary.files, 2ull);
        QCOMPARE(summary.tensors, 5ull);
        QCOMPARE(summary.params, 2ull * 32000 * 256 + 2 * 256 * 256 + 256);
        QCOMPARE(summary.bytes, bytes);
        QVERIFY(summary.notes.empty());
        // The folder finds the index by its standard name.
        QCOMPARE(readModelWeights(m_dir.path()).params, summary.params);
    }

    void quantizedCheckpointsCountStoredBytes()
    {
        // GPTQ 4-bit: int32 qweight packs 8 weights; scales, zeros and g_idx are metadata.
        const std::vector<TensorSpec> gptq{{"model.embed_tokens.weight", "F16", {1000, 512}},
                                           {"layer.q_proj.qweight", "I32", {64, 512}},
                                           {"layer.q_proj.qzeros", "I32", {4, 64}},
                                           {"layer.q_proj.scales", "F16", {4, 512}},
                                           {"layer.q_proj.g_idx", "I32", {512}}};
        const WeightsSummary g = readModelWeights(writeTensors(QStringLiteral("gptq.safetensors"), gptq));
        QCOMPARE(g.params, 1000ull * 512 + 512 * 512);
        QCOMPARE(g.quantMetadataBytes, 4ull * 64 * 4 + 4 * 512 * 2 + 512 * 4);
        QCOMPARE(g.bytes, 1000ull * 512 * 2 + 64 * 512 * 4 + g.quantMetadataBytes);

        // bitsandbytes NF4: uint8 weight of 2 values per byte with absmax, quant_map, quant_state.
        const std::vector<TensorSpec> nf4{
            {"layer.weight", "U8", {131072, 1}},
            {"layer.weight.absmax", "F32", {4096}},
            {"layer.weight.quant_map", "F32", {16}},
            {"layer.weight.quant_state.bitsandbytes__nf4", "U8", {100}}};
        const WeightsSummary b = readModelWeights(writeTensors(QStringLiteral("nf4.safetensors"), nf4));
        QCOMPARE(b.params, 262144ull);
        QCOMPARE(b.quantMetadataBytes, 4096ull * 4 + 16 * 4 + 100);
        QCOMPARE(b.bytes, 131072ull + b.quantMetadataBytes);

        // FP8 with per-tensor scales.
        const std::vector<TensorSpec> fp8{{"layer.weight", "F8_E4M3", {512, 512}},
                                          {"layer.weight_scale", "F32", {}}};
        const WeightsSummary f = readModelWeights(writeTensors(QStringLiteral("fp8.safetensors"), fp8));
        QCOMPARE(f.params, 262144ull);
        QCOMPARE(f.bytes, 262144ull + 4);
    }

    // Issue 29: every packed qweight was counted as 8 weights per int32, so a 3-bit GPTQ
    // checkpoint came out 25 % short (32 / 3 weights a word) and an 8-bit one twice too large
    // (4 a word). The width is read from the zero points, packed at the weights' width beside
    // the scales (qzeros [groups, out x bits / 32], scales [groups, out]), or from GPTQ's
    // qweight [in x bits / 32, out] beside g_idx [in].
    void packedWeightsCountTheirWidth_data()
    {
        QTest::addColumn<std::vector<TensorSpec>>("tensors");
        QTest::addColumn<qulonglong>("params");
        QTest::addColumn<QString>("note");
        // GPTQ 3-bit, in 4,096, out 512, groups of 128: qweight 4,096 x 3 / 32 = 384 rows,
        // qzeros 512 x 3 / 32 = 48 columns.
        QTest::newRow("gptq-3bit") << std::vector<TensorSpec>{{"m.layers.0.mlp.down_proj.qweight", "I32", {384, 512}},
                                                              {"m.layers.0.mlp.down_proj.qzeros", "I32", {32, 48}},
                                                              {"m.layers.0.mlp.down_proj.scales", "F16", {32, 512}},
                                                              {"m.layers.0.mlp.down_proj.g_idx", "I32", {4096}}}
                                   << qulonglong(4096 * 512) << QStringLiteral("3 bits per weight");
        // GPTQ 8-bit, in 512, out 256: qweight 128 rows, qzeros 64 columns.
        QTest::newRow("gptq-8bit") << std::vector<TensorSpec>{{"l.qweight", "I32", {128, 256}}, {"l.qzeros", "I32", {4, 64}},
                                                              {"l.scales", "F16", {4, 256}}, {"l.g_idx", "I32", {512}}}
                                   << qulonglong(512 * 256) << QStringLiteral("8 bits per weight");
        // GPTQ 2-bit, in 1,024, out 128, one group: qweight 64 rows, qzeros 8 columns.
        QTest::newRow("gptq-2bit") << std::vector<TensorSpec>{{"l.qweight", "I32", {64, 128}}, {"l.qzeros", "I32", {1, 8}},
                                                              {"l.scales", "F16", {1, 128}}}
                                   << qulonglong(1024 * 128) << QStringLiteral("2 bits per weight");
        // AWQ 4-bit packs along the output: qweight [in, out / 8].
        QTest::newRow("awq-4bit") << std::vector<TensorSpec>{{"l.qweight", "I32", {512, 32}}, {"l.qzeros", "I32", {4, 32}},
                                                             {"l.scales", "F16", {4, 256}}}
                                  << qulonglong(512 * 256) << QStringLiteral("4 bits per weight");
        // GPTQ v2 symmetric without qzeros: g_idx [512] beside qweight [48, 64] gives 3 bits.
        QTest::newRow("gptq-3bit-no-zeros") << std::vector<TensorSpec>{{"l.qweight", "I32", {48, 64}},
                                                                       {"l.scales", "F16", {4, 64}},
                                                                       {"l.g_idx", "I32", {512}}}
                                            << qulonglong(512 * 64) << QStringLiteral("from the qzeros, scales and g_idx shapes");
        // Nothing beside it tells: 4 bits assumed, and said.
        QTest::newRow("bare-qweight") << std::vector<TensorSpec>{{"l.qweight", "I32", {64, 512}}}
                                      << qulonglong(512 * 512) << QStringLiteral("4 assumed");
    }
    void packedWeightsCountTheirWidth()
    {
        QFETCH(std::vector<TensorSpec>, tensors);
        QFETCH(qulonglong, params);
        QFETCH(QString, note);
        const WeightsSummary summary = readModelWeights(writeTensors(QStringLiteral("packed.safetensors"), tensors));
        QCOMPARE(qulonglong(summary.params), params);
        bool said = false;
        for (const std::string &line : summary.notes)
            said = said || QString::fromStdString(line).contains(note);
        QVERIFY2(said, summary.notes.empty() ? "no notes" : summary.notes.front().c_str());
    }

    // Shapes that tell a width no packer writes (5 bits; 64 x 32 / 3 is not whole) are refused,
    // naming the tensor, not counted as some other width.
    void packedWidthsNoPackerWrites()
    {
        const std::vector<std::vector<TensorSpec>> files{
            {{"l.qweight", "I32", {64, 512}}, {"l.qzeros", "I32", {4, 80}}, {"l.scales", "F16", {4, 512}}},
            {{"l.qweight", "I32", {64, 512}}, {"l.g_idx", "I32", {3}}},
            {{"l.qweight", "I32", {0, 512}}, {"l.qzeros", "I32", {0, 576460752303423489ull}}, {"l.scales", "F16", {0, 1}}}};
        for (const auto &tensors : files) {
            try {
                readModelWeights(writeTensors(QStringLiteral("odd.safetensors"), tensors));
                QFAIL("accepted");
            } catch (const SafetensorsError &error) {
                QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("\"l.qweight\"")), error.what());
                QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("GPTQ and AWQ pack 2, 3, 4 or 8")), error.what());
            }
        }
    }

    void malformedFilesSayWhy_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<qint64>("dataBytes");
        QTest::addColumn<qint64>("claimedLength"); // -1: the header's real length
        QTest::addColumn<QByteArray>("mentions");
        const QByteArray ok = R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
        QTest::newRow("too-short") << QByteArray() << qint64(-8) << qint64(-1) << QByteArray("too short");
        QTest::newRow("truncated-header") << ok << qint64(0) << qint64(ok.size() + 100) << QByteArray("truncated");
        QTest::newRow("length-cuts-the-json") << ok << qint64(16) << qint64(1) << QByteArray("not valid JSON");
        QTest::newRow("over-the-cap") << ok << qint64(16) << qint64(200'000'000) << QByteArray("100,000,000-byte limit");
        QTest::newRow("huge-length") << ok << qint64(16) << qint64(0x7fffffffffffffffLL) << QByteArray("limit");
        QTest::newRow("zero-length") << ok << qint64(16) << qint64(0) << QByteArray("length is 0");
        QTest::newRow("not-json") << QByteArray("{not json at all}") << qint64(0) << qint64(-1) << QByteArray("not valid JSON");
        QTest::newRow("not-an-object") << QByteArray("[1, 2, 3]") << qint64(0) << qint64(-1) << QByteArray("must start with '{'");
        QTest::newRow("unknown-dtype")
            << QByteArray(R"({"a":{"dtype":"F7","shape":[2],"data_offsets":[0,2]}})") << qint64(2)
            << qint64(-1) << QByteArray("unknown dtype \"F7\"");
        QTest::newRow("shape-disagrees")
            << QByteArray(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,16]}})") << qint64(16)
            << qint64(-1) << QByteArray("needs 24");
        QTest::newRow("negative-size")
            << QByteArray(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})") << qint64(4)
            << qint64(-1) << QByteArray("whole numbers");
        QTest::newRow("overlap")
            << QByteArray(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},
                              "b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})")
            << qint64(24) << qint64(-1) << QByteArray("overlaps");
        QTest::newRow("gap")
            << QByteArray(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},
                              "b":{"dtype":"F32","shape":[4],"data_offsets":[20,36]}})")
            << qint64(36) << qint64(-1) << QByteArray("gap of 4 bytes");
        QTest::newRow("data-past-end") << ok << qint64(8) << qint64(-1) << QByteArray("truncated");
        QTest::newRow("trailing-bytes") << ok << qint64(20) << qint64(-1) << QByteArray("the tensors fill 16");
        QTest::newRow("missing-offsets")
            << QByteArray(R"({"a":{"dtype":"F32","shape":[4]}})") << qint64(16) << qint64(-1)
            << QByteArray("no \"data_offsets\"");
        QTest::newRow("bad-metadata")
            << QByteArray(R"({"__metadata__":{"n":1}})") << qint64(0) << qint64(-1) << QByteArray("must be a string");
        QTest::newRow("huge-shape")
            << QByteArray(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})")
            << qint64(4) << qint64(-1) << QByteArray("overflows");
    }
    void malformedFilesSayWhy()
    {
        QFETCH(QByteArray, header);
        QFETCH(qint64, dataBytes);
        QFETCH(qint64, claimedLength);
        QFETCH(QByteArray, mentions);
        QString file;
        if (dataBytes < 0) { // fewer than 8 bytes in all
            file = path(QStringLiteral("short.safetensors"));
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write("\x10\x00\x00", 3);
        } else {
            file = writeFile(QStringLiteral("bad.safetensors"), header, std::uint64_t(dataBytes),
                             claimedLength < 0 ? std::nullopt
                                               : std::optional<std::uint64_t>(claimedLength));
        }
        try {
            readModelWeights(file);
            QFAIL("read a malformed file");
        } catch (const SafetensorsError &error) {
            const QString message = QString::fromUtf8(error.what());
            QVERIFY2(message.contains(QString::fromUtf8(mentions)), error.what());
            QVERIFY2(message.contains(QLatin1String("bad.safetensors")) ||
                         message.contains(QLatin1String("short.safetensors")),
                     error.what());
        }
    }

    void brokenIndexesSayWhy_data()
    {
        QTest::addColumn<QByteArray>("index");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("missing-shard")
            << QByteArray(R"({"weight_map": {"a": "present.safetensors", "b": "absent.safetensors"}})")
            << QByteArray("missing shard absent.safetensors");
        QTest::newRow("tensor-not-in-shard")
            << QByteArray(R"({"weight_map": {"a": "present.safetensors", "zz": "present.safetensors"}})")
            << QByteArray("has no such tensor");
        QTest::newRow("tensor-in-two-shards")
            << QByteArray(R"({"weight_map": {"a": "present.safetensors", "x": "again.safetensors"}})")
            << QByteArray("is in both");
        QTest::newRow("no-weight-map") << QByteArray(R"({"metadata": {}})") << QByteArray("no \"weight_map\"");
        QTest::newRow("outside-folder")
            << QByteArray(R"({"weight_map": {"a": "../elsewhere.safetensors"}})") << QByteArray("next to the index");
        QTest::newRow("not-json") << QByteArray("{") << QByteArray("not valid JSON");
    }
    void brokenIndexesSayWhy()
    {
        QFETCH(QByteArray, index);
        QFETCH(QByteArray, mentions);
        writeTensors(QStringLiteral("present.safetensors"), {{"a", "F16", {8}}});
        writeTensors(QStringLiteral("again.safetensors"), {{"a", "F16", {8}}, {"x", "F16", {8}}});
        const QString file = path(QStringLiteral("broken.index.json"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(index);
        out.close();
        try {
            readModelWeights(file);
            QFAIL("read a broken index");
        } catch (const SafetensorsError &error) {
            QVERIFY2(QByteArray(error.what()).contains(mentions), error.what());
        }
    }

    void hundredGigabyteCheckpointReadsOnlyHeaders()
    {
        // 20 sparse shards of ~5.4 GB: 80 layers of a 70B-class block (bf16) and the embeddings.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        json map;
        std::uint64_t params = 0, bytes = 0;
        const int shards = 20;
        for (int shard = 0; shard < shards; ++shard) {
            std::vector<TensorSpec> tensors;
            for (int layer = shard * 4; layer < shard * 4 + 4; ++layer) {
                const std::string prefix = "model.layers." + std::to_string(layer) + ".";
                tensors.push_back({prefix + "self_attn.q_proj.weight", "BF16", {8192, 8192}});
                tensors.push_back({prefix + "self_attn.k_proj.weight", "BF16", {1024, 8192}});
                tensors.push_back({prefix + "self_attn.v_proj.weight", "BF16", {1024, 8192}});
                tensors.push_back({prefix + "self_attn.o_proj.weight", "BF16", {8192, 8192}});
                tensors.push_back({prefix + "mlp.gate_proj.weight", "BF16", {28672, 8192}});
                tensors.push_back({prefix + "mlp.up_proj.weight", "BF16", {28672, 8192}});
                tensors.push_back({prefix + "mlp.down_proj.weight", "BF16", {8192, 28672}});
                tensors.push_back({prefix + "input_layernorm.weight", "BF16", {8192}});
                tensors.push_back({prefix + "post_attention_layernorm.weight", "BF16", {8192}});
            }
            if (shard == 0)
                tensors.push_back({"model.embed_tokens.weight", "BF16", {128256, 8192}});
            if (shard == shards - 1) {
                tensors.push_back({"model.norm.weight", "BF16", {8192}});
                tensors.push_back({"lm_head.weight", "BF16", {128256, 8192}});
            }
            const QString name = QStringLiteral("model-%1-of-%2.safetensors")
                                     .arg(shard + 1, 5, 10, QLatin1Char('0'))
                                     .arg(shards, 5, 10, QLatin1Char('0'));
            std::uint64_t data = 0;
            const QByteArray header = QByteArray::fromStdString(headerFor(tensors, data));
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(lengthPrefix(std::uint64_t(header.size())));
            file.write(header);
            QVERIFY(file.resize(qint64(8 + header.size() + qint64(data))));
            for (const TensorSpec &t : tensors) {
                map[t.name] = name.toStdString();
                params += bytesOf(t) / 2;
            }
            bytes += data;
        }
        QFile index(dir.filePath(QStringLiteral("model.safetensors.index.json")));
        QVERIFY(index.open(QIODevice::WriteOnly));
        index.write(QByteArray::fromStdString(
            json{{"metadata", {{"total_size", bytes}}}, {"weight_map", map}}.dump()));
        index.close();
        QVERIFY(bytes > 100'000'000'000ull);

        QElapsedTimer timer;
        timer.start();
        const WeightsSummary summary = readModelWeights(index.fileName());
        const qint64 elapsed = timer.elapsed();
        QCOMPARE(summary.files, std::uint64_t(shards));
        QCOMPARE(summary.tensors, std::uint64_t(80 * 9 + 3));
        QCOMPARE(summary.params, params);
        QCOMPARE(summary.params, 70'553'706'496ull); // Llama 3 70B's published total
        QCOMPARE(summary.bytes, bytes);
        qInfo("read the headers of a %.1f GB checkpoint (%d shards) in %lld ms", double(bytes) / 1e9,
              shards, elapsed);
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
