// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the estimator: buffers that exist because the run is running (library
// workspaces, gathered shards, dequantised copies) and the KV cache of inference.

#include "estimatecontext.h"

namespace headroom::detail {

/// cuBLAS/cuDNN workspace, a dequantised matrix, ZeRO-3/FSDP's gathered layers and, when
/// `withOptimizerTemporaries`, the optimizer step's temporaries.
Term workspaceTerm(const EstimateContext &c, bool withOptimizerTemporaries);
/// The KV cache for every concurrent sequence's whole context.
Term kvCacheTerm(const EstimateContext &c);

} // namespace headroom::detail
