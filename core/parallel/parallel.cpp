// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel/parallel.h"

#include "scenario/checked.h"
#include "scenario/scenariojson.h"
#include "scenario/names.h"
#include "scenario/units.h"

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

std::uint64_t u(int value) { return static_cast<std::uint64_t>(value); }

} // namespace

ParallelLayout parallelLayout(const Scenario &s)
{
    ParallelLayout layout;
    layout.gpus = s.parallel.gpus;
    layout.tensor = s.parallel.tensor;
    layout.pipeline = s.parallel.pipeline;
    layout.context = s.parallel.context;
    layout.expert = s.parallel.expert;
    layout.sequenceParallel = s.parallel.sequenceParallel;
    layout.schedule = s.parallel.schedule;
    layout.virtualStages = s.parallel.schedule == PipelineSchedule::Interleaved ? s.parallel.virtualStages : 1;
    layout.dataParallel =
        std::max<std::uint64_t>(1, layout.gpus / (layout.tensor * layout.pipeline * layout.context));
    layout.strategy = s.parallel.strategy;
    layout.shardLevel = shardLevelOf(s.parallel.strategy);
    return layout;
}

std::string tensorSplitProblem(const Scenario &s, std::uint64_t tensor)
{
    const ModelArch &m = s.model;
    if (tensor <= 1 || m.rough)
        return {};
    const auto divides = [&](std::int64_t count) { return count > 0 && std::uint64_t(count) % tensor == 0; };
    const std::string size = std::to_string(tensor);
    if (!divides(m.heads))
        return size + " must divide model.heads (" + std::to_string(m.heads) +
               "): each tensor-parallel rank takes an equal share of the attention heads";
    const std::uint64_t kv = std::uint64_t(std::max(m.kvHeads, 1));
    if (s.task == Task::Train) {
        if (!divides(m.kvHeads))
            return size + " must divide model.kv_heads (" + std::to_string(m.kvHeads) +
                   "): training frameworks split the KV heads evenly (Megatron-LM's query groups)";
    } else if (kv >= tensor ? kv % tensor != 0 : tensor % kv != 0) {
        return size + " and model.kv_heads (" + std::to_string(m.kvHeads) +
               ") must divide one another: the engine splits the KV heads evenly, or copies them "
               "when there are fewer than the ranks";
    }
    if (!divides(m.intermediate))
        return size + " must divide model.intermediate (" + std::to_string(m.intermediate) +
               "): each rank takes an equal share of the MLP";
    if (m.experts > 1 && !divides(m.routedWidth()))
        return size + " must divide the experts' width (" + std::to_string(m.routedWidth()) +
               ", model.expert_intermediate): each rank takes an equal share of every expert";
    return {};
}

void checkParallel(const Scenario &s)
{
    const std::uint64_t modelParallel =
        std::uint64_t(s.parallel.tensor) * s.parallel.pipeline * s.parallel.context;
    if (s.parallel.gpus % modelParallel != 0)
        throw ScenarioError("parallel.gpus", "must be a multiple of tensor x pipeline x context (" +
                                                 std::to_string(modelParallel) + ")");
    if (const std::string problem = tensorSplitProblem(s, s.parallel.tensor); !problem.empty())
        throw ScenarioError("parallel.tensor", problem);
    if (s.parallel.expert > 1) {
        if (s.model.experts <= 1 || s.model.experts % s.parallel.expert != 0)
            throw ScenarioError("parallel.expert", "must divide model.experts (" +
                                                       std::to_string(s.model.experts) + ")");
        const std::uint64_t perStage = s.parallel.gpus / s.parallel.pipeline;
        if (perStage % s.parallel.expert != 0)
            throw ScenarioError("parallel.expert", "must divide the GPUs of a pipeline stage (" +
                                                       std::to_string(perStage) + ")");
    }
    if (s.parallel.virtualStages > 1 && s.parallel.schedule == PipelineSchedule::Interleaved &&
        std::uint64_t(s.parallel.pipeline) * s.parallel.virtualStages > std::uint64_t(s.model.layers))
        throw ScenarioError("parallel.virtual_stages", "pipeline x virtual_stages must be at most "
                                                       "model.layers (" + std::to_string(s.model.layers) + ")");
    if (s.parallel.pipeline > static_cast<std::uint32_t>(s.model.layers))
        throw ScenarioError("parallel.pipeline", "must be at most model.layers (" +
                                                     std::to_string(s.model.layers) + ")");
    if (s.parallel.offloadParams && s.parallel.strategy != Strategy::Zero3 &&
        s.parallel.strategy != Strategy::Fsdp)
        throw ScenarioError("parallel.offload_params", "needs parallel.strategy zero3 or fsdp");
}

std::uint64_t ParallelLayout::expertShardGroup() const
{
    return std::max<std::uint64_t>(1, shardGroup() / expert);
}

bool ParallelLayout::shards(ShardLevel what) const
{
    return shardGroup() > 1 && static_cast<int>(shardLevel) >= static_cast<int>(what);
}

std::uint64_t ParallelLayout::layersPerStage(std::uint64_t layers) const { return ceilDiv(layers, pipeline); }

std::uint64_t ParallelLayout::microBatchesInFlight(std::uint64_t gradAccum) const
{
    return pipeline > 1 ? std::min<std::uint64_t>(pipeline, gradAccum) : 1;
}

std::uint64_t ParallelLayout::perRank(std::uint64_t bytes, bool sharded) const
{
    return ceilDiv(ceilDiv(bytes, modelSplit()), sharded ? shardGroup() : 1);
}

std::string ParallelLayout::shardNote(bool sharded) const
{
    if (!sharded)
        return {};
    return " / " + groupDigits(shardGroup()) + " GPUs (" + enumName(strategy) +
           (context > 1 ? ", data x context" : "") + ")";
}

std::string ParallelLayout::note(bool sharded) const
{
    std::string text;
    if (tensor > 1 || pipeline > 1)
        text += " / " + groupDigits(modelSplit()) + " (tensor x pipeline)";
    return text + shardNote(sharded);
}

std::string ParallelLayout::describe() const
{
    std::string text = groupDigits(gpus) + (gpus == 1 ? " GPU" : " GPUs");
    std::vector<std::string> parts;
    if (tensor > 1)
        parts.push_back("tensor " + groupDigits(tensor) + (sequenceParallel ? " (sequence parallel)" : ""));
    if (pipeline > 1)
        parts.push_back("pipeline " + groupDigits(pipeline) + " (" + enumName(schedule) + ")");
    if (context > 1)
        parts.push_back("context " + groupDigits(context));
    if (dataParallel > 1)
        parts.push_back("data " + groupDigits(dataParallel));
    if (expert > 1)
        parts.push_back("expert " + groupDigits(expert));
    for (std::size_t i = 0; i < parts.size(); ++i)
        text += (i ? " x " : ": ") + parts[i];
    return text;
}

std::vector<RankRole> ParallelLayout::roles() const
{
    if (pipeline > 1)
        return {RankRole::FirstStage, RankRole::LastStage};
    return {RankRole::Only};
}

const char *rankRoleName(RankRole role)
{
    switch (role) {
    case RankRole::Only: return "every GPU";
    case RankRole::FirstStage: return "first pipeline stage";
    case RankRole::LastStage: return "last pipeline stage";
    }
    return "?";
}

RankShare rankShare(const Scenario &s, const ParallelLayout &layout, RankRole role)
{
    RankShare share;
    share.role = role;
    share.layers = layout.layersPerStage(u(s.model.layers));
    share.embeddings = role != RankRole::LastStage;
    share.lmHead = role != RankRole::FirstStage;
    const std::uint64_t p = layout.pipeline;
    const std::uint64_t microBatches = s.train.gradAccum;
    if (s.task == Task::Train && p > 1) {
        switch (layout.schedule) {
        case PipelineSchedule::OneFOneB:
            // Stage k of p starts p - k micro-batches before its first backward.
            share.inFlightNumerator = role == RankRole::FirstStage ? std::min(p, microBatches) : 1;
            break;
        case PipelineSchedule::Interleaved: {
            // Narayanan et al. 2021 / Korthikanti et al. 2022: the first stage holds
            // p x (1 + (p - 1) / (p v)) micro-batches' worth of its layers.
            const std::uint64_t v = layout.virtualStages;
            if (role == RankRole::FirstStage) {
                share.inFlightNumerator = std::min(p, microBatches) * (p * v + p - 1);
                share.inFlightDenominator = p * v;
            }
            break;
        }
        case PipelineSchedule::GPipe:
            // Every micro-batch's forward runs before the first backward, on every stage.
            share.inFlightNumerator = microBatches;
            break;
        }
    }
    const std::uint64_t sequence = s.task == Task::Train ? s.train.seqLen : s.inference.context;
    // A preference pair is two sequences (chosen and rejected) in one batch.
    const std::uint64_t pairs = s.task == Task::Train ? s.train.sequencesPerSample() : 1;
    const std::uint64_t batch = s.task == Task::Train ? std::uint64_t(s.train.microBatch) * pairs : s.inference.batch;
    share.tokens = batch * ceilDiv(sequence, layout.context);
    return share;
}

ParamCounts rankParams(const ParamCounts &model, const ModelArch &arch, const ParallelLayout &layout,
                       const RankShare &share)
{
    const char *what = "parameter count";
    ParamCounts rank = model;
    const std::uint64_t layers = u(arch.layers);
    const std::uint64_t t = layout.tensor;
    const std::uint64_t e = layout.expert;
    if (layout.modelSplit() == 1 && e == 1)
        return rank;
    // The blocks of this stage: a share of every block quantity.
    const auto stage = [&](std::uint64_t part) { return ceilDiv(mulChecked(part, share.layers, what), layers); };
    const std::uint64_t normSize = arch.rough ? 0 : (arch.norm == Norm::LayerNorm ? 2 : 1) * u(arch.hidden);
    const std::uint64_t finalNorm = std::min(normSize, model.smallTensors);
    const std::uint64_t routed = model.routedExpertLinear;
    const std::uint64_t otherLinear = model.blockLinear - std::min(routed, model.blockLinear);
    rank.routedExpertLinear = ceilDiv(stage(routed), t * e);
    rank.expertLinear = rank.routedExpertLinear + ceilDiv(stage(model.expertLinear - routed), t);
    rank.attentionLinear = ceilDiv(stage(model.attentionLinear), t);
    rank.blockLinear = ceilDiv(stage(otherLinear), t) + rank.routedExpertLinear;
    // Norm weights are replicated across tensor-parallel ranks; biases and routers are small.
    rank.smallTensors = stage(model.smallTensors - finalNorm) + (share.lmHead ? finalNorm : 0);
    rank.embeddings = share.embeddings ? ceilDiv(model.embeddings, t) : 0;
    // A tied lm_head is a copy of the embeddings on the last stage when the stages differ.
    const std::uint64_t head = model.lmHead ? model.lmHead
                                            : (layout.pipeline > 1 ? u(arch.vocab) * u(arch.hidden) : 0);
    rank.lmHead = share.lmHead ? ceilDiv(head, t) : 0;
    if (share.role == RankRole::Only)
        rank.lmHead = ceilDiv(model.lmHead, t);
    rank.perLayer = ceilDiv(model.perLayer, t);
    rank.largestMatrix = ceilDiv(model.largestMatrix, t);
    rank.total = rank.blockLinear + rank.smallTensors + rank.embeddings + rank.lmHead;
    rank.derived = rank.total;
    const std::uint64_t unrouted = model.total - std::min(model.active, model.total);
    rank.active = rank.total - std::min(ceilDiv(stage(unrouted), t * e), rank.total);
    return rank;
}

} // namespace headroom
