// SPDX-License-Identifier: GPL-3.0-or-later
// The rules of issue 27 one at a time, on small configs written for the test: a format is told
// by its keys (recognised-but-unread formats refused naming them), the world size comes from
// what the files say (DeepSpeed's batch arithmetic, a torchtune config's own launch line,
// Axolotl's parallel sizes) or is asked for, LLaMA-Factory's defaults, PEFT's regex targets.
#include "trainconfigimport.h"
#include "trainconfigtest.h"

#include "estimate/estimate.h"
#include "model/architecture.h"
#include "importers/trainimport.h"
#include "scenario/scenariojson.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace headroom;
using nlohmann::json;
using headroom::test::at;
using headroom::test::refusal;

namespace {

bool mentions(const std::vector<std::string> &lines, const std::string &text)
{
    return std::any_of(lines.begin(), lines.end(), [&](const std::string &l) { return l.find(text) != std::string::npos; });
}

} // namespace

class TestTrainFormats : public QObject
{
    Q_OBJECT
private slots:
    void recognisedFormatsAreRefusedByName_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("named");
        QTest::newRow("ms-swift-gkd") << "gkd.yaml" << "model: Qwen/Qwen2.5-7B-Instruct\nrlhf_type: gkd\nlora_rank: 8\n"
                                      << "rlhf_type: gkd (on-policy distillation";
        QTest::newRow("ms-swift-infer") << "infer.sh" << "swift infer \\\n  --model Qwen/Qwen2.5-7B-Instruct\n"
                                        << "ms-swift command that does not train";
        // (TRL's GRPOConfig and DPOConfig are read: tst_trlconfigs.)
        QTest::newRow("trl-gkd") << "gkd.yaml" << "lmbda: 0.5\nteacher_model_name_or_path: x/y\noutput_dir: x\n"
                                 << "TRL GKDConfig";
        QTest::newRow("llamafactory-v1") << "v1.yaml" << "model: Qwen/Qwen3-4B\ndist_config:\n  name: fsdp2\n"
                                         << "LLaMA-Factory v1 config";
        QTest::newRow("torchtune-ppo") << "ppo.yaml"
                                       << "policy_model:\n  _component_: torchtune.models.mistral.mistral_7b\noutput_dir: x\n"
                                       << "torchtune PPO config";
        // A generation config (no optimizer, no loss) was a full fine-tune with AdamW.
        QTest::newRow("torchtune-generation") << "gen.yaml"
                                              << "model:\n  _component_: torchtune.models.llama2.llama2_7b\nmax_new_tokens: 300\n"
                                              << "torchtune generation config";
        QTest::newRow("llamafactory-ppo") << "ppo.yaml" << "model_name_or_path: x/y\nstage: ppo\nfinetuning_type: lora\n"
                                          << "LLaMA-Factory PPO config";
        QTest::newRow("axolotl-rl") << "grpo.yml" << "base_model: x/y\nrl: grpo\n" << "rl: post-training";
        QTest::newRow("unknown") << "what.yaml" << "hello: world\n" << "supported formats: torchtune recipe config";
    }
    void recognisedFormatsAreRefusedByName()
    {
        QFETCH(QString, file);
        QFETCH(QString, text);
        QFETCH(QString, named);
        const QString message = QString::fromStdString(refusal(text.toStdString(), file.toStdString()));
        QVERIFY2(message.contains(named), qPrintable(message));
        QVERIFY2(message.startsWith(file + QLatin1Char(':')), qPrintable(message));
    }

    void tomlIsReadAsTomlllibReadsIt()
    {
        // A key given twice is a TOML error (tomllib refuses it too), named with its line.
        const QString message = QString::fromStdString(refusal("[job]\na = 1\na = 2\n", "twice.toml"));
        QVERIFY2(message.contains(QLatin1String("is not TOML")) && message.contains(QLatin1String("line 3")),
                 qPrintable(message));
        const json tree = parseConfigText("[training]\nseq_len = 8192\nlr = 3e-4\nwhen = 1979-05-27\nx = inf\n", "a.toml");
        QCOMPARE(tree["training"]["seq_len"], json(8192));
        QCOMPARE(tree["training"]["lr"].get<double>(), 3e-4);
        QCOMPARE(tree["training"]["when"], json("1979-05-27"));
        QCOMPARE(tree["training"]["x"], json("inf"));
    }

    void deepspeedWorldSizeIsItsBatchArithmetic()
    {
        // train_batch_size 64 = micro 2 x accumulation 4 x GPUs -> 64 / 8 = 8 GPUs.
        const TrainImport import = importTrainConfig(
            R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
                "zero_optimization": {"stage": 3}})", "ds.json");
        QCOMPARE(at(import.scenario, "parallel.gpus"), json(8));
        QCOMPARE(at(import.scenario, "parallel.strategy"), json("zero3"));
        // 60 is not 2 x 4 x a whole number of GPUs: DeepSpeed stops, and so does Headroom.
        const std::string bad = refusal(R"({"train_batch_size": 60, "train_micro_batch_size_per_gpu": 2,
                                            "gradient_accumulation_steps": 4})", "ds.json");
        QVERIFY2(bad.find("ds.json: train_batch_size: 60 is not") != std::string::npos, bad.c_str());
        // "auto" (the Trainer fills it): no count from the file.
        const TrainImport autoBatch = importTrainConfig(
            R"({"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2}})", "z.json");
        QVERIFY(at(autoBatch.scenario, "parallel.gpus").is_null());
    }

    void torchtuneLaunchLineSaysTheRecipe()
    {
        const std::string body = "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n"
                                 "  lora_attn_modules: [q_proj, v_proj]\noptimizer:\n  _component_: torch.optim.AdamW\n";
        // --nproc_per_node 4 x --nnodes 2 = 8 processes, FSDP.
        const TrainImport multi = importTrainConfig(
            "# To launch:\n#   tune run --nnodes 2 --nproc_per_node 4 lora_finetune_distributed --config x\n" + body, "d.yaml");
        QCOMPARE(at(multi.scenario, "parallel.gpus"), json(8));
        QCOMPARE(at(multi.scenario, "parallel.strategy"), json("fsdp"));
        // A distributed recipe without a count: FSDP, the count left for the caller to ask.
        const TrainImport unknown = importTrainConfig("# tune run lora_finetune_distributed --config x\n" + body, "u.yaml");
        QCOMPARE(at(unknown.scenario, "parallel.strategy"), json("fsdp"));
        QVERIFY(at(unknown.scenario, "parallel.gpus").is_null());
        // No launch line: one device, said.
        const TrainImport none = importTrainConfig(body, "n.yaml");
        QVERIFY(at(none.scenario, "parallel.strategy").is_null());
        QVERIFY(mentions(none.warnings, "names no recipe"));
    }

    // A launch script as ms-swift's examples share runs: the command's arguments, the
    // script's variables substituted, its environment giving the world size.
    void swiftScriptsAreReadAsTheShellWouldRunThem()
    {
        const std::string script = "# 27.5GiB * 2\nnproc_per_node=4\n\n"
                                   "CUDA_VISIBLE_DEVICES=0,1,2,3 \\\nNPROC_PER_NODE=$nproc_per_node \\\nswift sft \\\n"
                                   "    --model Qwen/Qwen2.5-7B-Instruct \\\n    --dataset 'a#500' \\\n"
                                   "              'b#500' \\\n    --lora_rank 16 \\\n    --target_modules q_proj v_proj \\\n"
                                   "    --gradient_accumulation_steps $(expr 16 / $nproc_per_node) \\\n"
                                   "    --max_length 4096 \\\n    --deepspeed zero3_offload \\\n    --packing\n";
        const TrainImport import = importTrainConfig(script, "train.sh");
        QCOMPARE(import.format, TrainConfigFormat::Swift);
        QCOMPARE(at(import.scenario, "parallel.gpus"), json(4)); // NPROC_PER_NODE=$nproc_per_node, 4
        QCOMPARE(at(import.scenario, "parallel.strategy"), json("zero3"));
        QCOMPARE(at(import.scenario, "parallel.offload_params"), json(true));
        QCOMPARE(at(import.scenario, "train.lora.rank"), json(16));
        QCOMPARE(at(import.scenario, "train.lora.targets"), json({"q", "v"}));
        QCOMPARE(at(import.scenario, "train.seq_len"), json(4096));
        QVERIFY(at(import.scenario, "train.grad_accum").is_null());
        QVERIFY(mentions(import.warnings, "gradient_accumulation_steps: its value is computed by the shell"));
        QCOMPARE(import.model, std::string("Qwen/Qwen2.5-7B-Instruct"));
        // Two visible GPUs without torchrun: ms-swift splits the model (device_map); refused.
        const std::string split = refusal("CUDA_VISIBLE_DEVICES=0,1 swift sft --model x/y --max_length 512\n", "mp.sh");
        QVERIFY2(split.find("mp.sh: CUDA_VISIBLE_DEVICES: several GPUs without NPROC_PER_NODE") != std::string::npos, split.c_str());
        QVERIFY(refusal("echo hello\n", "none.sh").find("runs no training command") != std::string::npos);
        QVERIFY(refusal("swift sft --model 'x/y\n", "q.sh").find("quote that is not closed") != std::string::npos);
        // As the shell runs them: a quoted prompt may span lines; one training command among
        // exports and inferences is the run; `swift sft FILE.yaml` names the file to give.
        const TrainImport prompt = importTrainConfig(
            "SYSTEM=\"Think.\nThen answer.\"\nswift sft --model x/y --max_length 512 --per_device_train_batch_size 2\n", "p.sh");
        QCOMPARE(at(prompt.scenario, "train.micro_batch"), json(2));
        const TrainImport then = importTrainConfig(
            "swift sft --model x/y --max_length 512\nswift export --adapters out --merge_lora true\n", "t.sh");
        QCOMPARE(at(then.scenario, "train.seq_len"), json(512));
        QVERIFY(refusal("swift sft --max_length 1\nswift pt --max_length 2\n", "two.sh").find("more than one training command") !=
                std::string::npos);
        QVERIFY(refusal("swift export --a b\nswift infer --c d\n", "none.sh").find("does not train (swift export)") !=
                std::string::npos);
        QVERIFY(refusal("swift sft examples/sft.yaml\n", "y.sh").find("give that file as --train-config") != std::string::npos);
        // A quote opened and never closed over a long script is one linear pass, refused.
        std::string unclosed = "X=\"";
        for (int i = 0; i < 200000; ++i)
            unclosed += "swift sft --model x/y\n";
        QVERIFY(refusal(unclosed, "open.sh").find("quote that is not closed") != std::string::npos);
        // Issue 29's hostile pass: a quoted '${n' (no closing brace) of a variable the script sets
        // looped forever, appending the value until memory ran out; now it is the shell's to
        // compute, and said.
        const TrainImport open = importTrainConfig("n=4\nswift sft --model x/y --max_length '${n' --lora_rank 8\n", "open.sh");
        QVERIFY(at(open.scenario, "train.seq_len").is_null());
        QCOMPARE(at(open.scenario, "train.lora.rank"), json(8));
        QVERIFY(mentions(open.warnings, "max_length: its value is computed by the shell"));
        const std::string env = refusal("n=4\nNPROC_PER_NODE='${n' swift sft --model x/y\n", "env.sh");
        QVERIFY2(env.find("NPROC_PER_NODE: must be a number of processes") != std::string::npos, env.c_str());
        // The same arguments as a --config YAML.
        const TrainImport yaml = importTrainConfig("model: Qwen/Qwen2.5-7B-Instruct\ntuner_type: lora\nquant_bits: 4\n"
                                                   "torch_dtype: bfloat16\nmax_length: 2048\n", "sft.yaml");
        QCOMPARE(at(yaml.scenario, "train.method"), json("qlora"));
        QCOMPARE(at(yaml.scenario, "precision.weights"), json("nf4"));
        QCOMPARE(at(yaml.scenario, "precision.double_quant"), json(true));
        QCOMPARE(at(yaml.scenario, "train.micro_batch"), json(1)); // ms-swift's default
    }

    // Preference pairs from each framework's own words: DPO against a reference, ORPO/SimPO
    // without one; Liger keeps the logits DPO needs (liger_kernel.py require_logits).
    void preferenceConfigsSayTheirObjective()
    {
        const TrainImport lf = importTrainConfig("model_name_or_path: x/y\nstage: dpo\nfinetuning_type: full\n"
                                                 "enable_liger_kernel: true\n", "dpo.yaml");
        QCOMPARE(at(lf.scenario, "train.objective"), json("dpo"));
        QCOMPARE(at(lf.scenario, "kernels.profile"), json("fused"));
        QVERIFY(at(lf.scenario, "kernels.loss").is_null());
        const TrainImport orpo = importTrainConfig("model_name_or_path: x/y\nstage: dpo\npref_loss: orpo\n", "orpo.yaml");
        QCOMPARE(at(orpo.scenario, "train.objective"), json("preference"));
        const TrainImport simpo = importTrainConfig("base_model: x/y\nrl: simpo\n", "simpo.yml");
        QCOMPARE(at(simpo.scenario, "train.objective"), json("preference"));
        const TrainImport tt = importTrainConfig(
            "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n  lora_attn_modules: [q_proj]\n"
            "loss:\n  _component_: torchtune.rlhf.loss.DPOLoss\n  beta: 0.1\n", "dpo.yaml");
        QCOMPARE(at(tt.scenario, "train.objective"), json("dpo"));
        QVERIFY(refusal("model_name_or_path: x/y\nstage: dpo\nref_model: other/model\n", "ref.yaml").find("ref_model") !=
                std::string::npos);
        // stage rm: TRL's value-head model (loader.py add_valuehead), whose forward returns the
        // logits, so Liger does not fuse the loss; a full fine-tune of it is refused.
        const TrainImport rm = importTrainConfig("model_name_or_path: x/y\nstage: rm\nenable_liger_kernel: true\n", "rm.yaml");
        QCOMPARE(at(rm.scenario, "train.objective"), json("reward"));
        QCOMPARE(at(rm.scenario, "train.reward_head"), json("value_head"));
        QCOMPARE(at(rm.scenario, "train.method"), json("lora"));
        QVERIFY(at(rm.scenario, "kernels.loss").is_null());
        QVERIFY(refusal("model_name_or_path: x/y\nstage: rm\nfinetuning_type: full\n", "rmfull.yaml").find("finetuning_type") !=
                std::string::npos);
    }

    void llamaFactoryDefaultsAreItsOwn()
    {
        // Only the model and stage: LLaMA-Factory's defaults are LoRA rank 8 on every linear
        // layer, cutoff_len 2048, gradient checkpointing on, TrainingArguments' batch 8, fp32.
        const TrainImport import = importTrainConfig("model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\ndo_train: true\n",
                                                     "lf.yaml");
        QCOMPARE(import.format, TrainConfigFormat::LlamaFactory);
        QCOMPARE(at(import.scenario, "train.method"), json("lora"));
        QCOMPARE(at(import.scenario, "train.lora.rank"), json(8));
        QCOMPARE(at(import.scenario, "train.lora.targets"), json({"q", "k", "v", "o", "gate", "up", "down"}));
        QCOMPARE(at(import.scenario, "train.seq_len"), json(2048));
        QCOMPARE(at(import.scenario, "train.micro_batch"), json(8));
        QCOMPARE(at(import.scenario, "train.gradient_checkpointing"), json("full"));
        QCOMPARE(at(import.scenario, "precision.compute"), json("fp32"));
        QCOMPARE(import.model, std::string("meta-llama/Llama-3.1-8B"));
        // A full fine-tune upcasts trainable parameters to fp32 (adapter.py) unless pure_bf16;
        // disabled attention is eager; Liger fuses the loss; lora_target lists modules.
        const TrainImport full = importTrainConfig("model_name_or_path: x/y\nfinetuning_type: full\nbf16: true\n"
                                                   "flash_attn: disabled\nenable_liger_kernel: true\n", "f.yaml");
        QCOMPARE(at(full.scenario, "precision.weights"), json("fp32"));
        QCOMPARE(at(full.scenario, "precision.compute"), json("bf16"));
        QCOMPARE(at(full.scenario, "kernels.attention"), json("eager"));
        QCOMPARE(at(full.scenario, "kernels.loss"), json("fused"));
        const TrainImport targets = importTrainConfig("model_name_or_path: x/y\nlora_target: q_proj, v_proj\n"
                                                      "quantization_bit: 8\n", "t.yaml");
        QCOMPARE(at(targets.scenario, "train.lora.targets"), json({"q", "v"}));
        QCOMPARE(at(targets.scenario, "precision.weights"), json("int8"));
        QCOMPARE(at(targets.scenario, "train.method"), json("lora"));
        QVERIFY(refusal("model_name_or_path: x/y\nquantization_bit: 4\nquantization_method: hqq\n", "h.yaml")
                    .find("quantization_method") != std::string::npos);
    }

    void regexTargetsAreMatchedAsPeftMatchesThem()
    {
        // Axolotl's Llama-3.2-Vision pattern: attention and MLP projections of every layer.
        const TrainImport all = importTrainConfig(
            "base_model: x/y\nadapter: lora\nlora_target_modules: "
            "'model.language_model.layers.[\\d]+.(mlp|cross_attn|self_attn).(up|down|gate|q|k|v|o)_proj'\n", "v.yml");
        QCOMPARE(at(all.scenario, "train.lora.targets"), json({"q", "k", "v", "o", "gate", "up", "down"}));
        QVERIFY(!mentions(all.warnings, "only some layers"));
        // Every fourth layer's attention, every layer's MLP: said to be an upper bound.
        const TrainImport some = importTrainConfig(
            "base_model: x/y\nadapter: lora\nlora_target_modules: "
            "\".*\\\\.layers\\\\.(3|7|11|15|19|23|27|31)\\\\.self_attn\\\\.(q|k|v|o)_proj|.*\\\\.mlp\\\\.(gate|up|down)_proj\"\n",
            "s.yml");
        QCOMPARE(at(some.scenario, "train.lora.targets"), json({"q", "k", "v", "o", "gate", "up", "down"}));
        QVERIFY(mentions(some.warnings, "only some layers"));
        // A pattern of nothing a decoder has is refused, never silently q and v.
        QVERIFY(refusal("base_model: x/y\nadapter: lora\nlora_target_modules: 'vision_tower.*'\n", "n.yml")
                    .find("lora_target_modules: the pattern matches none") != std::string::npos);
        QVERIFY(refusal("base_model: x/y\nadapter: lora\nlora_target_modules: '(unclosed'\n", "b.yml")
                    .find("not a regular expression") != std::string::npos);
    }

    void axolotlParallelSizesMakeTheWorld()
    {
        // dp_shard 2 x tensor 2 x context 2 = 8 GPUs.
        const TrainImport import = importTrainConfig("base_model: x/y\ndp_shard_size: 2\ntensor_parallel_size: 2\n"
                                                     "context_parallel_size: 2\nfsdp_version: 2\nfsdp_config:\n"
                                                     "  reshard_after_forward: true\nattn_implementation: eager\n", "p.yml");
        QCOMPARE(at(import.scenario, "parallel.gpus"), json(8));
        QCOMPARE(at(import.scenario, "parallel.tensor"), json(2));
        QCOMPARE(at(import.scenario, "parallel.context"), json(2));
        QCOMPARE(at(import.scenario, "parallel.flat_params"), json(false)); // top-level fsdp_version 2
        QCOMPARE(at(import.scenario, "kernels.attention"), json("eager"));
    }

    void aShardedRunWithoutACountIsAskedFor()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("zero3.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"zero_optimization": {"stage": 3}, "bf16": {"enabled": true}})");
        file.close();
        const json base = {{"format", "headroom-scenario"}, {"version", 1}};
        const json model = {{"preset", "llama-3.1-8b"}};
        try {
            importTrainConfigs({path}, {}, {}, {}, base, model);
            QFAIL("a ZeRO-3 run without a GPU count was read");
        } catch (const TrainConfigError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("give the count (--gpus N)")), error.what());
        }
        // The launcher's count: 4 GPUs.
        const ImportedRun run = importTrainConfigs({path}, {}, {}, {}, base, model, 4);
        QCOMPARE(at(run.document, "parallel.gpus"), json(4));
        QCOMPARE(at(run.document, "parallel.strategy"), json("zero3"));
        // A LLaMA-Factory file naming a DeepSpeed file that is not there: refused naming the key.
        const QString lf = dir.filePath(QStringLiteral("lf.yaml"));
        QFile lfFile(lf);
        QVERIFY(lfFile.open(QIODevice::WriteOnly));
        lfFile.write("model_name_or_path: x/y\nstage: sft\ndeepspeed: nowhere/ds_z9.json\n");
        lfFile.close();
        try {
            importTrainConfigs({lf}, {}, {}, {}, base, model, 2);
            QFAIL("a missing DeepSpeed file was not refused");
        } catch (const TrainConfigError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QLatin1String("deepspeed: names \"nowhere/ds_z9.json\"")),
                     error.what());
        }
        // Given beside it, the named file is the one used.
        const QString named = dir.filePath(QStringLiteral("ds_z9.json"));
        QVERIFY(QFile::copy(path, named));
        const ImportedRun both = importTrainConfigs({lf, named}, {}, {}, {}, base, model, 2);
        QCOMPARE(at(both.document, "parallel.strategy"), json("zero3"));
        QCOMPARE(both.imports.size(), std::size_t(2));
    }

    // torchtitan's own llama3_70b.toml run as its December 2024 benchmark ran it (256 GPUs,
    // local batch 16, torch.compile: `--training.local_batch_size 16 --compile.enable`) is the
    // scenario of the measured case torchtitan-llama31-70b-fsdp32-tp8 (tests/data/measured),
    // which was written by hand from the benchmark table: the same estimate, byte for byte.
    void torchtitanConfigGivesTheMeasuredCasesNumber()
    {
        const QString config = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/trainconfigs/torchtitan/torchtitan/models/"
                                              "llama3/train_configs/llama3_70b.toml");
        const ImportedRun run = importTrainConfigs({config}, {QStringLiteral("--training.local_batch_size=16"),
                                                              QStringLiteral("--compile.enable=true")},
                                                   {}, {}, std::nullopt, std::nullopt, 256);
        QCOMPARE(at(run.document, "parallel.tensor"), json(8));
        QCOMPARE(at(run.document, "train.gradient_checkpointing"), json("full"));
        QCOMPARE(at(run.document, "model.preset"), json("llama-3.1-70b"));
        QFile caseFile(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/measured/torchtitan-llama31-70b-fsdp32-tp8.json"));
        QVERIFY(caseFile.open(QIODevice::ReadOnly));
        const json measured = json::parse(caseFile.readAll().toStdString());
        const Estimate fromConfig = estimate(scenarioFromJson(run.document));
        const Estimate fromCase = estimate(scenarioFromJson(measured["scenario"]));
        QCOMPARE(fromConfig.peak.allocatedBytes, fromCase.peak.allocatedBytes);
        QCOMPARE(fromConfig.peak.reservedBytes, fromCase.peak.reservedBytes);
    }

    void litgptModelConfigIsTheModel()
    {
        // LitGPT's TinyStories pretrain config writes its litgpt.Config out (model_config, used
        // by pretrain.py instead of model_name) and ties wte to lm_head (train.tie_embeddings).
        // stories15M by hand: 6 layers of qkv 288 x (288 + 2 x 288), proj 288^2, LLaMAMLP
        // 3 x 288 x 768, two RMSNorms = 995,904; the tied table 32,000 x 288, the final norm:
        // 5,975,424 + 9,216,000 + 288 = 15,191,712.
        const QString config = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/trainconfigs/litgpt/config_hub/pretrain/tinystories.yaml");
        const json base = {{"format", "headroom-scenario"}, {"version", 1}};
        const ImportedRun run = importTrainConfigs({config}, {QStringLiteral("--devices=1")}, {}, {}, base, json{{"preset", "llama-3.1-8b"}});
        QCOMPARE(at(run.document, "model.layers"), json(6));
        QCOMPARE(at(run.document, "model.mlp"), json("gated"));
        QVERIFY(!run.document["model"].contains("preset")); // the window's model is not used
        const Scenario s = scenarioFromJson(run.document);
        QCOMPARE(countParams(s.model).total, std::uint64_t(15'191'712));
        // What the mapping does not cover is refused by its key; LLaMAMLP needs its width.
        const std::string head = "model_name: x\ndevices: 1\nmodel_config:\n  n_layer: 2\n  n_embd: 64\n  n_head: 4\n";
        QVERIFY(refusal(head + "  latent_attention: {q_lora_rank: 8}\n", "p.yaml").find("model_config.latent_attention") !=
                std::string::npos);
        QVERIFY(refusal(head + "  mlp_class_name: LLaMAMLP\n", "p.yaml").find("model_config.intermediate_size") !=
                std::string::npos);
        // GptNeoxMLP by default: 4 x n_embd, biases, LayerNorm, vocabulary 50,254 padded to 50,688.
        const TrainImport neox = importTrainConfig(head, "p.yaml");
        QCOMPARE(at(neox.scenario, "model.intermediate"), json(256));
        QCOMPARE(at(neox.scenario, "model.vocab"), json(50688));
        QCOMPARE(at(neox.scenario, "model.bias"), json("all"));
        QCOMPARE(at(neox.scenario, "model.norm"), json("layernorm"));
    }

    void swiftRlhfSaysItsObjective()
    {
        // swift rlhf: rlhf_type dpo by default; orpo/simpo/cpo have no reference; rm is a
        // one-label reward model (task_type seq_cls).
        auto objective = [](const std::string &args) {
            return at(importTrainConfig("swift rlhf --model x/y --max_length 1024 " + args + "\n", "r.sh").scenario,
                      "train.objective");
        };
        QCOMPARE(objective(""), json("dpo"));
        QCOMPARE(objective("--rlhf_type simpo"), json("preference"));
        QCOMPARE(objective("--rlhf_type kto"), json("kto"));
        QCOMPARE(objective("--rlhf_type rm"), json("reward"));
        // GRPO: max_length is the prompt's; ms-swift's defaults (8 generations, 512 tokens,
        // beta 0.04, vLLM colocated at 0.9 unless given); sleep_level 1 or 2 sleeps; the shell's
        // decimals are numbers (argparse's float()).
        const TrainImport grpo = importTrainConfig(
            "export NPROC_PER_NODE=4\nswift rlhf --rlhf_type grpo --model x/y --max_length 1024 --use_vllm true "
            "--vllm_mode colocate --vllm_gpu_memory_utilization 0.4 --sleep_level 1 --tuner_type lora\n", "g.sh");
        QCOMPARE(at(grpo.scenario, "train.seq_len"), json(1024 + 512));
        QCOMPARE(at(grpo.scenario, "train.grpo.num_generations"), json(8));
        QCOMPARE(at(grpo.scenario, "train.grpo.beta"), json(0.04));
        QCOMPARE(at(grpo.scenario, "train.grpo.rollout"), json("vllm_colocate"));
        QCOMPARE(at(grpo.scenario, "train.grpo.vllm_gpu_memory_utilization"), json(0.4));
        QCOMPARE(at(grpo.scenario, "train.grpo.vllm_sleep"), json(true));
        QCOMPARE(at(grpo.scenario, "parallel.gpus"), json(4)); // exported: in swift's environment
        QVERIFY(mentions(grpo.warnings, "max_num_batched_tokens"));
        // Refused by name: a separate reference, a reward model beside the GRPO policy, GKD,
        // vLLM without its mode, PPO under LoRA, a Ray (Megatron) config.
        auto refused = [](const std::string &args) {
            return refusal("swift rlhf --model x/y --max_length 1024 " + args + "\n", "r.sh");
        };
        QVERIFY(refused("--ref_model other/model").find("ref_model") != std::string::npos);
        QVERIFY(refused("--rlhf_type grpo --reward_model rm/x").find("reward_model") != std::string::npos);
        QVERIFY(refused("--rlhf_type gkd").find("rlhf_type: gkd") != std::string::npos);
        QVERIFY(refused("--rlhf_type grpo --use_vllm true").find("vllm_mode") != std::string::npos);
        QVERIFY(refused("--rlhf_type ppo").find("PPO under LoRA") != std::string::npos);
        QVERIFY(refusal("rlhf_type: grpo\nmodel: x/y\ncolocate_groups: [[train, rollout]]\n", "ray.yaml").find("Ray") !=
                std::string::npos);
        // A plain assignment line is the shell's variable, not swift's environment.
        QVERIFY(refusal("NPROC_PER_NODE=4\nCUDA_VISIBLE_DEVICES=0,1 swift sft --model x/y --max_length 512\n", "v.sh")
                    .find("several GPUs without NPROC_PER_NODE") != std::string::npos);
    }

    void torchtuneTensorParallelIsRead()
    {
        // torchtune's Scout recipe: tensor_parallel_dim 2 under FSDP on its launch line's 8 GPUs
        // (data_parallel_shard_dim -1: the other 4); the estimate splits the logits by 2.
        const QString config = QStringLiteral(HEADROOM_SOURCE_DIR
                                              "/tests/data/trainconfigs/torchtune/recipes/configs/llama4/scout_17B_16E_full.yaml");
        const json base = {{"format", "headroom-scenario"}, {"version", 1}};
        const ImportedRun run = importTrainConfigs({config}, {}, {}, {}, base, json{{"preset", "llama-4-scout"}});
        QCOMPARE(at(run.document, "parallel.tensor"), json(2));
        QCOMPARE(at(run.document, "parallel.gpus"), json(8));
        QCOMPARE(at(run.document, "parallel.strategy"), json("fsdp"));
        QCOMPARE(at(run.document, "model.preset"), json("llama-4-scout"));
        const Estimate e = estimate(scenarioFromJson(run.document));
        // 2,048 tokens x 202,048 vocab x (4 + 8 / 8 chunks) B / 2 ranks of the tensor group.
        QCOMPARE(e.bytes(ConsumerId::Logits), std::uint64_t(2048) * 202048 * 5 / 2);
    }

    void frameworkModelNamesFindTheCatalog()
    {
        for (const auto &[reference, id] : std::vector<std::pair<std::string, std::string>>{
                 {"torchtune.models.qwen3.lora_qwen3_8b_instruct", "qwen3-8b"},
                 {"torchtune.models.qwen2_5.lora_qwen2_5_7b_instruct", "qwen2.5-7b"},
                 {"torchtune.models.phi4.lora_phi4_14b", "phi-4"},
                 {"torchtune.models.llama4.lora_llama4_scout_17b_16e", "llama-4-scout"},
                 {"checkpoints/meta-llama/Meta-Llama-3.1-8B", "llama-3.1-8b"},
                 {"axolotl-quants/Llama-4-Scout-17B-16E-Linearized-bnb-nf4-bf16", "llama-4-scout"},
                 {"casperhansen/llama-3-70b-fp16", "llama-3-70b"},
                 // Axolotl's archived tiny-llama examples and LitGPT's config hub.
                 {"TinyLlama/TinyLlama_v1.1", "tinyllama-1.1b"},
                 {"checkpoints/TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", "tinyllama-1.1b"}}) {
            const ModelPreset *preset = findModelReference(reference);
            QVERIFY2(preset, reference.c_str());
            QCOMPARE(QString::fromStdString(preset->id), QString::fromStdString(id));
        }
        // Not the same model: no match (asked for with --model-config).
        QVERIFY(!findModelReference("Qwen/Qwen3-4B-Instruct-2507"));
    }
};

QTEST_GUILESS_MAIN(TestTrainFormats)
#include "tst_trainformats.moc"
