// SPDX-License-Identifier: GPL-3.0-or-later
// vLLM's memory accounting (docs/serving.md cites each step in vLLM's source):
// Worker.determine_available_memory() and memory_profiling() (non-KV memory), the profile
// run's _dummy_run/_dummy_sampler_run (activation peak), kv_cache_utils.get_kv_cache_config
// (blocks) and _report_kv_cache_config (the two lines it prints).
#include "serving/servingengines.h"

#include "estimate/verdict.h"
#include "scenario/checked.h"
#include "training/modelstate.h"
#include "scenario/names.h"
#include "training/overhead.h"
#include "scenario/units.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace headroom::detail {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

/// What changed between vLLM releases that moves the numbers.
struct VllmGeneration
{
    EngineVersion version;
    bool v1 = true;
    bool nonTorchCounted = true;     ///< not before 0.2.5 (torch's peak only)
    bool nonTorchHasContext = false; ///< 0.6.4, and V1 before 0.9.2: measured from used memory
    bool graphsBeforeKv = false;     ///< 0.21 on: CUDA graph memory profiled before KV sizing
    int printing = 1;                ///< 0: blocks x block_size; 1: per KV group; 2: concurrency x L
    bool a100Rule = true;            ///< 0.9 on: A100s get the small-GPU batch defaults
};

VllmGeneration generation(const ServingConfig &cfg)
{
    VllmGeneration g;
    g.version = cfg.version.empty() ? kCurrentVllm : parseEngineVersion(cfg.version).value_or(kCurrentVllm);
    const EngineVersion &v = g.version;
    g.v1 = cfg.v1Engine.value_or(v >= EngineVersion{0, 8, 0});
    g.nonTorchCounted = v >= EngineVersion{0, 2, 5};
    g.nonTorchHasContext = g.v1 ? v < EngineVersion{0, 9, 2}
                                : (v >= EngineVersion{0, 6, 4} && v < EngineVersion{0, 6, 5});
    g.graphsBeforeKv = g.v1 && v >= EngineVersion{0, 21, 0} && !cfg.enforceEager;
    g.printing = !g.v1 || v < EngineVersion{0, 9, 0} ? 0 : (v < EngineVersion{0, 27, 0} ? 1 : 2);
    g.a100Rule = v >= EngineVersion{0, 9, 0};
    return g;
}

/// Layers of one attention kind (full, or one sliding window) or of the linear (Mamba-like)
/// kinds, and what a block of them costs.
struct KvKind
{
    KvLayerGroup group;     ///< layers of this kind on this rank
    std::uint64_t page = 0; ///< bytes of one block of one layer
    bool state = false;     ///< a MambaSpec: one block per request holds the whole state
};

/// vLLM's hybrid models (HybridAttentionMambaModelConfig.verify_and_update_config, vllm
/// model_executor/models/config.py): the attention block grows to a multiple of 16 tokens whose
/// page holds one layer's whole linear state, and the state's page is padded to that size.
std::uint64_t hybridBlockSize(const KvLayout &layout, std::uint64_t blockSize)
{
    std::uint64_t statePage = 0, tokenPage = 0;
    for (const KvLayerGroup &group : layout.groups) {
        if (isStateKind(group.kind)) {
            statePage = std::max(statePage, stateBytesPerLayer(layout, group));
        } else if (!tokenPage) {
            KvLayout one{{group}, layout.type};
            one.groups[0].layers = 1;
            one.groups[0].window = 0;
            tokenPage = kvCacheBytes(one, 1, 1);
        }
    }
    if (!statePage || !tokenPage)
        return blockSize;
    return std::max(blockSize, 16 * ceilDiv(statePage, 16 * tokenPage));
}

std::vector<KvKind> kvKinds(const KvLayout &layout, std::uint64_t blockSize)
{
    std::map<std::tuple<bool, std::uint64_t, std::uint64_t>, KvKind> kinds;
    std::uint64_t attentionPage = 0;
    for (const KvLayerGroup &group : layout.groups) {
        const bool state = isStateKind(group.kind);
        KvKind &kind = kinds[{state, group.window, group.valuesPerToken}];
        if (kind.group.layers == 0) {
            kind.group = group;
            kind.group.layers = 0;
            kind.state = state;
            KvLayout one{{group}, layout.type, layout.convBytes, layout.recurrentBytes};
            one.groups[0].layers = 1;
            one.groups[0].window = 0; // a page always holds block_size tokens
            kind.page = state ? stateBytesPerLayer(layout, group) : kvCacheBytes(one, 1, blockSize);
            if (!state)
                attentionPage = std::max(attentionPage, kind.page);
        }
        kind.group.layers += group.layers;
    }
    std::vector<KvKind> out;
    for (auto &[key, kind] : kinds) {
        if (kind.state && attentionPage)
            kind.page = std::max(kind.page, attentionPage); // mamba_page_size_padded
        if (kind.group.layers)
            out.push_back(kind);
    }
    return out;
}

/// KVCacheSpec.max_memory_usage_bytes in blocks: a full-attention layer keeps every token, a
/// sliding-window layer the window plus one prefill chunk, a linear layer one block of state.
std::uint64_t blocksFor(const KvKind &kind, std::uint64_t tokens, std::uint64_t blockSize,
                        std::uint64_t batchedTokens)
{
    if (kind.state)
        return 1;
    if (kind.group.window == 0)
        return ceilDiv(tokens, blockSize);
    const std::uint64_t kept = std::min(tokens, kind.group.window - 1 + batchedTokens);
    return ceilDiv(kept, blockSize) + 1;
}

std::string gib(std::uint64_t bytes) { return formatBytes(bytes, Unit::GiB); }

/// The top-k/top-p sampler the profile's dummy sampler run uses. Auto is the release's default:
/// apply_top_k_top_p (vllm/v1/sample/ops/topk_topp_sampler.py) sends batches of 8 rows or more
/// to the Triton pivot kernel from 0.17 (PR #33538; the llm-d-planner sweep's Qwen3-14B peak
/// drops from 5.64 GiB on 0.16.0 to 2.23 GiB on 0.17.0), PyTorch's sort before.
Sampler vllmSampler(Sampler chosen, const EngineVersion &v, std::uint64_t rows)
{
    if (chosen != Sampler::Auto)
        return chosen;
    return v >= EngineVersion{0, 17, 0} && rows >= 8 ? Sampler::Triton : Sampler::Pytorch;
}

/// Streaming multiprocessors (the GPUs' datasheets): the Triton sampler runs min(SMs, rows)
/// programs, each with one fp32 row of the vocabulary. Others: 132 (an H100's).
std::uint64_t streamingMultiprocessors(const std::string &gpuId)
{
    struct Sms { const char *id; std::uint64_t sms; };
    static constexpr Sms table[] = {
        {"h100-80gb", 132}, {"h100-pcie", 114}, {"h100-nvl", 132}, {"h200", 132}, {"h200-nvl", 132},
        {"h800", 132},      {"h20", 78},        {"gh200-96gb", 132}, {"a100-80gb", 108}, {"a100-40gb", 108},
        {"a800-80gb", 108}, {"b200", 148},      {"l40s", 142},     {"l4", 58},        {"a10", 72},
        {"a10g", 80},       {"a40", 84},        {"rtx-a6000", 84}, {"rtx-6000-ada", 142}, {"rtx-4090", 128},
        {"rtx-3090", 82},   {"rtx-5090", 170},  {"t4", 40},        {"v100-16gb", 80}, {"v100-32gb", 80}};
    for (const Sms &entry : table)
        if (gpuId == entry.id)
            return entry.sms;
    return 132;
}

/// Hopper and Blackwell data-centre GPUs: PassConfig.flashinfer_max_size() looks the fusion's
/// size up in FI_ALLREDUCE_FUSION_MAX_SIZE_MB by compute capability, which has Hopper and
/// Blackwell entries only (PR #46392 adds world size 16 for SM 10.3); elsewhere the FlashInfer
/// all-reduce fusion stays off.
bool allReduceFusionGpu(const std::string &gpuId)
{
    static constexpr const char *ids[] = {"h100-80gb", "h100-pcie", "h100-nvl", "h200",  "h200-nvl", "h800",
                                          "h20",       "gh200-96gb", "b200",    "b300-sxm", "gb200",  "gb300"};
    for (const char *id : ids)
        if (gpuId == id)
            return true;
    return false;
}

/// Non-torch memory of the profile run by release, as measured (not derived): 128 MiB at tensor
/// parallel 1 and 560 MiB above (llm-d's 0.10 H100 runs); 256 MiB at tensor parallel 1 from 0.18
/// (the llm-d-planner sweep: 0.13 GiB on 0.15-0.17, 0.25 GiB on 0.18 and 0.19.0); 2,140 MiB above
/// from 0.19 on Hopper and Blackwell GPUs, when the FlashInfer all-reduce + RMSNorm fusion's IPC
/// workspace (AllReduceFusionPass, vllm/compilation/collective_fusion.py; on for 2, 4 and 8 GPUs,
/// PR #37756) is allocated during the profile (2.06 to 2.21 GiB in the 0.19.0 H100 logs at
/// tensor parallel 2 and 4).
double vllmNonTorchMiB(const EngineVersion &v, std::uint64_t tensor, const std::string &gpuId)
{
    if (tensor > 1)
        return v >= EngineVersion{0, 19, 0} && allReduceFusionGpu(gpuId) ? 2140 : 560;
    return v >= EngineVersion{0, 18, 0} ? 256 : 128;
}

/// The batch sizes vLLM captures CUDA graphs for, and how many graphs each size gets.
/// - V0 (CUDAGraphRunner, worker/model_runner.py): one full-model graph per size of
///   _BATCH_SIZES_TO_CAPTURE = [1, 2, 4] + [8 i for i in 1..32] up to max_num_seqs.
/// - V1 0.9 to 0.11.0 (VllmConfig._set_cudagraph_sizes, vllm/config/__init__.py):
///   [1, 2, 4] + range(8, min(2 x max_num_seqs, 512) + 1, 8), each at most
///   max_num_batched_tokens; PIECEWISE graphs only up to 0.10.
/// - 0.11.1 on (vllm/config/vllm.py): [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16),
///   max = min(2 x max_num_seqs, 512, max_num_batched_tokens) (51 sizes at 512).
/// - FULL_AND_PIECEWISE (the default from 0.11): a piecewise graph for every size and a full
///   decode graph for every size up to max_num_seqs (the log's "Profiling CUDA graph memory:
///   PIECEWISE=51, FULL=35" with max_num_seqs 256).
std::uint64_t vllmCudaGraphCount(const VllmGeneration &gen, std::uint64_t maxSeqs, std::uint64_t batched)
{
    const EngineVersion &v = gen.version;
    std::vector<std::uint64_t> sizes;
    auto add = [&](std::uint64_t size, std::uint64_t cap) {
        if (size <= cap)
            sizes.push_back(size);
    };
    if (!gen.v1) {
        if (v < EngineVersion{0, 2, 6})
            return 0; // CUDA graphs came with 0.2.6 (PR #1926)
        for (std::uint64_t size : {1, 2, 4})
            add(size, maxSeqs);
        for (std::uint64_t size = 8; size <= 256; size += 8)
            add(size, maxSeqs);
        return sizes.size();
    }
    const std::uint64_t largest = std::min<std::uint64_t>({2 * maxSeqs, 512, batched});
    for (std::uint64_t size : {1, 2, 4})
        add(size, largest);
    if (v >= EngineVersion{0, 11, 1}) {
        for (std::uint64_t size = 8; size < 256; size += 8)
            add(size, largest);
        for (std::uint64_t size = 256; size <= largest; size += 16)
            add(size, largest);
    } else {
        for (std::uint64_t size = 8; size <= largest; size += 8)
            add(size, largest);
    }
    std::uint64_t graphs = sizes.size();
    if (v >= EngineVersion{0, 11, 0})
        graphs += std::uint64_t(std::count_if(sizes.begin(), sizes.end(),
                                              [&](std::uint64_t size) { return size <= maxSeqs; }));
    return graphs;
}

/// The CUDA graph pool, fitted on the 0.18 and 0.19 H100 logs of dense models (24 launches of
/// 8 to 80 layers per rank, each with 51 piecewise and 51 full graphs; "Graph capturing finished
/// ... took"): 340 MiB plus 166 KiB per captured graph and layer on the rank (kernel nodes grow
/// with the layers a graph holds). Median error 0.08 GiB on those launches; mixture-of-experts
/// layers capture more (0.3 to 1.1 GiB more in the logs) and are not modelled.
double vllmCudaGraphMiB(std::uint64_t graphs, std::uint64_t layersOnRank)
{
    return 340.0 + 166.0 / 1024.0 * double(graphs) * double(layersOnRank);
}

} // namespace

EnginePhases vllmPhases(const EstimateContext &c, const Gpu &gpu)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const ServingConfig &cfg = *s.serving;
    const VllmGeneration gen = generation(cfg);
    const bool formulas = c.formulas;
    EnginePhases out;
    ServingFigures &f = out.figures;
    f.engine = Engine::Vllm;
    f.gpuId = gpu.id;

    bool published = false;
    f.deviceTotalBytes = cfg.totalGpuMemoryGiB
                             ? roundedBytes(*cfg.totalGpuMemoryGiB * double(kGiB), "GPU memory")
                             : cudaTotalBytes(gpu.id, gpu.capacityBytes(), &published);
    const std::uint64_t requested =
        roundedBytes(double(f.deviceTotalBytes) * cfg.gpuMemoryUtilization, "GPU memory");

    // Batch defaults: EngineArgs._set_default_args (V1), SchedulerConfig (V0).
    const bool a100 = gpu.name.find("A100") != std::string::npos;
    const bool big = f.deviceTotalBytes >= 70 * kGiB && !(gen.a100Rule && a100);
    const std::uint64_t maxModelLen = cfg.maxModelLen;
    std::uint64_t batched = cfg.maxNumBatchedTokens;
    std::uint64_t maxSeqs = cfg.maxNumSeqs;
    if (gen.v1) {
        if (!batched)
            batched = cfg.usage == UsageContext::Server ? (big ? 8192 : 2048) : (big ? 16384 : 8192);
        if (!maxSeqs)
            maxSeqs = big ? 1024 : 256;
    } else {
        if (!batched)
            batched = maxModelLen > 32768 ? 512 : std::max<std::uint64_t>(maxModelLen, 2048);
        if (!maxSeqs)
            maxSeqs = 256;
    }
    f.maxNumSeqs = static_cast<std::uint32_t>(maxSeqs);

    Term weights = weightsTerm(c);
    // A multimodal checkpoint's vision encoder is split across the tensor-parallel ranks like the
    // text model (mm_encoder_tp_mode "weights", the default: QKVParallelLinear and the parallel
    // MLP linears of vllm/model_executor/models/siglip.py, pixtral.py, mllama4.py); the estimator
    // keeps it whole on every rank. Mistral Small 3.1 w8a8 at TP 2 on 0.19.0 prints 12.11 GiB:
    // 12.43 whole, 12.02 split.
    if (m.visionParams && s.parallel.tensor > 1) {
        const std::uint64_t bytesPer = isQuantized(s.precision.weights) ? 2 : dtypeBits(s.precision.weights) / 8;
        const std::uint64_t split = mulChecked(m.visionParams - ceilDiv(m.visionParams, std::uint64_t(s.parallel.tensor)),
                                               bytesPer, "weights");
        weights.bytes -= std::min(split, weights.bytes);
        if (formulas)
            weights.notes.push_back("vLLM splits the vision encoder (" + n(m.visionParams) +
                                    " params) across the " + n(s.parallel.tensor) + " tensor-parallel ranks.");
    }
    // --cpu-offload-gb keeps part of the weights in CPU RAM; LoRA slots load with the model.
    const std::uint64_t offloaded = vllmCpuOffloadBytes(c, weights.bytes);
    weights.bytes -= offloaded;
    Term &host = at(out.host, ConsumerId::Weights);
    host.bytes = offloaded;
    const Term lora = vllmLoraTerm(c, host.bytes);
    if (formulas && host.bytes)
        host.expression = gib(offloaded) + " of weights (cpu_offload_gb)" +
                          (host.bytes > offloaded ? " + " + gib(host.bytes - offloaded) + " LoRA adapters (max_cpu_loras)" : "");
    weights.bytes = addChecked(weights.bytes, lora.bytes, "weights");
    if (formulas && offloaded)
        weights.expression += " - " + gib(offloaded) + " in CPU RAM (cpu_offload_gb)";
    if (formulas && lora.bytes) {
        weights.expression += " + " + lora.expression;
        weights.notes.insert(weights.notes.end(), lora.notes.begin(), lora.notes.end());
    }
    // serving.speculative: the drafter loads with the model (servingvllmspec.cpp).
    const VllmSpeculative spec = vllmSpeculative(c, batched, maxSeqs);
    weights.bytes = addChecked(weights.bytes, spec.weights.bytes, "weights");
    if (formulas && spec.weights.bytes) {
        weights.expression += " + " + spec.weights.expression;
        weights.notes.insert(weights.notes.end(), spec.weights.notes.begin(), spec.weights.notes.end());
    }
    const Term metadata = quantMetadataTerm(c);
    f.weightsBytes = addChecked(weights.bytes, metadata.bytes, "weights");

    // The profile run: a forward over max_num_batched_tokens, then the sampler over one row per
    // dummy request (min(tokens, max_num_seqs)), with the forward's hidden states still alive.
    const std::uint64_t a = c.compute;
    const std::uint64_t rows = std::min(batched, maxSeqs);
    const std::uint64_t forward = mulChecked(batched, engineForwardBytesPerToken(c), "activations");
    // What the profile ran after the forward changed in early V1: logits for every profiled token
    // (before 0.7.2), logits for one row per request without sampling (0.7.2), the sampler with an
    // int64 copy of the prompt ids (0.8), then the dummy sampler run (0.9 on).
    const EngineVersion &v = gen.version;
    const bool allTokenLogits = gen.v1 && v < EngineVersion{0, 7, 2};
    const bool logitsOnly = gen.v1 && v < EngineVersion{0, 8, 0};
    const std::uint64_t logitRows = allTokenLogits ? batched : rows;
    const Sampler sampler = vllmSampler(cfg.sampler, v, rows);
    std::uint64_t samplerPerLogit = logitsOnly ? a : a + (sampler == Sampler::Pytorch ? 36 : 12);
    if (gen.v1 && !logitsOnly && v < EngineVersion{0, 9, 0})
        samplerPerLogit += 8; // prompt_token_ids = torch.ones_like(logits, dtype=torch.int64)
    const std::uint64_t hiddenBytes = productChecked(
        "activations", addChecked(batched, logitsOnly ? 0 : 2 * rows, "activations"), m.hidden, a);
    const std::uint64_t logits = productChecked("logits", logitRows, std::uint64_t(m.vocab), samplerPerLogit);
    // The Triton kernel's scratch: one fp32 row of the vocabulary per program, min(SMs, rows)
    // programs (apply_top_k_top_p_triton's _TRITON_BUFFER_CACHE).
    const std::uint64_t tritonBuffer =
        !logitsOnly && sampler == Sampler::Triton
            ? productChecked("logits", std::min<std::uint64_t>(streamingMultiprocessors(gpu.id), rows),
                             std::uint64_t(m.vocab), 4)
            : 0;
    const std::uint64_t samplerBytes =
        addChecked(addChecked(hiddenBytes, logits, "activations"), tritonBuffer, "activations");
    Term activation, samplerTerm;
    const std::string forwardText = formulas ? n(batched) + " profiled tokens (max_num_batched_tokens) x " +
                                                   n(engineForwardBytesPerToken(c)) + " B (a layer's working set)"
                                             : std::string();
    if (!cfg.kvCacheMemoryBytes) {
        if (forward >= samplerBytes) {
            activation.bytes = forward;
            activation.expression = forwardText;
        } else {
            samplerTerm.bytes = samplerBytes;
            if (formulas) {
                samplerTerm.expression =
                    n(logitRows) + (allTokenLogits ? " profiled tokens" : " dummy requests") + " x " +
                    n(m.vocab) + " vocab x " + n(samplerPerLogit) +
                    (logitsOnly ? std::string(" B (logits)")
                                : std::string(" B (logits, fp32 copy, ") +
                                      (sampler == Sampler::Pytorch   ? "top-k/top-p sort: values, int64 "
                                                                       "indices, their scratch)"
                                       : sampler == Sampler::Triton  ? "probabilities and the exponential "
                                                                       "draws; Triton top-k/top-p in place)"
                                                                     : "FlashInfer top-k mask and "
                                                                       "probabilities)")) +
                    " + " + n(batched + 2 * rows) + " hidden states x " + n(m.hidden) + " x " + n(a) + " B" +
                    (tritonBuffer ? " + " + n(tritonBuffer) + " B Triton scratch (one fp32 vocabulary row per SM)"
                                  : std::string());
                samplerTerm.notes.push_back(
                    "vLLM's profile run ends with a dummy sampler run over one row per request "
                    "slot (max_num_seqs); its peak is counted before the KV cache is sized.");
            }
        }
    }
    if (!cfg.kvCacheMemoryBytes)
        vllmSpeculativeProfile(spec, {forward, samplerBytes, hiddenBytes, rows, std::uint64_t(m.vocab), a, forwardText},
                               activation, samplerTerm, formulas);
    f.activationBytes = activation.bytes + samplerTerm.bytes;

    // Non-torch memory: measured from a pre-instance baseline (0.6.5 on, V1 0.9.2 on); before
    // that from used memory, so the CUDA context was in it.
    Term workspace;
    if (gen.nonTorchCounted && !cfg.kvCacheMemoryBytes) {
        const double defaultMiB = vllmNonTorchMiB(v, s.parallel.tensor, gpu.id);
        f.nonTorchBytes = roundedBytes(cfg.nonTorchMiB.value_or(defaultMiB) * double(kMiB), "non-torch memory");
        if (gen.nonTorchHasContext)
            f.nonTorchBytes = addChecked(f.nonTorchBytes, cudaContextBytes(s), "non-torch memory");
    }
    const std::uint64_t graphs = cfg.enforceEager ? 0 : vllmCudaGraphCount(gen, maxSeqs, batched);
    const std::uint64_t layersOnRank = ceilDiv(std::uint64_t(std::max(1, m.layers)),
                                               std::max<std::uint64_t>(1, s.parallel.pipeline));
    if (graphs)
        f.cudaGraphBytes = roundedBytes(
            cfg.cudaGraphMiB.value_or(vllmCudaGraphMiB(graphs, layersOnRank)) * double(kMiB), "CUDA graphs");
    // Model Runner V2, the default for dense models from 0.25.1, answers the graph memory profile
    // with a placeholder: GPUModelRunner.profile_cudagraph_memory() "return 0" (PR #36520;
    // issue #49224: "skips CUDA graph memory reservation ... causing OOM during capture_model()";
    // the issue is closed; its fix PR #49233 was closed unmerged, and which release carries a
    // fix was not found). Modelled for the 0.25 releases the reports name; later releases are
    // assumed to reserve the pool again (a 2026 build's RTX 4090 log prints a budget with it),
    // and the estimate says so. Mixture-of-experts and linear-attention models keep the legacy
    // runner, which measures them.
    const bool linearLayers = m.hasKind(LayerKind::GatedDeltaNet) || m.hasKind(LayerKind::Lightning) ||
                              m.hasKind(LayerKind::Kda) || m.hasKind(LayerKind::Mamba2) ||
                              m.hasKind(LayerKind::Mamba1) || m.hasKind(LayerKind::ShortConv);
    const bool denseV2 = gen.v1 && v >= EngineVersion{0, 25, 1} && m.moeLayers() == 0 && !linearLayers;
    const bool v2Runner = denseV2 && v < EngineVersion{0, 26, 0};
    if (formulas && denseV2 && !v2Runner && gen.graphsBeforeKv && !cfg.enforceEager)
        f.notes.push_back("Assumed: this release's Model Runner V2 reserves the CUDA graph pool before the KV "
                          "cache (in 0.25 its profile returned 0, vLLM issue #49224).");
    f.cudaGraphInBudget = gen.graphsBeforeKv && !v2Runner;
    workspace.bytes = addChecked(f.nonTorchBytes, f.cudaGraphBytes, "workspace");
    if (formulas) {
        workspace.expression = gib(f.nonTorchBytes) + " non-torch (cuBLAS, NCCL and all-reduce buffers)";
        if (f.cudaGraphBytes)
            workspace.expression += " + " + gib(f.cudaGraphBytes) + " CUDA graph pool" +
                                    (cfg.cudaGraphMiB ? std::string()
                                                      : " (" + n(graphs) + " graphs x " + n(layersOnRank) +
                                                            " layers x 166 KiB + 340 MiB)");
        workspace.notes.push_back(f.cudaGraphInBudget
                                      ? "CUDA graph memory is profiled before the KV cache is sized "
                                        "(vLLM 0.21 on)."
                                  : gen.graphsBeforeKv
                                      ? "vLLM's Model Runner V2 (the default for dense models from 0.25.1) "
                                        "reserves no CUDA graph memory before the KV cache (its profile "
                                        "returns 0): the pool comes out of the (1 - gpu_memory_utilization) "
                                        "headroom."
                                      : "CUDA graphs are captured after the KV cache exists: their pool "
                                        "comes out of the (1 - gpu_memory_utilization) headroom.");
    }

    std::uint64_t nonKv = addChecked(addChecked(f.weightsBytes, f.activationBytes, "GPU memory"),
                                     f.nonTorchBytes, "GPU memory");
    if (f.cudaGraphInBudget)
        nonKv = addChecked(nonKv, f.cudaGraphBytes, "GPU memory");
    std::uint64_t available = 0;
    if (cfg.kvCacheMemoryBytes) {
        available = *cfg.kvCacheMemoryBytes;
        f.budgetBytes = addChecked(nonKv, available, "GPU memory");
    } else {
        available = requested > nonKv ? requested - nonKv : 0;
        f.budgetBytes = requested;
    }

    // KV blocks: one page per layer per block, the same number of blocks in every layer.
    // Linear layers' states are in the model dtype (mamba_cache_dtype auto), KDA's recurrent
    // state in fp32 (MambaStateDtypeCalculator); MLA as the latent, the indexer's keys in fp8.
    KvOptions options = kvOptions(s);
    options.type = engineKvValueType(cfg.kvCacheDtype, s.precision.compute);
    options.indexerFp8 = true;
    KvLayout layout = kvLayout(s, options);
    if (spec.kvScenario) // the drafter's attention layers are in the KV cache spec too
        for (const KvLayerGroup &group : kvLayout(*spec.kvScenario, options).groups)
            layout.groups.push_back(group);
    const std::uint64_t blockSize = hybridBlockSize(layout, cfg.blockSize);
    const std::vector<KvKind> kinds = kvKinds(layout, blockSize);
    f.blockSize = static_cast<std::uint32_t>(std::min<std::uint64_t>(blockSize, UINT32_MAX));
    f.kvBytesPerToken = kvBytesPerToken(layout);
    std::uint64_t slots = 0;   // tensors sharing the block count (layers, or one KV group's)
    std::uint64_t groups = 1;  // KV cache groups
    std::uint64_t page = 0;
    if (kinds.size() <= 1) {
        for (const KvKind &kind : kinds) {
            slots = kind.group.layers;
            page = kind.page;
        }
    } else {
        std::uint64_t fewest = UINT64_MAX, most = 0;
        for (const KvKind &kind : kinds) {
            fewest = std::min(fewest, kind.group.layers);
            most = std::max(most, kind.group.layers);
            page = std::max(page, kind.page);
        }
        slots = 2 * most < 3 * fewest ? most : fewest; // _get_kv_cache_groups_uniform_page_size
        groups = 0;
        for (const KvKind &kind : kinds)
            groups += ceilDiv(kind.group.layers, slots);
    }
    const std::uint64_t blockBytes = mulChecked(page, std::max<std::uint64_t>(1, slots), "KV cache");
    f.blocks = blockBytes ? available / blockBytes : 0;
    f.kvCacheBytes = mulChecked(f.blocks, blockBytes, "KV cache");

    // Blocks one request of `tokens` needs across every KV group.
    auto requestBlocks = [&](std::uint64_t tokens) {
        std::uint64_t total = 0;
        for (const KvKind &kind : kinds)
            total += (kinds.size() <= 1 ? 1 : ceilDiv(kind.group.layers, slots)) *
                     blocksFor(kind, tokens, blockSize, batched);
        return total;
    };
    f.maxConcurrencyTokens = maxModelLen;
    const std::uint64_t perRequest = std::max<std::uint64_t>(1, requestBlocks(maxModelLen));
    if (gen.printing == 0) {
        f.kvCacheTokens = mulChecked(f.blocks, blockSize, "KV cache");
        f.maxConcurrency = double(f.kvCacheTokens) / double(maxModelLen);
    } else {
        f.maxConcurrency = double(f.blocks) / double(perRequest);
        f.kvCacheTokens = gen.printing == 1 ? mulChecked(f.blocks / groups, blockSize, "KV cache")
                                            : static_cast<std::uint64_t>(f.maxConcurrency * double(maxModelLen));
    }
    f.startsOk = gen.v1 ? requestBlocks(maxModelLen) <= f.blocks && f.blocks > 0
                        : maxModelLen <= mulChecked(f.blocks, blockSize, "KV cache") && f.blocks > 0;
    // After the KV cache: compile_or_warm_up_model (vllm/v1/worker/gpu_worker.py) captures the
    // graphs, then warms the sampler up over max_num_seqs dummy requests ("to avoid memory
    // fragmentation", _dummy_sampler_run). The profile's activation peak was released
    // (empty_cache) before the KV cache was allocated; what stays is the weights, the non-torch
    // memory, the KV cache, the graph pool and the CUDA context (outside the measured non-torch
    // memory from 0.9.2). The warm-up's logits must fit in the rest, or the engine stops with
    // "CUDA out of memory occurred when warming up sampler with N dummy requests". Allocator
    // fragmentation is not modelled: gpt-oss-20b at 0.95 on H100 failed with 1.78 GiB "reserved
    // by PyTorch but unallocated" while this leaves room (docs/serving.md).
    bool warmupFails = false;
    if (gen.v1 && v >= EngineVersion{0, 9, 0} && f.startsOk && !cfg.kvCacheMemoryBytes) {
        const std::uint64_t warmup = addChecked(
            addChecked(logits, tritonBuffer, "activations"),
            productChecked("activations", 2 * rows, m.hidden, a), "activations");
        const std::uint64_t used = addChecked(
            addChecked(addChecked(f.weightsBytes, f.nonTorchBytes, "GPU memory"), f.kvCacheBytes, "GPU memory"),
            addChecked(gen.nonTorchHasContext ? 0 : cudaContextBytes(s), f.cudaGraphBytes, "GPU memory"),
            "GPU memory");
        const std::uint64_t left = f.deviceTotalBytes > used ? f.deviceTotalBytes - used : 0;
        warmupFails = warmup > left;
        if (warmupFails) {
            f.startsOk = false;
            if (formulas)
                f.notes.push_back("vLLM fails after the KV cache is allocated: \"CUDA out of memory occurred "
                                  "when warming up sampler with " + std::to_string(rows) + " dummy requests\" (the warm-up needs " +
                                  gib(warmup) + ", " + gib(left) + " is left beside the KV cache, the CUDA graphs and "
                                  "the CUDA context); lower max_num_seqs or gpu_memory_utilization.");
        }
    }
    // vLLM's estimate_max_model_len: the longest request whose blocks fit.
    std::uint64_t low = 0, high = std::uint64_t(16) << 20;
    while (low < high) {
        const std::uint64_t mid = low + (high - low + 1) / 2;
        if (requestBlocks(mid) <= f.blocks)
            low = mid;
        else
            high = mid - 1;
    }
    f.maxLenThatFits = low;

    // The requests: their blocks, within the pool and the scheduler's limits.
    const std::vector<std::uint64_t> counts = cfg.requests.counts();
    std::uint64_t usedBlocks = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const std::uint64_t tokens = cfg.requests.classes[i].tokens();
        usedBlocks = addChecked(usedBlocks, mulChecked(counts[i], requestBlocks(tokens + spec.lookahead), "KV cache"),
                                "KV cache");
        f.requestTokens = addChecked(f.requestTokens, mulChecked(counts[i], tokens, "KV cache"), "KV cache");
    }
    f.requestSequences = cfg.requests.concurrency;
    f.requestKvBytes = mulChecked(std::min(usedBlocks, f.blocks), blockBytes, "KV cache");
    const std::uint64_t longest = longestRequest(cfg.requests);
    const std::uint64_t kvSequences = f.blocks / std::max<std::uint64_t>(1, requestBlocks(longest + spec.lookahead));
    if (longest > maxModelLen)
        f.limit = ServingLimit::MaxModelLen;
    else if (maxSeqs < kvSequences)
        f.limit = ServingLimit::MaxNumSeqs;
    else
        f.limit = ServingLimit::KvCache;
    f.requestsFit = f.startsOk && usedBlocks <= f.blocks && cfg.requests.concurrency <= maxSeqs &&
                    longest <= maxModelLen;

    // What the engine reserves, consumer by consumer.
    Composition profile;
    at(profile, ConsumerId::Weights) = weights;
    at(profile, ConsumerId::QuantMetadata) = metadata;
    at(profile, ConsumerId::Activations) = activation;
    at(profile, ConsumerId::Logits) = samplerTerm;
    Term nonTorch;
    nonTorch.bytes = f.nonTorchBytes;
    nonTorch.expression = workspace.expression;
    at(profile, ConsumerId::Workspace) = nonTorch;
    out.profile = profile;

    Composition serve = profile;
    at(serve, ConsumerId::Workspace) = workspace;
    Term used, free;
    used.bytes = f.requestKvBytes;
    free.bytes = f.kvCacheBytes - f.requestKvBytes;
    if (formulas) {
        const std::string perBlock = n(slots) + " layers x " + n(blockSize) + " tokens x " +
                                     (layout.groups.empty() ? std::string() : layout.groups[0].what) +
                                     " x " + layout.type.name;
        used.expression = n(std::min(usedBlocks, f.blocks)) + " blocks for " + n(f.requestSequences) +
                          " requests (" + n(f.requestTokens) + " tokens) x " + n(blockBytes) + " B per block";
        used.notes.push_back("One block holds " + n(blockSize) + " tokens of every layer (" + perBlock + ").");
        free.expression = n(f.blocks) + " blocks (" + gib(available) + " available for KV cache) - " +
                          n(std::min(usedBlocks, f.blocks)) + " in use";
        free.notes.push_back("vLLM allocates the whole pool at start-up, whatever the load.");
    }
    at(serve, ConsumerId::KvCache) = used;
    at(serve, ConsumerId::KvCacheFree) = free;
    out.serve = serve;

    if (formulas) {
        f.notes.push_back("requested memory = " + gib(f.deviceTotalBytes) + " total x " +
                          formatDecimal(cfg.gpuMemoryUtilization) + " = " + gib(requested) +
                          (published ? "" : " (CUDA total not published for this GPU: catalog capacity - 480 MiB)"));
        f.notes.push_back("Model loading took " + gib(f.weightsBytes));
        f.notes.push_back("Available KV cache memory: " + gib(available));
        f.notes.push_back("GPU KV cache size: " + n(f.kvCacheTokens) + " tokens");
        f.notes.push_back("Maximum concurrency for " + n(maxModelLen) + " tokens per request: " +
                          formatDecimal(f.maxConcurrency, 2) + "x");
        if (!f.startsOk && !warmupFails)
            f.notes.push_back("vLLM refuses to start: one request of max_model_len (" + n(maxModelLen) +
                              ") needs more KV cache than is available; the estimated maximum model "
                              "length is " + n(f.maxLenThatFits) + ".");
        f.notes.insert(f.notes.end(), spec.notes.begin(), spec.notes.end());
        f.notes.push_back("max_num_batched_tokens " + n(batched) + ", max_num_seqs " + n(maxSeqs) +
                          ", vLLM " + std::to_string(gen.version.major) + "." +
                          std::to_string(gen.version.minor) + (gen.v1 ? " (V1 engine)" : " (V0 engine)"));
    }
    return out;
}

std::uint64_t engineForwardBytesPerToken(const EstimateContext &c)
{
    const ModelArch &m = c.m;
    const std::uint64_t tensor = c.parallel.tensor;
    const std::uint64_t h = m.hidden;
    const std::uint64_t q = ceilDiv(std::uint64_t(m.heads) * m.headDim, tensor);
    const std::uint64_t kv = ceilDiv(std::uint64_t(m.kvHeads), tensor) * m.headDim;
    // The widest MLP a token passes through: a dense layer's, or its routed experts' (each of
    // the expert width, moe_intermediate_size) and shared experts' together.
    const std::uint64_t perWidth = m.mlp == Mlp::Gated ? 3 : 2;
    const std::uint64_t dense = m.layersWithMlp(LayerMlp::Dense) > 0 ? ceilDiv(std::uint64_t(m.intermediate), tensor) : 0;
    const bool moe = m.moeLayers() > 0;
    const std::uint64_t k = moe ? m.expertsPerToken : 0;
    const std::uint64_t experts = moe ? ceilDiv(std::uint64_t(m.routedWidth()) * k +
                                                    std::uint64_t(m.sharedWidth()) * std::uint64_t(m.sharedExperts),
                                                tensor)
                                      : 0;
    // Residual, normed input and the layer's output, plus the attention's q, k, v and output, or
    // the MLP's merged gate_up and activation (with MoE's output cache per routed expert).
    const std::uint64_t attention = 3 * h + 2 * q + 2 * kv;
    const std::uint64_t mlp = 3 * h + perWidth * std::max(dense, experts) + (moe ? k * h : 0);
    return mulChecked(std::max(attention, mlp), c.compute, "activations");
}

std::uint64_t longestRequest(const ServingRequests &requests)
{
    std::uint64_t longest = 0;
    for (const RequestClass &kind : requests.classes)
        longest = std::max(longest, kind.tokens());
    return longest;
}

KvValueType engineKvValueType(EngineKvType type, DType modelDType)
{
    KvValueType t;
    switch (type) {
    case EngineKvType::Auto: return kvValueType(modelDType);
    case EngineKvType::Fp8:
    case EngineKvType::Fp8E4m3:
    case EngineKvType::Fp8E5m2: t = {1, 1, "fp8"}; break;
    case EngineKvType::Nvfp4: t = {16, 9, "nvfp4"}; break; // 16 fp4 values + one fp8 scale
    case EngineKvType::F32: t = {1, 4, "f32"}; break;
    case EngineKvType::F16: t = {1, 2, "f16"}; break;
    case EngineKvType::Bf16: t = {1, 2, "bf16"}; break;
    case EngineKvType::Q8_0: t = {32, 34, "q8_0"}; break; // ggml block_q8_0: fp16 scale + 32 x int8
    case EngineKvType::Q5_1: t = {32, 24, "q5_1"}; break;
    case EngineKvType::Q5_0: t = {32, 22, "q5_0"}; break;
    case EngineKvType::Q4_1: t = {32, 20, "q4_1"}; break;
    case EngineKvType::Q4_0: t = {32, 18, "q4_0"}; break;
    case EngineKvType::Iq4Nl: t = {32, 18, "iq4_nl"}; break;
    }
    t.name = enumName(type);
    return t;
}

const Gpu *engineGpu(const EstimateContext &c)
{
    // The GPU the verdict is about (target_gpu, else the largest of gpus): one target GPU.
    return targetGpu(c.s, c.catalog);
}

} // namespace headroom::detail
