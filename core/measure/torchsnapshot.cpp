// SPDX-License-Identifier: GPL-3.0-or-later
// The snapshot's keys (PyTorch's c10/cuda/CUDACachingAllocator and torch/cuda/memory.py, 1.13
// to 2.x): {"segments": [{"device", "address", "total_size", "allocated_size", "active_size",
// "stream", "segment_type", "blocks": [{"size", "state", ...}], "is_expandable"?}],
// "device_traces": [[{"action", "addr", "size", "stream", ...}], ...]}.
#include "measure/torchsnapshot.h"

#include "io/inputpolicy.h"

#include <algorithm>

namespace headroom {

namespace {

std::string at(const std::string &path, const char *key) { return path + "." + key; }

const nlohmann::json &member(const nlohmann::json &object, const std::string &path, const char *key)
{
    if (!object.is_object())
        throw InputError(path, "not a dict");
    const auto found = object.find(key);
    if (found == object.end())
        throw InputError(at(path, key), "missing: not a memory snapshot's " + path);
    return *found;
}

std::uint64_t size(const nlohmann::json &object, const std::string &path, const char *key)
{
    const nlohmann::json &v = member(object, path, key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
        throw InputError(at(path, key), "must be a whole number of bytes (got " + quoteJson(v) + ")");
    return v.get<std::uint64_t>();
}

std::uint64_t add(std::uint64_t a, std::uint64_t b, const std::string &path)
{
    if (b > UINT64_MAX - a)
        throw InputError(path, "the sizes add up past 2^64 bytes");
    return a + b;
}

} // namespace

TorchSnapshotSummary summarizeSnapshot(const nlohmann::json &snapshot, int device)
{
    TorchSnapshotSummary s;
    const nlohmann::json &segments = member(snapshot, "snapshot", "segments");
    if (!segments.is_array())
        throw InputError("segments", "must be a list");
    if (device < 0) {
        device = 0;
        if (!segments.empty() && segments[0].is_object() && segments[0].contains("device") &&
            segments[0]["device"].is_number_integer())
            device = int(std::clamp<std::int64_t>(segments[0]["device"].get<std::int64_t>(), 0, 65535));
    }
    s.device = device;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const nlohmann::json &segment = segments[i];
        const std::string path = "segments[" + std::to_string(i) + "]";
        const nlohmann::json &d = member(segment, path, "device");
        if (!d.is_number_integer())
            throw InputError(at(path, "device"), "must be a device number");
        if (d.get<std::int64_t>() != device)
            continue;
        ++s.segments;
        s.reservedBytes = add(s.reservedBytes, size(segment, path, "total_size"), path);
        s.allocatedBytes = add(s.allocatedBytes, size(segment, path, "allocated_size"), path);
        s.activeBytes = add(s.activeBytes, size(segment, path, "active_size"), path);
        if (segment.contains("is_expandable") && segment["is_expandable"] == true)
            ++s.expandableSegments;
        const nlohmann::json &blocks = member(segment, path, "blocks");
        if (!blocks.is_array())
            throw InputError(at(path, "blocks"), "must be a list");
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            const std::string blockPath = path + ".blocks[" + std::to_string(b) + "]";
            const std::uint64_t bytes = size(blocks[b], blockPath, "size");
            const nlohmann::json &state = member(blocks[b], blockPath, "state");
            if (!state.is_string())
                throw InputError(at(blockPath, "state"), "must be a string");
            ++s.blocks;
            if (state == "inactive")
                s.largestFreeBlock = std::max(s.largestFreeBlock, bytes);
        }
    }
    // The trace: allocated at any entry is the snapshot's allocated less what the entries after
    // it added (alloc) or took away (free_completed).
    if (snapshot.contains("device_traces")) {
        const nlohmann::json &traces = snapshot["device_traces"];
        if (!traces.is_array())
            throw InputError("device_traces", "must be a list (one per device)");
        if (std::size_t(device) < traces.size()) {
            const nlohmann::json &trace = traces[std::size_t(device)];
            const std::string path = "device_traces[" + std::to_string(device) + "]";
            if (!trace.is_array())
                throw InputError(path, "must be a list of entries");
            std::vector<std::int64_t> delta(trace.size(), 0);
            for (std::size_t i = 0; i < trace.size(); ++i) {
                const std::string entryPath = path + "[" + std::to_string(i) + "]";
                const nlohmann::json &action = member(trace[i], entryPath, "action");
                if (!action.is_string())
                    throw InputError(at(entryPath, "action"), "must be a string");
                if (action == "oom")
                    ++s.traceOoms;
                if (action != "alloc" && action != "free_completed")
                    continue;
                const std::uint64_t bytes = size(trace[i], entryPath, "size");
                if (bytes > (std::uint64_t(1) << 62))
                    throw InputError(at(entryPath, "size"), "larger than any device");
                delta[i] = action == "alloc" ? std::int64_t(bytes) : -std::int64_t(bytes);
            }
            // Walk back from the snapshot's state.
            long double level = static_cast<long double>(s.allocatedBytes), peak = level;
            std::size_t peakEntry = trace.size();
            for (std::size_t i = trace.size(); i > 0; --i) {
                // After entry i-1 the level was `level`; before it, level - delta.
                if (level >= peak) { // the earliest entry that reached it
                    peak = level;
                    peakEntry = i - 1;
                }
                level -= static_cast<long double>(delta[i - 1]);
            }
            s.traceEntries = trace.size();
            if (!trace.empty()) {
                s.tracePeakAllocatedBytes = std::uint64_t(std::max<long double>(0, peak));
                s.tracePeakEntry = peakEntry == trace.size() ? trace.size() - 1 : peakEntry;
            }
        }
    }
    return s;
}

} // namespace headroom
