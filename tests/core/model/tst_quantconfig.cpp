// SPDX-License-Identifier: GPL-3.0-or-later
// Checkpoint weight formats from quantization_config: each row is a real checkpoint's
// quantization_config (source beside it), read into the stored format, and the metadata it
// adds sized by hand; a method Headroom cannot size is named in a visible warning.
#include "model/architecture.h"
#include "model/hfconfig.h"
#include "scenario/names.h"
#include "testutil.h"

#include <QFile>

#include <algorithm>
#include <cmath>

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
        // Issue 29: 3- and 2-bit GPTQ were sized as bf16 with a warning (before that as int8).
        // https://huggingface.co/TheBloke/StableBeluga2-70B-GPTQ, branch
        // gptq-3bit-128g-actorder_True (its README's table: Bits 3, GS 128, Act Order Yes, Damp %
        // 0.01), in the keys TheBloke's quantize_config.json files carry (the vicuna row above).
        QTest::newRow("gptq-3bit-group-128") << QByteArray(R"({"bits": 3, "group_size": 128, "damp_percent": 0.01,
            "desc_act": true, "sym": true, "true_sequential": true, "quant_method": "gptq"})")
            << "int3" << 128 << true;
        // The same README's gptq-3bit--1g-actorder_True: GS None, AutoGPTQ's group_size -1.
        QTest::newRow("gptq-3bit-per-channel") << QByteArray(R"({"bits": 3, "group_size": -1, "damp_percent": 0.01,
            "desc_act": true, "sym": true, "true_sequential": true, "quant_method": "gptq"})")
            << "int3" << -1 << true;
        // 2-bit, as GPTQModel's QuantizeConfig(bits=2) writes it; vLLM's GPTQConfig takes 2, 3, 4
        // and 8 bits (vllm/model_executor/layers/quantization/gptq.py, pack_factor 32 / bits).
        QTest::newRow("gptq-2bit-group-64") << QByteArray(R"({"bits": 2, "group_size": 64, "desc_act": false,
            "sym": true, "quant_method": "gptq"})")
            << "int2" << 64 << true;
        // AWQ as AutoAWQ writes it into config.json (quant_method, zero_point, group_size, bits,
        // version), e.g. QuantTrio/DeepSeek-V3.2-Exp-AWQ's as quoted in a vLLM issue.
        QTest::newRow("awq-gemm-128") << QByteArray(R"({"quant_method": "awq", "bits": 4, "group_size": 128,
            "version": "gemm", "zero_point": true, "modules_to_not_convert": null})")
            << "int4" << 128 << true;
        // bitsandbytes NF4 as BitsAndBytesConfig.to_dict() writes it (unsloth/*-bnb-4bit config.json).
        QTest::newRow("bnb-nf4-double-quant") << QByteArray(R"({"_load_in_4bit": true, "_load_in_8bit": false,
            "bnb_4bit_compute_dtype": "bfloat16", "bnb_4bit_quant_storage": "uint8", "bnb_4bit_quant_type": "nf4",
            "bnb_4bit_use_double_quant": true, "llm_int8_enable_fp32_cpu_offload": false, "llm_int8_has_fp16_weight": false,
            "llm_int8_skip_modules": null, "llm_int8_threshold": 6.0, "load_in_4bit": true, "load_in_8bit": false,
            "quant_method": "bitsandbytes"})")
            << "nf4" << 0 << true;
        // fbgemm fp8 as Meta's FP8 checkpoints and the Transformers tests write it: one fp32
        // scale per output row (FbgemmFp8Linear).
        QTest::newRow("fbgemm-fp8") << QByteArray(R"({"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0})")
                                    << "fp8" << -1 << true;
        // ModelOpt NVFP4 in config.json's newer flat form, key for key as vLLM's tests mirror
        // nvidia/Qwen3-30B-A3B-NVFP4's config.json (ignore, targets inside the group).
        QTest::newRow("modelopt-nvfp4-flat") << QByteArray(R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
            "producer": {"name": "modelopt"}, "ignore": ["lm_head"], "config_groups": {"group_0": {
              "weights": {"dynamic": false, "num_bits": 4, "type": "float", "group_size": 16},
              "input_activations": {"dynamic": false, "num_bits": 4, "type": "float", "group_size": 16},
              "targets": ["Linear"]}}})")
            << "nvfp4" << 0 << true;
        // ModelOpt's hf_quant_config.json as an older export inlines it, without quant_method (as
        // SGLang's legacy-config test gives it): read as ModelOpt, not refused nor left 16-bit.
        QTest::newRow("modelopt-legacy-no-method") << QByteArray(R"({"quantization": {"quant_algo": "NVFP4",
            "group_size": 16, "kv_cache_quant_algo": null, "exclude_modules": [],
            "modelopt_quant_config": {"quant_cfg": {}}}})")
            << "nvfp4" << 0 << true;
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

    // Expert-only formats on a mixture of experts (DeepSeek-V3's shape, as Kimi K2 has it):
    // Kimi-K2.6 / K2-Thinking's compressed-tensors int4 in symmetric groups of 32 with attention,
    // shared experts and dense MLPs ignored (the ignore list as vLLM's regression test copies
    // it), and Kimi K3's mxfp4-pack-quantized experts.
    void expertOnlyFormats_data()
    {
        QTest::addColumn<QByteArray>("quantization");
        QTest::addColumn<QString>("weights");
        QTest::addColumn<int>("groupSize");
        QTest::newRow("kimi-k2-int4-experts") << QByteArray(R"({"config_groups": {"group_0": {"input_activations": null,
            "output_activations": null, "targets": ["Linear"], "weights": {"actorder": null, "block_structure": null,
            "dynamic": false, "group_size": 32, "num_bits": 4, "observer": "minmax", "observer_kwargs": {},
            "strategy": "group", "symmetric": true, "type": "int"}}}, "format": "pack-quantized",
            "ignore": ["re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*",
              "re:.*lm_head.*", "re:vision_tower.*", "re:mm_projector.*"],
            "kv_cache_scheme": null, "quant_method": "compressed-tensors", "quantization_status": "compressed"})")
            << "int4" << 32;
        QTest::newRow("kimi-k3-mxfp4-experts") << QByteArray(R"({"quant_method": "compressed-tensors",
            "format": "mxfp4-pack-quantized", "ignore": ["re:.*self_attn.*", "re:.*shared_experts.*",
              "re:.*mlp\\.(gate|up|gate_up|down)_proj.*", "re:.*lm_head.*"],
            "config_groups": {"group_0": {"format": "mxfp4-pack-quantized", "targets": ["Linear"],
              "input_activations": null, "weights": {"num_bits": 4, "group_size": 32}}}})")
            << "mxfp4" << 0;
    }
    void expertOnlyFormats()
    {
        QFETCH(QByteArray, quantization);
        QFETCH(QString, weights);
        QFETCH(int, groupSize);
        QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/deepseek-r1.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        json config = json::parse(file.readAll().toStdString());
        config["quantization_config"] = json::parse(quantization.toStdString());
        const HfImport import = importHfConfig(config);
        QVERIFY(import.storedWeights);
        QCOMPARE(QString::fromLatin1(enumName(*import.storedWeights)), weights);
        QCOMPARE(import.storedGroupSize, groupSize);
        QCOMPARE(import.storedModules, QuantizedModules::Experts);
        QVERIFY(import.unmodelledFormat.empty());
        // The shared experts it keeps 16-bit are said to be sized with the routed ones.
        QVERIFY(std::any_of(import.notes.begin(), import.notes.end(),
                            [](const std::string &note) { return note.find("shared experts") != std::string::npos; }));
    }

    // QuantTrio/DeepSeek-V3.2-Exp-AWQ keeps whole layers 16-bit (model.layers.0. to .2., .60.
    // and the MTP layer .61.): the import says Headroom sizes them quantized.
    void wholeLayersKeptAreSaid()
    {
        QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/deepseek-r1.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        json config = json::parse(file.readAll().toStdString());
        config["quantization_config"] = json::parse(R"({"quant_method": "awq", "bits": 4, "group_size": 128,
            "version": "gemm", "zero_point": true, "modules_to_not_convert": ["mlp.gate.", "indexer", "model.layers.0.",
            "model.layers.1.", "model.layers.2.", "model.layers.60.", "model.layers.61."]})");
        const HfImport import = importHfConfig(config);
        QCOMPARE(import.storedWeights, std::optional<DType>(DType::INT4));
        QCOMPARE(import.storedModules, QuantizedModules::Linear);
        QVERIFY(std::any_of(import.notes.begin(), import.notes.end(), [](const std::string &note) {
            return note.find("keeps 5 whole layer(s) in 16 bit (model.layers.0., ...)") != std::string::npos;
        }));
    }

    // Ignore entries that keep nothing Headroom quantizes: a vision tower's blocks (attn.qkv),
    // Gated DeltaNet's small in_proj_a / in_proj_b / in_proj_ba gates (the IGNORE list of a
    // Qwen3.5 quantization script on GitHub), the router and its shared-expert gate. Every
    // language-model matrix stays quantized; an entry for the language model's attention still
    // keeps attention 16-bit.
    void ignoreEntriesOutsideTheQuantizedMatrices_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QByteArray>("ignored");
        QTest::addColumn<bool>("expertsOnly");
        QTest::newRow("vision-tower-attn") << QByteArray("qwen3-vl-8b.json")
                                           << QByteArray(R"(["lm_head", "model.visual.blocks.0.attn.qkv", "model.visual.merger.linear_fc1"])")
                                           << false;
        QTest::newRow("deltanet-gates-and-router") << QByteArray("qwen3.6-35b-a3b.json")
                                                   << QByteArray(R"(["linear_attn.in_proj_a", "linear_attn.in_proj_b",
                                                       "linear_attn.in_proj_ba", "lm_head", "embed_tokens", "model.layers.0.mlp.gate",
                                                       "model.layers.0.mlp.shared_expert_gate"])")
                                                   << false;
        QTest::newRow("language-model-attention") << QByteArray("qwen3.6-35b-a3b.json")
                                                  << QByteArray(R"(["lm_head", "model.language_model.layers.3.self_attn"])")
                                                  << true;
    }
    void ignoreEntriesOutsideTheQuantizedMatrices()
    {
        QFETCH(QByteArray, file);
        QFETCH(QByteArray, ignored);
        QFETCH(bool, expertsOnly);
        QFile source(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/") + QString::fromUtf8(file));
        QVERIFY(source.open(QIODevice::ReadOnly));
        json config = json::parse(source.readAll().toStdString());
        config["quantization_config"] = {{"quant_method", "fp8"}, {"activation_scheme", "dynamic"},
                                         {"weight_block_size", {128, 128}},
                                         {"modules_to_not_convert", json::parse(ignored.toStdString())}};
        const HfImport import = importHfConfig(config);
        QCOMPARE(import.storedWeights, std::optional<DType>(DType::FP8));
        QVERIFY2(import.unmodelledFormat.empty(), import.unmodelledFormat.c_str());
        QCOMPARE(import.storedModules, expertsOnly ? QuantizedModules::Experts : QuantizedModules::Linear);
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

    // A 3-bit GPTQ checkpoint's weights by hand. Llama 2 70B (StableBeluga2 is a fine-tune of
    // it): 80 layers of q, o 8192 x 8192, k, v 8192 x 1024, gate, up, down 8192 x 28672:
    //   2 x 67,108,864 + 2 x 8,388,608 + 3 x 234,881,024 = 855,638,016 a layer, x 80 =
    //   68,451,041,280 quantized; embeddings, lm_head 2 x 32,000 x 8,192 and 161 norms of 8,192:
    //   525,606,912 kept in fp16.
    //   3-bit values   68,451,041,280 x 3 / 8              = 25,669,140,480 B
    //   fp16 rest         525,606,912 x 2                  =  1,051,213,824 B
    //   groups of 128  68,451,041,280 / 128 = 534,773,760:
    //     fp16 scales     534,773,760 x 2                  =  1,069,547,520 B
    //     3-bit zeros     534,773,760 x 3 / 8              =    200,540,160 B
    //   total                                              = 27,990,441,984 B
    // TheBloke's README for StableBeluga2-70B-GPTQ gives that branch's files as 28.03 GB (its
    // 4-bit 128g branch 36.65 GB, the 3-bit per-channel one 26.78 GB); the 0.14 % between is
    // g_idx (80 x 77,824 x 4 B = 24.9 MB) and the headers.
    void gptq3BitWeightsByHand()
    {
        json config = llama2();
        config["quantization_config"] = json::parse(R"({"bits": 3, "group_size": 128, "damp_percent": 0.01,
            "desc_act": true, "sym": true, "true_sequential": true, "quant_method": "gptq"})");
        const HfImport import = importHfConfig(config);
        QCOMPARE(import.storedWeights, std::optional<DType>(DType::INT3));
        QVERIFY2(import.unmodelledFormat.empty(), import.unmodelledFormat.c_str());
        Scenario s = test::scenarioFrom(R"({"task": "inference", "model": {"preset": "llama-2-70b"},
            "precision": {"weights": "int3", "compute": "fp16", "group_size": 128}})");
        QCOMPARE(s.precision.groupSize, import.storedGroupSize);
        QCOMPARE(s.precision.zeroPoints, import.storedZeroPoints);
        QCOMPARE(countParams(s.model).blockLinear, 68451041280ull);
        const Estimate e = estimate(s);
        QCOMPARE(e.bytes(ConsumerId::Weights), 25669140480ull + 1051213824ull);
        QCOMPARE(e.bytes(ConsumerId::QuantMetadata), 1069547520ull + 200540160ull);
        const double total = double(e.bytes(ConsumerId::Weights) + e.bytes(ConsumerId::QuantMetadata));
        QCOMPARE(total, 27990441984.0);
        QVERIFY2(std::abs(total - 28.03e9) / 28.03e9 < 0.002, QByteArray::number(total).constData());
        for (const std::string &warning : e.warnings)
            QVERIFY2(warning.find("not modelled") == std::string::npos, warning.c_str());
        // Without zero points (GPTQ v2 symmetric): the scales alone.
        s.precision.zeroPoints = false;
        QCOMPARE(estimate(s).bytes(ConsumerId::QuantMetadata), 1069547520ull);
        // 2-bit, per output channel: 68,451,041,280 / 4 B of values; 80 x (8,192 x 3 + 1,024 x 2
        // + 28,672 x 2) = 6,717,440 output channels x (2 B + 2 bits) = 13,434,880 + 1,679,360 B.
        s.precision.weights = DType::INT2;
        s.precision.groupSize = -1;
        s.precision.zeroPoints = true;
        const Estimate two = estimate(s);
        QCOMPARE(two.bytes(ConsumerId::Weights), 17112760320ull + 1051213824ull);
        QCOMPARE(two.bytes(ConsumerId::QuantMetadata), 13434880ull + 1679360ull);
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
        // AWQ packs 4-bit only (AutoAWQ's WQLinear; vLLM: "only 4-bit weight quantization is
        // supported for AWQ"): a 3-bit AWQ file has no layout Headroom knows.
        QTest::newRow("awq-3bit") << QByteArray(R"({"bits": 3, "group_size": 128, "quant_method": "awq"})") << "awq 3-bit";
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
        QTest::newRow("gptq-bits-1") << QByteArray(R"({"bits": 1, "quant_method": "gptq"})")
                                     << "quantization_config.bits must be 2, 3, 4 or 8 for gptq (got 1)";
        QTest::newRow("gptq-bits-5-named") << QByteArray(R"({"bits": 5, "quant_method": "gptq"})")
                                           << "quantization_config.bits must be 2, 3, 4 or 8 for gptq (got 5)";
        QTest::newRow("gptq-bits-negative") << QByteArray(R"({"bits": -3, "quant_method": "gptq"})") << "quantization_config.bits";
        QTest::newRow("gptq-bits-fraction") << QByteArray(R"({"bits": 3.5, "quant_method": "gptq"})") << "quantization_config.bits";
        QTest::newRow("awq-w-bit-16") << QByteArray(R"({"w_bit": 16, "quant_method": "awq"})") << "quantization_config.bits";
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
