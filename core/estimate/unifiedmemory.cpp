// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/unifiedmemory.h"

#include "parallel/host.h"

#include <algorithm>
#include <cmath>

namespace headroom {

std::uint64_t gpuVisibleBytes(const Scenario &s, const Gpu &gpu)
{
    if (gpu.unified && s.host.wiredLimitMiB > 0)
        return std::uint64_t(s.host.wiredLimitMiB) << 20;
    return gpu.capacityBytes();
}

std::optional<UnifiedPool> unifiedPool(const Scenario &s, const Estimate &e, const Catalog &catalog)
{
    const Gpu *gpu = s.gpus.empty() ? nullptr : catalog.findGpu(s.gpus.front());
    if (!gpu || !gpu->unified)
        return std::nullopt;
    UnifiedPool pool;
    pool.gpuId = gpu->id;
    // The machine's RAM: host.ram_gib (or the catalog machine's), else the size in the name.
    const double ramGiB = effectiveHost(s, catalog).ramGiB;
    pool.totalBytes = std::uint64_t(std::llround((ramGiB > 0 ? ramGiB : gpu->marketingGb) * 1073741824.0));
    pool.wiredLimit = s.host.wiredLimitMiB > 0;
    pool.gpuLimitBytes = std::min(gpuVisibleBytes(s, *gpu), pool.totalBytes);
    pool.osBytes = pool.totalBytes - pool.gpuLimitBytes;
    pool.gpuBytes = e.peak.deviceBytes;
    pool.hostBytes = e.hostBytes;
    // llama.cpp with mmap: on Metal the GPU's buffers are the mapping itself (the backend makes
    // buffers from host pointers), so the weights are counted once, in the GPU's share; a CUDA
    // device copies them, and the file's pages stay in the page cache besides (reclaimable).
    if (e.serving && e.serving->engine == Engine::LlamaCpp) {
        const LlamaHostWeights &h = e.serving->hostLoad;
        const bool mapped = h.mode == LlamaLoadMode::Mmap || h.mode == LlamaLoadMode::MmapMlock;
        pool.zeroCopy = mapped && gpu->vendor == "apple";
        if (mapped && !pool.zeroCopy)
            pool.pageCacheBytes = h.loadPageCacheBytes > h.cpuBytes ? h.loadPageCacheBytes - h.cpuBytes : 0;
    }
    pool.poolBytes = pool.gpuBytes + pool.hostBytes;
    pool.fits = pool.gpuBytes <= pool.gpuLimitBytes && pool.poolBytes <= pool.totalBytes;
    return pool;
}

void applyUnifiedPool(const Scenario &s, Estimate &e, const Catalog &catalog)
{
    e.unified = unifiedPool(s, e, catalog);
    if (!e.unified)
        return;
    const UnifiedPool &pool = *e.unified;
    for (GpuFit &fit : e.gpus)
        if (fit.id == pool.gpuId) {
            const std::int64_t left = std::int64_t(pool.totalBytes) - std::int64_t(pool.poolBytes);
            fit.headroomBytes = std::min(fit.headroomBytes, left);
            fit.fits = fit.fits && pool.fits;
        }
}

} // namespace headroom
