// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom fit`: the plan and its flags for a GGUF file or a scenario, in text and JSON, and the
// inputs it refuses.
#include "processutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QtTest>

using headroom::test::Run;
using headroom::test::runHeadroom;

class TestFitCli : public QObject
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
    void aSmallGgufFitsWhole()
    {
        // make_seeds.py's 2-block MoE: everything on the GPU, -ngl 3 (2 blocks + output).
        const Run run = runHeadroom({QStringLiteral("fit"), QStringLiteral(HEADROOM_SOURCE_DIR "/fuzz/seeds/gguf/moe.gguf"),
                                     QStringLiteral("--gpu"), QStringLiteral("rtx-4090"), QStringLiteral("--format=json")});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(doc.value(QLatin1String("n_gpu_layers")).toInt(), 3);
        QCOMPARE(doc.value(QLatin1String("n_cpu_moe")).toInt(), 0);
        QCOMPARE(doc.value(QLatin1String("flags")).toString(), QStringLiteral("-c 2048 -ngl 3"));
        QVERIFY(doc.value(QLatin1String("fits")).toBool());
        const QJsonObject device = doc.value(QLatin1String("devices")).toArray().at(0).toObject();
        QCOMPARE(device.value(QLatin1String("gpu")).toString(), QStringLiteral("rtx-4090"));
        QVERIFY(device.value(QLatin1String("free_bytes")).toInteger() >= 1024 * 1024 * 1024);
    }

    void aMixtureOfExpertsMovesExperts()
    {
        const QString scenario = write("mixtral.headroom.json", R"({"format": "headroom-scenario", "version": 1,
            "task": "inference", "model": {"preset": "mixtral-8x7b"},
            "serving": {"engine": "llama_cpp", "n_ctx": 4096, "weight_type": "Q4_K_M"}})");
        const Run run = runHeadroom({QStringLiteral("fit"), scenario, QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                     QStringLiteral("--ram-gib"), QStringLiteral("64")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("Plan: -c 4096 -ngl 33 --n-cpu-moe ")), qPrintable(run.out));
        QVERIFY(run.out.contains(QLatin1String("the same as -ot \"blk\\.(0|1")));
        QVERIFY(run.out.contains(QLatin1String("fits the machine's 64 GiB")));
    }

    void twoMixedCardsGetATensorSplit()
    {
        // Llama 3 70B Q4_K_M (about 42 GB) on an RTX 4090 + an RTX 3090: both devices filled back to
        // front, the split as layer counts in -ts (what llama.cpp's fit writes into tensor_split),
        // and the plan per device.
        const QString scenario = write("llama70.headroom.json", R"({"format": "headroom-scenario", "version": 1,
            "task": "inference", "model": {"preset": "llama-3-70b"},
            "serving": {"engine": "llama_cpp", "n_ctx": 8192, "weight_type": "Q4_K_M"}})");
        const Run run = runHeadroom({QStringLiteral("fit"), scenario, QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                     QStringLiteral("--gpu"), QStringLiteral("rtx-3090"), QStringLiteral("--format=json")});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const QJsonArray devices = doc.value(QLatin1String("devices")).toArray();
        QCOMPARE(devices.size(), 2);
        QCOMPARE(devices.at(0).toObject().value(QLatin1String("gpu")).toString(), QStringLiteral("rtx-4090"));
        QCOMPARE(devices.at(1).toObject().value(QLatin1String("gpu")).toString(), QStringLiteral("rtx-3090"));
        const int first = devices.at(0).toObject().value(QLatin1String("layers")).toInt();
        const int second = devices.at(1).toObject().value(QLatin1String("layers")).toInt();
        QCOMPARE(first + second, doc.value(QLatin1String("n_gpu_layers")).toInt());
        QVERIFY2(doc.value(QLatin1String("flags")).toString().contains(QStringLiteral("-ts %1,%2").arg(first).arg(second)),
                 qPrintable(run.out));
        for (const QJsonValue &device : devices)
            QVERIFY(device.toObject().value(QLatin1String("free_bytes")).toInteger() >= 1024 * 1024 * 1024);
        const Run text = runHeadroom({QStringLiteral("fit"), scenario, QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                      QStringLiteral("--gpu"), QStringLiteral("rtx-3090")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(QStringLiteral("CUDA1 rtx-3090: %1 layers").arg(second)), qPrintable(text.out));
        QVERIFY(text.out.contains(QLatin1String(" on each device")));
    }

    /// The fields of one RFC 4180 record (quoted fields, doubled quotes).
    static QStringList csvRecord(const QString &line)
    {
        QStringList fields{QString()};
        bool quoted = false;
        for (int i = 0; i < line.size(); ++i) {
            const QChar c = line[i];
            if (quoted && c == QLatin1Char('"') && i + 1 < line.size() && line[i + 1] == QLatin1Char('"'))
                fields.last() += line[++i];
            else if (c == QLatin1Char('"'))
                quoted = !quoted;
            else if (c == QLatin1Char(',') && !quoted)
                fields.append(QString());
            else
                fields.last() += c;
        }
        return fields;
    }

    void fitsListsEveryModelAndFormat()
    {
        const Run run = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                     QStringLiteral("--format=csv")});
        QCOMPARE(run.exitCode, 0);
        // RFC 4180 quoting, one header line; records end in LF (the terminal output escapes a CR).
        QVERIFY(run.out.endsWith(QLatin1Char('\n')) && !run.out.contains(QLatin1Char('\r')));
        const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QString header = QStringLiteral("model,format,checkpoint,verdict,weight_bytes,context,concurrency,max_context,"
                                              "max_concurrency,n_gpu_layers,n_cpu_moe,peak_bytes,host_bytes,flags");
        QCOMPARE(lines.first(), header);
        const QStringList columns = header.split(QLatin1Char(','));
        QMap<QString, QStringList> byModel;
        QMap<QString, QStringList> rows; // "model format" -> fields
        for (int i = 1; i < lines.size(); ++i) {
            const QStringList fields = csvRecord(lines[i]);
            QCOMPARE(fields.size(), columns.size());
            byModel[fields[0]] << fields[1];
            rows[fields[0] + QLatin1Char(' ') + fields[1]] = fields;
        }
        QVERIFY(byModel.size() > 50);
        // Every model in the 7 file types; MXFP4_MOE only for a checkpoint stored in mxfp4.
        const QStringList seven{QStringLiteral("BF16"),   QStringLiteral("Q8_0"),   QStringLiteral("Q6_K"),
                                QStringLiteral("Q5_K_M"), QStringLiteral("Q4_K_M"), QStringLiteral("Q3_K_M"),
                                QStringLiteral("IQ2_M")};
        for (auto it = byModel.cbegin(); it != byModel.cend(); ++it) {
            QStringList types = it.value();
            if (types.size() == 8) {
                QCOMPARE(types.takeLast(), QStringLiteral("MXFP4_MOE"));
                QCOMPARE(rows[it.key() + QStringLiteral(" MXFP4_MOE")][2], QStringLiteral("true"));
            }
            QCOMPARE(types, seven);
        }
        QVERIFY(rows.contains(QStringLiteral("gpt-oss-20b MXFP4_MOE")));
        // Llama 3 8B Q4_K_M (4,912,898,048 B, tst_llamacpp) fits a 24 GB card whole (-ngl 33);
        // Mixtral 8x7B Q4_K_M keeps its layers on the GPU with some experts in CPU RAM, and its
        // verdict, holding a comma, is quoted.
        const QStringList llama = rows[QStringLiteral("llama-3-8b Q4_K_M")];
        QCOMPARE(llama[3], QStringLiteral("fits"));
        QCOMPARE(llama[4], QStringLiteral("4912898048"));
        QCOMPARE(llama[9], QStringLiteral("33"));
        QCOMPARE(llama[10], QStringLiteral("0"));
        QVERIFY(llama[7].toUInt() >= 4096); // the largest context is at least the one asked
        QVERIFY(run.out.contains(QLatin1String("mixtral-8x7b,Q4_K_M,false,\"fits, experts in CPU RAM\",")));
        QVERIFY(rows[QStringLiteral("mixtral-8x7b Q4_K_M")][10].toUInt() > 0);
    }

    void fitsForVllmAndSglang()
    {
        const Run run = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("h100-80gb"),
                                     QStringLiteral("--engine"), QStringLiteral("vllm"), QStringLiteral("--context"),
                                     QStringLiteral("8192"), QStringLiteral("--concurrency"), QStringLiteral("4"),
                                     QStringLiteral("--format=json")});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(doc.value(QLatin1String("engine")).toString(), QStringLiteral("vllm"));
        bool sawOwn = false;
        for (const QJsonValue &value : doc.value(QLatin1String("rows")).toArray()) {
            const QJsonObject row = value.toObject();
            const QString format = row.value(QLatin1String("format")).toString();
            QVERIFY2(format == QLatin1String("bf16") || format == QLatin1String("fp8") || row.value(QLatin1String("checkpoint")).toBool(),
                     qPrintable(format));
            QCOMPARE(row.value(QLatin1String("n_cpu_moe")).toInt(), 0); // no expert offload in vLLM
            if (row.value(QLatin1String("model")).toString() == QLatin1String("gpt-oss-20b") && format == QLatin1String("mxfp4"))
                sawOwn = true;
            if (row.value(QLatin1String("model")).toString() == QLatin1String("llama-3-8b") && format == QLatin1String("bf16")) {
                // 16 GB of bf16 weights in 0.9 x 80 GB: 4 sequences of 8192 fit, and more.
                QCOMPARE(row.value(QLatin1String("verdict")).toString(), QStringLiteral("fits"));
                QVERIFY(row.value(QLatin1String("max_concurrency")).toInt() > 4);
                QCOMPARE(row.value(QLatin1String("flags")).toString(), QStringLiteral("--max-model-len 8192 --max-num-seqs 4"));
            }
        }
        QVERIFY(sawOwn);
        const Run sglang = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("h100-80gb"),
                                        QStringLiteral("--engine"), QStringLiteral("sglang")});
        QCOMPARE(sglang.exitCode, 0);
        QVERIFY2(sglang.out.startsWith(QLatin1String("SGLang on ")), qPrintable(sglang.out.left(200)));
        const Run bad = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                     QStringLiteral("--engine"), QStringLiteral("tgi")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(QLatin1String("--engine: must be llama_cpp, vllm or sglang")));
        // Several GPUs: llama.cpp rows split over them (-ts); vLLM is refused, naming why.
        const Run two = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                     QStringLiteral("--gpu"), QStringLiteral("rtx-3090"), QStringLiteral("--format"),
                                     QStringLiteral("json")});
        QCOMPARE(two.exitCode, 0);
        const QJsonObject twoDoc = QJsonDocument::fromJson(two.out.toUtf8()).object();
        QCOMPARE(twoDoc.value(QLatin1String("gpus")).toArray().size(), 2);
        bool split = false;
        for (const QJsonValue &row : twoDoc.value(QLatin1String("rows")).toArray())
            if (row.toObject().value(QLatin1String("model")).toString() == QLatin1String("llama-3-70b") &&
                row.toObject().value(QLatin1String("format")).toString() == QLatin1String("Q4_K_M")) {
                QCOMPARE(row.toObject().value(QLatin1String("verdict")).toString(), QStringLiteral("fits"));
                split = row.toObject().value(QLatin1String("flags")).toString().contains(QLatin1String("-ts "));
            }
        QVERIFY(split);
        const Run vllmTwo = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("h100-80gb"),
                                         QStringLiteral("--gpu"), QStringLiteral("h100-80gb"), QStringLiteral("--engine"),
                                         QStringLiteral("vllm")});
        QCOMPARE(vllmTwo.exitCode, 2);
        QVERIFY2(vllmTwo.err.contains(QLatin1String("llama.cpp only")), qPrintable(vllmTwo.err));
        const Run many = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                      QStringLiteral("--concurrency"), QStringLiteral("300")});
        QCOMPARE(many.exitCode, 2);
        QVERIFY(many.err.contains(QLatin1String("LLAMA_MAX_SEQ")));
    }

    void badInputExitsTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QString seed = QStringLiteral(HEADROOM_SOURCE_DIR "/fuzz/seeds/gguf/moe.gguf");
        auto args = [&](const char *rest) {
            return QStringList{seed} + QString::fromLatin1(rest).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        };
        QTest::newRow("no-gpu") << args("") << QStringLiteral("usage:");
        QTest::newRow("unknown-gpu") << args("--gpu rtx-9999") << QStringLiteral("not a catalog GPU");
        QTest::newRow("bad-target") << args("--gpu rtx-4090 --target-mib -3") << QStringLiteral("--target-mib");
        QTest::newRow("missing") << QStringList{m_dir.filePath(QStringLiteral("none.gguf")), QStringLiteral("--gpu"),
                                                QStringLiteral("rtx-4090")}
                                 << QStringLiteral("none.gguf");
        // A file cut after its version: the message names the file once ("x.gguf: truncated ...").
        {
            QFile cut(m_dir.filePath(QStringLiteral("cut.gguf")));
            if (cut.open(QIODevice::WriteOnly))
                cut.write(QByteArray("GGUF\x03\x00\x00\x00", 8));
        }
        QTest::newRow("truncated-named-once") << QStringList{m_dir.filePath(QStringLiteral("cut.gguf")), QStringLiteral("--gpu"),
                                                             QStringLiteral("rtx-4090")}
                                              << QStringLiteral("cut.gguf: truncated");
    }

    void badInputExitsTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const Run run = runHeadroom(QStringList{QStringLiteral("fit")} + arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QVERIFY2(run.err.count(QStringLiteral(".gguf: ")) <= 1, qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestFitCli)
#include "tst_fitcli.moc"
