// SPDX-License-Identifier: GPL-3.0-or-later
// Every example config kept under tests/data/trainconfigs (copied from the frameworks' own
// repositories, README.md there names them and their commits) read as --train-config reads it:
// each is either read with the values it states (expected.json, read from the files by hand;
// corpus.json, written by tests/trainconfig_corpus.py, an independent PyYAML reader, for every
// other example config of torchtune, LLaMA-Factory, Axolotl and LitGPT) or refused with a message
// naming the file and what it is. A file without an expectation, or an expectation without a
// file, fails: the folder cannot grow a file nobody checked.
#include "trainconfigimport.h"
#include "trainconfigtest.h"

#include "estimate/estimate.h"
#include "scenario/scenariojson.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <set>

using namespace headroom;
using nlohmann::json;
using headroom::test::at;

namespace {

const QString kRoot = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/trainconfigs/");

json filesOf(const char *name)
{
    QFile file(kRoot + QLatin1String(name));
    if (!file.open(QIODevice::ReadOnly))
        return json::object();
    return json::parse(file.readAll().toStdString())["files"];
}

/// expected.json (by hand) over corpus.json (the independent reader); a file is in one only.
json expectations()
{
    json all = filesOf("corpus.json");
    const json byHand = filesOf("expected.json");
    for (const auto &item : byHand.items())
        all[item.key()] = item.value();
    return all;
}

} // namespace

class TestTrainConfigs : public QObject
{
    Q_OBJECT
private slots:
    void everyFileHasAnExpectation()
    {
        const json expected = expectations();
        QVERIFY2(expected.size() >= 600, std::to_string(expected.size()).c_str());
        // The hand-read list and the independent reader's never both claim a file.
        const json corpus = filesOf("corpus.json");
        const json byHand = filesOf("expected.json");
        for (const auto &item : byHand.items())
            QVERIFY2(!corpus.contains(item.key()), item.key().c_str());
        std::set<std::string> files;
        QDirIterator it(kRoot, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = QDir(kRoot).relativeFilePath(it.next());
            if (path == QLatin1String("README.md") || path == QLatin1String("expected.json") ||
                path == QLatin1String("corpus.json"))
                continue;
            files.insert(path.toStdString());
            QVERIFY2(expected.contains(path.toStdString()), qPrintable(path + QStringLiteral(": no expectation")));
        }
        for (const auto &item : expected.items())
            QVERIFY2(files.count(item.key()), qPrintable(QString::fromStdString(item.key() + ": no such file")));
        // Every framework of the issue is there, read and refused alike.
        for (const char *folder : {"torchtune/", "llamafactory/", "axolotl/", "torchtitan/", "ms-swift/", "trl/",
                                   "accelerate/", "litgpt/", "deepspeed/"})
            QVERIFY2(std::any_of(files.begin(), files.end(), [&](const std::string &f) { return f.starts_with(folder); }),
                     folder);
    }

    void everyFileIsReadOrRefused_data()
    {
        QTest::addColumn<QString>("file");
        const json expected = expectations();
        for (const auto &item : expected.items())
            QTest::newRow(item.key().c_str()) << QString::fromStdString(item.key());
    }
    void everyFileIsReadOrRefused()
    {
        QFETCH(QString, file);
        const json expected = expectations()[file.toStdString()];
        const QString path = kRoot + file;
        std::optional<int> gpus;
        if (expected.contains("gpus"))
            gpus = expected["gpus"].get<int>();
        // The model when the file's is not in the catalog (a config.json would be given).
        const json fallback = {{"preset", "llama-3.1-8b"}};
        const json base = {{"format", "headroom-scenario"}, {"version", 1}};
        // or_refused: a refusal naming this is right too (a teacher or expert layout the stand-in
        // model cannot take).
        const QString alternative = QString::fromStdString(expected.value("or_refused", std::string()));
        if (expected.contains("refused")) {
            try {
                importTrainConfigs({path}, {}, {}, {}, base, fallback, gpus);
                QFAIL(qPrintable(file + QStringLiteral(": read, but expected to be refused")));
            } catch (const TrainConfigError &error) {
                const QString message = QString::fromUtf8(error.what());
                QVERIFY2(message.contains(QString::fromStdString(expected["refused"].get<std::string>())) ||
                             (!alternative.isEmpty() && message.contains(alternative)),
                         qPrintable(message));
                // The message names the file (or the file it names) and stays one line.
                QVERIFY2(message.contains(QStringLiteral("trainconfigs/")), qPrintable(message));
                QVERIFY(!message.contains(QLatin1Char('\n')));
            }
            return;
        }
        ImportedRun run;
        try {
            run = importTrainConfigs({path}, {}, {}, {}, base, fallback, gpus);
        } catch (const std::exception &error) {
            const QString message = QString::fromUtf8(error.what());
            if (!alternative.isEmpty() && message.contains(alternative))
                return;
            QFAIL(qPrintable(file + QStringLiteral(": ") + message));
        }
        for (const auto &item : expected["read"].items()) {
            const json got = at(run.document, item.key());
            QVERIFY2(got == item.value(), qPrintable(QString::fromStdString(item.key() + ": want " + item.value().dump() +
                                                                            ", got " + got.dump())));
        }
        if (expected.contains("model")) {
            const std::string want = expected["model"].get<std::string>();
            const json model = run.document["model"];
            if (want.empty())
                QVERIFY2(model == fallback, qPrintable(QString::fromStdString(model.dump())));
            else
                QCOMPARE(QString::fromStdString(model.value("preset", std::string())), QString::fromStdString(want));
        }
        if (expected.contains("warning")) {
            const std::string key = expected["warning"].get<std::string>();
            bool warned = false;
            for (const TrainImport &import : run.imports)
                for (const std::string &line : import.warnings)
                    warned = warned || line.starts_with(key);
            QVERIFY2(warned, key.c_str());
        }
        // What was read is a scenario the estimator takes, and a sharded run has its count.
        try {
            const Scenario scenario = scenarioFromJson(run.document);
            if (at(run.document, "parallel.strategy").is_string())
                QVERIFY(at(run.document, "parallel.gpus").is_number());
            const Estimate e = estimate(scenario);
            QVERIFY(e.peak.allocatedBytes > 0);
        } catch (const std::exception &error) {
            const QString message = QString::fromUtf8(error.what());
            if (!alternative.isEmpty() && message.contains(alternative))
                return;
            QFAIL(qPrintable(file + QStringLiteral(": ") + message));
        }
    }
};

QTEST_GUILESS_MAIN(TestTrainConfigs)
#include "tst_trainconfigs.moc"
