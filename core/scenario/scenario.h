// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "serving/serving.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// Storage or compute data types. The order is part of no contract; names are.
/// nvfp4: NVIDIA's FP4 (E2M1 values, an fp8 E4M3 scale per 16 and an fp32 scale per tensor).
/// INT3 and INT2: GPTQ (and AWQ) checkpoints of 3 and 2 bits per weight (appended, so that the
/// values of the older types do not move).
enum class DType { FP32, BF16, FP16, FP8, INT8, NF4, FP4, INT4, MXFP4, NVFP4, INT3, INT2 };
/// Bits per value of a data type (nf4/fp4/int4: 4, int3: 3, int2: 2).
int dtypeBits(DType dtype);
/// True for the 2- to 8-bit formats that need scales (int2, int3, nf4, fp4, int4, mxfp4, int8, fp8).
bool isQuantized(DType dtype);

enum class Task { Train, Inference };
enum class Method { Full, Lora, Qlora };
enum class Optimizer { AdamW, AdamW8bit, PagedAdamW8bit, Sgd, SgdMomentum, Adafactor, Lion, None, PagedAdamW,
                       AdamW4bit, GaloreAdamW, GaloreAdamW8bit };
/// Selective: attention scores only (Megatron); SelectiveOp: torchtitan's op-level policy.
enum class Checkpointing { None, Full, Selective, SelectiveOp };
/// What the loss trains for: supervised next-token prediction (sft), or a preference pair
/// (chosen and rejected sequences in one batch) against a frozen reference (dpo: DPO, IPO,
/// KTO-pair) or without one (preference: ORPO, SimPO, CPO); grpo: online RL with generation
/// (TRL's GRPOTrainer), micro_batch completions of seq_len tokens (prompt and completion);
/// ppo: online RL with a policy, a frozen reference, a frozen reward model and a trained value
/// model (TRL PPOTrainer); distillation: a frozen teacher's logits guide the student (torchtune
/// knowledge_distillation recipes); reward: a reward model (sequence-classification head with one
/// label) trained on chosen and rejected sequences (TRL RewardTrainer).
enum class Objective { Sft, Dpo, Preference, Grpo, Ppo, Distillation, Reward, Kto };
/// A reward model's head (objective reward): a sequence-classification `score` head replacing the
/// lm_head (TRL RewardTrainer, Axolotl), or TRL's value head beside the kept lm_head
/// (AutoModelForCausalLMWithValueHead: LLaMA-Factory `stage: rm`), whose forward still computes
/// the vocabulary logits.
enum class RewardHead { Score, ValueHead };
/// What backward starts from: the language-model cross-entropy over the vocabulary (lm), a
/// sequence-classification head's loss (classification: no vocabulary logits), or a benchmark's
/// `logits.sum().backward()` (logits_sum: the logits and their gradient, no log-softmax).
enum class TrainLoss { Lm, Classification, LogitsSum };
/// What generates a GRPO run's completions: vLLM in the trainer's process on the same GPUs
/// (TRL vllm_mode colocate), a vLLM server on other GPUs (vllm_mode server), or the policy's
/// own generate() (use_vllm false).
enum class Rollout { VllmColocate, VllmServer, HfGenerate };
enum class GradDType { Auto, FP32, BF16, FP16 };
/// How the optimizer step runs: torch.optim's foreach path (temporaries the size of one state),
/// a fused kernel (none), or `auto`: foreach under the Hugging Face profile (the old rule).
enum class OptimizerImpl { Auto, Foreach, Fused };
enum class Mlp { Gated, Standard };
/// The MLP's activation; gelu_new (and gelu_fast) are composed of elementwise ops in eager PyTorch.
enum class Activation { Silu, Gelu, GeluTanh, GeluNew, Relu, Relu2 };
/// SiLU for gated MLPs, GELU for standard ones: what a model gets when it names no activation.
Activation defaultActivation(Mlp mlp);
enum class Norm { RmsNorm, LayerNorm };
enum class Bias { None, Qkv, All };
enum class Position { Rope, Alibi, Learned };
/// Norms on the query and key heads: none, one per head (Qwen3, Gemma 3: head_dim weights), or
/// over the whole projection (OLMo 2: heads x head_dim weights).
enum class QkNorm { None, Head, Full };
enum class Attention { Eager, Sdpa, Flash };
/// The loss kernel. `standard`: one cross-entropy over all logits, upcast to fp32 (Hugging Face,
/// torchtitan); `standard_no_upcast`: the same in the compute dtype (LitGPT pretraining);
/// `chunked`: torchtune's CEWithChunkedOutputLoss (logits in chunks, each upcast on its own);
/// `chunked_no_upcast`: LitGPT's lm_head_chunk_size + chunked_cross_entropy (no upcast);
/// `linear_chunked`: torchtune's LinearCrossEntropyLoss (lm_head and loss per chunk);
/// `fused`: Liger / Cut Cross Entropy / Unsloth (no full logits);
/// `parallel`: PyTorch's loss_parallel() over vocabulary-sharded logits (torchtitan with tensor
/// parallelism), whose log-softmax and its backward are decomposed into fp32 temporaries.
enum class Loss { Standard, Chunked, Fused, StandardNoUpcast, ChunkedNoUpcast, LinearChunked, Parallel };
/// How the KV cache grows: one buffer for the whole context, or torch.cat into a new tensor per
/// step while the previous one is alive (Hugging Face's legacy tuple caches).
enum class KvCache { Preallocated, Concat };
/// Which positions the prefill runs the lm_head on.
enum class PromptLogits { Last, All };
/// What the framework keeps beyond the textbook inventory (see docs/estimator.md). `litgpt`: the
/// Hugging Face inventory with LitGPT's fused q/k/v LoRA (one dropout) and fp32 norm-weight product.
enum class Profile { HuggingFace, Fused, Litgpt };
/// Which library runs the 4/8-bit matmuls: bitsandbytes keeps each quantized layer's input for
/// backward (MatMul4Bit saves A), torchao's NF4 linear keeps only the weight.
enum class Quantizer { Bitsandbytes, Torchao };
/// The frameworks and serving engines a scenario can name (docs/frameworks.md); one set of names
/// for training presets and serving engines.
enum class Framework {
    None, HfTransformers, Torchtune, Litgpt, Torchtitan, Axolotl, Unsloth, Deepspeed, Accelerate,
    HfGenerate, Vllm, Sglang, LlamaCpp
};

/// The framework a run uses and its version ("4.46", "0.5"; empty: the current release).
struct FrameworkChoice
{
    Framework name = Framework::None;
    std::string version;
    bool operator==(const FrameworkChoice &) const = default;
};
enum class Strategy { None, Ddp, Zero1, Zero2, Zero3, Fsdp };
/// Pipeline schedules: 1F1B keeps up to `pipeline` micro-batches in flight on the first stage,
/// interleaved 1F1B a little more, GPipe every micro-batch of the step.
enum class PipelineSchedule { OneFOneB, Interleaved, GPipe };
/// Where fp8 weights keep their scales: one per tensor, or one per 128 x 128 block (DeepSeek-V3).
enum class WeightScales { Tensor, Block };
/// Which weights a quantized format applies to: every block matrix, or only the experts' MLPs
/// (gpt-oss ships MXFP4 experts beside bf16 attention).
enum class QuantizedModules { Linear, Experts };
/// FP8 training recipes: torchao's Float8Linear (torchtitan), or Transformer Engine (Megatron).
enum class Fp8Training { None, Torchao, TransformerEngine };
/// A LoRA target matrix.
enum class LoraTarget { Q, K, V, O, Gate, Up, Down, LmHead };
/// How a layer mixes tokens, and so what it keeps between steps: the attention kinds cache K and
/// V per token (full: every token; sliding: the last `sliding_window`; chunked: the current
/// chunk of `sliding_window` tokens; MLA: one compressed latent per token), the linear kinds a
/// fixed state per sequence (Gated DeltaNet, MiniMax's lightning attention, Kimi Delta
/// Attention, Mamba-2, Mamba-1, a short convolution); `none`: an MLP-only layer (Nemotron-H's "-").
enum class LayerKind { Full, Sliding, Chunked, Mla, GatedDeltaNet, Lightning, Kda, Mamba2, Mamba1, ShortConv, None };
/// A layer's MLP: dense, a mixture of experts, or none (a mixer-only layer).
enum class LayerMlp { Dense, Moe, None };

/// The shape of a model's linear-attention or state-space layers (one shape per model).
struct LinearShape
{
    int heads = 0;      ///< value heads: Gated DeltaNet num_v_heads, KDA/lightning heads, Mamba-2 mamba_n_heads
    int keyHeads = 0;   ///< key heads: Gated DeltaNet num_k_heads (0: `heads`)
    int keyDim = 0;     ///< per key head: head_k_dim; Mamba-2's ssm_state_size (d_state)
    int valueDim = 0;   ///< per value head: head_v_dim; Mamba-2's mamba_d_head
    int groups = 1;     ///< Mamba-2 n_groups (B and C are shared per group)
    int convKernel = 0; ///< the short causal convolution's width (0: none)
    bool projBias = false; ///< Mamba-2 use_bias: in_proj and out_proj biases
    bool convBias = true;  ///< Mamba-2 use_conv_bias
    /// Mamba-1 (Jamba): the rank of the time step (x_proj's dt part, dt_proj's input). A Mamba-1
    /// layer is `heads` channels (d_inner) of `valueDim` 1, each with a `keyDim` (d_state) state.
    int dtRank = 0;
    bool operator==(const LinearShape &) const = default;
};

/// The shape of a transformer; enough to count every parameter and saved tensor.
struct ModelArch
{
    std::string preset; ///< catalog id it came from, empty for a custom model
    std::string config; ///< Hugging Face config.json it came from (as the scenario names it), or empty
    /// What the user calls the model (`model.name`): an imported config.json's `_name_or_path` or
    /// folder ("Llama-3.1-8B"), or a name the file gives; empty: the preset's name or "custom 8.0B".
    std::string name;
    int layers = 32;
    int hidden = 4096;
    int intermediate = 14336;
    int heads = 32;
    int kvHeads = 8;
    int headDim = 128;
    int vocab = 128256;
    bool tiedEmbeddings = false;
    Mlp mlp = Mlp::Gated;
    Activation activation = Activation::Silu;
    Norm norm = Norm::RmsNorm;
    Bias bias = Bias::None;
    Position position = Position::Rope;
    int maxPositions = 8192;
    int experts = 1;         ///< routed experts of a mixture-of-experts layer (1: dense)
    int expertsPerToken = 1; ///< routed experts each token uses (top-k)
    int expertIntermediate = 0; ///< width of one routed expert's MLP; 0: `intermediate`
    int sharedExperts = 0;      ///< experts every token uses besides the routed ones
    int sharedExpertIntermediate = 0; ///< width of one shared expert; 0: the routed width
    int denseLayers = 0; ///< leading layers with a dense MLP (DeepSeek's first_k_dense_replace)
    int moeEvery = 1;    ///< after them, every k-th layer is a mixture of experts (Llama 4: 2)
    int slidingWindow = 0;
    /// With a sliding window: 0 = every layer is local; k = layers k, 2k, ... attend globally
    /// (Gemma 2 and gpt-oss: 2, Gemma 3: 6).
    int globalEvery = 0;
    int normsPerLayer = 2;
    QkNorm qkNorm = QkNorm::None;
    bool attentionSinks = false; ///< one learned sink logit per head and layer (gpt-oss)
    bool routerBias = false;     ///< a bias per expert in the router (DeepSeek-V3's noaux_tc)
    // Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): kvLoraRank > 0.
    int qLoraRank = 0;    ///< 0: queries projected directly from the hidden state
    int kvLoraRank = 0;   ///< width of the compressed KV vector that is cached
    int qkRopeHeadDim = 0; ///< rotary part of each query/key head (cached once per token)
    int qkNopeHeadDim = 0;
    int vHeadDim = 0;
    /// Each layer's token mixer, the list repeated over the layers (empty: every layer MLA when
    /// kvLoraRank > 0, else `slidingWindow` and `globalEvery` decide between sliding and full).
    std::vector<LayerKind> layerKinds;
    /// Each layer's MLP, repeated over the layers (empty: `experts`, `denseLayers`, `moeEvery`).
    std::vector<LayerMlp> layerMlps;
    LinearShape linear;          ///< the linear-attention / Mamba-2 layers' shape
    bool gatedAttention = false; ///< a sigmoid output gate per head (Qwen3-Next): q_proj twice as wide
    /// DeepSeek sparse attention's lightning indexer on the MLA layers (0: none): its heads and
    /// head width; it caches one index_head_dim key per token and layer.
    int indexerHeads = 0;
    int indexerHeadDim = 0;
    /// Multi-token-prediction layers the checkpoint ships besides `layers` (DeepSeek-V3's
    /// num_nextn_predict_layers); counted in ParamCounts::mtp, loaded only for speculative decoding.
    int mtpLayers = 0;
    std::uint64_t mtpParams = 0; ///< parameters of those layers (counted by the config reader)
    /// The vision encoder and its projector (multimodal checkpoints): loaded with the model,
    /// kept 16-bit, not trained by the estimate's method.
    std::uint64_t visionParams = 0;
    std::optional<std::uint64_t> params; ///< overrides the derived total when set
    bool rough = false; ///< only params, hidden and layers were given

    /// True for multi-head latent attention.
    bool latentAttention() const { return kvLoraRank > 0; }
    /// Width of one routed expert's MLP.
    int routedWidth() const { return expertIntermediate > 0 ? expertIntermediate : intermediate; }
    /// Width of one shared expert's MLP.
    int sharedWidth() const { return sharedExpertIntermediate > 0 ? sharedExpertIntermediate : routedWidth(); }
    /// Whether layer `index` (0-based) has a mixture-of-experts MLP.
    bool isMoeLayer(int index) const { return layerMlp(index) == LayerMlp::Moe; }
    /// Layer `index`'s MLP.
    LayerMlp layerMlp(int index) const
    {
        if (!layerMlps.empty())
            return layerMlps[static_cast<std::size_t>(index) % layerMlps.size()];
        return experts > 1 && index >= denseLayers && (index + 1) % moeEvery == 0 ? LayerMlp::Moe
                                                                                  : LayerMlp::Dense;
    }
    /// Layers with a mixture-of-experts MLP.
    int moeLayers() const;
    /// Layers whose MLP is `mlp`.
    int layersWithMlp(LayerMlp mlp) const;
    /// Layer `index`'s token mixer.
    LayerKind layerKind(int index) const
    {
        if (!layerKinds.empty())
            return layerKinds[static_cast<std::size_t>(index) % layerKinds.size()];
        if (latentAttention())
            return LayerKind::Mla;
        return slidingWindow > 0 && !(globalEvery > 0 && (index + 1) % globalEvery == 0) ? LayerKind::Sliding
                                                                                         : LayerKind::Full;
    }
    /// Layers whose token mixer is `kind`.
    int layersOfKind(LayerKind kind) const;
    /// True when any layer is of `kind`.
    bool hasKind(LayerKind kind) const { return layersOfKind(kind) > 0; }
    /// Layers with softmax attention (full, sliding, chunked or MLA): what grows with the context.
    int attentionLayers() const;
    /// Whether layer `index` attends within the sliding window (or chunk) only.
    bool isSlidingLayer(int index) const
    {
        const LayerKind kind = layerKind(index);
        return slidingWindow > 0 && (kind == LayerKind::Sliding || kind == LayerKind::Chunked);
    }

    bool operator==(const ModelArch &) const = default;
};

struct LoraConfig
{
    int rank = 16;
    std::vector<LoraTarget> targets{LoraTarget::Q, LoraTarget::K, LoraTarget::V, LoraTarget::O};
    double dropout = 0.05;
    DType dtype = DType::FP32;
    bool operator==(const LoraConfig &) const = default;
};

/// GRPO's generation settings (TRL GRPOConfig); read only with objective grpo.
struct GrpoConfig
{
    std::uint32_t numGenerations = 8;     ///< completions per prompt (num_generations)
    std::uint32_t completionLength = 512; ///< max_completion_length (TRL 512); the prompt is seq_len - this
    double beta = 0;                      ///< KL coefficient: > 0 keeps a reference model
    std::uint32_t stepsPerGeneration = 0; ///< 0: grad_accum (TRL's default)
    Rollout rollout = Rollout::VllmColocate;
    double vllmGpuMemoryUtilization = 0.3; ///< TRL's default for colocation
    bool vllmSleep = false;                ///< vllm_enable_sleep_mode (sleep level 2 while training)
    std::uint32_t vllmMaxModelLen = 0;     ///< vllm_max_model_length; 0: the model's max_positions
    std::uint32_t vllmTensorParallel = 1;  ///< vllm_tensor_parallel_size
    bool operator==(const GrpoConfig &) const = default;
};

/// PPO's rollout settings (TRL PPOConfig); read only with objective ppo. The reward and value
/// models have the policy's architecture with a one-label score head instead of the lm_head
/// (TRL's examples load both from one reward checkpoint of the policy's family).
struct PpoConfig
{
    std::uint32_t responseLength = 53;   ///< response_length (TRL 53); the query is seq_len - this
    std::uint32_t rolloutBatch = 64;     ///< local_rollout_forward_batch_size (TRL 64)
    std::uint32_t miniBatches = 1;       ///< num_mini_batches (TRL 1)
    bool operator==(const PpoConfig &) const = default;
};

/// Knowledge distillation's teacher (torchtune KDRecipeSingleDevice); read only with objective
/// distillation. The teacher shares the student's tokenizer (vocabulary).
struct DistillationConfig
{
    ModelArch teacher;                ///< teacher_model
    DType teacherDType = DType::BF16; ///< the teacher's weights (frozen, loaded in this dtype)
    double kdRatio = 0.5;             ///< kd_ratio: the KD loss's weight against the cross-entropy
    std::uint32_t chunks = 8;         ///< num_output_chunks of the chunked KD loss (torchtune 8)
    bool operator==(const DistillationConfig &) const = default;
};

struct TrainConfig
{
    Method method = Method::Full;
    std::uint32_t microBatch = 1;
    std::uint32_t seqLen = 2048;
    std::uint32_t gradAccum = 1;
    Optimizer optimizer = Optimizer::AdamW;
    bool optimizerInBackward = false;
    OptimizerImpl optimizerImpl = OptimizerImpl::Auto;
    /// GaLore's projection rank (galore_adamw, galore_adamw8bit): the attention and MLP matrices
    /// keep their Adam states at rank x the longer side (GaLore's `rank`, HF `optim_args` rank).
    std::uint32_t galoreRank = 128;
    bool masterWeights = false;
    GradDType gradDType = GradDType::Auto;
    Checkpointing checkpointing = Checkpointing::None;
    double activationConstant = 0; ///< the c of "Where the memory actually goes"; 0 = count saved tensors one by one
    /// Saved activations go to pinned CPU memory (torchtune OffloadActivations, DeepSpeed
    /// cpu_checkpointing, offloaded gradient checkpointing); the GPU keeps what is in flight.
    bool offloadActivations = false;
    /// torch.compile on the blocks (and the loss where the framework compiles it).
    bool compile = false;
    /// sft: micro_batch sequences; dpo / preference: micro_batch pairs (2 x micro_batch
    /// sequences through the model), dpo with a frozen reference model (full fine-tuning).
    Objective objective = Objective::Sft;
    TrainLoss loss = TrainLoss::Lm;
    GrpoConfig grpo; ///< objective grpo only
    PpoConfig ppo;   ///< objective ppo only
    DistillationConfig distillation; ///< objective distillation only
    RewardHead rewardHead = RewardHead::Score; ///< objective reward only
    LoraConfig lora;
    /// Sequences per micro-batch entry: 2 for a preference pair (dpo, preference, reward), else 1 (sft;
    /// grpo, whose micro_batch counts completions as TRL's per_device_train_batch_size does).
    std::uint32_t sequencesPerSample() const
    {
        return objective == Objective::Dpo || objective == Objective::Preference || objective == Objective::Reward
                   ? 2
                   : 1;
    }
    bool operator==(const TrainConfig &) const = default;
};

struct InferenceConfig
{
    std::uint32_t batch = 1;
    std::uint32_t context = 4096;
    DType kvDType = DType::BF16;
    KvCache kvCache = KvCache::Preallocated;
    PromptLogits promptLogits = PromptLogits::Last;
    bool operator==(const InferenceConfig &) const = default;
};

struct PrecisionConfig
{
    DType weights = DType::BF16;
    bool doubleQuant = false;
    DType compute = DType::BF16;
    /// The dtype of the parameters a 4/8-bit base keeps unquantized (embeddings, lm_head, norms):
    /// 16-bit normally; fp32 after PEFT's prepare_model_for_kbit_training.
    std::optional<DType> unquantized;
    /// Whether the training loop runs under torch.autocast (TrainingArguments bf16/fp16, the
    /// usual QLoRA script). It matters for a bitsandbytes base whose unquantized parts are fp32:
    /// without autocast its attention and its fp32 lm_head run in fp32.
    bool autocast = true;
    Quantizer quantizer = Quantizer::Bitsandbytes;
    WeightScales fp8Scales = WeightScales::Tensor;
    QuantizedModules quantized = QuantizedModules::Linear;
    Fp8Training fp8Training = Fp8Training::None;
    /// Weights per scale of the group-quantized int4/int8 formats (GPTQ, AWQ, compressed-tensors
    /// pack-quantized, HQQ); 0: the format's default (int4: 128; int8: one scale per output row).
    /// -1: one scale per output channel (GPTQ/AWQ group_size -1, compressed-tensors "channel").
    std::int32_t groupSize = 0;
    /// Whether every group also stores a zero point (asymmetric GPTQ/AWQ, HQQ), besides its scale.
    bool zeroPoints = true;
    /// The checkpoint's quantization method when Headroom cannot size it (from its config.json):
    /// the weights are then sized as precision.weights says, and the verdict warns
    /// "weights sized as bf16: <method> is not modelled". Not written to the scenario file.
    std::string unmodelledFormat;
    bool operator==(const PrecisionConfig &) const = default;
};

struct KernelConfig
{
    Attention attention = Attention::Sdpa;
    Loss loss = Loss::Standard;
    Profile profile = Profile::HuggingFace;
    bool operator==(const KernelConfig &) const = default;
};

struct ParallelConfig
{
    std::uint32_t gpus = 1;
    Strategy strategy = Strategy::None;
    std::uint32_t tensor = 1;
    std::uint32_t pipeline = 1;
    bool offloadOptimizer = false;
    bool offloadParams = false;
    /// FSDP1 flat parameters mixing frozen and trainable weights: gradients for all of them.
    bool flatParams = false;
    std::uint32_t context = 1; ///< context parallel: each rank holds seq_len / context tokens
    std::uint32_t expert = 1;  ///< expert parallel: each rank holds experts / expert of each layer
    /// Megatron's sequence parallelism: norms and residuals split with tensor parallelism too.
    bool sequenceParallel = true;
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    std::uint32_t virtualStages = 2; ///< model chunks per rank of the interleaved schedule
    bool operator==(const ParallelConfig &) const = default;
};

struct OverheadConfig
{
    double cudaContextMiB = 500;
    double fragmentation = 0.05;
    double workspaceMiB = 32;
    /// NCCL's buffers per rank; absent: 512 MiB for each communicator the layout uses.
    std::optional<double> ncclMiB;
    bool operator==(const OverheadConfig &) const = default;
};

/// The machine the GPUs sit in, for the host-memory bar (effectiveHost() resolves the zeros).
struct HostConfig
{
    double ramGiB = 0; ///< RAM of one machine; 0 = not given (the catalog machine's, if any)
    std::uint32_t gpusPerMachine = 0; ///< 0 = the machine's GPUs (at most parallel.gpus), else min(gpus, 8)
    std::string machine; ///< a catalog machine id (Catalog::machines); empty = none
    /// A unified-memory GPU's limit (macOS `sysctl iogpu.wired_limit_mb`, MiB); 0 = the default
    /// working-set limit (the catalog capacity).
    std::uint32_t wiredLimitMiB = 0;
    bool operator==(const HostConfig &) const = default;
};

/// Everything the user set up; parsed from and written to the v1 scenario format.
struct Scenario
{
    std::string name;
    FrameworkChoice framework;
    ModelArch model;
    Task task = Task::Train;
    TrainConfig train;
    InferenceConfig inference;
    PrecisionConfig precision;
    KernelConfig kernels;
    ParallelConfig parallel;
    OverheadConfig overhead;
    /// The serving engine (task inference only); absent: no engine, the plain inference model.
    std::optional<ServingConfig> serving;
    HostConfig host;
    std::vector<std::string> gpus{"t4", "rtx-4090", "a100-80gb"};
    /// The GPU the verdict is about (one of `gpus`); empty: the largest of `gpus`.
    std::string targetGpu;
    bool operator==(const Scenario &) const = default;
};

} // namespace headroom
