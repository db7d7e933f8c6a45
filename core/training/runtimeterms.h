// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: buffers that exist because the run is running (library
// workspaces, gathered shards, dequantised copies) and the KV cache of inference.

#include "estimate/estimatecontext.h"

namespace headroom {
struct KvLayout;
}

namespace headroom::detail {

/// When the workspace is looked at: backward adds a layer's gradient before its
/// reduce-scatter, the optimizer step its temporaries.
enum class WorkspacePhase { Forward, Backward, Optimizer };

/// cuBLAS/cuDNN workspace, a dequantised matrix, ZeRO-3/FSDP's gathered layers, and what the
/// phase adds.
Term workspaceTerm(const EstimateContext &c, WorkspacePhase phase);
/// The KV cache for every concurrent sequence's whole context (the plain inference model's
/// layout, or the one given: an engine's).
Term kvCacheTerm(const EstimateContext &c, const KvLayout *layout = nullptr);

} // namespace headroom::detail
