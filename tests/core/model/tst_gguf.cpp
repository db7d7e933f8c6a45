// SPDX-License-Identifier: GPL-3.0-or-later
// GGUF headers: files written here (tests/ggufwriter.h, byte by byte) with q4_K, q6_K, f16, q8_0
// and f32 tensors read back to the byte, as one file, as version 2, and as a split set; every
// malformed file is refused with its reason, never by reading the tensor data.
#include "ggufimport.h"
#include "ggufwriter.h"
#include "io/gguf.h"
#include "io/ggufarch.h"
#include "model/architecture.h"
#include "model/ggmltypes.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace headroom;
using headroom::test::GgufTensorSpec;
using headroom::test::GgufWriter;

namespace {

// ggml block sizes by hand (ggml-common.h): q4_K 144 bytes per 256, q6_K 210 per 256,
// q8_0 34 per 32, f16 2 per value, f32 4 per value.
constexpr std::uint32_t F32 = 0, F16 = 1, Q8_0 = 8, Q4_K = 12, Q6_K = 14;

/// A two-block llama: hidden 256, 2 heads of 128 (1 KV head), MLP 512, vocabulary 1,000.
std::vector<GgufTensorSpec> llamaTensors()
{
    std::vector<GgufTensorSpec> t;
    t.push_back({"token_embd.weight", Q8_0, {256, 1000}, 256000 / 32 * 34});   // 272,000
    t.push_back({"output_norm.weight", F32, {256}, 256 * 4});                  // 1,024
    t.push_back({"output.weight", Q6_K, {256, 1000}, 256000 / 256 * 210});     // 210,000
    for (int layer = 0; layer < 2; ++layer) {
        const std::string b = "blk." + std::to_string(layer) + ".";
        t.push_back({b + "attn_norm.weight", F32, {256}, 1024});
        t.push_back({b + "attn_q.weight", Q4_K, {256, 256}, 65536 / 256 * 144});       // 36,864
        t.push_back({b + "attn_k.weight", Q4_K, {256, 128}, 32768 / 256 * 144});       // 18,432
        if (layer == 0)
            t.push_back({b + "attn_v.weight", Q6_K, {256, 128}, 32768 / 256 * 210});   // 26,880
        else
            t.push_back({b + "attn_v.weight", F16, {256, 128}, 32768 * 2});            // 65,536
        t.push_back({b + "attn_output.weight", Q4_K, {256, 256}, 36864});
        t.push_back({b + "ffn_norm.weight", F32, {256}, 1024});
        t.push_back({b + "ffn_gate.weight", Q4_K, {256, 512}, 131072 / 256 * 144});    // 73,728
        t.push_back({b + "ffn_up.weight", Q4_K, {256, 512}, 73728});
        if (layer == 0)
            t.push_back({b + "ffn_down.weight", Q6_K, {512, 256}, 131072 / 256 * 210}); // 107,520
        else
            t.push_back({b + "ffn_down.weight", Q8_0, {512, 256}, 131072 / 32 * 34});   // 139,264
    }
    return t;
}

void llamaMetadata(GgufWriter &w, bool bigVocabulary = false)
{
    w.keyString("general.architecture", "llama");
    w.keyString("general.name", "tiny test llama");
    w.keyU32("general.file_type", 15); // LLAMA_FTYPE_MOSTLY_Q4_K_M
    w.keyU32("llama.block_count", 2);
    w.keyU32("llama.context_length", 4096);
    w.keyU32("llama.embedding_length", 256);
    w.keyU32("llama.feed_forward_length", 512);
    w.keyU32("llama.attention.head_count", 2);
    w.keyU32("llama.attention.head_count_kv", 1);
    w.keyF32("llama.rope.freq_base", 500000.0f);
    std::vector<std::string> tokens;
    for (int i = 0; i < 1000; ++i)
        tokens.push_back(bigVocabulary ? std::string(1500, char('a' + i % 26)) : "tok" + std::to_string(i));
    w.keyStrings("tokenizer.ggml.tokens", tokens);
    w.keyI32s("tokenizer.ggml.token_type", std::vector<std::int32_t>(1000, 1));
}

GgufWriter llamaFile(std::uint32_t version = 3, bool bigVocabulary = false)
{
    GgufWriter w(version);
    llamaMetadata(w, bigVocabulary);
    for (const GgufTensorSpec &t : llamaTensors())
        w.tensor(t);
    return w;
}

/// The parse error of a file's bytes (the whole file given), or empty.
QString parseError(const QByteArray &bytes)
{
    try {
        parseGgufHeader(std::string_view(bytes.constData(), std::size_t(bytes.size())), std::uint64_t(bytes.size()));
    } catch (const GgufError &error) {
        return QString::fromStdString(error.what());
    } catch (const GgufNeedMore &) {
        return QStringLiteral("need more (a bug: the whole file was given)");
    }
    return {};
}

} // namespace

class TestGguf : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    QString path(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)); }

    void checkLlama(const GgufModel &m)
    {
        // Totals by hand (the comments in llamaTensors): blk.0 = 36,864 + 18,432 + 26,880 +
        // 36,864 + 73,728 + 73,728 + 107,520 + 2 x 1,024 = 376,064; blk.1 swaps attn_v for
        // f16 (+38,656) and ffn_down for q8_0 (+31,744) = 446,464; outside: 272,000 + 1,024 +
        // 210,000 = 483,024; all 1,305,552.
        QCOMPARE(m.weights.tensors, 21ull);
        QCOMPARE(m.weights.bytes, 1'305'552ull);
        QCOMPARE(m.layerBytes.size(), std::size_t(2));
        QCOMPARE(m.layerBytes.at(0), 376'064ull);
        QCOMPARE(m.layerBytes.at(1), 446'464ull);
        QCOMPARE(m.otherBytes, 483'024ull);
        // Parameters: 2 x 256,000 embeddings + 256 + 2 x (65,536 + 2 x 32,768 + 65,536 +
        // 3 x 131,072 + 512) = 512,256 + 2 x 590,336 = 1,692,928.
        QCOMPARE(m.weights.params, 1'692'928ull);
        // By type: q4_K 2 x (36,864 + 18,432 + 36,864 + 2 x 73,728) = 479,232 in 10 tensors;
        // q6_K 210,000 + 26,880 + 107,520 = 344,400 in 3; q8_0 272,000 + 139,264 = 411,264 in
        // 2; f16 65,536 in 1; f32 5 x 1,024 = 5,120 in 5.
        QCOMPARE(m.weights.byDType.size(), std::size_t(5));
        QCOMPARE(m.weights.byDType.at("q4_K"), (DTypeTotal{10, 2 * (65536 + 32768 + 65536 + 2 * 131072), 479'232}));
        QCOMPARE(m.weights.byDType.at("q6_K"), (DTypeTotal{3, 256000 + 32768 + 131072, 344'400}));
        QCOMPARE(m.weights.byDType.at("q8_0"), (DTypeTotal{2, 256000 + 131072, 411'264}));
        QCOMPARE(m.weights.byDType.at("f16"), (DTypeTotal{1, 32768, 65'536}));
        QCOMPARE(m.weights.byDType.at("f32"), (DTypeTotal{5, 5 * 256, 5'120}));
        QCOMPARE(m.architecture, std::string("llama"));
        QCOMPARE(m.fileType, std::optional<std::uint32_t>(15));
    }

private slots:
    void typeTableMatchesTheBlockStructs()
    {
        // Bytes per 256 values (ggml-common.h block structs, summed by hand in ggmltypes.cpp).
        QCOMPARE(ggmlRowBytes(*ggmlType(Q4_K), 4096), 4096ull / 256 * 144);
        QCOMPARE(ggmlRowBytes(*ggmlTypeNamed("Q6_K"), 256), 210ull);
        QCOMPARE(ggmlRowBytes(*ggmlTypeNamed("iq4_xs"), 256), 136ull);
        QCOMPARE(ggmlRowBytes(*ggmlTypeNamed("mxfp4"), 64), 34ull);
        QCOMPARE(ggmlRowBytes(*ggmlType(Q8_0), 33), 0ull); // not whole blocks
        QVERIFY(!ggmlType(31));  // Q4_0_4_4: removed
        QVERIFY(!ggmlType(40));  // newer than the table
    }

    void readsBackToTheByte()
    {
        QVERIFY(m_dir.isValid());
        const GgufWriter w = llamaFile();
        QVERIFY(w.write(path("tiny.gguf")));
        checkLlama(readGgufModel(path("tiny.gguf")));
    }

    void versionTwoReadsTheSame()
    {
        QVERIFY(llamaFile(2).write(path("tiny-v2.gguf")));
        checkLlama(readGgufModel(path("tiny-v2.gguf")));
    }

    void aHeaderLargerThanTheFirstReadIsReadWhole()
    {
        // 1,000 tokens of 1,500 bytes: a 1.5 MB header, past the first 1 MiB read.
        QVERIFY(llamaFile(3, true).write(path("bigvocab.gguf")));
        checkLlama(readGgufModel(path("bigvocab.gguf")));
    }

    void alignmentFromTheMetadata()
    {
        GgufWriter w;
        llamaMetadata(w);
        w.keyU32("general.alignment", 64);
        for (const GgufTensorSpec &t : llamaTensors())
            w.tensor(t);
        QVERIFY(w.write(path("align64.gguf"), 64));
        checkLlama(readGgufModel(path("align64.gguf")));
        // The same file read with 32-byte offsets is refused: the offsets are gguf.cpp's running
        // total, tensor by tensor.
        QVERIFY(parseError(w.header(32)).contains(QLatin1String("expected")));
    }

    void theArchitectureComesFromTheMetadata()
    {
        QVERIFY(llamaFile().write(path("arch.gguf")));
        const GgufArch arch = ggufArchitecture(readGgufModel(path("arch.gguf")));
        QVERIFY(arch.arch);
        const ModelArch &m = *arch.arch;
        QCOMPARE(m.layers, 2);
        QCOMPARE(m.hidden, 256);
        QCOMPARE(m.heads, 2);
        QCOMPARE(m.kvHeads, 1);
        QCOMPARE(m.headDim, 128);
        QCOMPARE(m.intermediate, 512);
        QCOMPARE(m.vocab, 1000);
        QCOMPARE(m.maxPositions, 4096);
        QVERIFY(!m.tiedEmbeddings);
        // The shape read accounts for every parameter the file holds.
        ModelArch derived = m;
        derived.params.reset();
        QCOMPARE(countParams(derived).derived, 1'692'928ull);
    }

    void recurrentArchitecturesKeepTheScenarioShape()
    {
        GgufWriter w;
        w.keyString("general.architecture", "mamba");
        w.keyU32("mamba.block_count", 2);
        w.keyU32("mamba.ssm.state_size", 16);
        w.tensor({"token_embd.weight", F32, {256, 10}, 10240});
        QVERIFY(w.write(path("mamba.gguf")));
        const GgufArch arch = ggufArchitecture(readGgufModel(path("mamba.gguf")));
        QVERIFY(!arch.arch);
        QVERIFY(QString::fromStdString(arch.notes.back()).contains(QLatin1String("mamba.ssm.")));
    }

    void splitSetsReadWhole()
    {
        // The same 21 tensors over three files, read from any of them.
        const std::vector<GgufTensorSpec> all = llamaTensors();
        for (int part = 0; part < 3; ++part) {
            GgufWriter w;
            if (part == 0)
                llamaMetadata(w);
            w.keyU16("split.no", std::uint16_t(part));
            w.keyU16("split.count", 3);
            w.keyI32("split.tensors.count", 21);
            for (std::size_t i = std::size_t(part) * 7; i < std::size_t(part + 1) * 7; ++i)
                w.tensor(all[i]);
            const QString name = QStringLiteral("tiny-%1-of-00003.gguf").arg(part + 1, 5, 10, QLatin1Char('0'));
            QVERIFY(w.write(m_dir.filePath(name)));
        }
        checkLlama(readGgufModel(path("tiny-00002-of-00003.gguf")));
        const GgufModel first = readGgufModel(path("tiny-00001-of-00003.gguf"));
        QCOMPARE(first.weights.files, 3ull);

        QFile::rename(path("tiny-00003-of-00003.gguf"), path("gone.gguf"));
        try {
            readGgufModel(path("tiny-00001-of-00003.gguf"));
            QFAIL("a set with a file missing was read");
        } catch (const GgufError &error) {
            QVERIFY2(QString::fromStdString(error.what()).contains(QLatin1String("split 3 of 3 is missing")), error.what());
        }
    }

    void malformedFilesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        const GgufWriter good = llamaFile();
        const QByteArray head = good.header();
        QByteArray whole = head;
        whole.resize(head.size() + qsizetype(good.dataBytes()));

        QTest::newRow("empty") << QByteArray() << "truncated: the magic";
        QTest::newRow("magic") << QByteArray("GGML\x03\0\0\0", 8) << "not a GGUF file";
        QByteArray v1 = whole;
        v1[4] = 1;
        QTest::newRow("version-1") << v1 << "version 1";
        QByteArray v4 = whole;
        v4[4] = 4;
        QTest::newRow("version-4") << v4 << "GGUF version 4";
        QByteArray big = whole;
        big[4] = 0;
        big[7] = 3;
        QTest::newRow("big-endian") << big << "big-endian";
        QTest::newRow("cut-in-metadata") << head.left(300) << "21 tensors, more than the file can hold";
        QTest::newRow("cut-in-tensors") << head.left(head.size() - 40) << "truncated";
        QTest::newRow("data-short") << whole.left(whole.size() - 1) << "truncated: the tensors need";

        GgufWriter dupKey = llamaFile();
        dupKey.keyU32("llama.block_count", 3);
        QTest::newRow("key-twice") << dupKey.header() << "names metadata \"llama.block_count\" twice";

        GgufWriter dupTensor = llamaFile();
        dupTensor.tensor({"output.weight", F32, {256}, 1024});
        QByteArray dupBytes = dupTensor.header();
        dupBytes.resize(dupBytes.size() + qsizetype(dupTensor.dataBytes()));
        QTest::newRow("tensor-twice") << dupBytes << "names tensor \"output.weight\" twice";

        auto oneTensor = [](const GgufTensorSpec &t) {
            GgufWriter w;
            w.keyString("general.architecture", "llama");
            w.tensor(t);
            QByteArray bytes = w.header();
            bytes.resize(bytes.size() + qsizetype(w.dataBytes()) + 64);
            return bytes;
        };
        QTest::newRow("removed-type") << oneTensor({"w", 31, {256, 2}, 0}) << "ggml type 31 was removed";
        QTest::newRow("unknown-type") << oneTensor({"w", 77, {256, 2}, 0}) << "ggml type 77 is not known";
        QTest::newRow("partial-block") << oneTensor({"w", Q4_K, {100, 2}, 0}) << "a row of 100 is not whole q4_K blocks of 256";
        QTest::newRow("five-dims") << oneTensor({"w", F32, {1, 1, 1, 1, 1}, 4}) << "5 dimensions";
        QTest::newRow("long-name") << oneTensor({std::string(64, 'n'), F32, {1}, 4}) << "a name longer than 63 bytes";
        QTest::newRow("negative-dim") << oneTensor({"w", F32, {~0ull}, 4}) << "dimension 0 is negative";

        QTest::newRow("offsets") << llamaFile().header(32, 32) << "has offset 272,032, expected 272,000";
        QTest::newRow("too-many-tensors") << llamaFile().header(32, 0, 2'000'000) << "2,000,000 tensors";

        GgufWriter hugeArray;
        QByteArray arrayBytes;
        GgufWriter::str(arrayBytes, "tokenizer.ggml.scores");
        GgufWriter::put(arrayBytes, 9, 4);
        GgufWriter::put(arrayBytes, 6, 4);
        GgufWriter::put(arrayBytes, 1ull << 60, 8);
        hugeArray.rawMetadata(arrayBytes, 1);
        QTest::newRow("huge-array") << hugeArray.header() << "does not fit in the file";

        GgufWriter nested;
        QByteArray nestedBytes;
        GgufWriter::str(nestedBytes, "a");
        GgufWriter::put(nestedBytes, 9, 4);
        GgufWriter::put(nestedBytes, 9, 4);
        GgufWriter::put(nestedBytes, 1, 8);
        nested.rawMetadata(nestedBytes, 1);
        QTest::newRow("array-of-arrays") << nested.header() << "an array of arrays";

        GgufWriter align;
        align.keyU32("general.alignment", 48);
        QTest::newRow("alignment") << align.header() << "general.alignment must be a uint32 power of two (got 48)";

        GgufWriter badType;
        QByteArray badTypeBytes;
        GgufWriter::str(badTypeBytes, "k");
        GgufWriter::put(badTypeBytes, 13, 4);
        badType.rawMetadata(badTypeBytes, 1);
        QTest::newRow("value-type") << badType.header() << "unknown value type 13";

        GgufWriter notUtf8;
        notUtf8.keyString("general.name", "\xff\xfe");
        QTest::newRow("not-utf8") << notUtf8.header() << "not UTF-8";
    }

    void malformedFilesAreRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        const QString error = parseError(bytes);
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY(error.size() < 400);
    }

    void aShortReadAsksForMore()
    {
        // Given only the first bytes of a longer file, the parser asks for more instead of
        // calling the file truncated.
        const QByteArray head = llamaFile().header();
        try {
            parseGgufHeader(std::string_view(head.constData(), 100), 10'000'000);
            QFAIL("parsed from 100 bytes");
        } catch (const GgufNeedMore &more) {
            QVERIFY(more.needed > 100);
            QVERIFY(more.needed <= std::uint64_t(head.size()));
        }
    }

    void splitNames()
    {
        QCOMPARE(ggufSplitName("m-00002-of-00005.gguf"), (std::optional<std::pair<int, int>>{{2, 5}}));
        QVERIFY(!ggufSplitName("m-00006-of-00005.gguf"));
        QVERIFY(!ggufSplitName("model.gguf"));
        QVERIFY(!ggufSplitName("m-0000x-of-00005.gguf"));
    }
};

QTEST_GUILESS_MAIN(TestGguf)
#include "tst_gguf.moc"
