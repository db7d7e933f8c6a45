// SPDX-License-Identifier: GPL-3.0-or-later
#include "solve/solver.h"

#include "estimate/verdict.h"
#include "scenario/checked.h"
#include "io/inputpolicy.h"
#include "scenario/names.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

namespace headroom {

namespace {

constexpr std::uint64_t kMaxBatch = 1u << 20;   // micro_batch, inference.batch, concurrency
constexpr std::uint64_t kMaxTokens = 16u << 20;  // seq_len, context, max_model_len, n_ctx
constexpr std::uint64_t kMaxRank = 65536;
constexpr std::uint64_t kMaxGpus = 65536;

struct Key
{
    SolveFor what;
    const char *key;
};
constexpr Key kKeys[] = {{SolveFor::MaxMicroBatch, "max-micro-batch"}, {SolveFor::MaxSeqLen, "max-seq-len"},
                         {SolveFor::MaxContext, "max-context"},        {SolveFor::MaxConcurrency, "max-concurrency"},
                         {SolveFor::MinGpus, "min-gpus"},              {SolveFor::MaxLoraRank, "max-lora-rank"},
                         {SolveFor::MaxVllmUtilization, "max-vllm-utilization"}};
constexpr std::uint64_t kMaxUtilization = 100; // hundredths: vLLM accepts (0, 1]

/// A serving engine runs only for task inference (the estimator ignores a serving section on a
/// training scenario, which the reader refuses).
bool serves(const Scenario &s) { return s.task == Task::Inference && s.serving; }

bool hasBudget(const Scenario &s)
{
    return serves(s) && (s.serving->engine == Engine::Vllm || s.serving->engine == Engine::Sglang);
}

bool isEngine(const Scenario &s) { return serves(s) && s.serving->engine != Engine::HfGenerate; }

/// A GRPO run with vLLM in the trainer's GPU: the engine sizes its pool on the GPU solved for.
bool colocates(const Scenario &s)
{
    return s.task == Task::Train && s.train.objective == Objective::Grpo &&
           s.train.grpo.rollout == Rollout::VllmColocate;
}

/// The estimate depends on the GPU (an engine's pool follows its memory).
bool perGpu(const Scenario &s) { return isEngine(s) || colocates(s); }

std::uint32_t u32(std::uint64_t value) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(value, UINT32_MAX)); }

/// Every request becomes `tokens` long (prompt only), the concurrency unchanged.
void uniformRequests(ServingConfig &cfg, std::uint64_t tokens)
{
    RequestClass kind;
    kind.promptTokens = u32(tokens);
    kind.outputTokens = 0;
    cfg.requests.classes = {kind};
}

std::uint64_t maxValue(const Scenario &s, SolveFor what)
{
    switch (what) {
    case SolveFor::MaxMicroBatch: return kMaxBatch;
    case SolveFor::MaxSeqLen: return kMaxTokens;
    case SolveFor::MaxLoraRank: return kMaxRank;
    case SolveFor::MaxConcurrency:
        if (s.serving && s.serving->engine == Engine::LlamaCpp)
            return std::min<std::uint64_t>(4096, kMaxTokens / std::max<std::uint64_t>(1, std::uint64_t(s.serving->requests.classes.empty() ? 1 : s.serving->requests.classes[0].tokens())));
        return kMaxBatch;
    case SolveFor::MaxContext:
        if (s.serving && s.serving->engine == Engine::LlamaCpp)
            return kMaxTokens / s.serving->nParallel;
        return kMaxTokens;
    case SolveFor::MinGpus: return kMaxGpus;
    case SolveFor::MaxVllmUtilization: return kMaxUtilization;
    }
    return kMaxBatch;
}

/// One evaluated value.
struct Point
{
    bool valid = false;         ///< estimated without overflow
    bool engineOk = true;       ///< the engine starts and runs the requests (engines only)
    bool positionsOk = true;    ///< within a model's learned positions (past them it cannot start)
    std::uint64_t demand = UINT64_MAX; ///< device bytes less a serving pool's free part
    std::array<std::uint64_t, kConsumerCount> bytes{};
    std::string engineLimit;
};

/// Memoised evaluations of one variable on one scenario.
class Evaluator
{
public:
    Evaluator(Scenario base, SolveFor what, const Catalog &catalog)
        : m_base(std::move(base)), m_what(what), m_catalog(catalog)
    {
    }

    const Point &at(std::uint64_t value)
    {
        auto it = m_memo.find(value);
        if (it != m_memo.end())
            return it->second;
        Point p;
        try {
            const Scenario trial = withSolveValue(m_base, m_what, value);
            const Estimate e = estimate(trial, Detail::BytesOnly, m_catalog);
            p.valid = true;
            if (const auto limit = positionLimit(trial); limit && limit->error)
                p.positionsOk = false;
            // An engine that sizes its pool to what is left (vLLM, SGLang) needs only what the
            // requests use of it; llama.cpp's n_ctx cells are all allocated.
            p.demand = e.peak.deviceBytes - (hasBudget(m_base) ? e.bytes(ConsumerId::KvCacheFree) : 0);
            for (const Consumer &c : e.consumers)
                p.bytes[static_cast<std::size_t>(c.id)] = c.bytes;
            if (e.serving && isEngine(m_base)) {
                p.engineOk = e.serving->startsOk && e.serving->requestsFit;
                p.engineLimit = e.serving->startsOk ? servingLimitKey(e.serving->limit) : "kv_cache";
            }
            if (e.rollout && colocates(m_base)) { // vLLM must start beside the trainer
                p.engineOk = e.rollout->startsOk;
                p.engineLimit = "vllm_start";
            }
        } catch (const OverflowError &) {
            p.valid = false;
        } catch (const InputError &) { // a layout the parallel rules refuse
            p.valid = false;
        }
        return m_memo.emplace(value, p).first->second;
    }

    const Scenario &base() const { return m_base; }

private:
    Scenario m_base;
    SolveFor m_what;
    const Catalog &m_catalog;
    std::map<std::uint64_t, Point> m_memo;
};

/// The largest value in [1, max] that fits, by doubling then halving; 0 when 1 does not fit.
std::uint64_t largestFitting(std::uint64_t max, const std::function<bool(std::uint64_t)> &fits)
{
    if (!fits(1))
        return 0;
    std::uint64_t low = 1, high = 2;
    while (high <= max && fits(high)) {
        low = high;
        high *= 2;
    }
    if (high > max) {
        if (fits(max))
            return max;
        high = max;
    }
    while (high - low > 1) {
        const std::uint64_t mid = low + (high - low) / 2;
        (fits(mid) ? low : high) = mid;
    }
    return low;
}

ConsumerId mostGrowing(const Point &from, const Point &to, ConsumerId fallback = ConsumerId::Activations)
{
    ConsumerId best = fallback;
    std::uint64_t bestGrowth = 0;
    for (int i = 0; i < kConsumerCount; ++i) {
        const auto id = static_cast<ConsumerId>(i);
        if (id == ConsumerId::KvCacheFree || id == ConsumerId::Fragmentation || id == ConsumerId::CudaContext ||
            id == ConsumerId::Communication)
            continue;
        const std::uint64_t a = from.bytes[std::size_t(i)], b = to.bytes[std::size_t(i)];
        if (b > a && b - a > bestGrowth) {
            bestGrowth = b - a;
            best = id;
        }
    }
    return best;
}

const Gpu &findGpu(const Catalog &catalog, const std::string &gpuId)
{
    const Gpu *gpu = catalog.findGpu(gpuId);
    if (!gpu)
        throw SolveError("unknown GPU " + gpuId);
    return *gpu;
}

std::uint64_t limitFor(const Gpu &gpu, const SolveOptions &options)
{
    return static_cast<std::uint64_t>(double(gpu.capacityBytes()) * std::clamp(options.margin, 0.0, 1.0));
}

Solution solveWith(Evaluator &eval, SolveFor what, const Gpu &gpu, const SolveOptions &options)
{
    const Scenario &base = eval.base();
    const std::uint64_t limit = limitFor(gpu, options);
    const bool budget = hasBudget(base);
    auto fits = [&](std::uint64_t value) {
        const Point &p = eval.at(value);
        return p.valid && p.engineOk && p.positionsOk && (budget || p.demand <= limit);
    };
    const std::uint64_t max = maxValue(base, what);
    Solution s;
    s.what = what;
    s.gpuId = gpu.id;
    s.gpuName = gpu.name;
    s.limitBytes = limit;
    if (what == SolveFor::MaxVllmUtilization) {
        // Not monotone at the low end (too small a share starts no vLLM, too large a one leaves
        // no room for training): the largest of the 100 steps that fits, scanned downwards.
        s.value = 0;
        for (std::uint64_t v = max; v >= 1 && !s.value; --v)
            if (fits(v))
                s.value = v;
    } else {
        s.value = largestFitting(max, fits);
    }
    // Where nothing grows in bytes (a full pool refusing one more request), the KV cache is the
    // consumer that ran out.
    const ConsumerId growing = base.task == Task::Inference ? ConsumerId::KvCache : ConsumerId::Activations;
    s.scenario = s.value ? withSolveValue(base, what, s.value) : base;
    if (s.value)
        s.peakBytes = eval.at(s.value).demand;
    if (s.value < max) {
        s.nextValue = s.value + 1;
        const Point &next = eval.at(s.value + 1);
        if (next.valid)
            s.nextPeakBytes = next.demand;
        s.limit = !next.valid ? "range" : !next.positionsOk ? "max_positions" : (!next.engineOk ? next.engineLimit : "memory");
        s.grows = mostGrowing(s.value ? eval.at(s.value) : Point{}, next, growing);
    } else {
        s.limit = "range";
        s.grows = mostGrowing(eval.at(s.value > 1 ? s.value - 1 : 1), eval.at(s.value), growing);
    }
    return s;
}

/// A way to spread the scenario over more GPUs: the totals it allows, in order.
struct Family
{
    std::string name;
    std::size_t size = 0;                             ///< how many totals it allows
    std::function<std::uint64_t(std::size_t)> count;  ///< total GPUs of the i-th, increasing
    std::function<Scenario(std::uint64_t)> make;
};

std::vector<Family> families(const Scenario &s, const SolveOptions &options)
{
    std::vector<Family> out;
    const std::uint64_t tp = s.parallel.tensor, pp = s.parallel.pipeline, cp = s.parallel.context;
    const std::uint64_t ep = s.parallel.expert;
    // Expert parallelism divides the GPUs of a stage (tensor x context x data): the data-parallel
    // size grows in steps that keep it so.
    const std::uint64_t expertStep = ep / std::gcd(ep, tp * cp);
    auto allowed = [&](const char *name) {
        return std::find(options.strategies.begin(), options.strategies.end(), name) != options.strategies.end();
    };
    const auto shards = [](Strategy st) {
        return st == Strategy::Zero1 || st == Strategy::Zero2 || st == Strategy::Zero3 || st == Strategy::Fsdp;
    };
    if (s.task == Task::Train) {
        std::vector<Strategy> strategies;
        if (shards(s.parallel.strategy))
            strategies.push_back(s.parallel.strategy);
        for (Strategy st : {Strategy::Zero1, Strategy::Zero2, Strategy::Zero3, Strategy::Fsdp})
            if (allowed(enumName(st)) && std::find(strategies.begin(), strategies.end(), st) == strategies.end())
                strategies.push_back(st);
        for (Strategy st : strategies) {
            Family f;
            f.name = enumName(st);
            const std::uint64_t step = tp * pp * cp * expertStep;
            f.size = std::size_t(kMaxGpus / step);
            f.count = [step](std::size_t i) { return (std::uint64_t(i) + 1) * step; };
            f.make = [s, st](std::uint64_t n) {
                Scenario c = s;
                c.parallel.strategy = st;
                c.parallel.gpus = u32(n);
                return c;
            };
            out.push_back(std::move(f));
        }
    }
    const bool engineTensor = hasBudget(s);
    if (tp > 1 || engineTensor || allowed("tensor")) {
        Family f;
        f.name = "tensor";
        std::vector<std::uint64_t> totals;
        for (std::uint64_t t = 1; t <= std::uint64_t(s.model.heads) && t * pp * cp <= kMaxGpus; ++t)
            if (s.model.heads % t == 0 && (t * cp) % ep == 0)
                totals.push_back(t * pp * cp);
        f.size = totals.size();
        f.count = [totals](std::size_t i) { return totals[i]; };
        f.make = [s, pp, cp](std::uint64_t n) {
            Scenario c = s;
            c.parallel.tensor = u32(n / (pp * cp));
            c.parallel.gpus = u32(n);
            return c;
        };
        out.push_back(std::move(f));
    }
    if (pp > 1 || allowed("pipeline")) {
        Family f;
        f.name = "pipeline";
        // Interleaving needs pipeline x virtual stages <= layers; a stage's GPUs hold whole
        // expert groups.
        const std::uint64_t chunks = s.parallel.schedule == PipelineSchedule::Interleaved ? s.parallel.virtualStages : 1;
        const std::uint64_t stages = (tp * cp) % ep == 0 ? std::uint64_t(s.model.layers) / std::max<std::uint64_t>(1, chunks) : 0;
        f.size = std::size_t(std::min<std::uint64_t>(stages, kMaxGpus / (tp * cp)));
        f.count = [tp, cp](std::size_t i) { return (std::uint64_t(i) + 1) * tp * cp; };
        f.make = [s, tp, cp](std::uint64_t n) {
            Scenario c = s;
            c.parallel.pipeline = u32(n / (tp * cp));
            c.parallel.gpus = u32(n);
            return c;
        };
        out.push_back(std::move(f));
    }
    return out;
}

Solution solveMinGpus(const Scenario &base, const Gpu &gpu, const SolveOptions &options, const Catalog &catalog)
{
    Scenario s = base;
    if (perGpu(s)) { // an engine runs (and sizes its pool) on the GPU solved for
        s.gpus = {gpu.id};
        s.targetGpu.clear();
    }
    const std::vector<Family> options_ = families(s, options);
    if (options_.empty())
        // Words for the window and the command line alike: no command-line flags.
        throw SolveError("min-gpus: the scenario splits across GPUs in no way (choose a sharding strategy, "
                         "ZeRO-1, ZeRO-2, ZeRO-3 or FSDP, or tensor or pipeline parallelism above 1)");
    const std::uint64_t limit = limitFor(gpu, options);
    const bool budget = hasBudget(s);
    Solution best;
    best.what = SolveFor::MinGpus;
    best.gpuId = gpu.id;
    best.gpuName = gpu.name;
    best.limitBytes = limit;
    best.scenario = base;
    struct Found
    {
        std::size_t family;
        std::size_t index;
    };
    std::optional<Found> found;
    std::vector<std::map<std::size_t, Point>> memos(options_.size());
    auto evalAt = [&](std::size_t family, std::size_t index) -> const Point & {
        auto &memo = memos[family];
        if (auto it = memo.find(index); it != memo.end())
            return it->second;
        Point p;
        try {
            const Estimate e = estimate(options_[family].make(options_[family].count(index)), Detail::BytesOnly, catalog);
            p.valid = true;
            p.demand = e.peak.deviceBytes - (budget ? e.bytes(ConsumerId::KvCacheFree) : 0);
            for (const Consumer &c : e.consumers)
                p.bytes[static_cast<std::size_t>(c.id)] = c.bytes;
            if (e.serving && isEngine(s))
                p.engineOk = e.serving->startsOk && e.serving->requestsFit;
        } catch (const OverflowError &) {
            p.valid = false;
        } catch (const InputError &) { // a layout the parallel rules refuse
            p.valid = false;
        }
        return memo.emplace(index, p).first->second;
    };
    for (std::size_t f = 0; f < options_.size(); ++f) {
        const std::size_t n = options_[f].size;
        auto fits = [&](std::size_t i) {
            const Point &p = evalAt(f, i);
            return p.valid && p.engineOk && p.positionsOk && (budget || p.demand <= limit);
        };
        // The smallest index that fits: doubling steps, then halving.
        std::optional<std::size_t> first;
        if (fits(0)) {
            first = 0;
        } else {
            std::size_t bad = 0, step = 1;
            std::optional<std::size_t> good;
            while (bad + step < n) {
                if (fits(bad + step)) {
                    good = bad + step;
                    break;
                }
                bad += step;
                step *= 2;
            }
            if (!good && bad + 1 < n && fits(n - 1)) {
                good = n - 1;
            }
            if (good) {
                std::size_t high = *good;
                while (high - bad > 1) {
                    const std::size_t mid = bad + (high - bad) / 2;
                    (fits(mid) ? high : bad) = mid;
                }
                first = high;
            }
        }
        if (first && (!found || options_[f].count(*first) < options_[found->family].count(found->index)))
            found = Found{f, *first};
    }
    if (!found)
        return best;
    const Family &family = options_[found->family];
    best.value = family.count(found->index);
    best.strategy = family.name;
    best.scenario = family.make(best.value);
    if (perGpu(base)) {
        best.scenario.gpus = base.gpus;
        best.scenario.targetGpu = base.targetGpu;
    }
    const Point &at = evalAt(found->family, found->index);
    best.peakBytes = at.demand;
    if (found->index > 0) {
        best.nextValue = family.count(found->index - 1);
        const Point &fewer = evalAt(found->family, found->index - 1);
        if (fewer.valid)
            best.nextPeakBytes = fewer.demand;
        best.grows = mostGrowing(at, fewer);
        best.limit = fewer.valid && !fewer.engineOk ? "kv_cache" : "memory";
    }
    return best;
}

} // namespace

const char *solveForKey(SolveFor what)
{
    for (const Key &k : kKeys)
        if (k.what == what)
            return k.key;
    return "?";
}

std::optional<SolveFor> solveForFromKey(std::string_view key)
{
    for (const Key &k : kKeys)
        if (key == k.key)
            return k.what;
    return std::nullopt;
}

std::vector<SolveFor> allSolveFors()
{
    std::vector<SolveFor> out;
    for (const Key &k : kKeys)
        out.push_back(k.what);
    return out;
}

std::vector<SolveFor> applicableSolves(const Scenario &s)
{
    std::vector<SolveFor> out;
    if (s.task == Task::Train) {
        out = {SolveFor::MaxMicroBatch, SolveFor::MaxSeqLen};
        if (s.train.method != Method::Full)
            out.push_back(SolveFor::MaxLoraRank);
        if (colocates(s))
            out.push_back(SolveFor::MaxVllmUtilization);
    } else {
        out = {SolveFor::MaxConcurrency, SolveFor::MaxContext};
    }
    out.push_back(SolveFor::MinGpus);
    return out;
}

Scenario withSolveValue(const Scenario &scenario, SolveFor what, std::uint64_t value)
{
    Scenario s = scenario;
    const bool train = s.task == Task::Train;
    const std::string key = solveForKey(what);
    switch (what) {
    case SolveFor::MaxMicroBatch:
        if (!train)
            throw SolveError(key + " applies to training; for serving use max-concurrency");
        s.train.microBatch = u32(value);
        break;
    case SolveFor::MaxSeqLen:
        if (!train)
            throw SolveError(key + " applies to training; for serving use max-context");
        s.train.seqLen = u32(value);
        break;
    case SolveFor::MaxLoraRank:
        if (!train || s.train.method == Method::Full)
            throw SolveError(key + " applies to LoRA and QLoRA training (train.method lora or qlora)");
        s.train.lora.rank = static_cast<int>(std::min<std::uint64_t>(value, kMaxRank));
        break;
    case SolveFor::MaxConcurrency:
        if (train)
            throw SolveError(key + " applies to inference; for training use max-micro-batch");
        if (!s.serving) {
            s.inference.batch = u32(value);
        } else if (s.serving->engine == Engine::LlamaCpp) {
            // llama.cpp serves --parallel slots of n_ctx / n_parallel cells each.
            ServingConfig &cfg = *s.serving;
            const std::uint64_t perSequence = std::max<std::uint64_t>(1, cfg.nCtx / cfg.nParallel);
            cfg.nParallel = u32(value);
            cfg.nCtx = u32(std::min<std::uint64_t>(value * perSequence, kMaxTokens));
            cfg.requests.concurrency = u32(value);
        } else {
            s.serving->requests.concurrency = u32(value);
        }
        break;
    case SolveFor::MaxContext:
        if (train)
            throw SolveError(key + " applies to inference; for training use max-seq-len");
        if (!s.serving) {
            s.inference.context = u32(value);
        } else {
            ServingConfig &cfg = *s.serving;
            uniformRequests(cfg, value);
            if (cfg.engine == Engine::Vllm || cfg.engine == Engine::Sglang || cfg.engine == Engine::Trtllm ||
                (cfg.engine == Engine::HfGenerate && cfg.maxModelLen))
                cfg.maxModelLen = u32(value);
            if (cfg.engine == Engine::LlamaCpp)
                cfg.nCtx = u32(std::min<std::uint64_t>(value * cfg.nParallel, kMaxTokens));
        }
        break;
    case SolveFor::MinGpus:
        s.parallel.gpus = u32(value);
        break;
    case SolveFor::MaxVllmUtilization:
        if (!colocates(s))
            throw SolveError(key + " applies to GRPO training with vLLM colocated (train.objective grpo, "
                                   "train.grpo.rollout vllm_colocate)");
        s.train.grpo.vllmGpuMemoryUtilization = double(std::clamp<std::uint64_t>(value, 1, kMaxUtilization)) / 100.0;
        break;
    }
    return s;
}

std::uint64_t solveValue(const Scenario &s, SolveFor what)
{
    switch (what) {
    case SolveFor::MaxMicroBatch: return s.train.microBatch;
    case SolveFor::MaxSeqLen: return s.train.seqLen;
    case SolveFor::MaxLoraRank: return std::uint64_t(s.train.lora.rank);
    case SolveFor::MaxConcurrency: return s.serving ? s.serving->requests.concurrency : s.inference.batch;
    case SolveFor::MaxContext:
        if (!s.serving)
            return s.inference.context;
        {
            std::uint64_t longest = 0;
            for (const RequestClass &kind : s.serving->requests.classes)
                longest = std::max(longest, kind.tokens());
            return longest;
        }
    case SolveFor::MinGpus: return s.parallel.gpus;
    case SolveFor::MaxVllmUtilization:
        return static_cast<std::uint64_t>(std::llround(s.train.grpo.vllmGpuMemoryUtilization * 100.0));
    }
    return 0;
}

/// A scenario the estimator refuses has no limit to find: the refusal is the answer ("cannot
/// answer: <reason>"), never read as "nothing fits" or "everything fits". An overflow at the
/// scenario's own value is not a refusal: smaller values are still searched.
void requireEstimable(const Scenario &scenario, const Catalog &catalog)
{
    try {
        estimate(scenario, Detail::BytesOnly, catalog);
    } catch (const OverflowError &) {
    } catch (const InputError &error) {
        throw SolveError(std::string("cannot answer: ") + error.what());
    }
    if (const auto limit = positionLimit(scenario); limit && limit->error)
        throw SolveError(std::string("cannot answer: ") +
                         (scenario.task == Task::Train ? "train.seq_len " : scenario.serving ? "the longest sequence served " : "inference.context ") +
                         groupDigits(limit->tokens) + " is beyond the model's " + groupDigits(std::uint64_t(limit->maxPositions)) +
                         " learned positions (model.max_positions): the run cannot start");
}

Solution solve(const Scenario &scenario, SolveFor what, const std::string &gpuId, const SolveOptions &options,
               const Catalog &catalog)
{
    const Gpu &gpu = findGpu(catalog, gpuId);
    requireEstimable(scenario, catalog);
    if (what == SolveFor::MinGpus)
        return solveMinGpus(scenario, gpu, options, catalog);
    withSolveValue(scenario, what, 1); // throws when the variable does not apply
    Scenario base = scenario;
    if (perGpu(base)) { // an engine runs (and sizes its pool) on the GPU solved for
        base.gpus = {gpu.id};
        base.targetGpu.clear();
    }
    Evaluator eval(base, what, catalog);
    Solution s = solveWith(eval, what, gpu, options);
    if (perGpu(scenario)) {
        s.scenario.gpus = scenario.gpus;
        s.scenario.targetGpu = scenario.targetGpu;
    }
    return s;
}

std::vector<Solution> solveForGpus(const Scenario &scenario, SolveFor what, const std::vector<std::string> &gpuIds,
                                   const SolveOptions &options, const Catalog &catalog)
{
    std::vector<Solution> out;
    if (what == SolveFor::MinGpus || perGpu(scenario)) {
        for (const std::string &id : gpuIds)
            out.push_back(solve(scenario, what, id, options, catalog));
        return out;
    }
    withSolveValue(scenario, what, 1);
    requireEstimable(scenario, catalog);
    // The GPU does not change the estimate: one memo serves every capacity.
    Evaluator eval(scenario, what, catalog);
    for (const std::string &id : gpuIds)
        out.push_back(solveWith(eval, what, findGpu(catalog, id), options));
    return out;
}

} // namespace headroom
