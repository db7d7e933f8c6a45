// SPDX-License-Identifier: GPL-3.0-or-later
// llama.cpp (docs/serving.md): llama_model::load_tensors puts the output layer, then the last
// n_gpu_layers - 1 repeating layers on the GPU (the token embeddings never), each tensor in the
// type llama-quantize gives it (llamacppweights.h); llama_kv_cache allocates K and V for n_ctx cells per layer on that layer's
// device (unless --no-kv-offload); the compute buffer holds the worst-case graph of n_ubatch
// tokens.
#include "serving/servingengines.h"

#include "serving/llamacppcompute.h"
#include "serving/llamacppdevices.h"
#include "serving/llamacpphost.h"
#include "serving/llamacppweights.h"
#include "training/overhead.h"

#include "model/architecture.h"
#include "scenario/checked.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "scenario/units.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <utility>

namespace headroom::detail {

namespace {

/// The layout with `layers` of its layers (scaled group by group).
KvLayout someLayers(const KvLayout &layout, std::uint64_t layers, std::uint64_t of)
{
    KvLayout part = layout;
    for (KvLayerGroup &group : part.groups)
        group.layers = of ? group.layers * layers / of : 0;
    return part;
}

/// K (or V) bytes of `layers` layers for `cells` cells (MLA: K is latent + rope, V the latent).
std::uint64_t halfCache(const KvLayout &layout, std::uint64_t layers, std::uint64_t of, std::uint64_t cells,
                        bool keys)
{
    const KvLayout part = someLayers(layout, layers, of);
    return keys ? kvKeyBytes(part, 1, cells) : kvValueBytes(part, 1, cells);
}

/// llama_memory_recurrent: the r (conv) and s (recurrent) states in f32, one per sequence
/// (n_seq_max = n_parallel), for the recurrent layers among `layers` of `of`.
std::uint64_t recurrentStates(const KvLayout &layout, std::uint64_t layers, std::uint64_t of, std::uint64_t seqs)
{
    return mulChecked(stateBytesPerSequence(someLayers(layout, layers, of)), std::max<std::uint64_t>(1, seqs),
                      "KV cache");
}

KvLayout llamaLayout(const Scenario &s, EngineKvType type)
{
    KvOptions options = kvOptions(s);
    options.type = engineKvValueType(type, DType::FP16);
    options.mla = MlaCache::SeparateKv;
    options.convBytes = options.recurrentBytes = 4;
    options.indexerFp8 = false;
    return kvLayout(s, options);
}

} // namespace

EnginePhases llamaCppPhases(const EstimateContext &c, const Gpu &gpu)
{
    const Scenario &s = c.s;
    const ModelArch &m = c.m;
    const ServingConfig &cfg = *s.serving;
    const bool formulas = c.formulas;
    EnginePhases out;
    ServingFigures &f = out.figures;
    f.engine = Engine::LlamaCpp;
    f.gpuId = gpu.id;
    f.deviceTotalBytes = cudaTotalBytes(gpu.id, gpu.capacityBytes());
    f.budgetBytes = f.deviceTotalBytes;

    // The devices: the first len(tensor_split) of the scenario's gpus in order (CUDA0, CUDA1, ...),
    // only the main GPU with split_mode none (llama_model_load_from_file: "if using single GPU
    // mode, remove all except the main GPU"); one device without a split.
    const std::uint64_t contextBytes = cudaContextBytes(s);
    std::vector<LlamaDevice> devs;
    const bool several = !cfg.tensorSplit.empty();
    {
        std::vector<std::uint32_t> indices;
        if (!several)
            indices = {0};
        else if (cfg.splitMode == LlamaSplitMode::None)
            indices = {cfg.mainGpu};
        else
            for (std::uint32_t i = 0; i < cfg.tensorSplit.size(); ++i)
                indices.push_back(i);
        for (const std::uint32_t i : indices) {
            const Gpu *g = i < s.gpus.size() ? c.catalog.findGpu(s.gpus[i]) : nullptr;
            if (!g)
                throw ScenarioError("serving.tensor_split", "names device " + n(i) + ", which is not a catalog GPU of gpus");
            LlamaDevice d;
            d.index = i;
            d.gpuId = g->id;
            d.capacityBytes = g->capacityBytes();
            // ggml_backend_dev_memory's free memory at load: the CUDA total less the context.
            const std::uint64_t total = cudaTotalBytes(g->id, d.capacityBytes);
            d.freeBytes = total > contextBytes ? total - contextBytes : 0;
            d.contextBytes = contextBytes;
            devs.push_back(d);
        }
    }
    const std::size_t nd = devs.size();
    std::vector<std::uint64_t> freeBytes;
    for (const LlamaDevice &d : devs)
        freeBytes.push_back(d.freeBytes);
    std::vector<double> proportions = cfg.tensorSplit;
    if (cfg.splitMode == LlamaSplitMode::None || !several)
        proportions = {1.0};
    const std::vector<float> points = llamaSplitPoints(proportions, freeBytes);
    for (std::size_t d = 0; d < nd; ++d)
        devs[d].split = double(points[d]) - (d ? double(points[d - 1]) : 0.0);

    // Placement (llama_model::load_tensors): layers 0..n_layer-1 and the output layer as layer
    // n_layer; i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0), so the output layer goes first,
    // then the last blocks, each to the device of its place in the split. The token embeddings
    // stay in CPU RAM.
    const std::uint64_t layers = std::uint64_t(m.layers);
    const std::uint64_t offload = cfg.nGpuLayers < 0 ? layers + 1
                                                     : std::min<std::uint64_t>(std::uint64_t(cfg.nGpuLayers), layers + 1);
    const std::uint64_t gpuStart = layers + 1 - offload; // i_gpu_start
    const std::vector<int> layerDevice = llamaLayerDevices(layers, offload, points);
    const int outputDevice = layerDevice[std::size_t(layers)];
    const bool outputOnGpu = outputDevice >= 0;
    const std::uint64_t gpuLayers = layers - std::min(gpuStart, layers);
    f.gpuLayers = static_cast<std::uint32_t>(gpuLayers);
    std::vector<std::uint64_t> layersOn(nd, 0);
    for (std::uint64_t i = 0; i < layers; ++i)
        if (layerDevice[std::size_t(i)] >= 0)
            ++layersOn[std::size_t(layerDevice[std::size_t(i)])];

    // Every tensor typed as llama-quantize types it for the file type (llamacppweights.h).
    const bool fromFile = cfg.fileBytes && cfg.fileBytes->layers.size() == std::size_t(m.layers) &&
                          cfg.fileBytes->experts.size() == std::size_t(m.layers);
    // The solvers and `fits` estimate one model and file type many times over (other -ngl,
    // --n-cpu-moe): the last typing is kept, per thread, for the same model and type.
    thread_local std::optional<std::pair<std::pair<ModelArch, GgufType>, LlamaWeights>> last;
    thread_local std::uint64_t typing = 0; // which typing `last` holds (the host share's cache below)
    if (!fromFile && !(last && last->first.second == cfg.weightType && last->first.first == m)) {
        last.emplace(std::make_pair(m, cfg.weightType), llamaWeights(m, c.params, cfg.weightType));
        ++typing;
    }
    LlamaWeights file;
    const LlamaWeights &lw = fromFile ? file : last->second;
    if (fromFile) { // the GGUF file's own tensors
        LlamaWeights &lw = file;
        lw.layerBytes = cfg.fileBytes->layers;
        lw.expertBytes = cfg.fileBytes->experts;
        lw.outputBytes = cfg.fileBytes->output;
        lw.embeddingBytes = cfg.fileBytes->embedding;
        lw.totalBytes = cfg.fileBytes->total;
        lw.bytesByType = cfg.fileBytes->byType;
        lw.notes = {"the bytes are the GGUF file's own tensors, not the file type's rules"};
    }
    // --n-cpu-moe N / --cpu-moe: the expert tensors of the first N (all) layers stay in CPU RAM
    // (common/arg.cpp: the -ot rule "blk\.(0|...|N-1)\.ffn_(up|down|gate)_exps=CPU").
    const std::uint64_t cpuMoeLayers = cfg.cpuMoe ? layers : std::min<std::uint64_t>(cfg.nCpuMoe, layers);
    std::vector<std::uint64_t> devWeights(nd, 0);
    std::uint64_t expertsOnCpu = 0;
    if (outputOnGpu)
        devWeights[std::size_t(outputDevice)] = lw.outputBytes;
    for (std::uint64_t i = 0; i < layers; ++i) {
        const bool moeOnCpu = i < cpuMoeLayers;
        const std::uint64_t experts = moeOnCpu ? lw.expertBytes[i] : 0;
        if (const int d = layerDevice[std::size_t(i)]; d >= 0) {
            devWeights[std::size_t(d)] = addChecked(devWeights[std::size_t(d)], lw.layerBytes[i] - experts, "weights");
            expertsOnCpu = addChecked(expertsOnCpu, experts, "weights");
        }
    }
    // -ot rules (llama_model::load_tensors: the first rule whose regex_search matches a tensor's
    // name picks its buffer; --n-cpu-moe's own rules come after the user's, common/arg.cpp).
    const bool overrides = !cfg.overrideTensor.empty() && !fromFile;
    std::vector<std::pair<std::regex, int>> rules; // regex, device (-1: CPU)
    if (overrides)
        for (const std::string &rule : cfg.overrideTensor) {
            const std::size_t eq = rule.rfind('=');
            const std::string buffer = rule.substr(eq + 1);
            int device = -1;
            for (std::size_t d = 0; d < nd; ++d)
                if (buffer == "CUDA" + std::to_string(devs[d].index))
                    device = int(d);
            rules.emplace_back(std::regex(rule.substr(0, eq)), device);
        }
    // The device of one tensor (-1: the CPU): its layer's, unless a rule or --n-cpu-moe moves it.
    auto tensorDevice = [&](const LlamaTensor &t) {
        int device = t.layer >= 0 ? layerDevice[std::size_t(t.layer)]
                                  : (t.role != LlamaTensorRole::TokenEmbd ? outputDevice : -1);
        if (!rules.empty()) {
            const std::string name = t.layer >= 0 ? "blk." + std::to_string(t.layer) + "." + t.name : std::string(t.name);
            for (const auto &[regex, to] : rules)
                if (std::regex_search(name, regex))
                    return to;
        }
        if (t.experts && std::uint64_t(t.layer) < cpuMoeLayers)
            device = -1;
        return device;
    };
    if (overrides) {
        std::fill(devWeights.begin(), devWeights.end(), 0);
        expertsOnCpu = 0;
        for (const LlamaTensor &t : lw.tensors)
            if (const int device = tensorDevice(t); device >= 0)
                devWeights[std::size_t(device)] = addChecked(devWeights[std::size_t(device)], t.bytes, "weights");
        if (m.tiedEmbeddings && outputOnGpu) // the output layer's copy of token_embd
            devWeights[std::size_t(outputDevice)] =
                addChecked(devWeights[std::size_t(outputDevice)], lw.embeddingBytes, "weights");
    }
    std::uint64_t gpuWeights = 0;
    for (const std::uint64_t b : devWeights)
        gpuWeights = addChecked(gpuWeights, b, "weights");
    // split_mode row: each offloaded matrix is cut by rows over every device in the split's
    // proportions (make_gpu_buft_list puts ggml_backend_split_buffer_type first).
    const bool rows = several && cfg.splitMode == LlamaSplitMode::Row && nd > 1;
    if (rows) {
        std::uint64_t given = 0;
        for (std::size_t d = 0; d < nd; ++d) {
            devWeights[d] = d + 1 < nd ? std::uint64_t(double(gpuWeights) * devs[d].split) : gpuWeights - given;
            given += devWeights[d];
        }
    }
    // CPU RAM: what is not on the GPU (the tied output's copy of token_embd is extra on the GPU).
    const std::uint64_t fileBytes = lw.totalBytes;
    const std::uint64_t gpuFromFile = m.tiedEmbeddings && outputOnGpu ? gpuWeights - lw.embeddingBytes : gpuWeights;
    const std::uint64_t hostWeights = fileBytes > gpuFromFile ? fileBytes - gpuFromFile : 0;
    std::uint64_t typicalLayer = 0;
    for (const std::uint64_t b : lw.layerBytes)
        typicalLayer = std::max(typicalLayer, b);

    // The load mode (--load-mode): which of the file's pages stay mapped, which are anonymous,
    // which are locked (llamacpphost.h). The tensors in the file's order, each CPU or not.
    // Reused per thread: a search runs this estimate many times, and a fresh list of every
    // tensor each time cost more than the rest of the estimate.
    // The placement alone decides it, so a search over n_ctx or n_parallel reuses the last one.
    struct HostKey
    {
        std::uint64_t typing;
        std::size_t deviceCount; // an -ot rule naming CUDA1 matches nothing on one device
        std::vector<int> devices;
        std::uint64_t cpuMoe;
        LlamaLoadMode mode;
        std::vector<std::string> rules;
        bool operator==(const HostKey &) const = default;
    };
    struct HostPlacement
    {
        LlamaHostWeights load;
        LlamaHostOperands operands; // the largest block and output matmul weights in CPU RAM
    };
    thread_local std::optional<std::pair<HostKey, HostPlacement>> lastHost;
    thread_local std::vector<LlamaFileTensor> fileTensors;
    fileTensors.clear();
    std::optional<HostKey> hostKey;
    if (!fromFile)
        hostKey = HostKey{typing, nd, layerDevice, cpuMoeLayers, cfg.loadMode, cfg.overrideTensor};
    const bool hostKnown = hostKey && lastHost && lastHost->first == *hostKey;
    // The matmul weights in CPU RAM that the first GPU copies for its op (the token embeddings'
    // GET_ROWS never moves; a tied output reads token_embd).
    LlamaHostOperands operands;
    if (!fromFile && !hostKnown) {
        const LlamaTensor *largest = nullptr;
        for (const LlamaTensor &t : lw.tensors) {
            const bool cpu = tensorDevice(t) < 0;
            fileTensors.push_back({t.layer, t.name, t.bytes, cpu});
            if (!cpu || t.role == LlamaTensorRole::TokenEmbd || t.role == LlamaTensorRole::Small)
                continue;
            if (t.layer < 0) {
                operands.outputWeightBytes = t.bytes;
                operands.outputWeight = t.name;
            } else if (!largest || t.bytes > largest->bytes) {
                largest = &t;
            }
        }
        if (largest) {
            operands.blockWeightBytes = largest->bytes;
            operands.blockWeight = "blk." + std::to_string(largest->layer) + "." + largest->name;
        }
    } else if (fromFile) { // a GGUF file's blocks: each block's experts after its other tensors
        const LlamaFileBytes &fb = *cfg.fileBytes;
        const bool sized = fb.largest.size() == std::size_t(layers) && fb.largestExpert.size() == std::size_t(layers);
        for (std::uint64_t i = 0; i < layers && sized; ++i) {
            const bool onCpu = layerDevice[i] < 0;
            if (onCpu && fb.largest[i] > operands.blockWeightBytes) {
                operands.blockWeightBytes = fb.largest[i];
                operands.blockWeight = fb.largestName[i];
            }
            if ((onCpu || i < cpuMoeLayers) && fb.largestExpert[i] > operands.blockWeightBytes) {
                operands.blockWeightBytes = fb.largestExpert[i];
                operands.blockWeight = fb.largestExpertName[i];
            }
        }
        if (!outputOnGpu) {
            operands.outputWeightBytes = fb.outputWeight;
            operands.outputWeight = m.tiedEmbeddings ? "token_embd.weight" : "output.weight";
        }
        std::uint64_t parts = addChecked(lw.outputBytes, lw.embeddingBytes, "weights");
        fileTensors.push_back({-1, "output", lw.outputBytes, !outputOnGpu});
        fileTensors.push_back({-1, "token_embd", lw.embeddingBytes, true});
        for (std::uint64_t i = 0; i < layers; ++i) {
            const int il = int(i);
            const bool onCpu = layerDevice[i] < 0;
            fileTensors.push_back({il, "a", lw.layerBytes[i] - lw.expertBytes[i], onCpu});
            fileTensors.push_back({il, "z_exps", lw.expertBytes[i], onCpu || i < cpuMoeLayers});
            parts = addChecked(parts, lw.layerBytes[i], "weights");
        }
        if (lw.totalBytes > parts) // tensors of no block and no role (rope_freqs): with the CPU's
            fileTensors.push_back({-1, "rope_freqs", lw.totalBytes - parts, true});
    }
    // llamaWeights gives its tensors in the file's order; a GGUF file's blocks are sorted here.
    if (!fromFile && !hostKnown && m.tiedEmbeddings && !outputOnGpu) {
        operands.outputWeightBytes = lw.embeddingBytes; // the output layer's token_embd, on the CPU
        operands.outputWeight = "token_embd.weight";
    }
    const LlamaHostWeights hostLoad = hostKnown ? lastHost->second.load
                                      : fromFile ? llamaHostWeights(fileTensors, cfg.loadMode)
                                                 : llamaHostWeightsInFileOrder(fileTensors, cfg.loadMode);
    if (hostKnown)
        operands = lastHost->second.operands;
    if (hostKey && !hostKnown)
        lastHost.emplace(std::move(*hostKey), HostPlacement{hostLoad, operands});

    // The cache: n_ctx cells, padded, K and V in their own types, on each layer's device
    // (llama_kv_cache: the buffer type of model.dev_layer(il) unless --no-kv-offload).
    const std::uint64_t pad = cfg.flashAttn ? 256 : 32;
    const std::uint64_t cells = ceilDiv(cfg.nCtx, pad) * pad;
    const KvLayout kLayout = llamaLayout(s, cfg.cacheTypeK);
    const KvLayout vLayout = llamaLayout(s, cfg.cacheTypeV);
    const std::uint64_t layoutLayers = kLayout.groups.empty() ? layers : [&] {
        std::uint64_t total = 0;
        for (const KvLayerGroup &g : kLayout.groups)
            total += g.layers;
        return total;
    }();
    // The cache of `count` of the layers (scaled group by group as the single-device cache is).
    auto cacheOf = [&](std::uint64_t count, std::uint64_t of) {
        return addChecked(addChecked(halfCache(kLayout, count, of, cells, true),
                                     halfCache(vLayout, count, of, cells, false), "KV cache"),
                          recurrentStates(kLayout, count, of, cfg.nParallel), "KV cache");
    };
    const std::uint64_t kvGpuLayers = cfg.kvOffload ? gpuLayers : 0;
    const std::uint64_t gpuKv = cacheOf(kvGpuLayers, layers);
    // Device d holds a run of the offloaded layers, the later devices the later layers: its cache
    // is the cache of its layers and the later devices' less that of the later devices' alone,
    // so the devices' caches add up to the one-device cache of the same layers.
    std::vector<std::uint64_t> devKv(nd, 0);
    if (cfg.kvOffload) {
        std::uint64_t later = 0;
        for (std::size_t d = nd; d-- > 0;) {
            const std::uint64_t before = cacheOf(later, layers);
            later += layersOn[d];
            devKv[d] = cacheOf(later, layers) - before;
        }
    }
    const std::uint64_t allKv = cacheOf(layoutLayers, layoutLayers);
    const std::uint64_t hostKv = allKv > gpuKv ? allKv - gpuKv : 0;
    f.kvCacheTokens = cells;
    f.blocks = cells;
    f.blockSize = 1;

    // The compute buffer: the largest intermediate of the n_ubatch graph (f32), plus the
    // residual stream; on every device that holds layers (the logits on the output layer's),
    // and with weights in CPU RAM the first GPU's runs their ops too (llamacppcompute.h).
    const std::uint64_t ub = cfg.nUbatch;
    const std::uint64_t heads = m.heads, kvHeads = m.kvHeads, headDim = m.headDim;
    const std::uint64_t attention = cfg.flashAttn
                                        ? productChecked("compute buffer", ub, heads + 2 * kvHeads, headDim, 4)
                                        : productChecked("compute buffer", cells, ub, heads, 4);
    // The widest feed-forward a token runs: a dense layer's, or its experts' (expert width x top-k).
    const std::uint64_t ffnWidth = std::max<std::uint64_t>(
        m.layersWithMlp(LayerMlp::Dense) > 0 ? std::uint64_t(m.intermediate) : 0,
        m.moeLayers() > 0 ? std::uint64_t(m.routedWidth()) * std::uint64_t(m.expertsPerToken) +
                                std::uint64_t(m.sharedWidth()) * std::uint64_t(m.sharedExperts)
                          : 0);
    const std::uint64_t ffn = productChecked("compute buffer", ub, ffnWidth, 1, 3 * 4);
    const std::uint64_t logitsAll = productChecked("compute buffer", ub, std::uint64_t(m.vocab), 4);
    const std::uint64_t residual = productChecked("compute buffer", ub, std::uint64_t(m.hidden), 3 * 4);
    // A layer cached in CPU RAM: its attention on the first GPU reads a copy of its K and V.
    if (hostKv)
        for (std::size_t g = 0; g < kLayout.groups.size() && g < vLayout.groups.size(); ++g) {
            KvLayout k = kLayout, v = vLayout;
            k.groups = {kLayout.groups[g]};
            v.groups = {vLayout.groups[g]};
            k.groups[0].layers = v.groups[0].layers = 1;
            operands.layerKvBytes = std::max(operands.layerKvBytes, addChecked(kvKeyBytes(k, 1, cells),
                                                                               kvValueBytes(v, 1, cells), "KV cache"));
        }
    LlamaGraphActivations graph;
    graph.attention = attention;
    graph.ffn = ffn;
    graph.logits = logitsAll;
    graph.residual = residual;
    graph.normedHidden = productChecked("compute buffer", ub, std::uint64_t(m.hidden), 4);
    // The worst-case graph's tokens (llama_context: n_tokens = min(n_ctx, n_ubatch)); the CPU
    // buffer holds the KQ mask of one stream's cells (f16 with flash attention, else f32) and the
    // token embeddings with one split copy of them (f32).
    const std::uint64_t tokens = std::min<std::uint64_t>(cfg.nCtx, ub);
    const std::uint64_t streamCells = ceilDiv(ceilDiv(cfg.nCtx, cfg.nParallel), pad) * pad;
    const std::uint64_t mask = productChecked("compute buffer", streamCells, tokens, cfg.flashAttn ? 2 : 4);
    const std::uint64_t inputs = productChecked("compute buffer", tokens, std::uint64_t(m.hidden), 2 * 4);
    std::vector<bool> holds(nd, false);
    for (std::size_t d = 0; d < nd; ++d)
        holds[d] = layersOn[d] > 0;
    const LlamaComputeBuffers buffers =
        llamaComputeBuffers(graph, operands, holds, outputDevice, tokens, cfg.opOffload, mask, inputs);
    const std::vector<std::uint64_t> &devCompute = buffers.devices;
    const std::uint64_t hostBuffers = productChecked("output buffer", cfg.nParallel, std::uint64_t(m.vocab), 4);
    f.hostBytes = addChecked(addChecked(addChecked(hostLoad.requiredBytes, hostKv, "host memory"), hostBuffers,
                                        "host memory"),
                             buffers.hostBytes, "host memory");
    f.hostComputeBytes = buffers.hostBytes;
    at(out.host, ConsumerId::Weights).bytes = hostLoad.requiredBytes;
    at(out.host, ConsumerId::KvCache).bytes = hostKv;
    at(out.host, ConsumerId::Logits).bytes = hostBuffers;
    at(out.host, ConsumerId::Activations).bytes = buffers.hostBytes;
    if (c.formulas) {
        at(out.host, ConsumerId::Activations).expression =
            "CUDA_Host compute buffer: KQ mask " + n(streamCells) + " cells x " + n(tokens) + " tokens x " +
            (cfg.flashAttn ? "2 B (f16, flash attention)" : "4 B (f32)") + " + token embeddings 2 x " + n(tokens) +
            " tokens x " + n(std::uint64_t(m.hidden)) + " x 4 B" +
            (buffers.cpuActivationBytes ? " + the CPU's own layers " + n(buffers.cpuActivationBytes) + " B" : "");
        at(out.host, ConsumerId::Weights).expression = "CPU tensors, load_mode " + std::string(enumName(cfg.loadMode));
        at(out.host, ConsumerId::KvCache).expression = cfg.kvOffload ? "the KV cache of the layers left on the CPU"
                                                                      : "every layer's KV cache (kv_offload false)";
        at(out.host, ConsumerId::Logits).expression = "output buffer: n_parallel x vocabulary x 4 B";
    }
    f.hostLoad = hostLoad;

    // Every device's total, and the tightest (least headroom) for the figures and the chart.
    std::size_t tight = 0;
    for (std::size_t d = 0; d < nd; ++d) {
        LlamaDevice &dev = devs[d];
        dev.layers = std::uint32_t(layersOn[d]);
        dev.output = int(d) == outputDevice;
        dev.weightsBytes = devWeights[d];
        dev.kvCacheBytes = devKv[d];
        dev.computeBytes = devCompute[d];
        dev.deviceBytes = addChecked(addChecked(addChecked(dev.weightsBytes, dev.kvCacheBytes, "peak"),
                                                dev.computeBytes, "peak"),
                                     dev.contextBytes, "peak");
        dev.headroomBytes = std::int64_t(dev.capacityBytes) - std::int64_t(dev.deviceBytes);
        dev.fits = dev.headroomBytes >= 0;
        if (dev.headroomBytes < devs[tight].headroomBytes)
            tight = d;
    }
    const LlamaDevice &main = devs[tight];
    if (several) {
        const Gpu *g = c.catalog.findGpu(main.gpuId);
        f.gpuId = main.gpuId;
        f.deviceTotalBytes = cudaTotalBytes(main.gpuId, g ? g->capacityBytes() : main.capacityBytes);
        f.budgetBytes = f.deviceTotalBytes;
        f.devices = devs;
        f.hostWeightsBytes = hostLoad.requiredBytes;
        f.hostKvCacheBytes = hostKv;
        f.hostBufferBytes = hostBuffers;
        // llama_context: pipeline parallelism (the scheduler's GGML_SCHED_MAX_COPIES = 4 copies of
        // each split's inputs) when several devices hold every layer, split by layer, the cache
        // offloaded and no -ot rule.
        f.pipelineParallel = nd > 1 && offload == layers + 1 && cfg.splitMode == LlamaSplitMode::Layer &&
                             cfg.kvOffload && cfg.overrideTensor.empty();
    }
    const std::uint64_t compute = main.computeBytes;
    const std::uint64_t kvHere = main.kvCacheBytes;
    f.weightsBytes = main.weightsBytes;
    f.kvCacheBytes = kvHere;
    f.kvBytesPerToken = cells ? ceilDiv(kvHere, cells) : 0;
    f.activationBytes = compute;

    // Sequences: n_parallel streams of n_ctx / n_parallel cells each.
    f.maxNumSeqs = cfg.nParallel;
    f.maxConcurrencyTokens = cfg.nCtx / cfg.nParallel;
    f.maxConcurrency = cfg.nParallel;
    f.maxLenThatFits = f.maxConcurrencyTokens;
    const std::vector<std::uint64_t> counts = cfg.requests.counts();
    std::uint64_t usedCells = 0;
    for (std::size_t i = 0; i < counts.size(); ++i)
        usedCells = addChecked(usedCells, mulChecked(counts[i], cfg.requests.classes[i].tokens(), "KV cache"), "KV cache");
    f.requestTokens = usedCells;
    f.requestSequences = cfg.requests.concurrency;
    const std::uint64_t perCellGpu = cells ? kvHere / cells : 0;
    f.requestKvBytes = mulChecked(std::min(usedCells, cells), perCellGpu, "KV cache");
    const std::uint64_t longest = longestRequest(cfg.requests);
    f.limit = longest > f.maxConcurrencyTokens ? ServingLimit::MaxModelLen : ServingLimit::MaxNumSeqs;
    f.requestsFit = longest <= f.maxConcurrencyTokens && cfg.requests.concurrency <= cfg.nParallel;

    Term weights, used, free, buffer;
    weights.bytes = main.weightsBytes;
    used.bytes = f.requestKvBytes;
    free.bytes = kvHere - f.requestKvBytes;
    buffer.bytes = compute;
    if (formulas) {
        std::string types;
        for (const auto &[name, bytes] : lw.bytesByType)
            types += (types.empty() ? "" : ", ") + name + " " + formatBytes(bytes, Unit::GiB);
        const std::string cuda = "CUDA" + n(main.index);
        const std::string on = several ? " on " + cuda : std::string();
        weights.expression = n(several ? layersOn[tight] : gpuLayers) + " of " + n(layers) + " blocks" + on +
                             " (up to " + n(typicalLayer) + " B each, " +
                             (fromFile ? "the GGUF file" : enumName(cfg.weightType)) + ")" +
                             (main.output ? " + output layer " + n(lw.outputBytes) + " B" : "") +
                             (expertsOnCpu && !several ? " - experts in CPU RAM " + n(expertsOnCpu) + " B" : "");
        if (rows)
            weights.expression = formatDecimal(main.split, 4) + " of the rows of every offloaded matrix (" +
                                 n(gpuWeights) + " B, split_mode row)";
        weights.notes.push_back("n_gpu_layers puts the output layer, then the last blocks on the GPU "
                                "(i_gpu_start = " + n(gpuStart) + "); the token embeddings stay in CPU RAM (" +
                                formatBytes(hostWeights, Unit::GiB) + " of weights in CPU RAM).");
        if (several) {
            std::string split;
            for (const LlamaDevice &d : devs)
                split += (split.empty() ? "" : ", ") + std::string("CUDA") + n(d.index) + " " + d.gpuId + " " +
                         formatDecimal(d.split, 4) + " (" + n(d.layers) + " blocks" + (d.output ? " + output" : "") + ")";
            weights.notes.push_back(
                "split over the devices (llama_model::load_tensors: each offloaded layer to the device whose "
                "cumulative share first exceeds its place among the offloaded layers" +
                std::string(std::all_of(cfg.tensorSplit.begin(), cfg.tensorSplit.end(), [](double x) { return x == 0; })
                                ? ", the shares by free memory" : "") +
                "): " + split);
        }
        if (rows)
            weights.notes.push_back("split_mode row: the matrices are cut by rows in the split's proportions "
                                    "(ggml's split buffer type); the 1-D tensors are counted with them");
        weights.notes.push_back((fromFile ? std::string("tensor types of the GGUF file")
                                          : "tensor types as llama-quantize gives them for " +
                                                std::string(enumName(cfg.weightType))) +
                                ": " + types + " (" + formatBytes(fileBytes, Unit::GiB) + " in all).");
        for (const std::string &note : lw.notes)
            weights.notes.push_back(note);
        const auto gib = [](std::uint64_t b) { return formatBytes(b, Unit::GiB); };
        switch (cfg.loadMode) {
        case LlamaLoadMode::Mmap:
        case LlamaLoadMode::MmapMlock:
            weights.notes.push_back(
                std::string("load_mode ") + enumName(cfg.loadMode) + ": the CPU tensors (" + gib(hostLoad.cpuBytes) +
                ") are the file's pages in the page cache, counted once; the mapping left after load spans " +
                gib(hostLoad.mappedBytes) + ", of which " + gib(hostLoad.mappedOffloadedBytes) +
                " are tensors copied to a GPU (their pages stay while mapped, reclaimable" +
                (cfg.loadMode == LlamaLoadMode::MmapMlock ? "; mlock pins the whole range: " + gib(hostLoad.lockedBytes) +
                                                                " locked, counted in CPU RAM)"
                                                          : ")") +
                "; the whole file (" + gib(hostLoad.loadPageCacheBytes) + ") passes through the page cache at load");
            break;
        case LlamaLoadMode::None:
        case LlamaLoadMode::Mlock:
        case LlamaLoadMode::Dio:
            weights.notes.push_back(
                std::string("load_mode ") + enumName(cfg.loadMode) + ": the CPU tensors are read into anonymous buffers (" +
                gib(hostLoad.anonymousBytes) + (cfg.loadMode == LlamaLoadMode::Mlock ? ", locked" : "") +
                "); GPU tensors are staged through small pinned buffers" +
                (cfg.loadMode == LlamaLoadMode::Dio ? ", direct I/O past the page cache"
                                                    : "; the file's pages pass through the page cache (reclaimable)"));
            break;
        }
        if (hostLoad.lockedBytes)
            weights.notes.push_back("mlock needs RLIMIT_MEMLOCK (ulimit -l) of at least " + gib(hostLoad.lockedBytes) +
                                    "; llama.cpp warns and runs unlocked otherwise");
        if (overrides)
            weights.notes.push_back("override_tensor: " + n(cfg.overrideTensor.size()) +
                                    " -ot rule(s) applied to the tensors' names, in order");
        else if (!cfg.overrideTensor.empty())
            weights.notes.push_back("override_tensor is not applied to a GGUF file's own tensors: "
                                    "the placement is n_gpu_layers' and n_cpu_moe's");
        used.expression = n(std::min(usedCells, cells)) + " cells in use x " + n(perCellGpu) + " B";
        free.expression = n(cells) + " cells (n_ctx " + n(cfg.nCtx) + ", padded to " + n(pad) + ") x " +
                          n(cfg.kvOffload ? (several ? layersOn[tight] : gpuLayers) : 0) + " GPU layers" + on +
                          " x K (" + kLayout.type.name + ") and V (" + vLayout.type.name + ") - the cells in use";
        // The first GPU under op offload: what it copies at its peak, said in the formula.
        const bool first = tight == 0 && buffers.opOffloaded;
        const std::string firstGpu = "CUDA" + n(devs[0].index);
        const std::string copied = n(buffers.copyBytes) + " B (" +
                                   formatDecimal(double(buffers.copyBytes) / 1048576.0, 1) + " MiB): ";
        const std::string why = " copied to " + firstGpu + " for its matmul (op offload, batches of 32 or more tokens)";
        const std::string batch = " (n_ubatch " + n(ub) + ", f32)";
        if (first && buffers.copy == LlamaComputeCopy::OutputWeight)
            buffer.expression = "logits " + n(logitsAll) + " B + normed hidden " + n(graph.normedHidden) + " B + " +
                                copied + "the CPU output weight (" + operands.outputWeight + ")" + why + batch;
        else
            buffer.expression =
                "max(" + std::string(cfg.flashAttn ? "flash attention " : "KQ ") + n(attention) + " B, FFN " + n(ffn) +
                " B, logits " + n(main.output ? logitsAll : 0) + " B) + residual " + n(residual) + " B" +
                (first && buffers.copy == LlamaComputeCopy::BlockWeight
                     ? " + " + copied + "the largest CPU weight (" + operands.blockWeight + ")" + why
                 : first && buffers.copy == LlamaComputeCopy::LayerKv
                     ? " + " + copied + "one CPU layer's K and V copied to " + firstGpu +
                           " for its attention (op offload, batches of 32 or more tokens)"
                     : std::string()) +
                batch;
        buffer.notes.push_back("llama.cpp's compute buffer: the worst-case graph for n_ubatch tokens, "
                               "tensors reused as the graph allocator allows.");
        if (buffers.opOffloaded)
            buffer.notes.push_back(
                "op offload (ggml-backend.cpp ggml_backend_sched_backend_id_from_cur, ggml-cuda.cu offload_op): "
                "with weights in CPU RAM and batches of 32 tokens or more, " + firstGpu +
                " runs their ops and copies each weight into its compute buffer, one at a time, so its buffer "
                "is paid in full whatever n_gpu_layers (even 0); op_offload false (--no-op-offload) keeps them "
                "on the CPU.");
        else if (operands.any() && !cfg.opOffload)
            buffer.notes.push_back("op_offload false (--no-op-offload): the CPU runs the ops of its own weights; "
                                   "their activations are in the CPU's compute buffer.");
        else if (operands.any())
            buffer.notes.push_back("n_ubatch below 32 tokens: no op offload (ggml-cuda.cu offload_op), the CPU "
                                   "runs the ops of its own weights.");
        if (cfg.ollama)
            for (const std::string &note : cfg.ollama->notes)
                f.notes.push_back("Ollama: " + note);
        f.notes.push_back("offloaded " + n(offload) + "/" + n(layers + 1) + " layers to GPU");
        for (const LlamaDevice &d : devs) {
            const std::string name = "CUDA" + n(d.index);
            f.notes.push_back(name + " KV buffer size = " + formatDecimal(double(d.kvCacheBytes) / 1048576.0, 2) + " MiB");
            f.notes.push_back(name + " compute buffer size = " + formatDecimal(double(d.computeBytes) / 1048576.0, 2) +
                              " MiB");
            f.notes.push_back(name + " model buffer size = " + formatDecimal(double(d.weightsBytes) / 1048576.0, 2) +
                              " MiB");
        }
        f.notes.push_back("CUDA_Host compute buffer size = " +
                          formatDecimal(double(buffers.hostBytes) / 1048576.0, 2) + " MiB");
    }
    Composition profile;
    at(profile, ConsumerId::Weights) = weights;
    at(profile, ConsumerId::Activations) = buffer;
    out.profile = profile;
    Composition serve = profile;
    at(serve, ConsumerId::KvCache) = used;
    at(serve, ConsumerId::KvCacheFree) = free;
    out.serve = serve;
    return out;
}

} // namespace headroom::detail
