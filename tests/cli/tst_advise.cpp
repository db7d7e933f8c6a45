// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom advise FILE --gpu ID` as a user runs it: the waterfall table, JSON, --set, --unit,
// and one clear line with exit code 2 for every kind of bad input.
#include "solve/advisor.h"
#include "lesson/lesson.h"

#include <algorithm>
#include "testutil.h"

#include "processutil.h"
#include <QTemporaryDir>

using headroom::test::Run;
using headroom::test::runHeadroom;
using namespace headroom;

namespace {

} // namespace

class TestAdvise : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_ladder; ///< the ladder lesson's first step as a scenario file

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const Scenario start = parseLesson(std::find_if(builtinLessons().begin(), builtinLessons().end(), [](const BuiltinLesson &l) { return std::string(l.id) == "ladder"; })->json).steps.front().scenario;
        m_ladder = m_dir.filePath(QStringLiteral("ladder.headroom.json"));
        QFile file(m_ladder);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(scenarioToJson(start).dump(2)));
    }

    void textIsAWaterfallToTheFirstFit()
    {
        const Run run = runHeadroom({QStringLiteral("advise"), m_ladder, QStringLiteral("--gpu"),
                                     QStringLiteral("rtx-4090")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        for (const char *text : {"RTX 4090 \u00b7 23.99 GiB", "Now: does not fit RTX 4090", "Step", "Lever", "Saves", "Peak", "Cost",
                                 "Current configuration", "Gradient checkpointing", "about +33% compute",
                                 "LoRA", "Fits after", "Final configuration:", "train.method=lora"})
            QVERIFY2(run.out.contains(QString::fromUtf8(text)), qPrintable(QString::fromUtf8(text) + QStringLiteral("\n") + run.out));
        // The rows go down: each step's peak column is below the one before.
        const Advice advice = advise(scenarioFromJson(nlohmann::json::parse(readAll(m_ladder))), "rtx-4090");
        QVERIFY(run.out.contains(QString::fromStdString(formatBytes(advice.finalPeakDeviceBytes(), Unit::GiB))));
        QVERIFY(run.out.contains(QString::fromStdString(formatBytes(advice.startPeakDeviceBytes, Unit::GiB))));
    }

    void jsonIsTheAdviceFormat()
    {
        const Run run = runHeadroom({QStringLiteral("advise"), m_ladder, QStringLiteral("--gpu"),
                                     QStringLiteral("a100-80gb"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(doc.at("format").get<std::string>(), std::string("headroom-advice"));
        QVERIFY(doc.at("fits").get<bool>());
        QCOMPARE(doc.at("gpu").at("id").get<std::string>(), std::string("a100-80gb"));
        std::uint64_t previous = doc.at("start").at("device_bytes").get<std::uint64_t>();
        for (const auto &step : doc.at("steps")) {
            QVERIFY(step.at("device_bytes").get<std::uint64_t>() < previous);
            previous = step.at("device_bytes").get<std::uint64_t>();
            QVERIFY(!step.at("cost").get<std::string>().empty());
            QVERIFY(!step.at("title").get<std::string>().empty());
        }
        QCOMPARE(previous, doc.at("final_device_bytes").get<std::uint64_t>());
    }

    void setAndUnitApply()
    {
        const Run run = runHeadroom({QStringLiteral("advise"), m_ladder, QStringLiteral("--gpu"), QStringLiteral("t4"),
                                     QStringLiteral("--set"), QStringLiteral("train.method=qlora"),
                                     QStringLiteral("--set"), QStringLiteral("precision.weights=nf4"),
                                     QStringLiteral("--unit"), QStringLiteral("GiB")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(QLatin1String(" GiB")));
        QVERIFY(!run.out.contains(QLatin1String("LoRA (rank"))); // already QLoRA: no LoRA step
    }

    void alreadyFits()
    {
        const Run run = runHeadroom({QStringLiteral("advise"), m_ladder, QStringLiteral("--gpu"), QStringLiteral("b200"),
                                     QStringLiteral("--set"), QStringLiteral("train.method=lora"),
                                     QStringLiteral("--set"), QStringLiteral("precision.weights=bf16")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("already fits")), qPrintable(run.out));
    }

    void badInputIsOneLineAndExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QString file = QStringLiteral("@ladder");
        QTest::newRow("no-gpu-ticked") << QStringList{file, QStringLiteral("--set"), QStringLiteral("gpus=[]"),
                                                     QStringLiteral("--set"), QStringLiteral("target_gpu=\"\"")}
                                       << QStringLiteral("--gpu");
        QTest::newRow("unknown-gpu") << QStringList{file, QStringLiteral("--gpu"), QStringLiteral("gtx-9999")}
                                     << QStringLiteral("unknown GPU gtx-9999");
        QTest::newRow("bad-format") << QStringList{file, QStringLiteral("--gpu"), QStringLiteral("t4"),
                                                   QStringLiteral("--format"), QStringLiteral("csv")}
                                    << QStringLiteral("--format");
        QTest::newRow("bad-unit") << QStringList{file, QStringLiteral("--gpu"), QStringLiteral("t4"),
                                                 QStringLiteral("--unit"), QStringLiteral("MB")}
                                  << QStringLiteral("--unit");
        QTest::newRow("bad-set") << QStringList{file, QStringLiteral("--gpu"), QStringLiteral("t4"),
                                                QStringLiteral("--set"), QStringLiteral("train.micro_batch=0")}
                                 << QStringLiteral("train.micro_batch");
        QTest::newRow("missing-file") << QStringList{m_dir.filePath(QStringLiteral("nope.json")), QStringLiteral("--gpu"),
                                                     QStringLiteral("t4")}
                                      << QStringLiteral("cannot open");
        QTest::newRow("no-file") << QStringList{QStringLiteral("--gpu"), QStringLiteral("t4")} << QStringLiteral("usage");
    }
    void badInputIsOneLineAndExitTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        arguments.replaceInStrings(QStringLiteral("@ladder"), m_ladder);
        arguments.prepend(QStringLiteral("advise"));
        const Run run = runHeadroom(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        const QStringList lines = run.err.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines[0].startsWith(QLatin1String("headroom: ")) && lines[0].contains(message), qPrintable(run.err));
    }

    void listedInHelp()
    {
        const Run run = runHeadroom({QStringLiteral("--help")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(QLatin1String("advise")));
    }

private:
    static std::string readAll(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
    }
};

QTEST_GUILESS_MAIN(TestAdvise)
#include "tst_advise.moc"
