// SPDX-License-Identifier: GPL-3.0-or-later
#include "measure/probefile.h"

#include "io/inputpolicy.h"
#include "model/hfconfig.h"
#include "model/modeljson.h"
#include "scenario/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom {

namespace {

constexpr double kGiB = 1073741824.0;

std::uint64_t bytesAt(const nlohmann::json &object, const std::string &path, const char *key)
{
    const auto found = object.find(key);
    if (found == object.end())
        throw InputError(path + "." + key, "missing");
    if (!found->is_number_unsigned())
        throw InputError(path + "." + key, "must be a whole number of bytes (got " + quoteJson(*found) + ")");
    return found->get<std::uint64_t>();
}

/// A size in the scale that suits it ("15.47 MiB", "21.30 GiB"): a small run's phases differ by
/// MiB, which two decimals of GiB print as 0.02.
std::string gib(double bytes) { return formatBytes(std::uint64_t(std::llround(std::min(std::abs(bytes), 1e18))), Unit::GiB); }

std::string signedGib(double bytes) { return (bytes < 0 ? "-" : "+") + gib(bytes); }

const char *optimizerKey(const std::string &name, const nlohmann::json &settings)
{
    if (name == "AdamW" || name == "Adam" || name == "FusedAdam")
        return "adamw";
    if (name == "AdamW8bit" || name == "Adam8bit")
        return "adamw_8bit";
    if (name == "PagedAdamW8bit")
        return "paged_adamw_8bit";
    if (name == "PagedAdamW")
        return "paged_adamw";
    if (name == "Adafactor")
        return "adafactor";
    if (name == "Lion")
        return "lion";
    if (name == "SGD") {
        const auto m = settings.find("momentum");
        return m != settings.end() && m->is_number() && m->get<double>() > 0 ? "sgd_momentum" : "sgd";
    }
    return nullptr;
}

const char *loraTarget(const std::string &module)
{
    const std::pair<const char *, const char *> names[] = {
        {"q_proj", "q"}, {"k_proj", "k"}, {"v_proj", "v"}, {"o_proj", "o"}, {"gate_proj", "gate"},
        {"up_proj", "up"}, {"down_proj", "down"}, {"lm_head", "lm_head"}};
    for (const auto &[from, to] : names)
        if (module == from)
            return to;
    return nullptr;
}

const char *weightsFor(const std::string &dtype)
{
    if (dtype == "bfloat16")
        return "bf16";
    if (dtype == "float16")
        return "fp16";
    if (dtype == "float32")
        return "fp32";
    return nullptr;
}

} // namespace

ProbeFile readProbeFile(std::string_view text)
{
    const nlohmann::json doc = parseStrictJson(text);
    if (!doc.is_object() || doc.value("format", nlohmann::json()) != "headroom-probe")
        throw InputError("format", "must be \"headroom-probe\" (a file resources/headroom_probe.py writes)");
    if (doc.value("version", nlohmann::json()) != 1)
        throw InputError("version", "must be 1");
    ProbeFile p;
    if (doc.contains("device")) {
        const nlohmann::json &device = doc["device"];
        if (!device.is_object())
            throw InputError("device", "must be an object");
        if (device.contains("name") && device["name"].is_string())
            p.deviceName = device["name"].get<std::string>().substr(0, 200);
        if (device.contains("total_bytes"))
            p.deviceTotalBytes = bytesAt(device, "device", "total_bytes");
    }
    const auto readings = doc.find("readings");
    if (readings == doc.end() || !readings->is_array() || readings->empty())
        throw InputError("readings", "must be a list of the probe's readings (none were taken?)");
    for (std::size_t i = 0; i < readings->size(); ++i) {
        const nlohmann::json &r = (*readings)[i];
        const std::string path = "readings[" + std::to_string(i) + "]";
        if (!r.is_object())
            throw InputError(path, "must be an object");
        ProbeReading reading;
        const auto phaseValue = r.find("phase");
        const std::string phase = phaseValue != r.end() && phaseValue->is_string() ? phaseValue->get<std::string>() : std::string();
        if (phase == "load")
            reading.phase = PhaseId::Load;
        else if (phase == "forward")
            reading.phase = PhaseId::Forward;
        else if (phase == "backward")
            reading.phase = PhaseId::Backward;
        else if (phase == "optimizer")
            reading.phase = PhaseId::Optimizer;
        else
            throw InputError(path + ".phase", "must be load, forward, backward or optimizer (got " +
                                                  quoteJson(r.value("phase", nlohmann::json())) + ")");
        reading.step = r.contains("step") ? bytesAt(r, path, "step") : 0;
        reading.allocatedBytes = bytesAt(r, path, "allocated_bytes");
        reading.reservedBytes = bytesAt(r, path, "reserved_bytes");
        reading.peakAllocatedBytes = bytesAt(r, path, "peak_allocated_bytes");
        reading.peakReservedBytes = bytesAt(r, path, "peak_reserved_bytes");
        reading.deviceUsedBytes = bytesAt(r, path, "device_used_bytes");
        // Issue 29's hostile pass: 2^64 - 1 bytes on an 80 GiB device was compared at exit 0
        // ("888.18 PiB measured"). No reading of one device passes its memory (or, without
        // device.total_bytes, 2^53 bytes: 8 PiB).
        const std::uint64_t most = p.deviceTotalBytes ? p.deviceTotalBytes : std::uint64_t(1) << 53;
        for (const auto &[key, value] :
             {std::pair{"allocated_bytes", reading.allocatedBytes}, std::pair{"reserved_bytes", reading.reservedBytes},
              std::pair{"peak_allocated_bytes", reading.peakAllocatedBytes},
              std::pair{"peak_reserved_bytes", reading.peakReservedBytes},
              std::pair{"device_used_bytes", reading.deviceUsedBytes}})
            if (value > most)
                throw InputError(path + "." + key, std::to_string(value) + " bytes is more than " +
                                                       (p.deviceTotalBytes ? "the device's total_bytes (" + std::to_string(most) + ")"
                                                                           : std::string("2^53 bytes")));
        p.readings.push_back(reading);
    }
    if (doc.contains("facts")) {
        if (!doc["facts"].is_object())
            throw InputError("facts", "must be an object");
        p.facts = doc["facts"];
    }
    return p;
}

LogScenario scenarioFromProbe(const ProbeFile &probe, const LogScenarioInput &input, const Catalog &catalog)
{
    LogScenario s;
    nlohmann::json &doc = s.document;
    doc = {{"format", "headroom-scenario"}, {"version", 1}, {"task", "train"}};
    const nlohmann::json &f = probe.facts;
    const auto fact = [&](const char *key) -> const nlohmann::json * {
        const auto found = f.find(key);
        return found == f.end() || found->is_null() ? nullptr : &*found;
    };
    // The model.
    if (!input.modelPreset.empty()) {
        if (!catalog.findModel(input.modelPreset))
            s.missing.push_back("--model: no catalog model " + quotedText(input.modelPreset));
        else
            doc["model"] = {{"preset", input.modelPreset}};
    } else if (const nlohmann::json *config = fact("config")) {
        try {
            const HfImport imported = importHfConfig(*config);
            doc["model"] = modelToJson(imported.arch);
            s.notes.push_back("model: the probe's config (model_type " + imported.modelType + ")");
            for (const std::string &note : imported.notes)
                s.notes.push_back(note);
        } catch (const std::exception &error) {
            s.missing.push_back(std::string("the model: the probe's config is not read (") + quoteText(error.what(), 120) +
                                "); give --model PRESET or a SCENARIO");
        }
    } else {
        s.missing.push_back("the model: the probe saw no config (model.config); give --model PRESET or a SCENARIO");
    }
    // The batch.
    if (const nlohmann::json *shape = fact("batch_shape"); shape && shape->is_array() && shape->size() == 2 &&
                                                         (*shape)[0].is_number_unsigned() && (*shape)[1].is_number_unsigned()) {
        doc["train"]["micro_batch"] = (*shape)[0];
        doc["train"]["seq_len"] = (*shape)[1];
    } else {
        s.missing.push_back("the batch: the probe saw no (batch, sequence) input; give --set train.micro_batch=... "
                            "--set train.seq_len=...");
    }
    // The method and the weights.
    const nlohmann::json *peft = fact("peft");
    const nlohmann::json *dtypes = fact("dtypes");
    const std::string quantization = fact("quantization") && fact("quantization")->is_string()
                                         ? fact("quantization")->get<std::string>()
                                         : std::string();
    if (peft && peft->is_object()) {
        const auto typeValue = peft->find("type");
        const std::string type = typeValue != peft->end() && typeValue->is_string() ? typeValue->get<std::string>() : std::string();
        if (type.find("LORA") == std::string::npos)
            s.missing.push_back("the method: PEFT " + quotedText(type) + " is not modelled");
        doc["train"]["method"] = quantization == "4bit" ? "qlora" : "lora";
        if (peft->contains("r") && (*peft)["r"].is_number_unsigned())
            doc["train"]["lora"]["rank"] = (*peft)["r"];
        nlohmann::json targets = nlohmann::json::array();
        if (peft->contains("target_modules") && (*peft)["target_modules"].is_array())
            for (const nlohmann::json &m : (*peft)["target_modules"]) {
                const char *t = m.is_string() ? loraTarget(m.get<std::string>()) : nullptr;
                if (!t)
                    s.missing.push_back("the LoRA targets: module " + quoteJson(m) + " has no scenario name");
                else
                    targets.push_back(t);
            }
        doc["train"]["lora"]["targets"] = targets;
    } else if (const nlohmann::json *params = fact("params"), *trainable = fact("trainable_params");
               params && trainable && *params == *trainable) {
        doc["train"]["method"] = "full";
    } else {
        s.missing.push_back("the method: some parameters are frozen but the probe saw no PEFT config; give "
                            "--set train.method=...");
    }
    if (dtypes && dtypes->is_array() && !quantization.empty() && quantization != "4bit")
        s.missing.push_back("the weights: " + quantization + " quantization; give --set precision.weights=...");
    else if (dtypes && dtypes->is_array() && quantization.empty()) {
        std::vector<std::string> seen;
        for (const nlohmann::json &d : *dtypes)
            if (d.is_string() && weightsFor(d.get<std::string>()))
                seen.push_back(d.get<std::string>());
        // PEFT keeps its adapters in fp32 over 16-bit base weights: the base is the other dtype.
        if (seen.size() == 2 && peft && std::find(seen.begin(), seen.end(), "float32") != seen.end())
            seen.erase(std::find(seen.begin(), seen.end(), "float32"));
        if (seen.size() == 1)
            doc["precision"]["weights"] = weightsFor(seen.front());
        else
            s.missing.push_back("the weights' dtype: the probe saw " + quoteJson(*dtypes) + "; give --set precision.weights=...");
    }
    // The optimizer, checkpointing, attention, the layout.
    if (const nlohmann::json *opt = fact("optimizer"); opt && opt->is_string()) {
        const nlohmann::json settings = f.value("optimizer_settings", nlohmann::json::object());
        if (const char *key = optimizerKey(opt->get<std::string>(), settings))
            doc["train"]["optimizer"] = key;
        else
            s.missing.push_back("the optimizer: " + quoteJson(*opt) + " has no scenario name; give --set train.optimizer=...");
    }
    if (const nlohmann::json *gc = fact("gradient_checkpointing"); gc && gc->is_boolean())
        doc["train"]["gradient_checkpointing"] = gc->get<bool>() ? "full" : "none";
    if (const nlohmann::json *attn = fact("attn_implementation"); attn && attn->is_string()) {
        const std::string a = attn->get<std::string>();
        if (a == "sdpa" || a == "eager")
            doc["kernels"]["attention"] = a;
        else if (a.rfind("flash_attention", 0) == 0)
            doc["kernels"]["attention"] = "flash";
    }
    if (const nlohmann::json *world = fact("world_size"); world && world->is_number_unsigned() && world->get<std::uint64_t>() > 1)
        s.missing.push_back("the parallel layout: " + std::to_string(world->get<std::uint64_t>()) +
                            " ranks, and the probe cannot tell DDP from FSDP or ZeRO; give a SCENARIO");
    // The GPU.
    if (!input.gpuId.empty()) {
        if (!catalog.findGpu(input.gpuId))
            s.missing.push_back("--gpu: no catalog GPU " + quotedText(input.gpuId));
        else
            doc["gpus"] = {input.gpuId};
    } else if (const Gpu *g = catalogGpuForLog(probe.deviceName, catalog)) {
        doc["gpus"] = {g->id};
        s.notes.push_back("GPU " + g->id + ": the probe's " + quotedText(probe.deviceName, 60));
    } else {
        s.missing.push_back("the GPU: the probe's " + quotedText(probe.deviceName, 60) + " is no catalog GPU's name; give --gpu ID");
    }
    doc["name"] = "the probe's run";
    return s;
}

ProbeComparison compareProbe(const ProbeFile &probe, const Estimate &estimate)
{
    ProbeComparison c;
    const auto estimatedPhase = [&](PhaseId id) -> const Phase * {
        for (const Phase &p : estimate.phases)
            if (p.id == id)
                return &p;
        return nullptr;
    };
    // The last step the probe recorded for each phase: the run's steady state (the first step
    // creates the optimizer's state). Load is read once.
    for (PhaseId id : {PhaseId::Load, PhaseId::Forward, PhaseId::Backward, PhaseId::Optimizer}) {
        const ProbeReading *last = nullptr;
        for (const ProbeReading &r : probe.readings)
            if (r.phase == id && (!last || r.step >= last->step))
                last = &r;
        const Phase *e = estimatedPhase(id);
        if (!last || !e)
            continue;
        ProbePhase row{id, last->step, id == PhaseId::Load ? last->allocatedBytes : last->peakAllocatedBytes,
                       last->peakReservedBytes, e->allocatedBytes, {}};
        const Phase *before = id == PhaseId::Load ? nullptr : estimatedPhase(PhaseId(int(id) - 1));
        for (int k = 0; k < kConsumerCount; ++k) {
            const std::int64_t growth = std::int64_t(e->bytes[std::size_t(k)]) -
                                        (before ? std::int64_t(before->bytes[std::size_t(k)]) : 0);
            // 10 MiB, or 2% of a small run's phase (whose consumers are a few MiB each).
            if (growth >= std::min(std::int64_t(0.01 * kGiB), std::int64_t(0.02 * double(e->allocatedBytes))) && growth > 0)
                row.estimatedGrowth.push_back({ConsumerId(k), growth});
        }
        std::sort(row.estimatedGrowth.begin(), row.estimatedGrowth.end(),
                  [](const auto &a, const auto &b) { return a.second > b.second; });
        c.phases.push_back(row);
    }
    // The phase that differs most, and what the estimate puts into it.
    const ProbePhase *worst = nullptr;
    for (const ProbePhase &p : c.phases)
        if (!worst || std::llabs(std::int64_t(p.estimatedBytes) - std::int64_t(p.measuredPeakBytes)) >
                          std::llabs(std::int64_t(worst->estimatedBytes) - std::int64_t(worst->measuredPeakBytes)))
            worst = &p;
    if (worst) {
        const double d = double(worst->estimatedBytes) - double(worst->measuredPeakBytes);
        std::string text = std::string(phaseKey(worst->phase)) + " " + signedGib(d) + " beside the probe (estimated " +
                           gib(double(worst->estimatedBytes)) + ", measured " + gib(double(worst->measuredPeakBytes)) +
                           ", step " + std::to_string(worst->step) + ")";
        if (!worst->estimatedGrowth.empty()) {
            text += ": in the estimate this phase adds ";
            for (std::size_t i = 0; i < worst->estimatedGrowth.size() && i < 3; ++i)
                text += (i ? ", " : "") + std::string(consumerKey(worst->estimatedGrowth[i].first)) + " " +
                        gib(double(worst->estimatedGrowth[i].second));
            text += worst->phase == PhaseId::Load ? "" : " over the phase before";
        } else if (const Phase *e = estimatedPhase(worst->phase)) {
            // Nothing grows much over the phase before: the phase's own largest allocated
            // consumers (a small run's fixed workspace is often most of the difference).
            std::vector<std::pair<ConsumerId, std::uint64_t>> held;
            for (int k = 0; k < kConsumerCount; ++k)
                if (ConsumerId(k) != ConsumerId::CudaContext && ConsumerId(k) != ConsumerId::Fragmentation &&
                    e->bytes[std::size_t(k)] > 0)
                    held.push_back({ConsumerId(k), e->bytes[std::size_t(k)]});
            std::sort(held.begin(), held.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
            if (!held.empty())
                text += ": in the estimate this phase holds ";
            for (std::size_t i = 0; i < held.size() && i < 3; ++i)
                text += (i ? ", " : "") + std::string(consumerKey(held[i].first)) + " " + gib(double(held[i].second));
        }
        c.findings.push_back(text + ".");
    }
    // The seed articles' diagnostic: reserved far above allocated is the allocator's cache.
    for (const ProbeReading &r : probe.readings)
        if (r.peakReservedBytes > 0 && double(r.peakReservedBytes - std::min(r.peakReservedBytes, r.peakAllocatedBytes)) >
                                           0.1 * double(r.peakReservedBytes) &&
            r.peakReservedBytes - std::min(r.peakReservedBytes, r.peakAllocatedBytes) > std::uint64_t(0.25 * kGiB)) {
            c.findings.push_back("Reserved is " + gib(double(r.peakReservedBytes - r.peakAllocatedBytes)) + " above allocated at " +
                                 phaseKey(r.phase) + " (step " + std::to_string(r.step) +
                                 "): the caching allocator's fragmentation. \"Make room on your GPU\": "
                                 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True returns most of it.");
            break;
        }
    return c;
}

} // namespace headroom
