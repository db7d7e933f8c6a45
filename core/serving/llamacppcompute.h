// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// llama.cpp's compute buffers (docs/serving.md, "Compute buffers"): the scheduler
// (ggml/src/ggml-backend.cpp ggml_backend_sched_backend_id_from_cur) moves every op whose weight
// is in host memory to the first GPU when that GPU wants it (ggml-cuda.cu offload_op: a batch of
// 32 or more tokens), and the weight is copied into that GPU's compute buffer for the op; the
// CPU backend's own buffer (pinned, "CUDA_Host compute buffer") holds the graph's inputs.

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// The worst-case graph's f32 intermediates as the estimate sizes them, in bytes.
struct LlamaGraphActivations
{
    std::uint64_t attention = 0;    ///< flash attention's Q/K/V, or the KQ matrix
    std::uint64_t ffn = 0;          ///< the widest feed-forward
    std::uint64_t logits = 0;       ///< n_ubatch x vocabulary x 4
    std::uint64_t residual = 0;     ///< the residual stream
    std::uint64_t normedHidden = 0; ///< n_ubatch x hidden x 4: the output matmul's input
};

/// What the graph reads from host memory that a GPU would copy to run it.
struct LlamaHostOperands
{
    std::uint64_t blockWeightBytes = 0; ///< the largest block matmul weight in host memory
    std::string blockWeight;            ///< its name ("blk.0.ffn_down_exps.weight")
    std::uint64_t outputWeightBytes = 0; ///< the output matmul's weight when in host memory
    std::string outputWeight;           ///< "output.weight" (token_embd.weight when tied)
    std::uint64_t layerKvBytes = 0;     ///< K and V of one layer whose cache is in host memory
    bool any() const { return blockWeightBytes || outputWeightBytes || layerKvBytes; }
};

/// What made the first GPU's buffer larger than its own layers' activations.
enum class LlamaComputeCopy { None, BlockWeight, LayerKv, OutputWeight };

/// The compute buffer of each device and of the CPU backend.
struct LlamaComputeBuffers
{
    std::vector<std::uint64_t> devices;
    bool opOffloaded = false; ///< the first GPU runs the host weights' ops (and copies them)
    LlamaComputeCopy copy = LlamaComputeCopy::None;
    std::uint64_t copyBytes = 0;   ///< the operand copied at the first GPU's peak
    std::uint64_t maskBytes = 0;   ///< the CPU buffer: the KQ mask
    std::uint64_t inputBytes = 0;  ///< the CPU buffer: the token embeddings and a split copy
    std::uint64_t cpuActivationBytes = 0; ///< the CPU buffer: its own layers' work (no op offload)
    std::uint64_t hostBytes = 0;   ///< the CPU buffer: the sum
};

/// The buffers for `a`, the devices that hold layers (`holdsLayers`) and the output layer's
/// device (`outputDevice`, -1: the CPU). With `opOffload` and `tokens` = min(n_ctx, n_ubatch) at
/// least 32, a host operand puts the CPU's work on device 0: its buffer is the largest of its own
/// activations, the block activations plus the largest block weight or layer cache copied, and
/// the logits plus the output weight copied. `maskBytes` and `inputBytes` are the CPU buffer's.
LlamaComputeBuffers llamaComputeBuffers(const LlamaGraphActivations &a, const LlamaHostOperands &host,
                                        const std::vector<bool> &holdsLayers, int outputDevice,
                                        std::uint64_t tokens, bool opOffload, std::uint64_t maskBytes,
                                        std::uint64_t inputBytes);

} // namespace headroom
