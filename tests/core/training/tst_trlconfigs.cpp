// SPDX-License-Identifier: GPL-3.0-or-later
// TRL trainer configs as TrlParser reads them (core/importers/trlimport.cpp): each class told by
// its own fields, read on top of TrainingArguments with TRL's defaults (TRL f2cd577:
// trl/trainer/grpo_config.py, dpo_config.py, sft_config.py, model_config.py), and what TRL
// refuses refused naming the key. The open-r1 recipes are in the corpus (tst_trainconfigs).
#include "importers/trainimport.h"
#include "trainconfigtest.h"

#include <algorithm>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;
using headroom::test::at;
using headroom::test::refusal;

class TestTrlConfigs : public QObject
{
    Q_OBJECT
private slots:
    void dpoConfigIsDpo()
    {
        const TrainImport in = importTrainConfig(
            R"({"beta": 0.1, "max_prompt_length": 512, "per_device_train_batch_size": 2, "use_peft": true, "lora_r": 32})",
            "dpo.json");
        QCOMPARE(in.format, TrainConfigFormat::Trl);
        const json &s = in.scenario;
        QCOMPARE(at(s, "train.objective"), json("dpo"));
        QCOMPARE(at(s, "train.micro_batch"), json(2));
        // DPOConfig's defaults where the file is silent: max_length 1024, bf16, checkpointing on.
        QCOMPARE(at(s, "train.seq_len"), json(1024));
        QCOMPARE(at(s, "precision.compute"), json("bf16"));
        QCOMPARE(at(s, "train.gradient_checkpointing"), json("full"));
        QCOMPARE(at(s, "train.method"), json("lora"));
        QCOMPARE(at(s, "train.lora.rank"), json(32));
        // ModelConfig's lora_target_modules None: PEFT's q_proj, v_proj.
        QCOMPARE(at(s, "train.lora.targets"), json({"q", "v"}));
        const TrainImport free = importTrainConfig("beta: 0.1\nloss_type: sigmoid\nreference_free: true\n", "free.yaml");
        QCOMPARE(at(free.scenario, "train.objective"), json("preference"));
        // DPOConfig's max_completion_length is GRPOConfig's too: loss_type sigmoid (DPO's only)
        // and label_smoothing say DPO; dapo (GRPO's only) says GRPO.
        for (const char *text : {"beta: 0.1\nloss_type: sigmoid\nmax_prompt_length: 256\nmax_completion_length: 256\n",
                                 "beta: 0.1\nloss_type: [sigmoid, sft]\nmax_completion_length: 256\n",
                                 "beta: 0.1\nlabel_smoothing: 0.1\nmax_completion_length: 256\n"}) {
            const TrainImport dpo = importTrainConfig(text, "dpo.yaml");
            QVERIFY2(at(dpo.scenario, "train.objective") == json("dpo"), text);
            QVERIFY2(!at(dpo.scenario, "train").contains("grpo"), text);
        }
        const TrainImport dapo = importTrainConfig("loss_type: dapo\nmax_completion_length: 256\nbeta: 0.0\n", "g.yaml");
        QCOMPARE(at(dapo.scenario, "train.objective"), json("grpo"));
    }

    void sftConfigWithModelConfigIsTrlNotLitgpt()
    {
        // lora_r is LitGPT's key too; use_peft and a TrainingArguments field say TRL.
        const TrainImport in = importTrainConfig(
            "model_name_or_path: Qwen/Qwen2.5-0.5B\nuse_peft: true\nlora_r: 8\nload_in_4bit: true\n"
            "use_bnb_nested_quant: true\nper_device_train_batch_size: 4\nmax_length: 2048\n",
            "sft.yaml");
        QCOMPARE(in.format, TrainConfigFormat::Trl);
        QCOMPARE(at(in.scenario, "train.method"), json("qlora"));
        QCOMPARE(at(in.scenario, "precision.weights"), json("nf4")); // ModelConfig's bnb_4bit_quant_type
        QCOMPARE(at(in.scenario, "precision.double_quant"), json(true));
        QCOMPARE(at(in.scenario, "train.seq_len"), json(2048));
        QCOMPARE(at(in.scenario, "train.objective"), json(nullptr));
        QCOMPARE(in.model, std::string("Qwen/Qwen2.5-0.5B"));
    }

    void grpoConfigDefaults()
    {
        // GRPOConfig f2cd577: max_completion_length 512, num_generations 8, beta 0, use_vllm
        // false (generate()); max_prompt_length gone: 512 assumed with a warning.
        const TrainImport in = importTrainConfig("num_generations: 8\nper_device_train_batch_size: 8\n", "grpo.yaml");
        QCOMPARE(at(in.scenario, "train.objective"), json("grpo"));
        QCOMPARE(at(in.scenario, "train.grpo.completion_length"), json(512));
        QCOMPARE(at(in.scenario, "train.seq_len"), json(1024));
        QCOMPARE(at(in.scenario, "train.grpo.rollout"), json("hf_generate"));
        QVERIFY(std::any_of(in.warnings.begin(), in.warnings.end(),
                            [](const std::string &w) { return w.starts_with("max_prompt_length"); }));
        const TrainImport server = importTrainConfig(
            "use_vllm: true\nvllm_mode: server\nmax_prompt_length: 256\nmax_completion_length: 128\nbeta: 0.04\n", "s.yaml");
        QCOMPARE(at(server.scenario, "train.grpo.rollout"), json("vllm_server"));
        QCOMPARE(at(server.scenario, "train.seq_len"), json(384));
        QCOMPARE(at(server.scenario, "train.grpo.beta"), json(0.04));
        const TrainImport sleep = importTrainConfig(
            "use_vllm: true\nvllm_enable_sleep_mode: true\nvllm_gpu_memory_utilization: 0.5\nmax_prompt_length: 256\n", "c.yaml");
        QCOMPARE(at(sleep.scenario, "train.grpo.rollout"), json("vllm_colocate"));
        QCOMPARE(at(sleep.scenario, "train.grpo.vllm_sleep"), json(true));
        QCOMPARE(at(sleep.scenario, "train.grpo.vllm_gpu_memory_utilization"), json(0.5));
    }

    void rewardConfigIsARewardModel()
    {
        // RewardConfig f2cd577 (trl/trainer/reward_config.py): max_length 1024, bf16 and
        // gradient checkpointing on by default; center_rewards_coefficient is its own field.
        const TrainImport in = importTrainConfig(
            "model_name_or_path: Qwen/Qwen2.5-0.5B-Instruct\ncenter_rewards_coefficient: 0.01\n"
            "per_device_train_batch_size: 8\nuse_peft: true\nlora_r: 32\n",
            "reward.yaml");
        QCOMPARE(in.format, TrainConfigFormat::Trl);
        QCOMPARE(at(in.scenario, "train.objective"), json("reward"));
        QCOMPARE(at(in.scenario, "train.micro_batch"), json(8));
        QCOMPARE(at(in.scenario, "train.seq_len"), json(1024));
        QCOMPARE(at(in.scenario, "train.gradient_checkpointing"), json("full"));
        QCOMPARE(at(in.scenario, "train.method"), json("lora"));
        // Axolotl's reward_model runs the same RewardTrainer (one label).
        const TrainImport axolotl = importTrainConfig(
            "base_model: Qwen/Qwen2.5-0.5B\nreward_model: true\nnum_labels: 1\nsequence_len: 2048\nmicro_batch_size: 2\n",
            "rm.yml");
        QCOMPARE(at(axolotl.scenario, "train.objective"), json("reward"));
        QCOMPARE(at(axolotl.scenario, "train.micro_batch"), json(2));
        std::string labels = refusal("base_model: x/y\nreward_model: true\nnum_labels: 2\n", "rm.yml");
        QVERIFY2(labels.find("num_labels") != std::string::npos, labels.c_str());
        labels = refusal("base_model: x/y\nprocess_reward_model: true\n", "prm.yml");
        QVERIFY2(labels.find("process_reward_model") != std::string::npos, labels.c_str());
        // GKD (the student generates on-policy) is refused by name.
        const std::string m = refusal("lmbda: 0.5\nteacher_model_name_or_path: Qwen/Qwen2-1.5B\n", "gkd.yaml");
        QVERIFY2(m.find("TRL GKDConfig") != std::string::npos, m.c_str());
    }

    void ppoConfigIsPpo()
    {
        // PPOConfig (trl/experimental/ppo/ppo_config.py at f2cd577): response_length 53,
        // local_rollout_forward_batch_size 64, num_mini_batches 1; ModelConfig's dtype float32.
        const TrainImport in = importTrainConfig("kl_coef: 0.05\nper_device_train_batch_size: 4\n", "ppo.yaml");
        QCOMPARE(in.format, TrainConfigFormat::Trl);
        const json &s = in.scenario;
        QCOMPARE(at(s, "train.objective"), json("ppo"));
        QCOMPARE(at(s, "train.ppo.response_length"), json(53));
        QCOMPARE(at(s, "train.ppo.rollout_batch"), json(64));
        QCOMPARE(at(s, "train.ppo.num_mini_batches"), json(1));
        QCOMPARE(at(s, "train.seq_len"), json(512 + 53)); // no query length in PPOConfig: said, and assumed
        QCOMPARE(at(s, "precision.weights"), json("fp32"));
        QCOMPARE(at(s, "precision.compute"), json("bf16"));
        QVERIFY(std::any_of(in.warnings.begin(), in.warnings.end(),
                            [](const std::string &w) { return w.find("query length") != std::string::npos; }));
        const TrainImport given = importTrainConfig(
            "vf_coef: 0.1\nresponse_length: 128\nlocal_rollout_forward_batch_size: 8\nnum_mini_batches: 2\n"
            "dtype: bfloat16\nuse_peft: true\n",
            "ppo.yaml");
        QCOMPARE(at(given.scenario, "train.ppo.response_length"), json(128));
        QCOMPARE(at(given.scenario, "train.ppo.rollout_batch"), json(8));
        QCOMPARE(at(given.scenario, "train.ppo.num_mini_batches"), json(2));
        QCOMPARE(at(given.scenario, "train.seq_len"), json(512 + 128));
        QCOMPARE(at(given.scenario, "precision.weights"), json("bf16"));
        QCOMPARE(at(given.scenario, "train.method"), json("lora")); // the estimate refuses PPO under LoRA by name
        // A value PPOConfig cannot hold is refused naming it.
        const std::string m = refusal("kl_coef: 0.05\nresponse_length: 0\n", "ppo.yaml");
        QVERIFY2(m.find("response_length") != std::string::npos, m.c_str());
    }

    void ktoConfigIsKto()
    {
        // KTOConfig (trl/experimental/kto): desirable_weight / undesirable_weight say KTO; its
        // max_length 1024 and bf16 as TRL's other configs.
        const TrainImport in = importTrainConfig("desirable_weight: 1.0\nundesirable_weight: 1.33\n"
                                                 "per_device_train_batch_size: 8\nuse_peft: true\n", "kto.yaml");
        QCOMPARE(in.format, TrainConfigFormat::Trl);
        QCOMPARE(at(in.scenario, "train.objective"), json("kto"));
        QCOMPARE(at(in.scenario, "train.micro_batch"), json(8));
        QCOMPARE(at(in.scenario, "train.seq_len"), json(1024));
        QCOMPARE(at(in.scenario, "train.method"), json("lora"));
    }

    void refusesWhatTrlRefuses()
    {
        std::string m = refusal("use_vllm: true\nuse_peft: true\nload_in_8bit: true\n", "g.yaml");
        QVERIFY2(m.find("load_in_8bit") != std::string::npos && m.find("vLLM") != std::string::npos, m.c_str());
        m = refusal("num_generations: 4\nload_in_4bit: true\n", "g.yaml");
        QVERIFY2(m.find("use_peft") != std::string::npos, m.c_str());
        m = refusal("use_vllm: true\nvllm_mode: remote\n", "g.yaml");
        QVERIFY2(m.find("vllm_mode") != std::string::npos, m.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTrlConfigs)
#include "tst_trlconfigs.moc"
