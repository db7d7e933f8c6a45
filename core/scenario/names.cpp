// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario/names.h"

namespace headroom {

#define HEADROOM_ENUM_TABLE(Type, ...)                                                             \
    template <>                                                                                    \
    std::span<const EnumEntry<Type>> enumEntries<Type>()                                           \
    {                                                                                              \
        static constexpr EnumEntry<Type> table[] = {__VA_ARGS__};                                  \
        return table;                                                                              \
    }

HEADROOM_ENUM_TABLE(DType, {DType::FP32, "fp32"}, {DType::BF16, "bf16"}, {DType::FP16, "fp16"},
                    {DType::FP8, "fp8"}, {DType::INT8, "int8"}, {DType::NF4, "nf4"},
                    {DType::FP4, "fp4"}, {DType::INT4, "int4"}, {DType::MXFP4, "mxfp4"},
                    {DType::NVFP4, "nvfp4"}, {DType::INT3, "int3"}, {DType::INT2, "int2"})
HEADROOM_ENUM_TABLE(Task, {Task::Train, "train"}, {Task::Inference, "inference"})
HEADROOM_ENUM_TABLE(Method, {Method::Full, "full"}, {Method::Lora, "lora"}, {Method::Qlora, "qlora"})
HEADROOM_ENUM_TABLE(Optimizer, {Optimizer::AdamW, "adamw"}, {Optimizer::AdamW8bit, "adamw_8bit"},
                    {Optimizer::PagedAdamW8bit, "paged_adamw_8bit"}, {Optimizer::Sgd, "sgd"},
                    {Optimizer::SgdMomentum, "sgd_momentum"}, {Optimizer::Adafactor, "adafactor"},
                    {Optimizer::Lion, "lion"}, {Optimizer::None, "none"},
                    {Optimizer::PagedAdamW, "paged_adamw"}, {Optimizer::AdamW4bit, "adamw_4bit"},
                    {Optimizer::GaloreAdamW, "galore_adamw"}, {Optimizer::GaloreAdamW8bit, "galore_adamw8bit"})
HEADROOM_ENUM_TABLE(TrainLoss, {TrainLoss::Lm, "lm"}, {TrainLoss::Classification, "classification"},
                    {TrainLoss::LogitsSum, "logits_sum"})
HEADROOM_ENUM_TABLE(Objective, {Objective::Sft, "sft"}, {Objective::Dpo, "dpo"}, {Objective::Preference, "preference"},
                   {Objective::Grpo, "grpo"}, {Objective::Ppo, "ppo"}, {Objective::Distillation, "distillation"},
                   {Objective::Reward, "reward"}, {Objective::Kto, "kto"})
HEADROOM_ENUM_TABLE(RewardHead, {RewardHead::Score, "score"}, {RewardHead::ValueHead, "value_head"})
HEADROOM_ENUM_TABLE(Rollout, {Rollout::VllmColocate, "vllm_colocate"}, {Rollout::VllmServer, "vllm_server"},
                   {Rollout::HfGenerate, "hf_generate"})
HEADROOM_ENUM_TABLE(Checkpointing, {Checkpointing::None, "none"}, {Checkpointing::Full, "full"},
                    {Checkpointing::Selective, "selective"},
                    {Checkpointing::SelectiveOp, "selective_op"})
HEADROOM_ENUM_TABLE(GradDType, {GradDType::Auto, "auto"}, {GradDType::FP32, "fp32"},
                    {GradDType::BF16, "bf16"}, {GradDType::FP16, "fp16"})
HEADROOM_ENUM_TABLE(Mlp, {Mlp::Gated, "gated"}, {Mlp::Standard, "standard"})
HEADROOM_ENUM_TABLE(Activation, {Activation::Silu, "silu"}, {Activation::Gelu, "gelu"},
                    {Activation::GeluTanh, "gelu_tanh"}, {Activation::GeluNew, "gelu_new"},
                    {Activation::Relu, "relu"}, {Activation::Relu2, "relu2"})
HEADROOM_ENUM_TABLE(KvCache, {KvCache::Preallocated, "preallocated"}, {KvCache::Concat, "concat"})
HEADROOM_ENUM_TABLE(PromptLogits, {PromptLogits::Last, "last"}, {PromptLogits::All, "all"})
HEADROOM_ENUM_TABLE(Norm, {Norm::RmsNorm, "rmsnorm"}, {Norm::LayerNorm, "layernorm"})
HEADROOM_ENUM_TABLE(Bias, {Bias::None, "none"}, {Bias::Qkv, "qkv"}, {Bias::All, "all"})
HEADROOM_ENUM_TABLE(Position, {Position::Rope, "rope"}, {Position::Alibi, "alibi"},
                    {Position::Learned, "learned"})
HEADROOM_ENUM_TABLE(Attention, {Attention::Eager, "eager"}, {Attention::Sdpa, "sdpa"},
                    {Attention::Flash, "flash"})
HEADROOM_ENUM_TABLE(Loss, {Loss::Standard, "standard"}, {Loss::StandardNoUpcast, "standard_no_upcast"},
                    {Loss::Chunked, "chunked"}, {Loss::ChunkedNoUpcast, "chunked_no_upcast"},
                    {Loss::LinearChunked, "linear_chunked"}, {Loss::Fused, "fused"},
                    {Loss::Parallel, "parallel"})
HEADROOM_ENUM_TABLE(Profile, {Profile::HuggingFace, "huggingface"}, {Profile::Fused, "fused"},
                    {Profile::Litgpt, "litgpt"})
HEADROOM_ENUM_TABLE(OptimizerImpl, {OptimizerImpl::Auto, "auto"}, {OptimizerImpl::Foreach, "foreach"},
                    {OptimizerImpl::Fused, "fused"})
HEADROOM_ENUM_TABLE(Quantizer, {Quantizer::Bitsandbytes, "bitsandbytes"},
                    {Quantizer::Torchao, "torchao"})
HEADROOM_ENUM_TABLE(Framework, {Framework::None, "none"},
                    {Framework::HfTransformers, "hf_transformers"},
                    {Framework::Torchtune, "torchtune"}, {Framework::Litgpt, "litgpt"},
                    {Framework::Torchtitan, "torchtitan"}, {Framework::Axolotl, "axolotl"},
                    {Framework::Unsloth, "unsloth"}, {Framework::Deepspeed, "deepspeed"},
                    {Framework::Accelerate, "accelerate"}, {Framework::HfGenerate, "hf_generate"},
                    {Framework::Vllm, "vllm"}, {Framework::Sglang, "sglang"},
                    {Framework::LlamaCpp, "llama_cpp"})
HEADROOM_ENUM_TABLE(Strategy, {Strategy::None, "none"}, {Strategy::Ddp, "ddp"},
                    {Strategy::Zero1, "zero1"}, {Strategy::Zero2, "zero2"},
                    {Strategy::Zero3, "zero3"}, {Strategy::Fsdp, "fsdp"})
HEADROOM_ENUM_TABLE(QkNorm, {QkNorm::None, "none"}, {QkNorm::Head, "head"}, {QkNorm::Full, "full"})
HEADROOM_ENUM_TABLE(PipelineSchedule, {PipelineSchedule::OneFOneB, "1f1b"},
                    {PipelineSchedule::Interleaved, "interleaved"}, {PipelineSchedule::GPipe, "gpipe"})
HEADROOM_ENUM_TABLE(WeightScales, {WeightScales::Tensor, "tensor"}, {WeightScales::Block, "block"})
HEADROOM_ENUM_TABLE(QuantizedModules, {QuantizedModules::Linear, "linear"},
                    {QuantizedModules::Experts, "experts"})
HEADROOM_ENUM_TABLE(Fp8Training, {Fp8Training::None, "none"}, {Fp8Training::Torchao, "torchao"},
                    {Fp8Training::TransformerEngine, "transformer_engine"})
HEADROOM_ENUM_TABLE(LoraTarget, {LoraTarget::Q, "q"}, {LoraTarget::K, "k"}, {LoraTarget::V, "v"},
                    {LoraTarget::O, "o"}, {LoraTarget::Gate, "gate"}, {LoraTarget::Up, "up"},
                    {LoraTarget::Down, "down"}, {LoraTarget::LmHead, "lm_head"})

HEADROOM_ENUM_TABLE(LayerKind, {LayerKind::Full, "full_attention"}, {LayerKind::Sliding, "sliding_attention"},
                    {LayerKind::Chunked, "chunked_attention"}, {LayerKind::Mla, "mla"},
                    {LayerKind::GatedDeltaNet, "gated_deltanet"}, {LayerKind::Lightning, "lightning"},
                    {LayerKind::Kda, "kda"}, {LayerKind::Mamba2, "mamba2"}, {LayerKind::Mamba1, "mamba1"},
                    {LayerKind::ShortConv, "short_conv"}, {LayerKind::None, "none"})
HEADROOM_ENUM_TABLE(LayerMlp, {LayerMlp::Dense, "dense"}, {LayerMlp::Moe, "moe"}, {LayerMlp::None, "none"})

#undef HEADROOM_ENUM_TABLE

int dtypeBits(DType dtype)
{
    switch (dtype) {
    case DType::FP32: return 32;
    case DType::BF16:
    case DType::FP16: return 16;
    case DType::FP8:
    case DType::INT8: return 8;
    case DType::NF4:
    case DType::FP4:
    case DType::INT4:
    case DType::MXFP4:
    case DType::NVFP4: return 4;
    case DType::INT3: return 3;
    case DType::INT2: return 2;
    }
    return 32;
}

bool isQuantized(DType dtype) { return dtypeBits(dtype) <= 8; }

Activation defaultActivation(Mlp mlp) { return mlp == Mlp::Gated ? Activation::Silu : Activation::Gelu; }

} // namespace headroom
