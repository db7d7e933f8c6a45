// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom estimate --model-weights FILE.gguf`: the file's tensors, parameters and bytes by type
// printed, its architecture used, a broken file refused with exit 2. The file is a fuzz seed
// written by fuzz/seeds/gguf/make_seeds.py (Python's struct, independent of the reader).
#include "processutil.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using headroom::test::Run;
using headroom::test::runHeadroom;

namespace {

const QString kSeed = QStringLiteral(HEADROOM_SOURCE_DIR "/fuzz/seeds/gguf/llama-v3.gguf");
constexpr const char *kScenario = R"({"format": "headroom-scenario", "version": 1, "task": "inference",
    "gpus": ["rtx-4090"], "serving": {"engine": "llama_cpp"}})";

} // namespace

class TestGgufCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    QString write(const char *name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(QString::fromLatin1(name));
        QFile file(path);
        if (file.open(QIODevice::WriteOnly))
            file.write(content);
        return path;
    }

private slots:
    void estimatePrintsTheTensors()
    {
        const QString scenario = write("s.headroom.json", kScenario);
        const Run run = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-weights"), kSeed});
        QCOMPARE(run.exitCode, 0);
        // make_seeds.py's llama(): outside the blocks token_embd q8_0 [32, 4] (128 / 32 x 34 =
        // 136 B), output_norm f32 [32] (128 B), output q6_K [256, 1] (210 B); each of the 2
        // blocks 2 f32 norms (2 x 128), attn_q q4_K [256, 1] (144), attn_k, attn_output and
        // ffn_up q8_0 [32, 2] (3 x 68), attn_v f16 and ffn_gate bf16 [32, 2] (2 x 128), ffn_down
        // q6_K [256, 1] (210): 1,070 B. Total 474 + 2 x 1,070 = 2,614 B; parameters 416 + 2 x
        // (64 + 256 + 3 x 64 + 2 x 64 + 256) = 2,208.
        QVERIFY2(run.out.contains(QLatin1String("21 tensors, 2,208 params, 2.55 KiB")), qPrintable(run.out));
        QVERIFY(run.out.contains(QLatin1String("q4_K: 2 tensors, 512 elements, 288 B")));
        QVERIFY(run.out.contains(QLatin1String("q6_K: 3 tensors, 768 elements, 630 B")));
        QVERIFY(run.out.contains(QLatin1String("q8_0: 7 tensors, 512 elements, 544 B")));
        QVERIFY(run.out.contains(QLatin1String("architecture \"llama\" from the GGUF metadata: 2 layers, hidden 32")));
        QVERIFY(run.out.contains(QLatin1String("2 blocks of 1.04 KiB each; 474 B outside the blocks")));
        QVERIFY(run.out.contains(QLatin1String("Parameters: 2,208 total")));
        // llama.cpp places the file's own tensors: both blocks (1,070 B each) and the output layer
        // (output_norm 128 + output 210 = 338 B) on the GPU, token_embd (136 B) in CPU RAM.
        QVERIFY2(run.out.contains(QLatin1String("2 of 2 blocks (up to 1,070 B each, the GGUF file) + output layer 338 B = 2.42 KiB")),
                 qPrintable(run.out));

        const Run json = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-weights"), kSeed,
                                      QStringLiteral("--format=json")});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QJsonObject gguf = doc.value(QLatin1String("gguf")).toObject();
        QCOMPARE(gguf.value(QLatin1String("bytes")).toInteger(), 2614);
        QCOMPARE(gguf.value(QLatin1String("params")).toInteger(), 2208);
        QCOMPARE(gguf.value(QLatin1String("by_type")).toObject().value(QLatin1String("bf16")).toObject()
                     .value(QLatin1String("bytes")).toInteger(), 2 * 128);
    }

    void brokenFilesExitTwo()
    {
        const QString scenario = write("s2.headroom.json", kScenario);
        QFile seed(kSeed);
        QVERIFY(seed.open(QIODevice::ReadOnly));
        const QByteArray bytes = seed.readAll();
        // The last tensor (210 B) is padded to 224 B: 14 bytes can go (llama.cpp reads that file
        // too), 20 cannot.
        const QString padless = write("padless.gguf", bytes.left(bytes.size() - 14));
        QCOMPARE(runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-weights"), padless}).exitCode, 0);
        const QString cut = write("cut.gguf", bytes.left(bytes.size() - 20));
        const Run run = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-weights"), cut});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("--model-weights")) && run.err.contains(QLatin1String("cut.gguf")) &&
                     run.err.contains(QLatin1String("truncated: the tensors need")),
                 qPrintable(run.err));
        const Run missing = runHeadroom({QStringLiteral("estimate"), scenario, QStringLiteral("--model-weights"),
                                         m_dir.filePath(QStringLiteral("m-00001-of-00002.gguf"))});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains(QLatin1String("split 1 of 2 is missing")), qPrintable(missing.err));
    }
};

QTEST_GUILESS_MAIN(TestGgufCli)
#include "tst_ggufcli.moc"
