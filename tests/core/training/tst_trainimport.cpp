// SPDX-License-Identifier: GPL-3.0-or-later
// The training-config importers against the example configs of examples/train-configs (each
// expectation worked out by hand from the file and docs/frameworks.md) and against malformed
// files: every error names the file and the key.
#include "scenario/checked.h"
#include "trainconfigtest.h"
#include "importers/trainimport.h"
#include "io/inputpolicy.h"
#include "scenario/scenariojson.h"

#include <QFile>
#include <QtTest>

using namespace headroom;
using nlohmann::json;
using headroom::test::at;

namespace {

QString example(const QString &name)
{
    return QStringLiteral(HEADROOM_SOURCE_DIR "/examples/train-configs/") + name;
}

std::string readText(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().toStdString();
}

bool mentions(const std::vector<std::string> &lines, const std::string &text)
{
    return std::any_of(lines.begin(), lines.end(), [&](const std::string &line) { return line.find(text) != std::string::npos; });
}

} // namespace

namespace {

/// An input a fuzzer found, kept under tests/data/fuzz-found.
std::string readFound(const char *name)
{
    QFile found(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/fuzz-found/") + QLatin1String(name));
    if (!found.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = found.readAll();
    return std::string(bytes.constData(), std::size_t(bytes.size()));
}

} // namespace

class TestTrainImport : public QObject
{
    Q_OBJECT
private slots:
    void examplesMapTheirKeys_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected"); // a JSON object: dotted scenario key -> value
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("warning"); // a key that must be warned about, or empty

        // torchtune 8B LoRA: batch_size 2, accumulation 8, q/v/output_proj + MLP, rank 8,
        // dropout 0, LinearCrossEntropyLoss, AdamW fused, AC on, offloading off, bf16;
        // max_seq_len null is warned about.
        QTest::newRow("torchtune-8b-lora") << "torchtune_llama3_1_8B_lora_single_device.yaml"
            << R"({"framework.name": "torchtune", "train.method": "lora", "train.micro_batch": 2,
                   "train.grad_accum": 8, "train.lora.targets": ["q","v","o","gate","up","down"],
                   "train.lora.rank": 8, "train.lora.dropout": 0.0, "kernels.loss": "linear_chunked",
                   "train.optimizer": "adamw", "train.optimizer_impl": "fused",
                   "train.gradient_checkpointing": "full", "train.offload_activations": false,
                   "precision.weights": "bf16", "precision.compute": "bf16"})"
            << "torchtune.models.llama3_1.lora_llama3_1_8b" << "tokenizer.max_seq_len";
        // The QLoRA builder means a 4-bit base; the older config's CEWithChunkedOutputLoss.
        QTest::newRow("torchtune-8b-qlora") << "torchtune_llama3_1_8B_qlora_single_device.yaml"
            << R"({"train.method": "qlora", "kernels.loss": "chunked", "train.grad_accum": 16,
                   "precision.weights": "nf4", "precision.double_quant": true, "precision.compute": "bf16",
                   "train.lora.targets": ["q","v","k","o","gate","up","down"]})"
            << "torchtune.models.llama3_1.qlora_llama3_1_8b" << "";
        // Single-device full: PagedAdamW8bit fused into backward.
        QTest::newRow("torchtune-8b-full-single") << "torchtune_llama3_1_8B_full_single_device.yaml"
            << R"({"train.method": "full", "train.optimizer": "paged_adamw_8bit",
                   "train.optimizer_in_backward": true, "kernels.loss": "chunked"})"
            << "torchtune.models.llama3_1.llama3_1_8b" << "";
        // 70B distributed: FSDP with CPU offload of parameters (and the optimizer step).
        QTest::newRow("torchtune-70b-distributed") << "torchtune_llama3_1_70B_full_distributed.yaml"
            << R"({"parallel.strategy": "fsdp", "parallel.offload_params": true,
                   "parallel.offload_optimizer": true, "train.optimizer_impl": "fused"})"
            << "torchtune.models.llama3_1.llama3_1_70b" << "custom_sharded_layers";
        // FSDP1 era: the version follows from memory_efficient_fsdp_wrap; foreach False.
        QTest::newRow("torchtune-8b-fsdp1") << "torchtune_llama3_1_8B_full_distributed_fsdp1_era.yaml"
            << R"({"framework.version": "0.2", "kernels.loss": "standard", "train.optimizer_impl": "fused"})"
            << "torchtune.models.llama3_1.llama3_1_8b" << "";
        // LitGPT: bf16-true, r 32 on q and v, micro-batch 2, global 8 -> accumulation 4, seq 512.
        QTest::newRow("litgpt-lora") << "litgpt_llama-2-7b_lora.yaml"
            << R"({"framework.name": "litgpt", "train.method": "lora", "precision.weights": "bf16",
                   "precision.compute": "bf16", "train.lora.rank": 32, "train.lora.targets": ["q","v"],
                   "train.lora.dropout": 0.05, "train.micro_batch": 2, "train.grad_accum": 4,
                   "train.seq_len": 512})"
            << "checkpoints/meta-llama/Llama-2-7b-hf" << "";
        QTest::newRow("litgpt-qlora") << "litgpt_llama-2-7b_qlora.yaml"
            << R"({"train.method": "qlora", "precision.weights": "nf4", "precision.double_quant": false})"
            << "checkpoints/meta-llama/Llama-2-7b-hf" << "";
        // Axolotl QLoRA: nf4 with double quantization, packed 4096, all linear layers, flash.
        QTest::newRow("axolotl-qlora") << "axolotl_llama-3_qlora.yml"
            << R"({"framework.name": "axolotl", "train.method": "qlora", "precision.weights": "nf4",
                   "precision.double_quant": true, "train.seq_len": 4096, "train.micro_batch": 2,
                   "train.grad_accum": 4, "train.lora.rank": 32,
                   "train.lora.targets": ["q","k","v","o","gate","up","down"],
                   "kernels.attention": "flash", "train.optimizer": "paged_adamw",
                   "train.gradient_checkpointing": "full"})"
            << "NousResearch/Meta-Llama-3-8B" << "";
        // Axolotl's "LoRA" example is an 8-bit base with embeddings and lm_head trained fully.
        QTest::newRow("axolotl-lora-8bit") << "axolotl_llama-3_lora-8b.yml"
            << R"({"train.method": "lora", "precision.weights": "int8", "train.optimizer": "adamw_8bit"})"
            << "NousResearch/Meta-Llama-3-8B" << "lora_modules_to_save";
        // Accelerate FSDP template: 2 processes, FSDP1 with use_orig_params, bf16 autocast.
        QTest::newRow("accelerate-fsdp") << "accelerate_fsdp.yaml"
            << R"({"framework.name": "accelerate", "parallel.gpus": 2, "parallel.strategy": "fsdp",
                   "parallel.flat_params": true, "precision.compute": "bf16", "precision.weights": "fp32",
                   "train.gradient_checkpointing": "none"})"
            << "" << "";
        // DeepSpeed ZeRO-3 with optimizer and parameter offload to CPU, fp16 "auto".
        QTest::newRow("deepspeed-zero3") << "deepspeed_zero3_offload_transformers_tests.json"
            << R"({"framework.name": "deepspeed", "parallel.strategy": "zero3",
                   "parallel.offload_optimizer": true, "parallel.offload_params": true,
                   "precision.compute": "fp16", "train.master_weights": true})"
            << "" << "zero_optimization.overlap_comm";
        QTest::newRow("deepspeed-zero2") << "deepspeed_zero2_offload_transformers_tests.json"
            << R"({"parallel.strategy": "zero2", "parallel.offload_optimizer": true})"
            << "" << "zero_optimization.reduce_bucket_size";
        // TrainingArguments: batch 2, accumulation 8, checkpointing, bf16, paged_adamw_32bit.
        QTest::newRow("training-args") << "transformers_TrainingArguments_qlora_COMPOSED.json"
            << R"({"framework.name": "hf_transformers", "train.micro_batch": 2, "train.grad_accum": 8,
                   "train.gradient_checkpointing": "full", "precision.compute": "bf16",
                   "train.optimizer": "paged_adamw", "train.compile": false})"
            << "" << "torch_dtype";
        // PEFT: r 32, dropout 0, target_modules null (the default is said, not set).
        QTest::newRow("peft-adapter") << "peft_adapter_config_llama-3.2-3B-rank32.json"
            << R"({"train.method": "lora", "train.lora.rank": 32, "train.lora.dropout": 0.0})" << "" << "";
        QTest::newRow("bitsandbytes") << "bitsandbytes_qlora_COMPOSED.json"
            << R"({"precision.weights": "nf4", "precision.double_quant": true})" << "" << "";
    }
    void examplesMapTheirKeys()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        QFETCH(QString, model);
        QFETCH(QString, warning);
        const std::string text = readText(example(file));
        QVERIFY2(!text.empty(), qPrintable(file));
        const TrainImport import = importTrainConfig(text, file.toStdString());
        const json want = json::parse(expected.toStdString());
        for (const auto &item : want.items()) {
            const json got = at(import.scenario, item.key());
            QVERIFY2(got == item.value(), qPrintable(QString::fromStdString(
                item.key() + ": want " + item.value().dump() + ", got " + got.dump() + "\n" + import.scenario.dump())));
        }
        QCOMPARE(QString::fromStdString(import.model), model);
        if (!warning.isEmpty())
            QVERIFY2(mentions(import.warnings, warning.toStdString()), qPrintable(warning));
        // Every example also reads as a scenario once it has a model (a BitsAndBytesConfig alone
        // is only the quantization of a run, not a run).
        if (import.format == TrainConfigFormat::BitsAndBytes)
            return;
        json doc = mergeImports({import});
        doc["format"] = "headroom-scenario";
        doc["version"] = 1;
        doc["model"] = {{"preset", "llama-3.1-8b"}};
        if (at(doc, "parallel.strategy").is_string() && at(doc, "parallel.strategy") != "none" && !at(doc, "parallel.gpus").is_number())
            doc["parallel"]["gpus"] = 8;
        try {
            scenarioFromJson(doc);
        } catch (const std::exception &error) {
            QFAIL(qPrintable(file + QStringLiteral(": ") + QString::fromUtf8(error.what())));
        }
    }

    void theHuggingFaceTrioMakesQlora()
    {
        std::vector<TrainImport> imports;
        for (const char *name : {"transformers_TrainingArguments_qlora_COMPOSED.json",
                                 "peft_adapter_config_llama-3.2-3B-rank32.json", "bitsandbytes_qlora_COMPOSED.json"})
            imports.push_back(importTrainConfig(readText(example(QString::fromLatin1(name))), name));
        const json doc = mergeImports(imports);
        QCOMPARE(at(doc, "framework.name"), json("hf_transformers"));
        QCOMPARE(at(doc, "train.method"), json("qlora")); // a LoRA adapter on a 4-bit base
        QCOMPARE(at(doc, "precision.weights"), json("nf4"));
        QCOMPARE(at(doc, "train.lora.rank"), json(32));
        QCOMPARE(at(doc, "train.micro_batch"), json(2));
    }

    void longComponentNamesAreShortened()
    {
        // Issue 29: a torchtune optimizer or loss _component_ of 100,000 characters was printed whole
        // in its "is not modelled" warning (a 100 KB line at exit 0).
        const std::string name(100000, 'x');
        std::string recipe = readText(example(QStringLiteral("torchtune_llama3_1_8B_lora_single_device.yaml")));
        for (const std::string component : {"torch.optim.AdamW", "torchtune.modules.loss.LinearCrossEntropyLoss"}) {
            const std::size_t at = recipe.find("_component_: " + component);
            QVERIFY(at != std::string::npos);
            recipe.replace(at + 13, component.size(), name);
        }
        const TrainImport import = importTrainConfig(recipe, "recipe.yaml");
        QVERIFY(mentions(import.warnings, "optimizer._component_"));
        QVERIFY(mentions(import.warnings, "loss._component_"));
        for (const std::string &line : import.warnings)
            QVERIFY2(line.size() < 300, line.substr(0, 300).c_str());
    }

    void twoFilesOfOneKindAreRefused()
    {
        // Issue 29: a QLoRA and a LoRA Axolotl config merged into "LoRA on an int8 base" (the later
        // file's values won silently); Axolotl reads one config, so a second one is refused.
        std::vector<TrainImport> imports;
        for (const char *name : {"axolotl_llama-3_qlora.yml", "axolotl_llama-3_lora-8b.yml"})
            imports.push_back(importTrainConfig(readText(example(QString::fromLatin1(name))), name));
        try {
            mergeImports(imports);
            QFAIL("merged two Axolotl configs");
        } catch (const TrainConfigError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).startsWith(QLatin1String(
                         "axolotl_llama-3_lora-8b.yml: a second Axolotl config in one run (the first: \"axolotl_llama-3_qlora.yml\")")),
                     error.what());
        }
        // One file of each kind still merges (the trio above); so does one file alone.
        QCOMPARE(at(mergeImports({imports.front()}), "train.method"), json("qlora"));
    }

    void unknownKeysAreListedAsIgnored()
    {
        const TrainImport import = importTrainConfig("base_model: x/y\nmicro_batch_size: 2\nmystery_knob: 3\n", "a.yml");
        QVERIFY(mentions(import.ignored, "mystery_knob"));
        QVERIFY(mentions(import.ignored, "unknown"));
    }

    void torchtuneOverridesAsTuneRunTakesThem()
    {
        const std::string text = readText(example(QStringLiteral("torchtune_llama3_1_8B_lora_single_device.yaml")));
        const TrainImport import = importTrainConfig(
            text, "recipe.yaml", TrainConfigFormat::Auto,
            {"batch_size=4", "tokenizer.max_seq_len=2048", "dataset.packed=True", "compile=True",
             "loss=torchtune.modules.loss.CEWithChunkedOutputLoss", "enable_activation_offloading=True"});
        QCOMPARE(at(import.scenario, "train.micro_batch"), json(4));
        QCOMPARE(at(import.scenario, "train.seq_len"), json(2048));
        QCOMPARE(at(import.scenario, "train.compile"), json(true));
        // A component path on a component key sets its _component_.
        QCOMPARE(at(import.scenario, "kernels.loss"), json("chunked"));
        QCOMPARE(at(import.scenario, "train.offload_activations"), json(true));
        QVERIFY(!mentions(import.warnings, "tokenizer.max_seq_len"));
    }

    void litgptFlagsAsTheCliTakesThem()
    {
        const std::string text = readText(example(QStringLiteral("litgpt_llama-2-7b_lora.yaml")));
        const TrainImport import = importTrainConfig(
            text, "lora.yaml", TrainConfigFormat::Auto,
            {"--precision", "bf16-mixed", "--train.micro_batch_size=4", "--lora_mlp", "true", "--devices", "2"});
        QCOMPARE(at(import.scenario, "precision.weights"), json("fp32"));
        QCOMPARE(at(import.scenario, "precision.compute"), json("bf16"));
        QCOMPARE(at(import.scenario, "train.micro_batch"), json(4));
        // global 8 / (micro 4 x 2 devices) = 1
        QCOMPARE(at(import.scenario, "train.grad_accum"), json(1));
        QCOMPARE(at(import.scenario, "parallel.gpus"), json(2));
        QCOMPARE(at(import.scenario, "parallel.strategy"), json("fsdp"));
        QCOMPARE(at(import.scenario, "train.lora.targets"), json({"q", "v", "gate", "up", "down"}));
    }

    void modelReferencesFindTheCatalog_data()
    {
        QTest::addColumn<QString>("reference");
        QTest::addColumn<QString>("id");
        QTest::newRow("torchtune-builder") << "torchtune.models.llama3_1.lora_llama3_1_8b" << "llama-3.1-8b";
        QTest::newRow("torchtune-qlora") << "torchtune.models.llama2.qlora_llama2_7b" << "llama-2-7b";
        QTest::newRow("litgpt-checkpoint") << "checkpoints/meta-llama/Llama-2-7b-hf" << "llama-2-7b";
        QTest::newRow("hub-mirror") << "NousResearch/Meta-Llama-3-8B" << "llama-3-8b";
        QTest::newRow("unknown") << "someone/frankenmodel-3b" << "";
    }
    void modelReferencesFindTheCatalog()
    {
        QFETCH(QString, reference);
        QFETCH(QString, id);
        const ModelPreset *preset = findModelReference(reference.toStdString());
        QCOMPARE(preset ? QString::fromStdString(preset->id) : QString(), id);
    }

    void malformedFilesNameTheKey_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("key");
        QTest::newRow("yaml-syntax") << "model:\n  _component_: [unclosed\n" << "auto" << "";
        QTest::newRow("not-a-mapping") << "- 1\n- 2\n" << "auto" << "";
        QTest::newRow("unrecognised") << "hello: world\n" << "auto" << "";
        QTest::newRow("torchtune-batch") << "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: zero\n"
                                         << "auto" << "batch_size";
        QTest::newRow("torchtune-fp16") << "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ndtype: fp16\n"
                                        << "auto" << "dtype";
        QTest::newRow("torchtune-lora-modules") << "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n  lora_attn_modules: [qq_proj]\n"
                                                << "auto" << "model.lora_attn_modules";
        QTest::newRow("litgpt-precision") << "checkpoint_dir: checkpoints/x/y\nprecision: bf17-true\n" << "auto" << "precision";
        QTest::newRow("litgpt-quantize-mixed") << "checkpoint_dir: checkpoints/x/y\nlora_r: 8\nprecision: bf16-mixed\nquantize: bnb.nf4\n"
                                               << "auto" << "quantize";
        QTest::newRow("args-batch") << R"({"per_device_train_batch_size": -1, "optim": "adamw_torch"})" << "auto"
                                    << "per_device_train_batch_size";
        QTest::newRow("args-bf16-fp16") << R"({"bf16": true, "fp16": true, "optim": "adamw_torch"})" << "auto" << "bf16";
        QTest::newRow("peft-type") << R"({"peft_type": "IA3", "target_modules": ["k_proj"]})" << "auto" << "peft_type";
        QTest::newRow("peft-targets") << R"({"peft_type": "LORA", "r": 8, "target_modules": ["nothing"]})" << "auto"
                                      << "target_modules";
        QTest::newRow("bnb-type") << R"({"load_in_4bit": true, "bnb_4bit_quant_type": "nf3"})" << "bnb"
                                  << "bnb_4bit_quant_type";
        QTest::newRow("deepspeed-stage") << R"({"zero_optimization": {"stage": 4}})" << "auto" << "zero_optimization.stage";
        QTest::newRow("deepspeed-offload") << R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "gpu"}}})"
                                           << "auto" << "zero_optimization.offload_param.device";
        QTest::newRow("accelerate-processes") << "distributed_type: FSDP\nnum_processes: 0\n" << "auto" << "num_processes";
        QTest::newRow("axolotl-adapter") << "base_model: x/y\nadapter: ia3\n" << "auto" << "adapter";
        QTest::newRow("axolotl-qlora-without-4bit") << "base_model: x/y\nadapter: qlora\n" << "auto" << "load_in_4bit";
        QTest::newRow("bad-format-name") << "a: 1\n" << "pytorch" << "";
        // Nested values read through the same typed accessors as top-level ones (a string where
        // a boolean belongs once escaped as nlohmann's "type must be boolean").
        QTest::newRow("args-reentrant") << R"({"optim": "adamw_torch", "gradient_checkpointing_kwargs": {"use_reentrant": "Afalse"}})"
                                        << "auto" << "gradient_checkpointing_kwargs.use_reentrant";
        QTest::newRow("args-fsdp-version") << R"({"fsdp": "full_shard", "fsdp_config": {"fsdp_version": "two"}})"
                                           << "auto" << "fsdp_config.fsdp_version";
        QTest::newRow("args-orig-params") << R"({"fsdp": "full_shard", "fsdp_config": {"use_orig_params": 3}})"
                                          << "auto" << "fsdp_config.use_orig_params";
        QTest::newRow("axolotl-fsdp-offload") << "base_model: x/y\nfsdp_config:\n  fsdp_offload_params: fadse\n"
                                              << "auto" << "fsdp_config.fsdp_offload_params";
        QTest::newRow("axolotl-fsdp-version") << "base_model: x/y\nfsdp_config:\n  fsdp_version: [2]\n"
                                              << "auto" << "fsdp_config.fsdp_version";
        // LitGPT asserts gradient_accumulation_iters > 0 (litgpt/args.py): not a silent 1.
        QTest::newRow("litgpt-global-below-micro") << "checkpoint_dir: checkpoints/x/y\ntrain:\n  micro_batch_size: 4\n  global_batch_size: 2\n"
                                                   << "auto" << "train.global_batch_size";
        // YAML as PyYAML reads it, refused where a silent reading would differ.
        QTest::newRow("yaml-duplicate") << "base_model: x/y\nmicro_batch_size: 1\nmicro_batch_size: 4\n" << "auto" << "micro_batch_size";
        QTest::newRow("yaml-second-document") << "base_model: x/y\n---\nbase_model: z/w\n" << "auto" << "";
        QTest::newRow("yaml-merge-of-a-list-of-numbers") << "base_model: x/y\nrun:\n  <<: [1]\n" << "auto" << "run.<<";
        QTest::newRow("yaml-e-notation-dropout") << "base_model: x/y\nadapter: lora\nlora_dropout: 5e-2\n" << "auto" << "lora_dropout";
        QTest::newRow("litgpt-optimizer-class") << "checkpoint_dir: checkpoints/x/y\noptimizer:\n  class_path: [1]\n"
                                                << "auto" << "optimizer.class_path";
    }
    // Found by fuzz_trainconfig: a byte that is not UTF-8 inside a value reached a message and
    // the JSON writer threw its own error. Such a file is refused up front, naming the byte.
    void invalidUtf8IsRefused()
    {
        for (const std::string &text : {readFound("trainconfig-invalid-utf8.yaml"),
                                        std::string("model:\n  _component_: \"ab\xff\"\n"),
                                        std::string("batch_size: 2\n# \xe2\x82"),
                                        // UTF-8 text (with NUL bytes) that yaml-cpp reads into a value
                                        // that is not: refused naming the line.
                                        readFound("trainconfig-yaml-escape-not-utf8.yaml")}) {
            try {
                importTrainConfig(text, "found.yaml");
                QFAIL("accepted");
            } catch (const TrainConfigError &error) {
                QVERIFY2(std::string(error.what()).find("not UTF-8 text") != std::string::npos, error.what());
            }
        }
        // Well-formed UTF-8 (a comment in Greek) passes the check.
        try {
            importTrainConfig("batch_size: 2\n# \xce\xb1\xce\xb2\n", "ok.yaml", TrainConfigFormat::Torchtune);
        } catch (const TrainConfigError &error) {
            QVERIFY2(std::string(error.what()).find("UTF-8") == std::string::npos, error.what());
        }
    }

    // Every input fuzz_trainconfig found is kept under tests/data/fuzz-found and must end in the
    // readers' own error (or import cleanly), never a library exception.
    void fuzzFoundInputsFailCleanly()
    {
        const QDir dir(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/fuzz-found"));
        const QStringList names = dir.entryList({QStringLiteral("trainconfig-*")}, QDir::Files);
        QVERIFY(names.size() >= 3);
        for (const QString &name : names) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            try {
                const TrainImport import =
                    importTrainConfig(std::string(bytes.constData(), std::size_t(bytes.size())), name.toStdString());
                scenarioFromJson(mergeImports({import}));
            } catch (const TrainConfigError &) {
            } catch (const InputError &) {
            } catch (const OverflowError &) {
            } catch (const std::exception &error) {
                QFAIL(qPrintable(name + QLatin1String(": ") + QString::fromUtf8(error.what())));
            }
        }
    }

    void malformedFilesNameTheKey()
    {
        QFETCH(QString, text);
        QFETCH(QString, format);
        QFETCH(QString, key);
        try {
            importTrainConfig(text.toStdString(), "bad.cfg", formatFromName(format.toStdString()));
            QFAIL("accepted a malformed file");
        } catch (const TrainConfigError &error) {
            QCOMPARE(QString::fromStdString(error.key), key);
            const QString message = QString::fromUtf8(error.what());
            QVERIFY2(message.startsWith(QLatin1String("bad.cfg: ")) || message.startsWith(QLatin1String("--train-format")),
                     qPrintable(message));
            if (!key.isEmpty())
                QVERIFY2(message.contains(key), qPrintable(message));
        }
    }

    void yamlScalarsReadAsPyYamlDoes()
    {
        const json tree = parseConfigText("a: True\nb: off\nc: 2e-5\nd: '8'\ne: null\nf: 1_000\ng: 0.05\nh: 010\n", "t.yaml");
        QCOMPARE(tree["a"], json(true));
        QCOMPARE(tree["b"], json(false));
        // YAML 1.1: a number needs its decimal point, so PyYAML reads 2e-5 as text (and so does
        // Axolotl's yaml.safe_load); 010 is octal.
        QCOMPARE(tree["c"], json("2e-5"));
        QCOMPARE(tree["h"], json(8));
        QCOMPARE(tree["d"], json("8")); // quoted: a string
        QVERIFY(tree["e"].is_null());
        QCOMPARE(tree["f"], json(1000));
        QCOMPARE(tree["g"], json(0.05));
    }

    void axolotlMergeKeysAreExpanded()
    {
        // The issue's case: sequence_len and micro_batch_size shared through an anchor were lost
        // (yaml-cpp kept "<<" as a key), leaving Axolotl's defaults.
        const std::string text = "defaults: &defaults\n  sequence_len: 4096\n  micro_batch_size: 3\n"
                                 "base_model: NousResearch/Meta-Llama-3-8B\nadapter: lora\n<<: *defaults\n";
        const TrainImport import = importTrainConfig(text, "axolotl.yml");
        QCOMPARE(at(import.scenario, "train.seq_len"), json(4096));
        QCOMPARE(at(import.scenario, "train.micro_batch"), json(3));
        // The file's own key wins over the merged one, as in PyYAML.
        const TrainImport own = importTrainConfig(text + "micro_batch_size: 5\n", "axolotl.yml");
        QCOMPARE(at(own.scenario, "train.micro_batch"), json(5));
    }

    void jsonFilesAreReadAsPythonReadsThem_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("trailing-text") << R"({"train_micro_batch_size_per_gpu": 1} {"zero_optimization": {}})" << "not valid JSON";
        QTest::newRow("duplicate-key") << R"({"train_micro_batch_size_per_gpu": 1, "train_micro_batch_size_per_gpu": 2})"
                                       << "train_micro_batch_size_per_gpu: appears twice";
        QTest::newRow("1e999") << R"({"train_micro_batch_size_per_gpu": 1e999})" << "\"1e999\" is too large";
        QTest::newRow("past-64-bits") << R"({"train_micro_batch_size_per_gpu": 18446744073709551616})" << "is too large";
        QTest::newRow("nan") << R"({"train_micro_batch_size_per_gpu": NaN})" << "not valid JSON";
    }
    void jsonFilesAreReadAsPythonReadsThem()
    {
        QFETCH(QString, text);
        QFETCH(QString, fragment);
        try {
            importTrainConfig(text.toStdString(), "ds_config.json");
            QFAIL("accepted");
        } catch (const TrainConfigError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).startsWith(QLatin1String("ds_config.json: ")), error.what());
            QVERIFY2(QString::fromUtf8(error.what()).contains(fragment), error.what());
        }
        // The same text with a YAML name is YAML (a flow mapping): the trailing text is still refused.
        if (text.contains(QLatin1String("} {")))
            QVERIFY_THROWS_EXCEPTION(TrainConfigError, importTrainConfig(text.toStdString(), "ds_config.yaml"));
    }

    void longValuesAreQuotedShort()
    {
        // A 4 MB value reaches a message as 40 characters at most.
        const std::string huge(4 * 1024 * 1024 - 100, 'x');
        for (const std::string &text : {"base_model: x/y\nadapter: " + huge + "\n",
                                        "checkpoint_dir: c/x\nprecision: " + huge + "\n"}) {
            try {
                importTrainConfig(text, "big.yml");
                QFAIL("accepted");
            } catch (const TrainConfigError &error) {
                QVERIFY2(std::string(error.what()).size() < 300, std::string(error.what()).substr(0, 300).c_str());
                QVERIFY(std::string(error.what()).find("xxx...") != std::string::npos);
            }
        }
        // And a long override on the command line.
        try {
            importTrainConfig("checkpoint_dir: c/x\n", "lit.yaml", TrainConfigFormat::Auto, {std::string(5000, 'k')});
            QFAIL("accepted");
        } catch (const TrainConfigError &error) {
            QVERIFY2(std::string(error.what()).size() < 300, error.what());
        }
    }

    void deepOverridePathsAreRefused()
    {
        // 19,000 levels once overflowed the stack: the rule of --set (200 characters) applies.
        std::string path;
        for (int i = 0; i < 19000; ++i)
            path += "a.";
        try {
            importTrainConfig("checkpoint_dir: c/x\n", "lit.yaml", TrainConfigFormat::Auto, {path + "a=1"});
            QFAIL("accepted");
        } catch (const TrainConfigError &error) {
            QVERIFY2(std::string(error.what()).find("key path is longer than 200 characters") != std::string::npos, error.what());
        }
    }

    void deepNestingIsRefused()
    {
        std::string text;
        for (int i = 0; i < 100; ++i)
            text += std::string(std::size_t(i) * 2, ' ') + "k:\n";
        QVERIFY_THROWS_EXCEPTION(TrainConfigError, parseConfigText(text, "deep.yaml"));
    }
};

QTEST_GUILESS_MAIN(TestTrainImport)
#include "tst_trainimport.moc"
