// SPDX-License-Identifier: GPL-3.0-or-later
// File > Import model with a GGUF file: the architecture from its metadata and the exact
// parameter total from its tensors (the fuzz seed written by fuzz/seeds/gguf/make_seeds.py).
#include "document/modelimporter.h"

#include <QtTest>

using namespace headroom;

class TestGgufImport : public QObject
{
    Q_OBJECT

private slots:
    void importsTheShapeAndTheTotal()
    {
        const QString seed = QStringLiteral(HEADROOM_SOURCE_DIR "/fuzz/seeds/gguf/moe.gguf");
        QVERIFY(isModelFile(seed));
        const auto never = [](const QString &, const std::vector<std::string> &, nlohmann::json &) { return false; };
        const std::optional<ModelImport> import = importModelFile(seed, ModelArch{}, never);
        QVERIFY(import);
        // make_seeds.py's llama('qwen3moe', experts=4): 2 blocks of hidden 32, 4 experts (2 per
        // token), 3,232 elements in its 23 tensors.
        QCOMPARE(import->arch.layers, 2);
        QCOMPARE(import->arch.hidden, 32);
        QCOMPARE(import->arch.experts, 4);
        QCOMPARE(import->arch.expertsPerToken, 2);
        QCOMPARE(import->arch.params, std::optional<std::uint64_t>(3232));
        QVERIFY2(import->summary.contains(QLatin1String("23 tensors")), qPrintable(import->summary));
        QVERIFY(import->summary.contains(QLatin1String("qwen3moe")));
    }
};

QTEST_GUILESS_MAIN(TestGgufImport)
#include "tst_ggufimport.moc"
