// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/estimatejson.h"

#include "estimate/verdict.h"

#include "scenario/names.h"

#include <nlohmann/json.hpp>

namespace headroom {

using nlohmann::json;

double consumerShare(const Estimate &estimate, const Consumer &consumer)
{
    if (estimate.peak.deviceBytes == 0)
        return 0;
    return static_cast<double>(consumer.bytes) / static_cast<double>(estimate.peak.deviceBytes);
}

namespace {

/// "only", "first_stage", "last_stage".
const char *rankRoleKey(RankRole role)
{
    switch (role) {
    case RankRole::Only: return "only";
    case RankRole::FirstStage: return "first_stage";
    case RankRole::LastStage: return "last_stage";
    }
    return "only";
}

json consumerList(const std::vector<Consumer> &consumers)
{
    json list = json::array();
    for (const Consumer &c : consumers)
        list.push_back({{"id", consumerKey(c.id)}, {"bytes", c.bytes}});
    return list;
}

} // namespace

json servingFiguresCore(const ServingFigures &f);

json servingFiguresToJson(const ServingFigures &f)
{
    json doc = servingFiguresCore(f);
    if (f.engine == Engine::LlamaCpp) { // the weights in CPU RAM by load mode
        const LlamaHostWeights &h = f.hostLoad;
        doc["load"] = {{"load_mode", enumName(h.mode)},
                       {"cpu_weights_bytes", h.cpuBytes},
                       {"mapped_bytes", h.mappedBytes},
                       {"mapped_offloaded_bytes", h.mappedOffloadedBytes},
                       {"anonymous_bytes", h.anonymousBytes},
                       {"locked_bytes", h.lockedBytes},
                       {"required_bytes", h.requiredBytes},
                       {"load_page_cache_bytes", h.loadPageCacheBytes}};
    }
    if (!f.devices.empty()) { // llama.cpp with tensor_split: one entry per device, and the host
        json devices = json::array();
        for (const LlamaDevice &d : f.devices)
            devices.push_back({{"device", "CUDA" + std::to_string(d.index)},
                               {"gpu", d.gpuId},
                               {"split", d.split},
                               {"layers", d.layers},
                               {"output_layer", d.output},
                               {"weights_bytes", d.weightsBytes},
                               {"kv_cache_bytes", d.kvCacheBytes},
                               {"compute_bytes", d.computeBytes},
                               {"context_bytes", d.contextBytes},
                               {"device_bytes", d.deviceBytes},
                               {"capacity_bytes", d.capacityBytes},
                               {"free_bytes", d.freeBytes},
                               {"headroom_bytes", d.headroomBytes},
                               {"fits", d.fits}});
        doc["devices"] = devices;
        doc["host"] = {{"weights_bytes", f.hostWeightsBytes},
                       {"kv_cache_bytes", f.hostKvCacheBytes},
                       {"buffer_bytes", f.hostBufferBytes},
                       {"compute_bytes", f.hostComputeBytes},
                       {"bytes", f.hostBytes}};
        doc["pipeline_parallel"] = f.pipelineParallel;
    }
    return doc;
}

json servingFiguresCore(const ServingFigures &f)
{
    return {{"engine", enumName(f.engine)},
            {"gpu", f.gpuId},
            {"budget_bytes", f.budgetBytes},
            {"kv_cache_bytes", f.kvCacheBytes},
            {"kv_cache_tokens", f.kvCacheTokens},
            {"max_concurrency", f.maxConcurrency},
            {"max_concurrency_tokens", f.maxConcurrencyTokens},
            {"device_total_bytes", f.deviceTotalBytes},
            {"weights_bytes", f.weightsBytes},
            {"activation_bytes", f.activationBytes},
            {"non_torch_bytes", f.nonTorchBytes},
            {"cuda_graph_bytes", f.cudaGraphBytes},
            {"cuda_graph_in_budget", f.cudaGraphInBudget},
            {"kv_bytes_per_token", f.kvBytesPerToken},
            {"blocks", f.blocks},
            {"block_size", f.blockSize},
            {"max_num_seqs", f.maxNumSeqs},
            {"starts", f.startsOk},
            {"max_len_that_fits", f.maxLenThatFits},
            {"request_kv_bytes", f.requestKvBytes},
            {"request_sequences", f.requestSequences},
            {"request_tokens", f.requestTokens},
            {"requests_fit", f.requestsFit},
            {"limit", servingLimitKey(f.limit)},
            {"host_bytes", f.hostBytes},
            {"notes", f.notes}};
}

json estimateToJson(const Estimate &e, Unit unit)
{
    json consumers = json::array();
    for (const Consumer &c : e.consumers) {
        consumers.push_back({{"id", consumerKey(c.id)},
                             {"bytes", c.bytes},
                             {"formula", c.formula(unit)},
                             {"assumptions", c.assumptions}});
    }
    json phases = json::array();
    for (const Phase &p : e.phases) {
        json parts = json::array();
        for (int i = 0; i < kConsumerCount; ++i)
            if (p.bytes[static_cast<std::size_t>(i)])
                parts.push_back({{"id", consumerKey(static_cast<ConsumerId>(i))},
                                 {"bytes", p.bytes[static_cast<std::size_t>(i)]}});
        phases.push_back({{"id", phaseKey(p.id)}, {"allocated_bytes", p.allocatedBytes},
                          {"consumers", parts}});
    }
    json gpus = json::array();
    for (const GpuFit &g : e.gpus)
        gpus.push_back({{"id", g.id},
                        {"name", g.name},
                        {"capacity_bytes", g.capacityBytes},
                        {"fits", g.fits},
                        {"headroom_bytes", g.headroomBytes}});
    json doc = {{"format", "headroom-estimate"},
                {"version", 1},
                {"params", {{"total", e.totalParams}, {"active", e.activeParams}, {"trainable", e.trainableParams}}},
                {"rank", rankRoleKey(e.rankRole)},
                {"consumers", consumers},
                {"phases", phases},
                {"peak",
                 {{"allocated_bytes", e.peak.allocatedBytes},
                  {"reserved_bytes", e.peak.reservedBytes},
                  {"device_bytes", e.peak.deviceBytes},
                  {"phase", phaseKey(e.peak.phase)}}},
                {"gpus", gpus},
                {"host_bytes", e.hostBytes},
                {"rough", e.rough},
                {"assumptions", e.assumptions},
                {"warnings", e.warnings},
                {"validated", e.validated}};
    if (e.errorBandPercent > 0)
        doc["error_band_percent"] = e.errorBandPercent;
    if (!e.errorBands.empty()) {
        const auto bandJson = [](const ErrorBand &band) {
            return nlohmann::json{{"reading", band.reading},
                                  {"percent", band.percent},
                                  {"group", band.group},
                                  {"cases", band.cases},
                                  {"first_seen", true},
                                  {"basis", band.basis == BandBasis::Validated ? "validated"
                                            : band.basis == BandBasis::Few   ? "few"
                                                                             : "never_validated"},
                                  {"unsafe_percent", band.unsafePercent},
                                  {"text", errorBandText(band)}};
        };
        nlohmann::json bands = nlohmann::json::array();
        for (const ErrorBand &band : e.errorBands)
            bands.push_back(bandJson(band));
        doc["error_bands"] = bands;
        // The band the verdicts use (the device reading's), and each GPU's three-state verdict.
        doc["error_band"] = bandJson(e.errorBands.front());
        for (std::size_t i = 0; i < e.gpus.size() && i < doc["gpus"].size(); ++i)
            doc["gpus"][i]["state"] =
                fitStateKey(fitState(e.peak.deviceBytes, e.gpus[i].capacityBytes, e.errorBands.front().percent));
    }
    if (!e.host.empty())
        doc["host"] = consumerList(e.host);
    if (e.hostMachine.perGpuBytes || e.hostMachine.ramBytes)
        doc["host_machine"] = {{"gpus", e.hostMachine.gpus},
                               {"per_gpu_bytes", e.hostMachine.perGpuBytes},
                               {"bytes", e.hostMachine.bytes},
                               {"ram_bytes", e.hostMachine.ramBytes},
                               {"fits", e.hostMachine.fits}};
    if (const auto &u = e.unified)
        doc["unified_memory"] = {{"gpu", u->gpuId},
                                 {"total_bytes", u->totalBytes},
                                 {"gpu_limit_bytes", u->gpuLimitBytes},
                                 {"wired_limit", u->wiredLimit},
                                 {"os_bytes", u->osBytes},
                                 {"gpu_bytes", u->gpuBytes},
                                 {"host_bytes", u->hostBytes},
                                 {"page_cache_bytes", u->pageCacheBytes},
                                 {"zero_copy", u->zeroCopy},
                                 {"pool_bytes", u->poolBytes},
                                 {"fits", u->fits}};
    if (!e.ranks.empty()) {
        json ranks = json::array();
        for (const RankPeak &r : e.ranks) {
            json parts = json::array();
            for (int i = 0; i < kConsumerCount; ++i)
                if (r.bytes[std::size_t(i)])
                    parts.push_back({{"id", consumerKey(ConsumerId(i))}, {"bytes", r.bytes[std::size_t(i)]}});
            ranks.push_back({{"rank", rankRoleKey(r.role)},
                             {"peak",
                              {{"allocated_bytes", r.peak.allocatedBytes},
                               {"reserved_bytes", r.peak.reservedBytes},
                               {"device_bytes", r.peak.deviceBytes},
                               {"phase", phaseKey(r.peak.phase)}}},
                             {"consumers", parts},
                             {"host_bytes", r.hostBytes}});
        }
        doc["ranks"] = ranks;
    }
    if (e.serving)
        doc["serving"] = servingFiguresToJson(*e.serving);
    if (e.rollout) // GRPO's colocated vLLM on the target GPU (added with train.objective grpo)
        doc["generation_engine"] = servingFiguresToJson(*e.rollout);
    return doc;
}

namespace {

std::string csvField(const std::string &text)
{
    if (text.find_first_of(",\"\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char ch : text) {
        if (ch == '"')
            quoted += '"';
        quoted += ch;
    }
    return quoted + "\"";
}

} // namespace

std::string estimateToCsv(const Estimate &e, Unit unit)
{
    std::string out = std::string("consumer,bytes,") + unitName(unit) + ",share,formula\n";
    for (const Consumer &c : e.consumers) {
        out += consumerKey(c.id);
        out += ',' + std::to_string(c.bytes) + ',' + formatDecimal(toUnit(c.bytes, unit), 4) + ',' +
               formatDecimal(consumerShare(e, c), 4) + ',' + csvField(c.formula(unit)) + '\n';
    }
    return out;
}

} // namespace headroom
