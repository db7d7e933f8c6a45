// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/llamacppcompute.h"

#include "scenario/checked.h"

#include <algorithm>

namespace headroom {

namespace {

/// ggml-cuda.cu get_op_batch_size / offload_op: a matmul of at least 32 rows of tokens
/// (op_offload_min_batch_size, GGML_OP_OFFLOAD_MIN_BATCH's default).
constexpr std::uint64_t kOffloadMinBatch = 32;

std::uint64_t sum(std::uint64_t a, std::uint64_t b) { return addChecked(a, b, "compute buffer"); }

} // namespace

LlamaComputeBuffers llamaComputeBuffers(const LlamaGraphActivations &a, const LlamaHostOperands &host,
                                        const std::vector<bool> &holdsLayers, int outputDevice,
                                        std::uint64_t tokens, bool opOffload, std::uint64_t maskBytes,
                                        std::uint64_t inputBytes)
{
    LlamaComputeBuffers out;
    const std::uint64_t block = std::max(a.attention, a.ffn);
    out.devices.assign(holdsLayers.size(), 0);
    // A device's own layers: the largest intermediate plus the residual stream, the logits on
    // the output layer's device.
    for (std::size_t d = 0; d < holdsLayers.size(); ++d)
        if (holdsLayers[d] || int(d) == outputDevice)
            out.devices[d] = sum(std::max(block, int(d) == outputDevice ? a.logits : 0), a.residual);
    out.opOffloaded = opOffload && tokens >= kOffloadMinBatch && host.any() && !out.devices.empty();
    if (out.opOffloaded) {
        // ggml_backend_sched: each host weight's op goes to device 0 and the weight is copied in
        // as a split input, freed after its op, so one copy at a time sits on that op's own
        // activations; the attention of a layer cached in host memory copies its K and V.
        std::uint64_t &first = out.devices[0];
        const std::uint64_t own = std::max(first, sum(block, a.residual));
        first = own;
        const std::uint64_t blockCopy = std::max(host.blockWeightBytes, host.layerKvBytes);
        if (blockCopy && sum(sum(block, a.residual), blockCopy) > first) {
            first = sum(sum(block, a.residual), blockCopy);
            out.copy = host.blockWeightBytes >= host.layerKvBytes ? LlamaComputeCopy::BlockWeight
                                                                  : LlamaComputeCopy::LayerKv;
            out.copyBytes = blockCopy;
        }
        if (host.outputWeightBytes) {
            const std::uint64_t output = sum(sum(a.logits, a.normedHidden), host.outputWeightBytes);
            if (output > first) {
                first = output;
                out.copy = LlamaComputeCopy::OutputWeight;
                out.copyBytes = host.outputWeightBytes;
            }
        }
    } else {
        // The CPU runs its own weights' ops: their activations are in its buffer.
        const std::uint64_t work = std::max(host.blockWeightBytes ? block : 0, host.outputWeightBytes ? a.logits : 0);
        out.cpuActivationBytes = work ? sum(work, a.residual) : 0;
    }
    out.maskBytes = maskBytes;
    out.inputBytes = inputBytes;
    out.hostBytes = sum(sum(maskBytes, inputBytes), out.cpuActivationBytes);
    return out;
}

} // namespace headroom
