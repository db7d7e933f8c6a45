// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel.h"

#include "checked.h"
#include "names.h"
#include "units.h"

#include <algorithm>

namespace headroom {

namespace {

ShardLevel shardLevelOf(Strategy strategy)
{
    switch (strategy) {
    case Strategy::Zero1: return ShardLevel::OptimizerState;
    case Strategy::Zero2: return ShardLevel::Gradients;
    case Strategy::Zero3:
    case Strategy::Fsdp: return ShardLevel::Parameters;
    case Strategy::None:
    case Strategy::Ddp: break;
    }
    return ShardLevel::None;
}

} // namespace

ParallelLayout parallelLayout(const Scenario &s)
{
    ParallelLayout layout;
    layout.gpus = s.parallel.gpus;
    layout.tensor = s.parallel.tensor;
    layout.pipeline = s.parallel.pipeline;
    layout.dataParallel = std::max<std::uint64_t>(1, layout.gpus / (layout.tensor * layout.pipeline));
    layout.strategy = s.parallel.strategy;
    layout.shardLevel = shardLevelOf(s.parallel.strategy);
    return layout;
}

bool ParallelLayout::shards(ShardLevel what) const
{
    return dataParallel > 1 && static_cast<int>(shardLevel) >= static_cast<int>(what);
}

std::uint64_t ParallelLayout::layersPerStage(std::uint64_t layers) const { return ceilDiv(layers, pipeline); }

std::uint64_t ParallelLayout::microBatchesInFlight(std::uint64_t gradAccum) const
{
    return pipeline > 1 ? std::min<std::uint64_t>(pipeline, gradAccum) : 1;
}

std::uint64_t ParallelLayout::perRank(std::uint64_t bytes, bool sharded) const
{
    return ceilDiv(ceilDiv(bytes, modelSplit()), sharded ? dataParallel : 1);
}

std::string ParallelLayout::note(bool sharded) const
{
    std::string text;
    if (tensor > 1 || pipeline > 1)
        text += " / " + groupDigits(modelSplit()) + " (tensor x pipeline)";
    if (sharded)
        text += " / " + groupDigits(dataParallel) + " GPUs (" + enumName(strategy) + ")";
    return text;
}

} // namespace headroom
