// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled-in catalogs: every model's counted parameters equal its published total,
// the required GPUs are there with the capacity their driver reports.
#include "architecture.h"
#include "catalog.h"
#include "testutil.h"

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
