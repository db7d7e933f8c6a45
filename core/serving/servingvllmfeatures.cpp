// SPDX-License-Identifier: GPL-3.0-or-later
// vLLM features users turn on that move the weights line (docs/serving.md): LoRA slots
// (vllm/lora/layers/base_linear.py BaseLinearLayerWithLoRA.create_lora_weights, allocated by
// LoRAModelManager when the model loads) and --cpu-offload-gb
// (vllm/model_executor/models/utils.py maybe_offload_to_cpu).
#include "serving/servingengines.h"

#include "scenario/checked.h"
#include "scenario/units.h"

#include <algorithm>

namespace headroom::detail {

namespace {
constexpr std::uint64_t kGiB = 1ull << 30;
}

std::uint64_t vllmLoraSlotElements(const ModelArch &m, std::uint64_t rank, std::uint64_t tensor)
{
    // Per layer and slot, on one tensor-parallel rank (fully_sharded_loras off):
    //   column-parallel (qkv_proj: 3 slices, gate_up_proj: 2): A [rank, hidden] per slice,
    //     B [slice out / tp, rank];
    //   row-parallel (o_proj, down_proj): A [rank, in / tp], B [hidden, rank].
    const std::uint64_t h = std::uint64_t(std::max(1, m.hidden));
    const std::uint64_t q = std::uint64_t(std::max(1, m.heads)) * std::uint64_t(std::max(1, m.headDim));
    const std::uint64_t kv = std::uint64_t(std::max(1, m.kvHeads)) * std::uint64_t(std::max(1, m.headDim));
    const std::uint64_t inter = std::uint64_t(std::max(1, m.intermediate));
    const std::uint64_t tp = std::max<std::uint64_t>(1, tensor);
    const std::uint64_t columnA = 3 * h + 2 * h;          // qkv's 3 slices, gate_up's 2, on the full input
    const std::uint64_t columnB = (q + 2 * kv) / tp + 2 * inter / tp;
    const std::uint64_t rowA = q / tp + inter / tp;
    const std::uint64_t rowB = 2 * h;                     // o_proj and down_proj write the hidden size
    return mulChecked(rank, columnA + columnB + rowA + rowB, "LoRA slots");
}

Term vllmLoraTerm(const EstimateContext &c, std::uint64_t &hostBytes)
{
    const ServingConfig &cfg = *c.s.serving;
    Term t;
    if (!cfg.enableLora)
        return t;
    const ModelArch &m = c.m;
    const std::uint64_t pipeline = std::max<std::uint64_t>(1, c.s.parallel.pipeline);
    const std::uint64_t layers = ceilDiv(std::uint64_t(std::max(1, m.layers)), pipeline);
    const std::uint64_t elements =
        mulChecked(vllmLoraSlotElements(m, cfg.maxLoraRank, c.s.parallel.tensor), layers, "LoRA slots");
    const std::uint64_t perSlot = mulChecked(elements, c.compute, "LoRA slots"); // lora_dtype auto: the model dtype
    t.bytes = mulChecked(perSlot, cfg.maxLoras, "LoRA slots");
    // The CPU cache holds max_cpu_loras adapters (default max_loras), each at most max_lora_rank.
    const std::uint64_t cpuLoras = std::max(cfg.maxCpuLoras, cfg.maxLoras);
    hostBytes = addChecked(hostBytes, mulChecked(perSlot, cpuLoras, "LoRA adapters"), "host memory");
    if (c.formulas) {
        t.expression = n(cfg.maxLoras) + " LoRA slots (max_loras) x " + n(elements) + " values (max_lora_rank " +
                       n(cfg.maxLoraRank) + ", qkv/o/gate_up/down A and B of " +
                       n(layers) + " layers) x " + n(c.compute) + " B";
        t.notes.push_back("vLLM allocates every slot at max_lora_rank when the model loads: \"Model loading "
                          "took\" includes them. The CPU cache holds up to " + n(cpuLoras) +
                          " adapters (max_cpu_loras) in host RAM.");
    }
    return t;
}

std::uint64_t vllmCpuOffloadBytes(const EstimateContext &c, std::uint64_t weightsBytes)
{
    const ServingConfig &cfg = *c.s.serving;
    if (cfg.cpuOffloadGb <= 0)
        return 0;
    // maybe_offload_to_cpu moves whole modules' parameters while fewer than cpu_offload_gb GiB
    // are offloaded: the last module may overshoot (one layer's largest matrix at most).
    const std::uint64_t wanted = roundedBytes(cfg.cpuOffloadGb * double(kGiB), "CPU offload");
    return std::min(wanted, weightsBytes);
}

} // namespace headroom::detail
