// SPDX-License-Identifier: GPL-3.0-or-later
// PPO, knowledge distillation and reward-model training: what each adds to the trainer's GPU.
// Read in TRL f2cd577 (trl/experimental/ppo/ppo_trainer.py, trl/trainer/reward_trainer.py) and
// torchtune bd2a0fc (recipes/knowledge_distillation_single_device.py,
// torchtune/modules/loss/kd_losses.py); docs/estimator.md, "Post-training".
#include "training/posttraining.h"

#include "scenario/checked.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "scenario/units.h"

#include <algorithm>

namespace headroom::detail {

void checkPostTraining(const Scenario &s)
{
    if (s.task != Task::Train)
        return;
    const Objective o = s.train.objective;
    if (o == Objective::Ppo) {
        // TRL PPOTrainer trains the value model in full beside a PEFT policy: not modelled.
        if (s.train.method != Method::Full)
            throw ScenarioError("train.method", "PPO is modelled with every weight trained (full); under "
                                                "LoRA TRL still trains the value model in full: not modelled");
        if (s.parallel.tensor > 1 || s.parallel.pipeline > 1 || s.parallel.context > 1)
            throw ScenarioError("parallel", "PPO is modelled on data-parallel ranks (ZeRO/FSDP) only: tensor, "
                                            "pipeline and context parallelism of its four models are not modelled");
        if (s.kernels.loss == Loss::Fused)
            throw ScenarioError("kernels.loss", "fused: TRL PPOTrainer takes selective_log_softmax of the "
                                                "policy's logits; no fused loss");
        if (s.train.offloadActivations)
            throw ScenarioError("train.offload_activations", "is not modelled with PPO");
    }
    if (o == Objective::Distillation) {
        const ModelArch &t = s.train.distillation.teacher;
        if (t.vocab != s.model.vocab)
            throw ScenarioError("train.distillation.teacher",
                                "its vocabulary (" + std::to_string(t.vocab) + ") must be the student's (" +
                                    std::to_string(s.model.vocab) + "): the KD loss compares the two "
                                                                    "distributions token by token");
        if (s.parallel.tensor > 1 || s.parallel.pipeline > 1 || s.parallel.context > 1)
            throw ScenarioError("parallel", "distillation is modelled on data-parallel ranks (FSDP) only: "
                                            "tensor, pipeline and context parallelism are not modelled");
        if (s.kernels.loss == Loss::Fused)
            throw ScenarioError("kernels.loss", "fused: the KD loss needs the student's and the teacher's "
                                                "logits (torchtune's recipe has no fused KD loss)");
    }
    if (o == Objective::Reward && s.model.rough)
        throw ScenarioError("model", "a reward model needs the architecture (its lm_head is replaced by a "
                                     "score head): a rough model cannot say how large the head is");
    if (o == Objective::Reward && s.train.rewardHead == RewardHead::ValueHead) {
        if (s.train.method == Method::Full)
            throw ScenarioError("train.reward_head",
                                "value_head with train.method full is not modelled: the kept lm_head gets no "
                                "gradient from the pairwise loss, so what its optimizer holds depends on the "
                                "framework (use lora or qlora)");
        if (s.parallel.tensor > 1 || s.parallel.pipeline > 1 || s.parallel.context > 1)
            throw ScenarioError("parallel", "a value-head reward model is modelled on data-parallel ranks only "
                                            "(as LLaMA-Factory runs it): tensor, pipeline and context "
                                            "parallelism are not modelled");
        if (s.kernels.loss == Loss::Fused)
            throw ScenarioError("kernels.loss", "fused: the value-head model's forward returns the vocabulary "
                                                "logits (no fused loss replaces them)");
    }
}

std::uint64_t valueHeadParams(const ModelArch &m)
{
    // ValueHead (trl/experimental/ppo/modeling_value_head.py): summary = nn.Linear(hidden, 1).
    return std::uint64_t(m.hidden) + 1;
}

ParamCounts scoreModelParams(const ParamCounts &lm, const ModelArch &m, std::uint64_t tensor, bool holdsHead)
{
    ParamCounts p = lm;
    if (!holdsHead || m.rough)
        return p;
    // AutoModelForSequenceClassification: `score = nn.Linear(hidden, num_labels, bias=False)`
    // instead of the lm_head; a tied embedding stays as the input table.
    const std::uint64_t score = ceilDiv(std::uint64_t(m.hidden), std::max<std::uint64_t>(1, tensor));
    p.total = addChecked(p.total - std::min(p.lmHead, p.total), score, "parameters");
    p.derived = addChecked(p.derived - std::min(p.lmHead, p.derived), score, "parameters");
    p.lmHead = score;
    return p;
}

std::uint64_t valueModelParams(const EstimateContext &c)
{
    return scoreModelParams(c.params, c.m, c.parallel.tensor, c.share.lmHead).total;
}

namespace {

std::string gib(std::uint64_t bytes) { return formatBytes(bytes, Unit::GiB); }

} // namespace

Term postTrainingWeights(const EstimateContext &c)
{
    const Scenario &s = c.s;
    Term term;
    if (s.task != Task::Train)
        return term;
    const bool sharded = c.parallel.shards(ShardLevel::Parameters);
    if (s.train.objective == Objective::Ppo) {
        // PPOTrainer.__init__: ref_model = create_reference_model(policy) (a frozen copy) when
        // none is given and the policy is no PEFT model; reward_model and value_model are
        // sequence-classification models (TRL's examples/scripts/ppo/ppo.py loads both from one
        // reward checkpoint), all in the policy's dtype and prepared with the same sharding.
        const DType dtype = s.precision.weights;
        const std::uint64_t policy = c.params.total;
        const std::uint64_t score = valueModelParams(c);
        const std::uint64_t ref = c.shardedBytes(policy, c.params.routedExpertLinear, dtypeBits(dtype), sharded, "weights");
        const std::uint64_t each = c.shardedBytes(score, c.params.routedExpertLinear, dtypeBits(dtype), sharded, "weights");
        term.bytes = addChecked(ref, mulChecked(each, 2, "weights"), "weights");
        if (c.formulas) {
            term.expression = c.paramsText(policy) + " x " + perValue(dtype) + " (PPO reference copy) + 2 x " +
                              n(score) + " params x " + perValue(dtype) + " (reward and value models)" +
                              c.parallel.shardNote(sharded);
            term.notes.push_back("PPO (TRL PPOTrainer) holds four models: the policy, a frozen reference copy, "
                                 "a frozen reward model and a trained value model; the reward and value models "
                                 "have the policy's architecture with a one-label score head instead of the lm_head.");
        }
    } else if (s.train.objective == Objective::Distillation) {
        // KDRecipeSingleDevice._setup_teacher_model: the teacher in its own dtype, eval() and
        // frozen; the distributed recipe shards it with FSDP like the student.
        const DistillationConfig &kd = s.train.distillation;
        const ParamCounts teacher = countParams(kd.teacher);
        term.bytes = c.shardedBytes(teacher.total, teacher.routedExpertLinear, dtypeBits(kd.teacherDType), sharded,
                                    "weights");
        if (c.formulas) {
            term.expression = n(teacher.total) + " teacher params x " + perValue(kd.teacherDType) +
                              (sharded ? c.parallel.shardNote(true) : std::string());
            term.notes.push_back("Knowledge distillation: the frozen teacher's weights (" + gib(term.bytes) +
                                 ") beside the student; its forward runs without grad and keeps only its logits.");
        }
    }
    return term;
}

Term distillationLogits(const EstimateContext &c, bool backward)
{
    const Scenario &s = c.s;
    Term term;
    if (s.task != Task::Train || s.train.objective != Objective::Distillation || !c.share.lmHead)
        return term;
    const DistillationConfig &kd = s.train.distillation;
    const std::uint64_t tokens = c.share.tokens;
    const std::uint64_t logits = mulChecked(tokens, std::uint64_t(c.m.vocab), "logits");
    const std::uint64_t teacher = byteSize(kd.teacherDType);
    const std::uint64_t chunks = std::max<std::uint32_t>(1, kd.chunks);
    // ForwardKLLoss per chunk: teacher_prob = softmax(fp32) and student_logprob = log_softmax(fp32)
    // are saved for backward (the product's gradient and log_softmax's own); the product and
    // its masked_fill are one chunk's temporaries. _loss_step deletes the teacher's logits
    // before it returns, so backward starts with the saved fp32 pair only.
    const std::uint64_t saved = mulChecked(logits, 8, "logits");
    const std::uint64_t chunk = ceilDiv(mulChecked(logits, 8, "logits"), chunks);
    term.bytes = addChecked(saved, chunk, "logits");
    if (!backward)
        term.bytes = addChecked(term.bytes, mulChecked(logits, teacher, "logits"), "logits");
    if (c.formulas) {
        term.expression = n(tokens) + " tokens x " + n(c.m.vocab) + " vocab x (" +
                          (backward ? std::string() : n(teacher) + " teacher logits + ") + "8 + 8 / " + n(chunks) +
                          " chunks) B (KD loss)";
        term.notes.push_back(backward ? "KD loss at backward: the saved fp32 teacher probabilities and student "
                                        "log-probabilities (the teacher's logits were freed)."
                                      : "KD loss (torchtune ForwardKLWithChunkedOutputLoss): the teacher's logits, "
                                        "its fp32 softmax and the student's fp32 log-softmax for every token, one "
                                        "chunk's product at a time.");
    }
    return term;
}

namespace {

/// AutoModelForCausalLMWithValueHead.forward: the causal LM's full output (its logits over the
/// vocabulary and every hidden state), then v_head on the last hidden state (dropout 0.1: a
/// one-byte mask; the fp32 cast kept for the summary Linear's backward), then `lm_logits.float()`.
/// LLaMA-Factory's PairwiseTrainer keeps only the values, so the logits live until forward returns.
Term valueHeadScores(const EstimateContext &c, bool backward)
{
    Term term;
    const std::uint64_t tokens = c.share.tokens;
    const std::uint64_t hidden = c.m.hidden;
    const std::uint64_t saved = productChecked("value head", tokens, hidden, 1 + 4);
    const std::uint64_t values = mulChecked(tokens, 4, "value head");
    term.bytes = addChecked(saved, values, "value head");
    if (!backward) {
        const std::uint64_t logits = productChecked("logits", tokens, c.m.vocab, c.compute + 4);
        term.bytes = addChecked(term.bytes, logits, "logits");
    }
    if (c.formulas) {
        term.expression = n(tokens) + " tokens x (" +
                          (backward ? std::string() : n(c.m.vocab) + " vocab x (" + n(c.compute) + " + 4) + ") +
                          n(hidden) + " hidden x (1 + 4) + 4) B (value head" +
                          (backward ? std::string(")") : std::string(" and the vocabulary logits)"));
        term.notes.push_back(backward
                                 ? "Value-head reward model at backward: the logits were freed; the value head's "
                                   "dropout mask and fp32 input stay for its gradient."
                                 : "Value-head reward model (TRL AutoModelForCausalLMWithValueHead, LLaMA-Factory "
                                   "stage rm): the forward still computes the logits over the vocabulary and "
                                   "upcasts them to fp32 (both held until it returns), though the pairwise loss "
                                   "reads only the values.");
    }
    return term;
}

} // namespace

Term rewardScores(const EstimateContext &c, bool backward)
{
    Term term;
    if (!c.share.lmHead)
        return term;
    if (c.s.train.rewardHead == RewardHead::ValueHead)
        return valueHeadScores(c, backward);
    // RewardTrainer.compute_loss: model(...).logits is [sequences, 1] after the pooling of
    // AutoModelForSequenceClassification, which runs `score` on every position first.
    const std::uint64_t tokens = c.share.tokens;
    term.bytes = mulChecked(tokens, c.compute, "logits");
    if (c.formulas) {
        term.expression = n(tokens) + " tokens x 1 label x " + n(c.compute) + " B (score head)";
        term.notes.push_back("Reward model: a one-label score head instead of the lm_head, so no logits over "
                             "the vocabulary; the loss is -logsigmoid(chosen - rejected) per pair.");
    }
    return term;
}

Term zero3GenerationGather(std::uint64_t policy, std::uint64_t value, bool formulas)
{
    Term term;
    term.bytes = addChecked(policy, value, "weights");
    if (formulas) {
        term.expression = gib(policy) + " policy" + (value ? " + " + gib(value) + " value model" : std::string()) +
                          " gathered whole for generate()";
        term.notes.push_back("DeepSpeed ZeRO-3 generation (TRL ds3_gather_for_generation, on by default): "
                             "every parameter of the trained model is gathered on each GPU, beside its shard, "
                             "while it generates; the shards alone are held the rest of the step.");
    }
    return term;
}

PpoRollout ppoRollout(const EstimateContext &c)
{
    const Scenario &s = c.s;
    PpoRollout out;
    const PpoConfig &p = s.train.ppo;
    // PPOConfig: local_batch_size = per_device_train_batch_size x gradient_accumulation_steps x
    // num_mini_batches; batch_generation runs generate() local_rollout_forward_batch_size
    // queries at a time and keeps every chunk's scores (output_scores: one fp32 row per step,
    // transformers' _sample upcasts next_token_logits), stacked, then padded into one tensor.
    const std::uint64_t local = productChecked("rollout batch", std::uint64_t(s.train.microBatch),
                                               std::uint64_t(s.train.gradAccum), std::uint64_t(p.miniBatches));
    const std::uint64_t chunk = std::min<std::uint64_t>(p.rolloutBatch, local);
    const std::uint64_t vocab = c.m.vocab;
    const std::uint64_t response = p.responseLength;
    const std::uint64_t rowBytes = productChecked("logits", response, vocab, 4);
    Scenario v = s;
    v.name.clear();
    v.task = Task::Inference;
    v.train = TrainConfig{};
    v.inference = InferenceConfig{};
    v.inference.batch = static_cast<std::uint32_t>(chunk);
    v.inference.context = s.train.seqLen;
    v.inference.kvDType = s.precision.compute;
    v.serving.reset();
    v.parallel.strategy = Strategy::None;
    v.parallel.gpus = 1;
    v.parallel.offloadOptimizer = false;
    v.parallel.offloadParams = false;
    const Estimate e = estimate(v, Detail::BytesOnly, c.catalog);
    const std::uint64_t kv = e.bytes(ConsumerId::KvCache);
    // Three moments: the last chunk's generation (its cache, the earlier chunks' scores, its own
    // list and stacked copy); pad() (the list and the padded tensor); the reference forward
    // (the padded scores and the reference's logits for one chunk over the whole sequence).
    const std::uint64_t generating = addChecked(kv, mulChecked(local + chunk, rowBytes, "logits"), "logits");
    const std::uint64_t padding = mulChecked(2 * local, rowBytes, "logits");
    const std::uint64_t refLogits = productChecked("logits", chunk, std::uint64_t(s.train.seqLen), vocab, c.compute);
    const std::uint64_t reference = addChecked(mulChecked(local, rowBytes, "logits"), refLogits, "logits");
    // Under ZeRO-3 the generation and its padding run with the policy and value model gathered
    // (PolicyAndValueWrapper's parameters); the reference forward runs after, on the shards.
    std::uint64_t gathered = 0;
    if (s.parallel.strategy == Strategy::Zero3) {
        const std::uint64_t value = mulChecked(scoreModelParams(countParams(c.m), c.m, 1, true).total,
                                               byteSize(s.precision.weights), "weights");
        out.gathered = zero3GenerationGather(e.bytes(ConsumerId::Weights), value, c.formulas);
        gathered = out.gathered.bytes;
    }
    // The busiest moment, the generation first on a tie (its cache is then shown apart).
    enum class Moment { Generating, Padding, Reference };
    Moment moment = Moment::Generating;
    std::uint64_t busiest = addChecked(generating, gathered, "logits");
    if (addChecked(padding, gathered, "logits") > busiest) {
        moment = Moment::Padding;
        busiest = padding + gathered;
    }
    if (reference > busiest)
        moment = Moment::Reference;
    if (moment == Moment::Reference)
        out.gathered = Term{};
    if (moment == Moment::Generating) {
        out.cache.bytes = kv;
        out.logits.bytes = generating - kv;
    } else {
        out.logits.bytes = moment == Moment::Padding ? padding : reference;
    }
    if (c.formulas) {
        out.cache.expression = n(chunk) + " sequences (local_rollout_forward_batch_size) x " + n(s.train.seqLen) +
                               " tokens of KV cache (generate())";
        const std::string rows = n(response) + " response tokens x " + n(vocab) + " vocab x 4 B";
        if (moment == Moment::Generating)
            out.logits.expression = n(local + chunk) + " sequences x " + rows + " (generation scores, the last "
                                                                              "chunk stacked)";
        else if (moment == Moment::Padding)
            out.logits.expression = "2 x " + n(local) + " sequences x " + rows + " (the scores and their padded copy)";
        else
            out.logits.expression = n(local) + " sequences x " + rows + " (scores) + " + n(chunk) + " x " +
                                    n(s.train.seqLen) + " tokens x " + n(vocab) + " vocab x " + n(c.compute) +
                                    " B (reference logits)";
        out.logits.notes.push_back("PPO rollout (TRL PPOTrainer.train): the local batch of micro_batch x grad_accum "
                                   "x num_mini_batches = " + n(local) + " queries is generated " + n(chunk) +
                                   " at a time; the fp32 scores of every generated token are kept for the "
                                   "log-probabilities.");
    }
    return out;
}

} // namespace headroom::detail
