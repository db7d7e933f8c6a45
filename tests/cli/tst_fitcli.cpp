// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom fit`: the plan and its flags for a GGUF file or a scenario, in text and JSON, and the
// inputs it refuses.
#include "processutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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

    void fitsListsEveryModelAndFormat()
    {
        const Run run = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                     QStringLiteral("--format=csv")});
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() > 7 * 50);
        QCOMPARE((lines.size() - 1) % 7, 0); // the header, then 7 file types per model
        // Llama 3 8B Q4_K_M (4,912,898,048 B, tst_llamacpp) fits a 24 GB card whole; Mixtral
        // 8x7B Q4_K_M keeps its layers on the GPU with some experts in CPU RAM.
        QVERIFY2(run.out.contains(QLatin1String("llama-3-8b,q4_k_m,\"fits\",4912898048,4096,33,0,")), qPrintable(run.out.left(2000)));
        QVERIFY(run.out.contains(QLatin1String("mixtral-8x7b,q4_k_m,\"fits, experts in CPU RAM\"")));
        const Run vllm = runHeadroom({QStringLiteral("fits"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                                      QStringLiteral("--engine"), QStringLiteral("vllm")});
        QCOMPARE(vllm.exitCode, 2);
        QVERIFY(vllm.err.contains(QLatin1String("not modelled yet")));
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
