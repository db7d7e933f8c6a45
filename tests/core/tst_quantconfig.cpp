// SPDX-License-Identifier: GPL-3.0-or-later
// Checkpoint weight formats from quantization_config: each row is a real checkpoint's
// quantization_config (source beside it), read into the stored format, and the metadata it
// adds sized by hand; a method Headroom cannot size is named in a visible warning.
#include "model/architecture.h"
#include "model/hfconfig.h"
#include "scenario/names.h"
#include "testutil.h"

#include <QFile>

using namespace headroom;
using nlohmann::json;

namespace {

json llama2()
{
    QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/llama-2-7b.json"));
    if (!file.open(QIODevice::ReadOnly))
        return json();
    return json::parse(file.readAll().toStdString());
}

HfImport importWith(const json &quantization)
{
    json config = llama2();
    config["quantization_config"] = quantization;
    return importHfConfig(config);
}

} // namespace

class TestQuantConfig : public QObject
{
    Q_OBJECT
private slots:
    void formats_data()
    {
        QTest::addColumn<QByteArray>("quantization");
        QTest::addColumn<QString>("weights");
        QTest::addColumn<int>("groupSize");
        QTest::addColumn<bool>("zeroPoints");
        // https://huggingface.co/nm-testing/DeepSeek-Coder-V2-Lite-Instruct-W8A8 config.json
        // (commit e1baf6d5): int8 weights, one scale per output channel, symmetric.
        QTest::newRow("compressed-tensors-int8-channel") << QByteArray(R"({"config_groups": {"group_0": {
            "input_activations": {"actorder": null, "block_structure": null, "dynamic": true, "group_size": null,
              "num_bits": 8, "observer": "memoryless", "observer_kwargs": {}, "strategy": "token", "symmetric": true, "type": "int"},
            "output_activations": null, "targets": ["Linear"],
            "weights": {"actorder": null, "block_structure": null, "dynamic": false, "group_size": null, "num_bits": 8,
              "observer": "minmax", "observer_kwargs": {}, "strategy": "channel", "symmetric": true, "type": "int"}}},
            "format": "int-quantized", "global_compression_ratio": 1.2697642717533653, "ignore": ["lm_head"],
            "kv_cache_scheme": null, "quant_method": "compressed-tensors", "quantization_status": "compressed"})")
            << "int8" << -1 << false;
        // https://huggingface.co/nm-testing/Phi-3-mini-128k-instruct-FP8 config.json (commit
        // c29ffa78): fp8 W8A8 with one scale per tensor.
        QTest::newRow("compressed-tensors-fp8-tensor") << QByteArray(R"({"config_groups": {"group_0": {
            "input_activations": {"block_structure": null, "dynamic": false, "group_size": null, "num_bits": 8,
              "observer": "minmax", "observer_kwargs": {}, "strategy": "tensor", "symmetric": true, "type": "float"},
            "output_activations": null, "targets": ["Linear"],
            "weights": {"block_structure": null, "dynamic": false, "group_size": null, "num_bits": 8, "observer": "minmax",
              "observer_kwargs": {}, "strategy": "tensor", "symmetric": true, "type": "float"}}},
            "format": "naive-quantized", "global_compression_ratio": 1.246153835878366, "ignore": ["lm_head"],
            "kv_cache_scheme": null, "quant_method": "compressed-tensors", "quantization_status": "frozen"})")
            << "fp8" << 0 << true;
        // https://huggingface.co/BrainForge/Devstral-2-123B-Instruct-2512-NVFP4 quantization_config.json
        QTest::newRow("compressed-tensors-nvfp4") << QByteArray(R"({"config_groups": {"group_0": {"targets": ["Linear"],
            "weights": {"num_bits": 4, "type": "float", "symmetric": true, "group_size": 16, "strategy": "tensor_group",
              "block_structure": null, "dynamic": false, "actorder": null, "scale_dtype": "torch.float8_e4m3fn",
              "zp_dtype": null, "observer": "static_minmax", "observer_kwargs": {}},
            "input_activations": {"num_bits": 4, "type": "float", "symmetric": true, "group_size": 16,
              "strategy": "tensor_group", "block_structure": null, "dynamic": "local", "actorder": null,
              "scale_dtype": "torch.float8_e4m3fn", "zp_dtype": null, "observer": "static_minmax", "observer_kwargs": {}},
            "output_activations": null, "format": null}},
            "quant_method": "compressed-tensors", "kv_cache_scheme": null, "format": "nvfp4-pack-quantized",
            "quantization_status": "compressed", "global_compression_ratio": null, "ignore": [], "provider": "auto-round"})")
            << "nvfp4" << 0 << true;
        // https://huggingface.co/TheBloke/vicuna-7B-v0-GPTQ quantize_config.json (commit eb1b3bf4),
        // with the quant_method key Transformers writes into config.json.
        QTest::newRow("gptq-4bit-group-128") << QByteArray(R"({"bits": 4, "group_size": 128, "damp_percent": 0.01,
            "desc_act": true, "sym": true, "true_sequential": true, "quant_method": "gptq"})")
            << "int4" << 128 << true;
    }
    void formats()
    {
        QFETCH(QByteArray, quantization);
        QFETCH(QString, weights);
        QFETCH(int, groupSize);
        QFETCH(bool, zeroPoints);
        const HfImport import = importWith(json::parse(quantization.toStdString()));
        QVERIFY(import.storedWeights);
        QCOMPARE(QString::fromLatin1(enumName(*import.storedWeights)), weights);
        QCOMPARE(import.storedGroupSize, groupSize);
        QCOMPARE(import.storedZeroPoints, zeroPoints);
        QVERIFY(import.unmodelledFormat.empty());
    }

    // GPTQ 4-bit in groups of 128: an fp16 scale and a packed 4-bit zero per group and output
    // column, 2.5 B per 128 weights of every block matrix of Llama 2 7B.
    void gptqMetadataBytes()
    {
        json config = llama2();
        config["quantization_config"] = {{"bits", 4}, {"group_size", 128}, {"sym", true}, {"quant_method", "gptq"}};
        Scenario s = test::scenarioFrom(R"({"task": "inference"})");
        const HfImport import = importHfConfig(config);
        s.model = import.arch;
        s.precision.weights = DType::INT4;
        s.precision.groupSize = import.storedGroupSize;
        s.precision.zeroPoints = import.storedZeroPoints;
        const std::uint64_t values = countParams(s.model).blockLinear;
        const std::uint64_t groups = values / 128;
        QCOMPARE(values % 128, 0ull);
        QCOMPARE(estimate(s).bytes(ConsumerId::QuantMetadata), groups * 2 + groups / 2);
    }

    // NVFP4: an fp8 scale per 16 values and an fp32 global scale per matrix (7 per layer).
    void nvfp4MetadataBytes()
    {
        Scenario s = test::scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-2-7b"},
            "precision": {"weights": "nvfp4"}})");
        const std::uint64_t values = countParams(s.model).blockLinear;
        QCOMPARE(estimate(s).bytes(ConsumerId::QuantMetadata), values / 16 + 7ull * 32 * 4);
    }

    // A method or variant that cannot be sized: named, sized as bf16 with a visible warning.
    void unmodelledFormatsWarn_data()
    {
        QTest::addColumn<QByteArray>("quantization");
        QTest::addColumn<QString>("method");
        QTest::newRow("gptq-3bit") << QByteArray(R"({"bits": 3, "group_size": 128, "quant_method": "gptq"})") << "gptq 3-bit";
        QTest::newRow("eetq") << QByteArray(R"({"quant_method": "eetq"})") << "eetq";
    }
    void unmodelledFormatsWarn()
    {
        QFETCH(QByteArray, quantization);
        QFETCH(QString, method);
        const HfImport import = importWith(json::parse(quantization.toStdString()));
        QCOMPARE(QString::fromStdString(import.unmodelledFormat), method);
        QVERIFY(!import.storedWeights);
        Scenario s = test::scenarioFrom(R"({"task": "inference"})");
        s.model = import.arch;
        s.precision.unmodelledFormat = import.unmodelledFormat;
        const Estimate e = estimate(s);
        QVERIFY(!e.validated);
        QCOMPARE(QString::fromStdString(e.warnings.at(0)), QStringLiteral("weights sized as bf16: ") + method + QStringLiteral(" is not modelled"));
    }

    // Issue 29: a method or variant named by 100,000 characters was printed whole in the warning
    // ("weights sized as bf16: xxxx... is not modelled", a 100 KB line at exit 0).
    void longNamesAreShortened()
    {
        const std::string longName(100000, 'x');
        const HfImport method = importWith({{"quant_method", longName}});
        QCOMPARE(method.unmodelledFormat, std::string(61, 'x') + "...");
        json scheme = {{"num_bits", 8}, {"type", longName}, {"strategy", longName}};
        json groups = {{"group_0", {{"weights", scheme}}}};
        const HfImport variant = importWith({{"quant_method", "compressed-tensors"}, {"config_groups", groups}});
        QVERIFY(variant.unmodelledFormat.size() < 200);
        scheme = {{"num_bits", 4}, {"type", "int"}, {"strategy", "channel"}};
        groups = {{"group_0", {{"weights", scheme}}}};
        const HfImport note = importWith({{"quant_method", "compressed-tensors"}, {"format", longName}, {"config_groups", groups}});
        QVERIFY(!note.notes.empty());
        for (const std::string &line : note.notes)
            QVERIFY2(line.size() < 300, line.substr(0, 300).c_str());
    }

    // Issue 29: GPTQ/AWQ bits other than 2, 3, 4, 8 are refused naming the key; wrong types too.
    void badQuantizationKeys_data()
    {
        QTest::addColumn<QByteArray>("quantization");
        QTest::addColumn<QString>("key");
        QTest::newRow("gptq-bits-5") << QByteArray(R"({"bits": 5, "quant_method": "gptq"})") << "quantization_config.bits";
        QTest::newRow("awq-bits-string") << QByteArray(R"({"bits": "4", "quant_method": "awq"})") << "quantization_config.bits";
        QTest::newRow("method-number") << QByteArray(R"({"quant_method": 4})") << "quantization_config.quant_method";
        QTest::newRow("not-an-object") << QByteArray(R"("gptq")") << "quantization_config";
        QTest::newRow("gptq-bits-0") << QByteArray(R"({"bits": 0, "quant_method": "gptq"})") << "quantization_config.bits";
        QTest::newRow("gptq-bits-65") << QByteArray(R"({"bits": 65, "quant_method": "gptq"})") << "quantization_config.bits";
        QTest::newRow("awq-bits-6") << QByteArray(R"({"bits": 6, "quant_method": "awq"})") << "quantization_config.bits must be 2, 3, 4 or 8";
        QTest::newRow("bnb-4bit-yes") << QByteArray(R"({"load_in_4bit": "yes", "quant_method": "bitsandbytes"})")
                                      << "quantization_config.load_in_4bit must be true or false (got \"yes\")";
        // torchao's serialized config: a _type or group_size of the wrong type gave a library error.
        QTest::newRow("torchao-type-number")
            << QByteArray(R"({"quant_method": "torchao", "quant_type": {"default": {"_type": 4}}})")
            << "quantization_config.quant_type.default._type must be a string (got 4)";
        QTest::newRow("torchao-group-size-text")
            << QByteArray(R"({"quant_method": "torchao", "quant_type": {"default": {"_type": "Int4WeightOnlyConfig", "_data": {"group_size": "128"}}}})")
            << "quantization_config.quant_type.default._data.group_size must be a whole number";
        QTest::newRow("torchao-group-size-past-int32")
            << QByteArray(R"({"quant_method": "torchao", "quant_type": {"default": {"_type": "Int4WeightOnlyConfig", "_data": {"group_size": 4294967424}}}})")
            << "quantization_config.quant_type.default._data.group_size must be a whole number from 1 to 1048576";
        QTest::newRow("compressed-tensors-bits-text")
            << QByteArray(R"({"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights": {"num_bits": "4"}}}})")
            << "quantization_config.config_groups.group_0.weights.num_bits must be a whole number";
    }
    void badQuantizationKeys()
    {
        QFETCH(QByteArray, quantization);
        QFETCH(QString, key);
        try {
            importWith(json::parse(quantization.toStdString()));
            QFAIL("accepted");
        } catch (const HfConfigError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(key), error.what());
            QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("llama")), error.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestQuantConfig)
#include "tst_quantconfig.moc"
