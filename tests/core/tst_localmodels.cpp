// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22: models named as the user thinks of them (a config.json's _name_or_path or folder,
// "Llama-3.1-8B", never "custom 8.0B"), and "Models on this computer": a fake Hugging Face hub
// cache built here (blobs with symlinked snapshots, a broken download, links out of the cache).
#include "localmodels.h"
#include "model/modeljson.h"
#include "model/modelname.h"
#include "modelimport.h"
#include "processutil.h"
#include "scenario/scenariojson.h"
#include "scenario/scenariotitle.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;

namespace {

QString configFixture(const char *name)
{
    return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/") + QLatin1String(name);
}

QByteArray fileBytes(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeBytes(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

/// A safetensors file of one BF16 tensor [2, 3]: 8 bytes of length, the header, 12 data bytes.
QByteArray tinySafetensors()
{
    const std::string header =
        json{{"model.embed_tokens.weight", {{"dtype", "BF16"}, {"shape", {2, 3}}, {"data_offsets", {0, 12}}}}}.dump();
    QByteArray bytes(8, '\0');
    for (int i = 0; i < 8; ++i)
        bytes[i] = char((std::uint64_t(header.size()) >> (8 * i)) & 0xff);
    bytes += QByteArray::fromStdString(header);
    bytes += QByteArray(12, '\0');
    return bytes;
}

Scenario readScenario(const json &model)
{
    json doc = {{"format", "headroom-scenario"}, {"version", 1}, {"model", model}};
    return scenarioFromJson(doc);
}

} // namespace

class TestLocalModels : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_cache;

    /// `models--REPO/snapshots/REV/FILE -> ../../blobs/BLOB` with BLOB holding `content`.
    void addSnapshotFile(const QString &repo, const QString &rev, const QString &file, const QString &blob,
                         const QByteArray &content)
    {
        const QString model = m_cache + QLatin1Char('/') + repo;
        QVERIFY(writeBytes(model + QStringLiteral("/blobs/") + blob, content));
        QDir().mkpath(model + QStringLiteral("/snapshots/") + rev);
        QVERIFY(QFile::link(QStringLiteral("../../blobs/") + blob,
                            model + QStringLiteral("/snapshots/") + rev + QLatin1Char('/') + file));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_cache = m_dir.filePath(QStringLiteral("hub"));
        QVERIFY(QDir().mkpath(m_cache));
        const QString rev = QStringLiteral("0e9e39f249a16976918f6564b8830bc894c89659");
        // 1. A complete download: config.json and one safetensors file, both links into blobs/.
        addSnapshotFile(QStringLiteral("models--meta-llama--Llama-3.2-1B"), rev, QStringLiteral("config.json"),
                        QStringLiteral("a1"), fileBytes(configFixture("llama-3.2-1b.json")));
        addSnapshotFile(QStringLiteral("models--meta-llama--Llama-3.2-1B"), rev, QStringLiteral("model.safetensors"),
                        QStringLiteral("a2"), tinySafetensors());
        // 2. A config whose _name_or_path names it, in a folder named otherwise; no weights.
        addSnapshotFile(QStringLiteral("models--someone--my-opt"), QStringLiteral("1111"), QStringLiteral("config.json"),
                        QStringLiteral("b1"), fileBytes(configFixture("opt-125m.json")));
        // 3. An interrupted download: config.json links to a blob that never arrived.
        QDir().mkpath(m_cache + QStringLiteral("/models--broken--Half/snapshots/2222"));
        QVERIFY(QFile::link(QStringLiteral("../../blobs/missing"),
                            m_cache + QStringLiteral("/models--broken--Half/snapshots/2222/config.json")));
        // 4. A snapshot whose config.json links out of the cache (to a valid config elsewhere).
        QVERIFY(writeBytes(m_dir.filePath(QStringLiteral("outside/config.json")),
                           fileBytes(configFixture("gpt2.json"))));
        QDir().mkpath(m_cache + QStringLiteral("/models--evil--Escape/snapshots/3333"));
        QVERIFY(QFile::link(m_dir.filePath(QStringLiteral("outside/config.json")),
                            m_cache + QStringLiteral("/models--evil--Escape/snapshots/3333/config.json")));
        // 5. A good config whose weights link out of the cache.
        addSnapshotFile(QStringLiteral("models--evil--Weights"), QStringLiteral("4444"), QStringLiteral("config.json"),
                        QStringLiteral("c1"), fileBytes(configFixture("gpt2.json")));
        QVERIFY(writeBytes(m_dir.filePath(QStringLiteral("outside/model.safetensors")), tinySafetensors()));
        QVERIFY(QFile::link(m_dir.filePath(QStringLiteral("outside/model.safetensors")),
                            m_cache + QStringLiteral("/models--evil--Weights/snapshots/4444/model.safetensors")));
        // What the hub keeps besides models is not listed.
        QDir().mkpath(m_cache + QStringLiteral("/datasets--someone--data/snapshots/5555"));
        QDir().mkpath(m_cache + QStringLiteral("/.locks/models--meta-llama--Llama-3.2-1B"));
    }

    void namesFromNameOrPath()
    {
        // Real config.json files whose _name_or_path transformers wrote (tests/data/configs).
        QCOMPARE(importModelConfig(configFixture("opt-125m.json")).arch.name, std::string("opt-125m"));
        QCOMPARE(importModelConfig(configFixture("llama-2-7b.json")).arch.name, std::string("Llama-2-7b-hf"));
        QCOMPARE(importModelConfig(configFixture("phi-3-mini-4k.json")).arch.name,
                 std::string("Phi-3-mini-4k-instruct"));
        // Without one: the file's name, or its folder for a config.json.
        QCOMPARE(importModelConfig(configFixture("llama-3.1-8b.json")).arch.name, std::string("llama-3.1-8b"));
        const QString folder = m_dir.filePath(QStringLiteral("Llama-3.1-8B/config.json"));
        QVERIFY(writeBytes(folder, fileBytes(configFixture("llama-3.1-8b.json"))));
        const HfImport named = importModelConfig(folder);
        QCOMPARE(named.arch.name, std::string("Llama-3.1-8B"));
        Scenario s;
        s.model = named.arch;
        QVERIFY2(scenarioTitle(s).rfind("Llama-3.1-8B \u00b7 ", 0) == 0, scenarioTitle(s).c_str());
        QVERIFY(scenarioTitle(s).find("custom") == std::string::npos);
    }

    void namesFromPaths()
    {
        QCOMPARE(modelNameFromPath("/c/hub/models--meta-llama--Llama-3.1-8B/snapshots/0e9e39f2/config.json"),
                 std::string("Llama-3.1-8B"));
        QCOMPARE(modelNameFromPath("/root/.cache/huggingface/hub/models--gpt2/snapshots/607a30d7"), std::string("gpt2"));
        QCOMPARE(modelNameFromPath("C:\\models\\Qwen3-8B\\config.json"), std::string("Qwen3-8B"));
        QCOMPARE(modelNameFromPath("meta-llama/Llama-3.1-8B/"), std::string("Llama-3.1-8B"));
        QCOMPARE(modelNameFromPath("config.json"), std::string());
        QCOMPARE(modelNameFromPath("../config.json"), std::string());
        QCOMPARE(hubRepoId("models--meta-llama--Llama-3.1-8B"), std::string("meta-llama/Llama-3.1-8B"));
        QCOMPARE(hubRepoId("models--gpt2"), std::string("gpt2"));
        QCOMPARE(hubRepoId("datasets--a--b"), std::string());
        QCOMPARE(hubRepoId("models--a--b--c"), std::string());
        QCOMPARE(hubRepoId("models--"), std::string());
    }

    void namesAreEscapedAndCut()
    {
        // A name from a file goes through the input policy: control characters escaped, at most
        // 40 bytes (37 and "...").
        QCOMPARE(importedModelName(json{{"_name_or_path", "evil/\x1b[31mred"}}, "x/config.json"),
                 std::string("\\x1b[31mred"));
        const std::string longName(100, 'a');
        const std::string cut = importedModelName(json{{"_name_or_path", "org/" + longName}}, "");
        QCOMPARE(cut, std::string(37, 'a') + "...");
        // _name_or_path that is not a string, or empty: the folder names it.
        QCOMPARE(importedModelName(json{{"_name_or_path", 7}}, "/m/Mistral-7B/config.json"), std::string("Mistral-7B"));
        QCOMPARE(importedModelName(json{{"_name_or_path", ""}}, "/m/Mistral-7B/config.json"), std::string("Mistral-7B"));
        QCOMPARE(importedModelName(json::object(), "config.json"), std::string());
    }

    void modelNameKeyRoundTrips()
    {
        const Scenario s = readScenario({{"preset", "llama-3.1-8b"}, {"name", "my Llama"}});
        QCOMPARE(s.model.name, std::string("my Llama"));
        QCOMPARE(modelDisplayName(s), std::string("my Llama"));
        QCOMPARE(modelToJson(s.model).value("name", ""), std::string("my Llama"));
        QCOMPARE(scenarioFromJson(scenarioToJson(s)), s);
        // Rough models keep it too.
        const Scenario rough = readScenario({{"params", 7000000000ull}, {"hidden", 4096}, {"layers", 32}, {"name", "r"}});
        QCOMPARE(scenarioFromJson(scenarioToJson(rough)).model.name, std::string("r"));
        // Refused, naming the key: control characters, and more than 200 bytes.
        for (const json &bad : {json("a\x1b]0;title\x07"), json(std::string(201, 'n')), json(3)}) {
            try {
                readScenario({{"preset", "llama-3.1-8b"}, {"name", bad}});
                QFAIL("model.name accepted");
            } catch (const ScenarioError &error) {
                QVERIFY2(std::string(error.what()).rfind("model.name", 0) == 0, error.what());
            }
        }
    }

    void cacheFolderFromEnvironment()
    {
        // huggingface_hub's constants.py: HF_HUB_CACHE, then HF_HOME/hub, then
        // XDG_CACHE_HOME/huggingface/hub, then ~/.cache/huggingface/hub.
        HubCacheEnvironment env;
        env.home = "/home/u";
        QCOMPARE(hubCacheFolder(env), std::string("/home/u/.cache/huggingface/hub"));
        env.xdgCacheHome = "/x";
        QCOMPARE(hubCacheFolder(env), std::string("/x/huggingface/hub"));
        env.hfHome = "~/hf";
        QCOMPARE(hubCacheFolder(env), std::string("/home/u/hf/hub"));
        env.legacyHubCache = "/legacy";
        QCOMPARE(hubCacheFolder(env), std::string("/legacy"));
        env.hfHubCache = "/fast/hub";
        QCOMPARE(hubCacheFolder(env), std::string("/fast/hub"));
        QCOMPARE(hubCacheFolder(HubCacheEnvironment{}), std::string());
    }

    void listsTheCache()
    {
        const LocalModelList list = listLocalModels(m_cache);
        QVERIFY(list.cacheExists);
        QVERIFY(list.notes.empty());
        std::vector<std::string> repos;
        for (const LocalModel &m : list.models)
            repos.push_back(m.repoId);
        // Sorted by folder name; the dataset and .locks are not models.
        QCOMPARE(repos, (std::vector<std::string>{"broken/Half", "evil/Escape", "evil/Weights",
                                                  "meta-llama/Llama-3.2-1B", "someone/my-opt"}));
        const LocalModel &llama = list.models[3];
        QVERIFY2(llama.problem.empty(), llama.problem.c_str());
        QVERIFY2(llama.weightsProblem.empty(), llama.weightsProblem.c_str());
        QCOMPARE(llama.revision, std::string("0e9e39f249a16976918f6564b8830bc894c89659"));
        QCOMPARE(llama.name, std::string("Llama-3.2-1B")); // from the cache folder, not the hash
        QVERIFY(llama.arch);
        QCOMPARE(llama.arch->layers, 16); // llama-3.2-1b.json: num_hidden_layers 16, hidden_size 2048
        QCOMPARE(llama.arch->hidden, 2048);
        // The one tensor of the header: 2 x 3 = 6 parameters, BF16; on disk 8 + header + 12 bytes.
        QVERIFY(llama.paramsFromWeights);
        QCOMPARE(llama.params, 6ull);
        QCOMPARE(llama.dtype, std::string("BF16"));
        QCOMPARE(llama.diskBytes, std::uint64_t(tinySafetensors().size()));

        const LocalModel &opt = list.models[4];
        QVERIFY2(opt.problem.empty(), opt.problem.c_str());
        QCOMPARE(opt.name, std::string("opt-125m")); // _name_or_path wins over the folder
        QVERIFY(!opt.paramsFromWeights);
        QCOMPARE(opt.params, 125239296ull); // facebook/opt-125m: 125,239,296 (HF num_parameters)
        QCOMPARE(opt.dtype, std::string("float16")); // its torch_dtype
        QCOMPARE(opt.diskBytes, 0ull);

        QVERIFY(!list.models[0].arch);
        QVERIFY2(list.models[0].problem.find("links to a blob that is not there") != std::string::npos,
                 list.models[0].problem.c_str());
        QVERIFY(!list.models[1].arch);
        QVERIFY2(list.models[1].problem.find("outside") != std::string::npos, list.models[1].problem.c_str());
        // Refused before it is read: nothing of gpt2's config reached the entry.
        QVERIFY(list.models[1].name.empty());
        QVERIFY(list.models[2].arch); // its config is fine, its weights are refused
        QVERIFY2(list.models[2].weightsProblem.find("outside") != std::string::npos,
                 list.models[2].weightsProblem.c_str());
        QVERIFY(!list.models[2].paramsFromWeights);
    }

    void cacheLeavingLinksAreRefused()
    {
        // A model folder that is itself a link out of the cache.
        QTemporaryDir other;
        const QString cache = other.filePath(QStringLiteral("hub"));
        QVERIFY(QDir().mkpath(cache));
        QVERIFY(QFile::link(m_cache + QStringLiteral("/models--someone--my-opt"),
                            cache + QStringLiteral("/models--someone--my-opt")));
        const LocalModelList list = listLocalModels(cache);
        QCOMPARE(list.models.size(), std::size_t(1));
        QVERIFY(!list.models[0].arch);
        QVERIFY2(list.models[0].problem.find("outside the cache") != std::string::npos, list.models[0].problem.c_str());
        QVERIFY(!listLocalModels(other.filePath(QStringLiteral("nothing"))).cacheExists);
    }

    void boundedSnapshots()
    {
        QTemporaryDir other;
        const QString snapshots = other.filePath(QStringLiteral("models--a--b/snapshots"));
        for (std::size_t i = 0; i < limits::kHubSnapshots + 3; ++i)
            QVERIFY(QDir().mkpath(snapshots + QStringLiteral("/r%1").arg(i, 3, 10, QLatin1Char('0'))));
        const LocalModelList list = listLocalModels(other.path());
        QCOMPARE(list.models.size(), limits::kHubSnapshots);
        QCOMPARE(list.notes.size(), std::size_t(1));
    }

    void commandLineListsAndNames()
    {
        const test::Run run = test::runHeadroom({QStringLiteral("models"), QStringLiteral("--local"),
                                                 QStringLiteral("--cache"), m_cache});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QStringLiteral("meta-llama/Llama-3.2-1B")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("links to a blob that is not there")), qPrintable(run.out));
        const test::Run json = test::runHeadroom({QStringLiteral("models"), QStringLiteral("--local"),
                                                  QStringLiteral("--cache"), m_cache, QStringLiteral("--format"),
                                                  QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const auto doc = nlohmann::json::parse(json.out.toStdString());
        QCOMPARE(doc["models"].size(), std::size_t(5));
        QCOMPARE(doc["models"][4]["params"].get<std::uint64_t>(), 125239296ull);
        // The CLI's title agrees with the window's: the estimate of the snapshot's config.json is
        // about "Llama-3.2-1B".
        const QString scenario = m_dir.filePath(QStringLiteral("serve.headroom.json"));
        QVERIFY(writeBytes(scenario, R"({"format": "headroom-scenario", "version": 1, "task": "inference"})"));
        const test::Run estimate = test::runHeadroom(
            {QStringLiteral("estimate"), scenario, QStringLiteral("--model-config"),
             m_cache + QStringLiteral("/models--meta-llama--Llama-3.2-1B/snapshots/0e9e39f249a16976918f6564b8830bc894c89659/config.json")});
        QCOMPARE(estimate.exitCode, 0);
        QVERIFY2(estimate.out.contains(QStringLiteral("Llama-3.2-1B")), qPrintable(estimate.out));
        QVERIFY2(!estimate.out.contains(QStringLiteral("custom")), qPrintable(estimate.out));
    }
};

QTEST_GUILESS_MAIN(TestLocalModels)
#include "tst_localmodels.moc"
