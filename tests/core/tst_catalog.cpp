// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled-in catalogs: every model's counted parameters equal its published total,
// the required GPUs are there with the capacity their driver reports, every machine holds a
// catalog GPU and the system RAM its datasheet or instance table prints.
#include "model/architecture.h"
#include "scenario/catalog.h"
#include "scenario/units.h"
#include "testutil.h"

#include <nlohmann/json.hpp>
#include <set>

using namespace headroom;

class TestCatalog : public QObject
{
    Q_OBJECT
private slots:
    void everyModelMatchesItsPublishedTotal_data()
    {
        QTest::addColumn<QString>("id");
        for (const ModelPreset &model : builtinCatalog().models)
            QTest::newRow(model.id.c_str()) << QString::fromStdString(model.id);
    }
    void everyModelMatchesItsPublishedTotal()
    {
        QFETCH(QString, id);
        const ModelPreset *model = builtinCatalog().findModel(id.toStdString());
        QVERIFY(model);
        QVERIFY2(!model->source.empty(), "every catalog model names its source");
        QCOMPARE(countParams(model->arch).total, model->publishedParams);
    }

    void requiredModels()
    {
        const char *required[] = {"gpt2",        "llama-2-7b",   "llama-2-13b", "llama-2-70b",
                                  "llama-3-8b",  "llama-3-70b",  "llama-3.2-1b", "llama-3.2-3b",
                                  "mistral-7b",  "qwen2.5-7b",   "phi-3-mini"};
        for (const char *id : required)
            QVERIFY2(builtinCatalog().findModel(id), id);
    }

    void requiredGpus_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<qulonglong>("mib"); // 0: only presence is checked
        QTest::newRow("t4") << QStringLiteral("t4") << 15360ull;
        QTest::newRow("rtx-3060-12gb") << QStringLiteral("rtx-3060-12gb") << 0ull;
        QTest::newRow("rtx-3090") << QStringLiteral("rtx-3090") << 0ull;
        QTest::newRow("rtx-4090") << QStringLiteral("rtx-4090") << 24564ull;
        QTest::newRow("l4") << QStringLiteral("l4") << 0ull;
        QTest::newRow("a10g") << QStringLiteral("a10g") << 0ull;
        QTest::newRow("a100-40gb") << QStringLiteral("a100-40gb") << 0ull;
        QTest::newRow("a100-80gb") << QStringLiteral("a100-80gb") << 81920ull;
        QTest::newRow("h100-80gb") << QStringLiteral("h100-80gb") << 81559ull;
        QTest::newRow("h200") << QStringLiteral("h200") << 143771ull;
        QTest::newRow("l40s") << QStringLiteral("l40s") << 0ull;
        QTest::newRow("mi300x") << QStringLiteral("mi300x") << 0ull;
        // The GPUs users name in logs (issue 24), at the totals nvidia-smi / rocm-smi print:
        // 'RTX 3090 Ti, 24564 MiB', 'RTX 3070, 8192 MiB', 'H20-3e, 143771 MiB', and the Radeon
        // 8060S's 96 GB carve-out 'VRAM total: 103,079,215,104 bytes' = 98,304 MiB.
        QTest::newRow("rtx-3090-ti") << QStringLiteral("rtx-3090-ti") << 24564ull;
        QTest::newRow("rtx-3070") << QStringLiteral("rtx-3070") << 8192ull;
        QTest::newRow("h20-141gb") << QStringLiteral("h20-141gb") << 143771ull;
        QTest::newRow("ryzen-ai-max-395-128gb") << QStringLiteral("ryzen-ai-max-395-128gb") << 103'079'215'104ull / (1ull << 20);
    }
    void requiredGpus()
    {
        QFETCH(QString, id);
        QFETCH(qulonglong, mib);
        const Gpu *gpu = builtinCatalog().findGpu(id.toStdString());
        QVERIFY(gpu);
        QVERIFY(!gpu->source.empty());
        QVERIFY(gpu->capacityMiB > 1000);
        // Usable capacity is below the marketing size in decimal GB.
        QVERIFY(double(gpu->capacityBytes()) <= gpu->marketingGb * 1.1e9);
        if (mib)
            QCOMPARE(qulonglong(gpu->capacityMiB), mib);
    }

    void idsAreUnique()
    {
        std::set<std::string> seen;
        for (const auto &model : builtinCatalog().models)
            QVERIFY2(seen.insert(model.id).second, model.id.c_str());
        for (const auto &gpu : builtinCatalog().gpus)
            QVERIFY2(seen.insert(gpu.id).second, gpu.id.c_str());
        for (const auto &machine : builtinCatalog().machines)
            QVERIFY2(seen.insert(machine.id).second, machine.id.c_str());
    }

    void everyMachineHoldsACatalogGpu()
    {
        QVERIFY(!builtinCatalog().machines.empty());
        for (const Machine &machine : builtinCatalog().machines) {
            QVERIFY2(builtinCatalog().findGpu(machine.gpuId), machine.id.c_str());
            QVERIFY2(machine.gpus >= 1 && machine.gpus <= 1024, machine.id.c_str());
            QVERIFY2(machine.ramGiB > 0, machine.id.c_str());
            QVERIFY2(!machine.name.empty() && !machine.source.empty(), machine.id.c_str());
            QCOMPARE(builtinCatalog().findMachine(machine.id), &machine);
        }
        QVERIFY(!builtinCatalog().findMachine("dgx-h1000"));
    }

    // The figures as their sources print them: NVIDIA's DGX user guides and reference
    // architecture ("2 TB" of DIMMs, 32 x 64 GB), the cloud providers' instance tables.
    void requiredMachines_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<uint>("gpus");
        QTest::addColumn<double>("ramGiB");
        const auto row = [](const char *id, const char *gpu, uint gpus, double ram) {
            QTest::newRow(id) << QString::fromLatin1(id) << QString::fromLatin1(gpu) << gpus << ram;
        };
        row("dgx-a100-640gb", "a100-80gb", 8, 2048);
        row("dgx-h100", "h100-80gb", 8, 2048);
        row("dgx-h200", "h200", 8, 2048);
        row("dgx-b200", "b200", 8, 2048);
        row("azure-nd-mi300x-v5", "mi300x", 8, 1850);
        row("aws-p5-48xlarge", "h100-80gb", 8, 2048);
        row("aws-p4d-24xlarge", "a100-40gb", 8, 1152);
        row("gcp-a3-highgpu-8g", "h100-80gb", 8, 1872);
    }
    void requiredMachines()
    {
        QFETCH(QString, id);
        QFETCH(QString, gpu);
        QFETCH(uint, gpus);
        QFETCH(double, ramGiB);
        const Machine *machine = builtinCatalog().findMachine(id.toStdString());
        QVERIFY(machine);
        QCOMPARE(QString::fromStdString(machine->gpuId), gpu);
        QCOMPARE(uint(machine->gpus), gpus);
        QCOMPARE(machine->ramGiB, ramGiB);
    }

    void malformedMachineNamesTheKey_data()
    {
        QTest::addColumn<QString>("machines");
        QTest::addColumn<QString>("mentions");
        const auto row = [](const char *name, const std::string &machines, const char *mentions) {
            QTest::newRow(name) << QString::fromStdString(machines) << QString::fromUtf8(mentions);
        };
        // A well-formed entry with one change (a merge patch: null removes the key).
        const auto changed = [](const char *patch) {
            nlohmann::json entry = nlohmann::json::parse(
                R"({"id": "box", "name": "Box", "gpu": "h100-80gb", "gpus": 8, "ram_gib": 2048, "source": "s"})");
            entry.merge_patch(nlohmann::json::parse(patch));
            return "[" + entry.dump() + "]";
        };
        row("not-a-list", R"({"id": "box"})", "\"machines\" must be a list");
        row("entry-not-object", R"(["box"])", "must be an object");
        row("unknown-key", changed(R"({"colour": "green"})"), "machine box: unknown key \"colour\"");
        row("missing-ram", changed(R"({"ram_gib": null})"), "machine box: missing key \"ram_gib\"");
        row("unknown-gpu", changed(R"({"gpu": "h1000"})"), "machine box: key \"gpu\" names \"h1000\"");
        row("gpus-string", changed(R"({"gpus": "8"})"), "machine box: key \"gpus\" must be a whole number");
        row("gpus-zero", changed(R"({"gpus": 0})"), "machine box: key \"gpus\" must be a whole number from 1 to 1,024");
        row("gpus-too-many", changed(R"({"gpus": 1025})"), "machine box: key \"gpus\" must be a whole number from 1 to 1,024");
        row("gpus-fraction", changed(R"({"gpus": 2.5})"), "machine box: key \"gpus\"");
        row("ram-zero", changed(R"({"ram_gib": 0})"), "machine box: key \"ram_gib\" must be above 0");
        row("ram-negative", changed(R"({"ram_gib": -1})"), "machine box: key \"ram_gib\" must be above 0");
        row("ram-bool", changed(R"({"ram_gib": true})"), "machine box: key \"ram_gib\" has the wrong type");
        row("empty-source", changed(R"({"source": ""})"), "machine box: key \"source\"");
        row("no-id", changed(R"({"id": null})"), "gpus.json machines: missing key \"id\"");
        const std::string once = changed("{}");
        row("twice", once.substr(0, once.size() - 1) + "," + once.substr(1), "machine box: the id is given twice");
    }
    void malformedMachineNamesTheKey()
    {
        QFETCH(QString, machines);
        QFETCH(QString, mentions);
        const char *models = R"({"format": "headroom-model-catalog", "version": 1, "models": []})";
        const std::string gpus =
            R"({"format": "headroom-gpu-catalog", "version": 1, "gpus": [{"id": "h100-80gb", "name": "H100",
                "marketing_gb": 80, "capacity_mib": 81559, "vendor": "nvidia", "class": "datacenter",
                "source": "s"}], "machines": )" + machines.toStdString() + "}";
        try {
            parseCatalog(models, gpus);
            QFAIL("a malformed machine was accepted");
        } catch (const std::runtime_error &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(mentions), error.what());
        }
    }

    void aWellFormedMachineParses()
    {
        const Catalog catalog = parseCatalog(
            R"({"format": "headroom-model-catalog", "version": 1, "models": []})",
            R"({"format": "headroom-gpu-catalog", "version": 1, "gpus": [{"id": "h100-80gb", "name": "H100",
                "marketing_gb": 80, "capacity_mib": 81559, "vendor": "nvidia", "class": "datacenter",
                "source": "s"}], "machines": [{"id": "box", "name": "Box", "gpu": "h100-80gb", "gpus": 4,
                "ram_gib": 512.5, "source": "s"}]})");
        QCOMPARE(catalog.machines.size(), std::size_t(1));
        const Machine *box = catalog.findMachine("box");
        QVERIFY(box);
        QCOMPARE(box->name, std::string("Box"));
        QCOMPARE(box->gpuId, std::string("h100-80gb"));
        QCOMPARE(box->gpus, 4u);
        QCOMPARE(box->ramGiB, 512.5);
    }

    // A GPU of a typed size (issue 22's "24 GiB" in My GPU): the canonical id, the capacity in
    // whole MiB (24 GiB = 24 x 1,024 = 24,576 MiB; 20 GB = 20 x 10^9 / 2^20 = 19,073.49 -> 19,073;
    // 23.5 GiB = 24,064 MiB), a scenario file naming it reads back the same, and what is not a
    // size (no unit, 0, over 100,000, 4 decimals) is no GPU.
    void typedSizeGpus()
    {
        const auto capacity = parseCapacity(" 24 GiB ");
        QVERIFY(capacity);
        QCOMPARE(capacity->id(), std::string("24gib"));
        QCOMPARE(capacity->text(), std::string("24 GiB"));
        QCOMPARE(capacity->bytes(), std::uint64_t(24) << 30);
        QCOMPARE(parseCapacity("20gb")->bytes(), std::uint64_t(20000000000ull));
        QCOMPARE(parseCapacity("23.50 G")->id(), std::string("23.5gib"));
        QCOMPARE(parseCapacity("24", Unit::GB)->id(), std::string("24gb"));
        for (const char *bad : {"24", "0 GiB", "0.999 GiB", "100001 GiB", "1.2345 GiB", "24 TiB", "GiB", "-24 GiB", "24.gib"})
            QVERIFY2(!parseCapacity(bad), bad);
        QCOMPARE(parseCapacity("100000 GB")->bytes(), std::uint64_t(100000000000000ull));
        const Gpu *gpu = builtinCatalog().findGpu("24gib");
        QVERIFY(gpu);
        QCOMPARE(gpu->capacityMiB, std::uint64_t(24576));
        QCOMPARE(gpu->name, std::string("24 GiB GPU"));
        QCOMPARE(builtinCatalog().findGpu("24gib"), gpu); // one GPU per id, kept
        QCOMPARE(builtinCatalog().findGpu("20gb")->capacityMiB, std::uint64_t(19073));
        QCOMPARE(builtinCatalog().findGpu("23.5gib")->capacityMiB, std::uint64_t(24064));
        QVERIFY(!builtinCatalog().findGpu("24.0gib")); // not the canonical spelling
        QVERIFY(!builtinCatalog().findGpu("24 GiB"));
        QCOMPARE(canonicalGpuId("24 GiB", builtinCatalog()), std::string("24gib"));
        QCOMPARE(canonicalGpuId("rtx-4090", builtinCatalog()), std::string("rtx-4090"));
        QCOMPARE(canonicalGpuId("24", builtinCatalog()), std::string());
    }

    // The scenario keys a preset may need besides the shape: Qwen3-Next's gated attention and the
    // exact total that holds its 48 shared-expert gates (2048 x 1 each, outside the shape),
    // DeepSeek-V3.2's indexer. Changing the shape keeps the gates on top of the new count, as it
    // does for an imported config.json.
    void presetsCarryWhatTheShapeLeavesOut()
    {
        const ModelPreset *next = builtinCatalog().findModel("qwen3-next-80b-a3b");
        QVERIFY(next && next->arch.params && next->arch.gatedAttention);
        const std::uint64_t gates = 48ull * 2048;
        QCOMPARE(countParams(next->arch).derived + gates, 79'674'391'296ull);
        QCOMPARE(countParams(next->arch).total, 79'674'391'296ull);
        const Scenario fewer = test::scenarioFrom(R"({"model": {"preset": "qwen3-next-80b-a3b", "layers": 24}})");
        QCOMPARE(countParams(fewer.model).total, countParams(fewer.model).derived + gates);
        QVERIFY(countParams(fewer.model).total < 79'674'391'296ull * 6 / 10);
        const Scenario exact = test::scenarioFrom(R"({"model": {"preset": "qwen3-next-80b-a3b", "params": 80000000000}})");
        QCOMPARE(countParams(exact.model).total, 80'000'000'000ull);
        const ModelPreset *v32 = builtinCatalog().findModel("deepseek-v3.2");
        QVERIFY(v32);
        QCOMPARE(v32->arch.indexerHeads, 64);
        QCOMPARE(v32->arch.indexerHeadDim, 128);
    }

    void malformedCatalogNamesTheEntry()
    {
        const char *gpus = R"({"format": "headroom-gpu-catalog", "version": 1, "gpus": []})";
        try {
            parseCatalog(R"({"format": "headroom-model-catalog", "version": 1,
                             "models": [{"id": "broken", "name": "x"}]})",
                         gpus);
            QFAIL("a model without its keys was accepted");
        } catch (const std::runtime_error &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("broken")), error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
