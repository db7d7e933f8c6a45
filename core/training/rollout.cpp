// SPDX-License-Identifier: GPL-3.0-or-later
// A GRPO run's generation in the trainer's GPU. Read in TRL f2cd577 (docs/training-configs.md):
// GRPOTrainer.__init__ builds VLLMGeneration (trl/generation/vllm_generation.py), whose
// _init_vllm starts LLM(gpu_memory_utilization=vllm_gpu_memory_utilization,
// max_model_len=vllm_max_model_length, max_num_seqs=per_device_train_batch_size x
// vllm_tensor_parallel_size x steps_per_generation, max_num_batched_tokens=4096,
// enable_sleep_mode=..., distributed_executor_backend="external_launcher") in the trainer's own
// process, after the policy (and the reference model) are loaded; with sleep mode it calls
// llm.sleep(level=2) after start-up and after every generation, and wake_up(["weights"]),
// wake_up(["kv_cache"]) before one. The engine's own memory is the serving model's
// (servingvllm.cpp) for that LLM.
#include "training/rollout.h"
#include "training/posttraining.h"

#include "estimate/verdict.h"
#include "scenario/checked.h"
#include "scenario/scenariojson.h"
#include "scenario/names.h"
#include "scenario/units.h"
#include "training/overhead.h"

#include <algorithm>

namespace headroom::detail {

std::uint64_t rolloutSequences(const Scenario &s)
{
    const std::uint64_t steps = s.train.grpo.stepsPerGeneration ? s.train.grpo.stepsPerGeneration : s.train.gradAccum;
    return mulChecked(std::uint64_t(s.train.microBatch), steps, "generation batch");
}

Scenario colocatedVllmScenario(const Scenario &s, const std::string &gpuId)
{
    const GrpoConfig &g = s.train.grpo;
    Scenario v = s;
    v.name.clear();
    v.task = Task::Inference;
    v.train = TrainConfig{};
    v.framework = FrameworkChoice{};
    // vLLM loads the checkpoint itself (dtype "auto": the checkpoint's 16-bit dtype); a QLoRA
    // policy's base is loaded with bitsandbytes 4-bit (_init_vllm: quantization="bitsandbytes"
    // when the model has bnb Linear4bit modules).
    if (!isQuantized(s.precision.weights))
        v.precision.weights = s.precision.compute;
    v.precision.unquantized.reset();
    v.parallel = ParallelConfig{};
    v.parallel.tensor = g.vllmTensorParallel;
    v.parallel.gpus = g.vllmTensorParallel;
    v.kernels = KernelConfig{};
    ServingConfig cfg;
    cfg.engine = Engine::Vllm;
    cfg.gpuMemoryUtilization = g.vllmGpuMemoryUtilization;
    // vllm_max_model_length None: vLLM takes the model's max_position_embeddings.
    cfg.maxModelLen = g.vllmMaxModelLen ? g.vllmMaxModelLen
                                        : static_cast<std::uint32_t>(std::max(1, s.model.maxPositions));
    const std::uint64_t seqs = mulChecked(rolloutSequences(s), g.vllmTensorParallel, "generation batch");
    cfg.maxNumSeqs = static_cast<std::uint32_t>(std::min<std::uint64_t>(seqs, UINT32_MAX));
    cfg.maxNumBatchedTokens = 4096;
    cfg.usage = UsageContext::Offline; // the LLM class
    cfg.requests.concurrency = cfg.maxNumSeqs;
    RequestClass kind;
    kind.promptTokens = s.train.seqLen - g.completionLength;
    kind.outputTokens = g.completionLength;
    cfg.requests.classes = {kind};
    v.serving = cfg;
    v.gpus = {gpuId};
    v.targetGpu.clear();
    return v;
}

Scenario serverVllmScenario(const Scenario &s, const std::string &gpuId)
{
    // `trl vllm-serve --model M` with its defaults (trl/scripts/vllm_serve.py ScriptArguments):
    // LLM(tensor_parallel_size=1, gpu_memory_utilization=0.9, max_model_len=None, dtype="auto",
    // enforce_eager=False); vLLM's own max_num_seqs and batched-token limits for the LLM class.
    // The round's completions from every trainer rank go to it.
    Scenario v = colocatedVllmScenario(s, gpuId);
    v.parallel = ParallelConfig{};
    ServingConfig &cfg = *v.serving;
    cfg.gpuMemoryUtilization = 0.9;
    cfg.maxModelLen = static_cast<std::uint32_t>(std::max(1, s.model.maxPositions));
    cfg.maxNumSeqs = 0;
    cfg.maxNumBatchedTokens = 0;
    const std::uint64_t round = mulChecked(rolloutSequences(s), std::max<std::uint32_t>(1, s.parallel.gpus), "generation batch");
    cfg.requests.concurrency = static_cast<std::uint32_t>(std::min<std::uint64_t>(round, UINT32_MAX));
    return v;
}

namespace {

std::string gib(std::uint64_t bytes) { return formatBytes(bytes, Unit::GiB); }

/// vllm_mode server: the trainer holds no engine; the server's own GPU, estimated as
/// `trl vllm-serve` starts it on a GPU like the target.
void server(const EstimateContext &c, const Gpu &gpu, RolloutTerms &out)
{
    const Scenario v = serverVllmScenario(c.s, gpu.id);
    const Estimate e = estimate(v, Detail::BytesOnly, c.catalog);
    if (!e.serving)
        return;
    const ServingFigures &f = *e.serving;
    const std::string head = "The vLLM server (vllm_mode server: trl vllm-serve's defaults, one " + gpu.name +
                             " like the target, gpu_memory_utilization 0.9, max_model_len " +
                             groupDigits(v.serving->maxModelLen) + ")";
    if (!f.startsOk) {
        out.warnings.push_back(head + " cannot start: after " + gib(f.weightsBytes) + " of weights and its profile "
                               "run no KV pool holds one sequence of max_model_len (give it --max_model_len, or "
                               "more GPUs with --tensor_parallel_size; a serving scenario with engine vllm "
                               "estimates those)");
        return;
    }
    out.assumptions.push_back(head + ": " + gib(f.weightsBytes) + " weights, a KV pool of " + gib(f.kvCacheBytes) +
                              " (" + groupDigits(f.kvCacheTokens) + " tokens), " + gib(f.cudaGraphBytes) +
                              " of CUDA graphs, within its " + gib(f.budgetBytes) + "; " +
                              (f.requestsFit ? "the round's " + groupDigits(f.requestSequences) +
                                                   " completions run at once"
                                             : "it runs the round's " + groupDigits(f.requestSequences) +
                                                   " completions in turns") +
                              ". The trainer's GPUs hold no vLLM; other server flags: a serving scenario with "
                              "engine vllm.");
}

void colocated(const EstimateContext &c, const Gpu &gpu, RolloutTerms &out)
{
    const Scenario &s = c.s;
    const GrpoConfig &g = s.train.grpo;
    const Scenario v = colocatedVllmScenario(s, gpu.id);
    const Estimate e = estimate(v, Detail::BytesOnly, c.catalog);
    if (!e.serving)
        return;
    const ServingFigures &f = *e.serving;
    out.figures = f;
    out.deviceTotalBytes = f.deviceTotalBytes;
    out.requestedBytes = roundedBytes(double(f.deviceTotalBytes) * g.vllmGpuMemoryUtilization, "GPU memory");
    // After start-up vLLM holds its weights, the KV pool, the CUDA graph pool and its non-torch
    // memory; the profile run's activations were freed (and emptied from the cache) before the
    // pool was allocated.
    std::uint64_t engine = addChecked(f.weightsBytes, f.kvCacheBytes, "generation engine");
    engine = addChecked(engine, f.cudaGraphBytes, "generation engine");
    engine = addChecked(engine, f.nonTorchBytes, "generation engine");
    out.awake.bytes = engine;
    const std::uint64_t asleep = addChecked(f.cudaGraphBytes, f.nonTorchBytes, "generation engine");
    out.duringTraining.bytes = g.vllmSleep ? asleep : engine;
    if (c.formulas) {
        const std::string what = gib(f.weightsBytes) + " vLLM weights + " + gib(f.kvCacheBytes) + " KV pool (" +
                                 groupDigits(f.kvCacheTokens) + " tokens) + " + gib(f.cudaGraphBytes) +
                                 " CUDA graphs + " + gib(f.nonTorchBytes) + " non-torch";
        out.awake.expression = what + " (vllm_gpu_memory_utilization " + formatDecimal(g.vllmGpuMemoryUtilization) +
                               " of " + gib(f.deviceTotalBytes) + " = " + gib(out.requestedBytes) + ")";
        out.duringTraining.expression =
            g.vllmSleep ? gib(f.cudaGraphBytes) + " CUDA graphs + " + gib(f.nonTorchBytes) +
                              " non-torch (asleep: weights and KV pool released, sleep level 2)"
                        : out.awake.expression;
        const std::string note =
            "vLLM colocated in the trainer's process (TRL vllm_mode colocate) on " + gpu.name +
            ": max_num_seqs " + groupDigits(f.maxNumSeqs) + " (per_device_train_batch_size x steps_per_generation" +
            (g.vllmTensorParallel > 1 ? std::string(" x vllm_tensor_parallel_size") : std::string()) +
            "), max_num_batched_tokens 4096, its pool sized from vllm_gpu_memory_utilization.";
        out.awake.notes.push_back(note);
        out.assumptions.push_back("The colocated vLLM is sized for " + gpu.name +
                                  " (the target GPU): its pool follows each GPU's memory, so the other "
                                  "capacity lines carry the same vLLM bytes only approximately.");
        out.duringTraining.notes.push_back(note);
        if (g.vllmSleep)
            out.duringTraining.notes.push_back(
                "Sleep mode: TRL calls llm.sleep(level=2) after each generation, which releases the weights and "
                "the KV pool; the CUDA graph pool and non-torch memory stay. They come back for the next "
                "generation, while the trainer holds its weights and optimizer state.");
        else
            out.duringTraining.notes.push_back(
                "Without sleep mode the engine keeps its weights and KV pool through the training step.");
    }
    if (!f.startsOk)
        out.warnings.push_back("vLLM cannot start at vllm_gpu_memory_utilization " +
                               formatDecimal(g.vllmGpuMemoryUtilization) + " on " + gpu.name +
                               ": its budget (" + gib(out.requestedBytes) +
                               ") leaves no KV pool for one sequence after its weights and profile run");
    else if (!f.requestsFit)
        out.assumptions.push_back("vLLM's KV pool holds fewer than the " + groupDigits(f.requestSequences) +
                                  " completions of a generation round at once: it runs them in turns "
                                  "(slower, no more memory).");
}

void hfGenerate(const EstimateContext &c, RolloutTerms &out)
{
    const Scenario &s = c.s;
    // generate() over the rank's whole generation batch, prompt and completion in the cache
    // (GRPOTrainer._generate_single_turn: unwrapped_model.generate on every local prompt).
    Scenario v = s;
    v.name.clear();
    v.task = Task::Inference;
    v.train = TrainConfig{};
    v.inference = InferenceConfig{};
    v.inference.batch = static_cast<std::uint32_t>(std::min<std::uint64_t>(rolloutSequences(s), UINT32_MAX));
    v.inference.context = s.train.seqLen;
    v.inference.kvDType = s.precision.compute;
    v.serving.reset();
    v.parallel.strategy = Strategy::None;
    v.parallel.gpus = s.parallel.tensor * s.parallel.pipeline * s.parallel.context;
    v.parallel.offloadOptimizer = false;
    v.parallel.offloadParams = false;
    const Estimate e = estimate(v, Detail::BytesOnly, c.catalog);
    out.trainerCache.bytes = e.bytes(ConsumerId::KvCache);
    out.trainerLogits.bytes = e.bytes(ConsumerId::Logits);
    if (c.formulas) {
        out.trainerCache.expression = groupDigits(v.inference.batch) + " sequences (micro_batch x steps_per_generation) x " +
                                      groupDigits(v.inference.context) + " tokens of KV cache (generate())";
        out.trainerCache.notes.push_back("GRPO without vLLM: the policy generates the completions itself "
                                         "(use_vllm false), the cache of the whole generation batch at once.");
        out.trainerLogits.expression = groupDigits(v.inference.batch) + " sequences' last-token logits (generate())";
    }
    if (s.parallel.strategy == Strategy::Zero3)
        out.gathered = zero3GenerationGather(e.bytes(ConsumerId::Weights), 0, c.formulas);
}

} // namespace

RolloutTerms rolloutTerms(const EstimateContext &c)
{
    RolloutTerms out;
    const Scenario &s = c.s;
    if (s.task != Task::Train || s.train.objective != Objective::Grpo)
        return out;
    const GrpoConfig &g = s.train.grpo;
    if (g.completionLength >= s.train.seqLen) // (an edit or a solve past what the reader checked)
        throw ScenarioError("train.grpo.completion_length",
                            groupDigits(g.completionLength) + " must be below train.seq_len " +
                                groupDigits(s.train.seqLen) + " (seq_len is the prompt and the completion)");
    // GRPOConfig.__post_init__ and VLLMGeneration._init_vllm refuse these runs; so does Headroom.
    const std::uint64_t processes = std::max<std::uint32_t>(1, s.parallel.gpus);
    const std::uint64_t generationBatch = mulChecked(rolloutSequences(s), processes, "generation batch");
    if (generationBatch % g.numGenerations != 0)
        throw ScenarioError("train.grpo.num_generations",
                            "the generation batch (micro_batch x GPUs x steps_per_generation = " +
                                groupDigits(generationBatch) + " completions) must be divisible by num_generations " +
                                groupDigits(g.numGenerations) + " (TRL refuses it)");
    if (g.rollout == Rollout::VllmColocate && processes % g.vllmTensorParallel != 0)
        throw ScenarioError("train.grpo.vllm_tensor_parallel",
                            groupDigits(g.vllmTensorParallel) + " must divide the " + groupDigits(processes) +
                                " GPUs (vLLM's tensor-parallel groups are made of trainer ranks)");
    switch (g.rollout) {
    case Rollout::VllmColocate:
        if (const Gpu *gpu = targetGpu(s, c.catalog))
            colocated(c, *gpu, out);
        break;
    case Rollout::VllmServer:
        if (const Gpu *gpu = targetGpu(s, c.catalog); gpu && c.formulas)
            server(c, *gpu, out);
        break;
    case Rollout::HfGenerate: hfGenerate(c, out); break;
    }
    return out;
}

} // namespace headroom::detail
