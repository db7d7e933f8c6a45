// SPDX-License-Identifier: GPL-3.0-or-later
// Phase assembly: which consumers are alive at the busiest moment of each phase, the peak,
// and the fit against each GPU. The consumers themselves are computed in modelstate.cpp,
// activationterms.cpp and runtimeterms.cpp; the parallelism algebra is in parallel.cpp.
#include "estimate/unifiedmemory.h"
#include "estimate/estimate.h"

#include "training/activations.h"
#include "training/activationterms.h"
#include "scenario/checked.h"
#include "parallel/communication.h"
#include "accuracy/errorband.h"
#include "estimate/estimatecontext.h"
#include "parallel/host.h"
#include "training/modelstate.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "scenario/units.h"
#include "training/overhead.h"
#include "training/rollout.h"
#include "training/posttraining.h"
#include "training/runtimeterms.h"
#include "serving/servingengines.h"

#include <algorithm>
#include <climits>
#include <optional>

namespace headroom {

namespace {

/// With tuple caches (inference.kv_cache concat), how many halves of one K-and-V cache the
/// prefill's cache really holds, from the modeling code of the model's catalog family: GPT-NeoX
/// caches a fresh K (rotary torch.cat) and V as a permuted view of the fused query_key_value
/// output (K + q/k/v = 4 halves); GPT-2 caches K and V as views of the c_attn output, split
/// and permuted without a copy (q/k/v = 3 halves); everything else 2.
std::uint64_t prefillCacheHalves(const Scenario &s)
{
    if (s.model.preset.empty())
        return 2;
    const ModelPreset *preset = builtinCatalog().findModel(s.model.preset);
    if (preset && preset->family == "gpt_neox")
        return 4;
    if (preset && preset->family == "gpt2")
        return 3;
    return 2;
}

using namespace detail;

class Estimator
{
public:
    Estimator(const Scenario &scenario, Detail detail, const Catalog &catalog, RankRole role)
        : c(scenario, detail, catalog, role), s(scenario), m(scenario.model), formulas(c.formulas)
    {
    }

    Estimate run();

private:
    void trainingPhases(Estimate &e);
    void inferencePhases(Estimate &e);
    void enginePhases(Estimate &e);
    Phase finishPhase(PhaseId id, const Composition &parts);

    const EstimateContext c;
    const Scenario &s;
    const ModelArch &m;
    const bool formulas;
    /// The composition of the first phase with the most allocated bytes (the peak's): kept as
    /// the phases are finished, not every phase's, so the bytes-only path copies little.
    Composition peakParts;
    std::optional<Phase> peakPhase;
    Composition host; ///< what lives in CPU RAM, by consumer
    /// Moves a term to CPU RAM (it stays in the formula, at 0 bytes on the GPU).
    void offload(Term &term, ConsumerId id, const char *note);
    /// GRPO: the generation's terms (the colocated engine, or generate() in the trainer).
    RolloutTerms rollout;
    std::uint64_t loadBytes = 0; ///< the trainer's allocated bytes once loaded (vLLM starts after)
    /// GRPO: the generation round, while the trainer holds its weights and optimizer state.
    void rolloutPhase(Estimate &e, const Composition &load, const Term &state);
};

void Estimator::offload(Term &term, ConsumerId id, const char *note)
{
    Term &kept = at(host, id);
    kept.bytes = addChecked(kept.bytes, term.bytes, "host memory");
    if (formulas) {
        kept.expression = kept.expression.empty() ? term.expression : kept.expression + " + " + term.expression;
        term.notes.push_back(note);
    }
    term.bytes = 0;
}

Phase Estimator::finishPhase(PhaseId id, const Composition &parts)
{
    Phase phase;
    phase.id = id;
    for (int i = 0; i < kConsumerCount; ++i) {
        phase.bytes[static_cast<std::size_t>(i)] = parts[static_cast<std::size_t>(i)].bytes;
        phase.allocatedBytes = addChecked(phase.allocatedBytes,
                                          parts[static_cast<std::size_t>(i)].bytes, "peak");
    }
    if (!peakPhase || phase.allocatedBytes > peakPhase->allocatedBytes) {
        peakPhase = phase;
        peakParts = parts;
    }
    return phase;
}

void Estimator::trainingPhases(Estimate &e)
{
    using C = ConsumerId;
    auto at = [](Composition &c, C id) -> Term & { return c[static_cast<std::size_t>(id)]; };

    checkPostTraining(s);
    Composition load;
    at(load, C::Weights) = weightsTerm(c);
    if (const Term extra = postTrainingWeights(c); extra.bytes)
        at(load, C::Weights) = combine(at(load, C::Weights), extra, formulas);
    at(load, C::QuantMetadata) = quantMetadataTerm(c);
    at(load, C::MasterWeights) = masterWeightsTerm(c);
    Term state = optimizerStateTerm(c);
    if (s.parallel.offloadOptimizer) {
        offload(state, C::OptimizerState, "Offloaded to CPU RAM (ZeRO-Offload): not on the GPU.");
        offload(at(load, C::MasterWeights), C::MasterWeights, "Offloaded to CPU RAM with the optimizer.");
    }
    if (s.parallel.offloadParams)
        offload(at(load, C::Weights), C::Weights, "Offloaded to CPU RAM: gathered layer by layer.");
    const bool paged =
        s.train.optimizer == Optimizer::PagedAdamW || s.train.optimizer == Optimizer::PagedAdamW8bit;
    if (paged && state.bytes && c.trainable.count) {
        // Paged state lives in CUDA managed memory (cudaMallocManaged), outside PyTorch's
        // caching allocator: max_memory_allocated/reserved never see it, and the driver moves
        // it to CPU RAM when the GPU is full. Counted as host memory.
        const std::uint64_t pagedBytes = roundedBytes(
            static_cast<double>(state.bytes) * static_cast<double>(c.trainable.paged) /
                static_cast<double>(c.trainable.count),
            "optimizer state");
        state.bytes -= std::min(pagedBytes, state.bytes);
        Term &paged = at(host, C::OptimizerState);
        paged.bytes = addChecked(paged.bytes, pagedBytes, "host memory");
        if (formulas)
            paged.expression += (paged.expression.empty() ? "" : " + ") + formatBytes(pagedBytes, Unit::GiB) +
                                " paged optimizer state (CUDA managed memory)";
        if (formulas)
            state.notes.push_back("Paged optimizer: the state of tensors of 100,000 elements or more (" +
                                  formatBytes(pagedBytes, Unit::GB) +
                                  ") is CUDA managed memory outside PyTorch's allocator, not in "
                                  "max_memory_allocated(); counted under CPU RAM.");
    }
    rollout = rolloutTerms(c);
    loadBytes = 0;
    for (const Term &term : load)
        loadBytes = addChecked(loadBytes, term.bytes, "peak");
    at(load, C::GenerationEngine) = rollout.duringTraining;
    e.phases.push_back(finishPhase(PhaseId::Load, load));

    ActivationTerms act = activationTerms(c);
    if (s.train.objective == Objective::Ppo) {
        // PolicyAndValueWrapper.forward runs the critic backbone and the policy on the same
        // micro-batch before one backward: two models' saved activations of the same shape.
        act.saved = combine(act.saved, act.saved, formulas);
        act.savedScores = combine(act.savedScores, act.savedScores, formulas);
        if (formulas)
            act.saved.notes.push_back("PPO: the value model's backbone saves as much as the policy's "
                                      "(both run forward before the one backward).");
    }
    if (act.hostBytes) {
        // Offloaded activations sit in pinned CPU memory: listed with the other host consumers.
        Term &pinned = at(host, C::Activations);
        pinned.bytes = addChecked(pinned.bytes, act.hostBytes, "host memory");
        if (formulas)
            pinned.expression = formatBytes(act.hostBytes, Unit::GB) + " saved activations (offloaded)";
    }
    const bool accumulating = s.train.gradAccum > 1;
    const bool inBackward = s.train.optimizerInBackward;
    Term fullGrads = gradientsTerm(c, GradientsAlive::All);
    if (s.parallel.offloadOptimizer && c.parallel.shards(ShardLevel::Gradients) && !inBackward && fullGrads.bytes) {
        // ZeRO-Offload and FSDP's CPU offload copy each reduced gradient shard to CPU RAM for the
        // CPU optimizer step; the GPU holds the gradients of the layer being reduced.
        Term &hostGrads = at(host, C::Gradients);
        hostGrads.bytes = addChecked(hostGrads.bytes, fullGrads.bytes, "host memory");
        if (formulas)
            hostGrads.expression = fullGrads.expression;
        const std::uint64_t layers = std::max<std::uint64_t>(1, c.share.layers);
        const std::uint64_t perLayer = ceilDiv(c.trainable.count, layers);
        Term layer;
        layer.bytes = mulChecked(perLayer, byteSize(c.trainable.gradDType), "gradients");
        if (formulas) {
            layer.expression = n(perLayer) + " trainable params of one layer x " + perValue(c.trainable.gradDType) +
                               " (before its reduce-scatter)";
            layer.notes.push_back("Offloaded optimizer: the sharded gradients (" +
                                  formatBytes(fullGrads.bytes, Unit::GB) +
                                  ") are copied to CPU RAM as they are reduced.");
        }
        fullGrads = layer;
    }
    const Term logitTerm = logitsTerm(c);
    const Term work = workspaceTerm(c, WorkspacePhase::Forward);

    Composition base = load;
    at(base, C::OptimizerState) = state;
    at(base, C::Workspace) = work;

    // Autocast weight copies: trainable ones stay cached through the forward even when the
    // blocks are checkpointed; every copy is alive when backward starts without checkpointing.
    const Term casts = autocastCopiesTerm(c);
    const bool checkpointed = s.train.checkpointing == Checkpointing::Full ||
                              s.train.checkpointing == Checkpointing::SelectiveOp;
    const bool castsInForward = !checkpointed || s.train.method == Method::Full;
    Composition forward = base;
    if (castsInForward)
        at(forward, C::Weights) = combine(at(base, C::Weights), casts, formulas);
    if (accumulating && !inBackward)
        at(forward, C::Gradients) = fullGrads;
    at(forward, C::Activations) = act.saved;
    at(forward, C::AttentionScores) = act.savedScores;
    at(forward, C::Logits) = logitTerm;
    e.phases.push_back(finishPhase(PhaseId::Forward, forward));

    // Backward runs the loss first, then the lm_head, then the blocks from the last one. At the
    // loss everything saved is alive with the loss's backward buffers; the last block is
    // recomputed (checkpointing) or brought back (offloading) only after those are freed; at the
    // end the gradients are complete and one layer's activations remain. The phase is the
    // busiest of the three moments.
    Composition start = forward;
    if (!accumulating || inBackward)
        at(start, C::Gradients) =
            gradientsTerm(c, inBackward ? GradientsAlive::LargestTensor : GradientsAlive::FirstOnly);
    at(start, C::Activations) = act.saved;
    at(start, C::Logits) = lossBackwardTerm(c, logitTerm);
    if (checkpointed)
        at(start, C::Weights) = at(base, C::Weights);
    const Term backwardWork = workspaceTerm(c, WorkspacePhase::Backward);
    at(start, C::Workspace) = backwardWork;
    Composition block = start;
    at(block, C::Logits) = Term{};
    at(block, C::Activations) = combine(act.saved, act.recomputeLayer, formulas);
    if (s.train.checkpointing != Checkpointing::None)
        at(block, C::AttentionScores) = act.transientScores;
    Composition end = base;
    at(end, C::Workspace) = backwardWork;
    at(end, C::Gradients) = inBackward ? gradientsTerm(c, GradientsAlive::LargestTensor) : fullGrads;
    Term lastLayer = act.recomputeLayer;
    if (lastLayer.bytes == 0) {
        // Without checkpointing the last block's saved tensors are the last to go.
        const std::uint64_t layers = c.share.layers;
        lastLayer.bytes = act.saved.bytes / std::max<std::uint64_t>(1, layers);
        if (formulas)
            lastLayer.expression = "the last block's saved tensors: " + act.saved.expression +
                                   " / " + n(layers) + " layers";
    }
    at(end, C::Activations) = lastLayer;
    // The block being finished keeps its attention scores too (recomputed or saved).
    at(end, C::AttentionScores) = act.transientScores;
    auto total = [](const Composition &parts) {
        std::uint64_t sum = 0;
        for (const Term &term : parts)
            sum += term.bytes;
        return sum;
    };
    const Composition *busiest = &start;
    for (const Composition *moment : {&block, &end})
        if (total(*moment) > total(*busiest))
            busiest = moment;
    e.phases.push_back(finishPhase(PhaseId::Backward, *busiest));

    Composition step = std::move(base);
    if (!inBackward)
        at(step, C::Gradients) = c.parallel.stageStaysGathered() && !s.parallel.offloadOptimizer
                                     ? gradientsTerm(c, GradientsAlive::Reduced)
                                     : fullGrads;
    at(step, C::Workspace) = workspaceTerm(c, inBackward ? WorkspacePhase::Forward : WorkspacePhase::Optimizer);
    e.phases.push_back(finishPhase(PhaseId::Optimizer, step));
    if (s.train.objective == Objective::Grpo && s.train.grpo.rollout != Rollout::VllmServer)
        rolloutPhase(e, load, state);
    if (s.train.objective == Objective::Ppo) {
        // The rollout, without grad: weights (gathered under ZeRO-3) and optimizer state; no gradients.
        const PpoRollout ppo = ppoRollout(c);
        Composition round = load;
        at(round, C::Weights) = combine(at(round, C::Weights), ppo.gathered, formulas);
        at(round, C::OptimizerState) = state;
        at(round, C::Workspace) = workspaceTerm(c, WorkspacePhase::Forward);
        at(round, C::KvCache) = ppo.cache;
        at(round, C::Logits) = ppo.logits;
        e.phases.push_back(finishPhase(PhaseId::Decode, round));
    }
}

void Estimator::rolloutPhase(Estimate &e, const Composition &load, const Term &state)
{
    using C = ConsumerId;
    // The generation round (a GRPO estimate's "decode" phase): weights and optimizer state; no
    // gradients (zero_grad sets them to None) and no saved activations (generation runs without grad).
    Composition round = load;
    at(round, C::OptimizerState) = state;
    at(round, C::Workspace) = workspaceTerm(c, WorkspacePhase::Forward);
    if (s.train.grpo.rollout == Rollout::VllmColocate) {
        at(round, C::GenerationEngine) = rollout.awake;
    } else {
        at(round, C::KvCache) = rollout.trainerCache;
        at(round, C::Logits) = rollout.trainerLogits;
        at(round, C::Weights) = combine(at(round, C::Weights), rollout.gathered, formulas);
    }
    e.phases.push_back(finishPhase(PhaseId::Decode, round));
}

void Estimator::inferencePhases(Estimate &e)
{
    using C = ConsumerId;
    auto at = [](Composition &c, C id) -> Term & { return c[static_cast<std::size_t>(id)]; };
    Composition load;
    at(load, C::Weights) = weightsTerm(c);
    at(load, C::QuantMetadata) = quantMetadataTerm(c);
    if (s.parallel.offloadParams)
        offload(at(load, C::Weights), C::Weights, "Offloaded to CPU RAM: streamed in layer by layer.");
    e.phases.push_back(finishPhase(PhaseId::Load, load));

    const std::uint64_t perToken = inferenceWorkingBytesPerToken(s);
    const std::uint64_t batch = s.inference.batch;
    const std::uint64_t context = s.inference.context;
    const std::uint64_t scoreBytes = s.kernels.profile != Profile::Fused ? 4 + c.compute : c.compute;
    auto working = [&](std::uint64_t tokens, const char *label) {
        Term t;
        t.bytes = mulChecked(tokens, perToken, "activations") / s.parallel.tensor;
        if (formulas) {
            t.expression = n(tokens) + " " + label + " tokens x " + n(perToken) +
                           " B (one block's working set)";
            t.notes.push_back("Inference keeps nothing for backward: only the block being "
                              "computed holds intermediates.");
        }
        return t;
    };
    auto scores = [&](std::uint64_t queries) {
        Term t;
        if (s.kernels.attention != Attention::Eager)
            return t;
        t.bytes = productChecked("attention scores", batch, std::uint64_t(m.heads), queries, context,
                                 scoreBytes) / s.parallel.tensor;
        if (formulas)
            t.expression = n(batch) + " batch x " + n(m.heads) + " heads x " + n(queries) + " x " +
                           n(context) + " x " + n(scoreBytes) + " B (one layer, transient)";
        return t;
    };

    Composition prefill = load;
    const bool generate = s.serving && s.serving->engine == Engine::HfGenerate;
    std::uint64_t cacheOnHost = 0;
    at(prefill, C::KvCache) = generate ? hfCacheTerm(c, cacheOnHost) : kvCacheTerm(c);
    if (cacheOnHost) {
        // generate()'s offloaded cache layers wait in CPU RAM.
        Term &offloaded = at(host, C::KvCache);
        offloaded.bytes = addChecked(offloaded.bytes, cacheOnHost, "host memory");
        if (formulas)
            offloaded.expression = formatBytes(cacheOnHost, Unit::GB) + " offloaded KV cache layers";
    }
    at(prefill, C::Activations) = working(mulChecked(batch, context, "activations"), "prompt");
    at(prefill, C::AttentionScores) = scores(context);
    at(prefill, C::Logits) = logitsTerm(c);
    at(prefill, C::Workspace) = workspaceTerm(c, WorkspacePhase::Forward);
    e.phases.push_back(finishPhase(PhaseId::Prefill, prefill));

    Composition decode = prefill;
    at(decode, C::Activations) = working(batch, "new");
    at(decode, C::AttentionScores) = scores(1);
    if (generate) // generate()'s DynamicCache: torch.cat copies one layer at a time
        at(decode, C::KvCache) = combine(at(decode, C::KvCache), hfConcatTransient(c), formulas);
    if (s.inference.kvCache == KvCache::Concat) {
        // torch.cat builds each layer's next cache while generate() still holds the previous
        // step's tuple: at the last layer both caches are alive.
        Term &kv = at(decode, C::KvCache);
        // The first decode step holds the prefill's cache, which may be views of the fused
        // q/k/v projection output (the whole tensor stays alive), and the new one.
        const std::uint64_t halves = prefillCacheHalves(s) + 2;
        kv.bytes = mulChecked(kv.bytes, halves, "KV cache") / 2;
        if (formulas) {
            kv.expression = (halves == 4 ? std::string("2 (previous and new cache) x ")
                                         : (halves == 6 ? std::string("3") : std::string("2.5")) +
                                               " (the prefill's cache, whose K/V are views of the fused q/k/v "
                                               "output, and the new cache) x ") +
                            kv.expression;
            kv.notes.push_back("Concatenating caches (legacy tuples): the previous step's cache "
                               "lives until the new one is complete.");
        }
    }
    e.phases.push_back(finishPhase(PhaseId::Decode, decode));
}

void Estimator::enginePhases(Estimate &e)
{
    const Gpu *gpu = engineGpu(c);
    EnginePhases engine;
    switch (s.serving->engine) {
    case Engine::Vllm: engine = vllmPhases(c, *gpu); break;
    case Engine::Sglang: engine = sglangPhases(c, *gpu); break;
    case Engine::LlamaCpp: engine = llamaCppPhases(c, *gpu); break;
    case Engine::Trtllm: engine = trtllmPhases(c, *gpu); break;
    case Engine::HfGenerate: return;
    }
    for (std::string &warning : engine.warnings)
        e.warnings.push_back(std::move(warning));
    if (!engine.warnings.empty())
        e.validated = false;
    Composition load;
    at(load, ConsumerId::Weights) = engine.profile[static_cast<std::size_t>(ConsumerId::Weights)];
    at(load, ConsumerId::QuantMetadata) = engine.profile[static_cast<std::size_t>(ConsumerId::QuantMetadata)];
    e.phases.push_back(finishPhase(PhaseId::Load, load));
    e.phases.push_back(finishPhase(PhaseId::Prefill, engine.profile));
    e.phases.push_back(finishPhase(PhaseId::Decode, engine.serve));
    host = std::move(engine.host); // summed into e.hostBytes and e.host below
    e.serving = std::move(engine.figures);
}

Estimate Estimator::run()
{
    Estimate e;
    e.phases.reserve(4);
    e.consumers.reserve(kConsumerCount);
    e.gpus.reserve(s.gpus.size());
    e.totalParams = c.model.total;
    e.activeParams = c.model.active;
    e.rankRole = c.share.role;
    if (s.task == Task::Train && s.train.loss == TrainLoss::Classification && !m.tiedEmbeddings && !m.rough)
        throw ScenarioError("train.loss", "classification with an untied lm_head: the model block counts a "
                                          "vocabulary x hidden head the classification model does not have");
    if (s.task == Task::Train) {
        // One GPU holds the whole model: its count is the rank's.
        if (c.parallel.gpus == 1 && c.share.role == RankRole::Only) {
            e.trainableParams = c.trainable.count;
        } else {
            RankShare whole;
            whole.layers = std::uint64_t(m.layers);
            e.trainableParams = countTrainable(s, c.model, c.model, ParallelLayout{}, whole).count;
        }
        // A parameter total given outright (model.params, --model-weights' checkpoint) below what
        // the run trains cannot be this architecture's weights: no number is better than that one.
        if (m.params && e.trainableParams > e.totalParams)
            throw ScenarioError("model.params", groupDigits(e.totalParams) +
                                                    " parameters (the checkpoint's or the scenario's) is fewer "
                                                    "than the " + groupDigits(e.trainableParams) +
                                                    " the run trains: the weights do not belong to this architecture");
    }
    e.rough = m.rough;
    e.errorBands = errorBandsFor(s);
    e.errorBandPercent = e.errorBands.empty() ? 0 : e.errorBands.front().percent;
    // A serving engine (other than generate(), which is the plain inference model with its cache)
    // reserves its memory in its own way.
    const bool engine = s.task == Task::Inference && s.serving && s.serving->engine != Engine::HfGenerate &&
                        engineGpu(c);
    if (s.task == Task::Train)
        trainingPhases(e);
    else if (engine)
        enginePhases(e);
    else
        inferencePhases(e);

    e.peak.phase = peakPhase->id;
    e.peak.allocatedBytes = peakPhase->allocatedBytes;

    // Engines allocate their pool in a few large tensors and size it to what is left: no slack.
    // A colocated generation engine allocates its pool whole too: slack on the trainer's part only.
    const std::uint64_t enginePart = peakParts[static_cast<std::size_t>(ConsumerId::GenerationEngine)].bytes;
    const std::uint64_t fragmentationBytes =
        engine ? 0 : headroom::fragmentationBytes(e.peak.allocatedBytes - enginePart, s);
    const std::uint64_t contextBytes = cudaContextBytes(s);
    // Serving engines count their communication memory in their own non-torch figure.
    const std::uint64_t ncclBytes = headroom::ncclBytes(s);
    e.peak.reservedBytes = addChecked(e.peak.allocatedBytes, fragmentationBytes, "peak");
    e.peak.deviceBytes = addChecked(addChecked(e.peak.reservedBytes, contextBytes, "peak"), ncclBytes, "peak");
    // Headroom against a GPU is signed (the estimate format's headroom_bytes): a peak past
    // 2^63 bytes cannot be compared exactly, so it is out of range rather than clamped.
    if (e.peak.deviceBytes > std::uint64_t(INT64_MAX))
        throw OverflowError("peak", "2^63 bytes (9.2 EB)");

    Composition &parts = peakParts;
    using C = ConsumerId;
    parts[static_cast<std::size_t>(C::Fragmentation)].bytes = fragmentationBytes;
    parts[static_cast<std::size_t>(C::CudaContext)].bytes = contextBytes;
    parts[static_cast<std::size_t>(C::Communication)].bytes = ncclBytes;
    if (formulas) {
        parts[static_cast<std::size_t>(C::Fragmentation)].expression =
            groupDigits(e.peak.allocatedBytes) + " B allocated x " +
            formatDecimal(s.overhead.fragmentation) + " (allocator caching)";
        parts[static_cast<std::size_t>(C::Fragmentation)].notes.push_back(
            "max_memory_reserved() is typically 5-15% above max_memory_allocated(); "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True narrows the gap.");
        parts[static_cast<std::size_t>(C::CudaContext)].expression =
            formatDecimal(s.overhead.cudaContextMiB) + " MiB (CUDA context and kernels)";
        parts[static_cast<std::size_t>(C::CudaContext)].notes.push_back(
            "Outside PyTorch's allocator: nvidia-smi shows it, max_memory_allocated() does not.");
        if (ncclBytes) {
            Term &nccl = parts[static_cast<std::size_t>(C::Communication)];
            nccl.expression = ncclExpression(s);
            nccl.notes.push_back("Outside PyTorch's allocator, like the CUDA context. NCCL 2.22+ on an NVLink "
                                 "node: ~200 MiB when a communicator is made, 24 ring channels x 12 MiB when it "
                                 "first runs; NVLink SHARP (H100/H200 NVSwitch, NCCL 2.17-2.21) adds 1.5-2.3 GiB "
                                 "(NCCL_NVLS_ENABLE=0 removes it). Set overhead.nccl_mib to what your logs show.");
        }
    }
    for (int i = 0; i < kConsumerCount; ++i) {
        Term &term = parts[static_cast<std::size_t>(i)];
        if (term.bytes == 0)
            continue;
        Consumer consumer;
        consumer.id = static_cast<ConsumerId>(i);
        consumer.bytes = term.bytes;
        consumer.expression = std::move(term.expression);
        consumer.assumptions = std::move(term.notes);
        e.consumers.push_back(std::move(consumer));
    }

    for (int i = 0; i < kConsumerCount; ++i) {
        Term &term = host[static_cast<std::size_t>(i)];
        if (term.bytes == 0)
            continue;
        e.hostBytes = addChecked(e.hostBytes, term.bytes, "host memory");
        Consumer consumer;
        consumer.id = static_cast<ConsumerId>(i);
        consumer.bytes = term.bytes;
        consumer.expression = std::move(term.expression);
        e.host.push_back(std::move(consumer));
    }

    // GRPO with vLLM colocated: vLLM starts after the trainer has loaded and needs
    // total x vllm_gpu_memory_utilization free (Worker.init_device: "Free memory on device ... is
    // less than desired GPU memory utilization"), and it sizes its pool for the target GPU only.
    bool rolloutStarts = true;
    if (rollout.figures) {
        e.rollout = rollout.figures;
        const std::uint64_t atStart = addChecked(addChecked(loadBytes, contextBytes, "peak"), rollout.requestedBytes, "peak");
        if (!rollout.figures->startsOk) {
            rolloutStarts = false;
        } else if (atStart > rollout.deviceTotalBytes) {
            rolloutStarts = false;
            e.warnings.push_back("vLLM cannot start: it needs " + formatBytes(rollout.requestedBytes, Unit::GiB) +
                                 " free (vllm_gpu_memory_utilization " +
                                 formatDecimal(s.train.grpo.vllmGpuMemoryUtilization) + "), and the trainer's " +
                                 formatBytes(addChecked(loadBytes, contextBytes, "peak"), Unit::GiB) +
                                 " leave " +
                                 formatBytes(rollout.deviceTotalBytes > loadBytes + contextBytes
                                                 ? rollout.deviceTotalBytes - loadBytes - contextBytes
                                                 : 0,
                                             Unit::GiB) +
                                 " on " + rollout.figures->gpuId);
        }
        e.rollout->startsOk = rolloutStarts;
    }
    // The engine's own warnings (a colocated vLLM, or a vLLM server on other GPUs) and notes.
    e.warnings.insert(e.warnings.end(), rollout.warnings.begin(), rollout.warnings.end());
    if (formulas)
        e.assumptions.insert(e.assumptions.end(), rollout.assumptions.begin(), rollout.assumptions.end());
    for (std::size_t index = 0; index < s.gpus.size(); ++index) {
        const Gpu *gpu = c.catalog.findGpu(s.gpus[index]);
        if (!gpu)
            continue;
        GpuFit fit;
        fit.id = gpu->id;
        fit.name = gpu->name;
        fit.capacityBytes = gpuVisibleBytes(s, *gpu); // a unified GPU: its wired limit when set
        fit.fits = e.peak.deviceBytes <= fit.capacityBytes;
        fit.headroomBytes = static_cast<std::int64_t>(fit.capacityBytes) -
                            static_cast<std::int64_t>(e.peak.deviceBytes);
        // llama.cpp on several devices: each device against its own share.
        const LlamaDevice *device = nullptr;
        if (e.serving)
            for (const LlamaDevice &d : e.serving->devices)
                if (d.index == index)
                    device = &d;
        if (device) {
            fit.fits = device->fits && e.serving->requestsFit;
            fit.headroomBytes = device->headroomBytes;
        } else if (e.serving && fit.id == e.serving->gpuId) {
            fit.fits = fit.fits && e.serving->startsOk && e.serving->requestsFit;
        }
        if (e.rollout && fit.id == e.rollout->gpuId)
            fit.fits = fit.fits && rolloutStarts;
        e.gpus.push_back(fit);
    }
    if (e.serving && e.serving->pipelineParallel)
        e.warnings.push_back("llama.cpp's pipeline parallelism (several devices holding every layer) keeps "
                             "4 copies of each graph split's inputs: not modelled, the compute buffers may be larger");

    // What the estimate cannot stand behind: said in the verdict, flagged for the error bands.
    if (!s.precision.unmodelledFormat.empty()) {
        e.warnings.push_back(std::string("weights sized as ") + enumName(s.precision.weights) + ": " +
                             s.precision.unmodelledFormat + " is not modelled");
        e.validated = false;
    }
    bool linearLayers = false;
    for (LayerKind kind : {LayerKind::GatedDeltaNet, LayerKind::Lightning, LayerKind::Kda, LayerKind::Mamba2,
                           LayerKind::Mamba1, LayerKind::ShortConv})
        linearLayers = linearLayers || m.hasKind(kind);
    if (linearLayers && s.task == Task::Train) {
        e.warnings.push_back("training activations of the linear-attention and Mamba layers are counted as "
                             "attention layers' (fla and mamba_ssm kernels not modelled): not validated");
        e.validated = false;
    }
    // Post-training with more models or a rollout: the measured cases say how little is known.
    if (s.task == Task::Train && s.train.objective != Objective::Sft && s.train.objective != Objective::Dpo &&
        s.train.objective != Objective::Preference) {
        const std::string objective = enumName(s.train.objective);
        const bool any = std::ranges::count(validatedObjectives(), objective) > 0;
        const std::string what = s.train.objective == Objective::Grpo ? "GRPO (training and generation in one run)"
                                                                      : objective + " training";
        e.warnings.push_back(what + (any ? " has few measured runs (docs/accuracy.md, post-training): not validated"
                                         : " has no measured case yet: not validated"));
        e.validated = false;
    }
    if (m.visionParams > 0 && s.task == Task::Train) {
        e.warnings.push_back("the vision encoder's weights are counted, its activations are not: not validated");
        e.validated = false;
    }
    if (linearLayers && s.serving && s.serving->engine == Engine::Sglang) {
        e.warnings.push_back("SGLang's pool for the linear layers' states is not modelled: not validated");
        e.validated = false;
    }
    if (formulas) {
        if (m.rough)
            e.assumptions.push_back("Rough model: only parameters, hidden size and layers are "
                                    "known; every parameter is counted at the weight dtype and "
                                    "heads = hidden / 128.");
        if (s.task == Task::Train && s.train.gradAccum > 1)
            e.assumptions.push_back("Gradient accumulation (" + n(s.train.gradAccum) +
                                    " micro-batches) multiplies the effective batch, not the "
                                    "activations.");
        if (s.task == Task::Train && s.train.method != Method::Full &&
            s.train.checkpointing != Checkpointing::None)
            e.assumptions.push_back("LoRA with gradient checkpointing needs "
                                    "model.enable_input_require_grads(), or the loss never changes.");
        e.assumptions.push_back("Steady state: the optimizer state exists from the first step on.");
    }
    return e;
}

/// The estimate of the busiest rank; where ranks differ (pipeline stages) every kind is listed.
Estimate estimateRanks(const Scenario &scenario, Detail detail, const Catalog &catalog)
{
    const ParallelLayout layout = parallelLayout(scenario);
    const std::vector<RankRole> roles = layout.roles();
    if (roles.size() == 1)
        return Estimator(scenario, detail, catalog, roles.front()).run();
    // Ranks differ (pipeline stages): the estimate describes the busiest; every kind is listed.
    std::vector<Estimate> perRole;
    for (RankRole role : roles)
        perRole.push_back(Estimator(scenario, detail, catalog, role).run());
    std::size_t busiest = 0;
    for (std::size_t i = 1; i < perRole.size(); ++i)
        if (perRole[i].peak.deviceBytes > perRole[busiest].peak.deviceBytes)
            busiest = i;
    Estimate e = perRole[busiest];
    for (const Estimate &rank : perRole) {
        RankPeak summary;
        summary.role = rank.rankRole;
        summary.peak = rank.peak;
        summary.hostBytes = rank.hostBytes;
        for (const Consumer &consumer : rank.consumers)
            summary.bytes[static_cast<std::size_t>(consumer.id)] = consumer.bytes;
        e.ranks.push_back(summary);
    }
    return e;
}

/// CPU RAM of one machine: every GPU's rank keeps at most what the busiest-host rank keeps.
HostMachine hostMachine(const Scenario &s, const Estimate &e, const Catalog &catalog)
{
    HostMachine machine;
    const HostConfig host = effectiveHost(s, catalog);
    machine.gpus = std::clamp<std::uint64_t>(host.gpusPerMachine, 1, std::max<std::uint64_t>(1, s.parallel.gpus));
    machine.perGpuBytes = e.hostBytes;
    for (const RankPeak &rank : e.ranks)
        machine.perGpuBytes = std::max(machine.perGpuBytes, rank.hostBytes);
    machine.bytes = mulChecked(machine.perGpuBytes, machine.gpus, "host memory");
    machine.ramBytes = roundedBytes(host.ramGiB * 1073741824.0, "host.ram_gib");
    machine.fits = machine.ramBytes == 0 || machine.bytes <= machine.ramBytes;
    return machine;
}

} // namespace

Estimate estimate(const Scenario &scenario, Detail detail, const Catalog &catalog)
{
    checkParallel(scenario);
    Estimate e = scenario.task == Task::Inference && scenario.serving &&
                         scenario.serving->engine == Engine::HfGenerate
                     ? detail::hfGenerateEstimate(scenario, detail, catalog, estimateRanks)
                     : estimateRanks(scenario, detail, catalog);
    e.hostMachine = hostMachine(scenario, e, catalog);
    applyUnifiedPool(scenario, e, catalog);
    return e;
}

} // namespace headroom
