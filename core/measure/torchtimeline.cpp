// SPDX-License-Identifier: GPL-3.0-or-later
#include "measure/torchtimeline.h"

#include "io/inputpolicy.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace headroom {

const char *torchCategoryKey(TorchCategory category)
{
    switch (category) {
    case TorchCategory::Parameter: return "parameter";
    case TorchCategory::OptimizerState: return "optimizer_state";
    case TorchCategory::Input: return "input";
    case TorchCategory::Temporary: return "temporary";
    case TorchCategory::Activation: return "activation";
    case TorchCategory::Gradient: return "gradient";
    case TorchCategory::AutogradDetail: return "autograd_detail";
    case TorchCategory::Unknown: return "unknown";
    }
    return "?";
}

TorchTimeline readTorchTimeline(std::string_view text)
{
    if (!text.empty() && static_cast<unsigned char>(text[0]) == 0x1f)
        throw InputError("", "a gzipped timeline (.json.gz): gunzip it first");
    JsonLimits limits;
    limits.maxBytes = 256ull * 1024 * 1024;
    const nlohmann::json doc = parseStrictJson(text, limits);
    if (!doc.is_array() || doc.size() != 2 || !doc[0].is_array() || !doc[1].is_array())
        throw InputError("", "not an export_memory_timeline() JSON: [times, sizes] expected");
    const nlohmann::json &times = doc[0], &sizes = doc[1];
    if (times.size() != sizes.size())
        throw InputError("sizes", std::to_string(sizes.size()) + " rows for " + std::to_string(times.size()) + " times");
    if (times.empty())
        throw InputError("times", "empty: the profile recorded no memory event");
    TorchTimeline t;
    t.points = times.size();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const std::string path = "sizes[" + std::to_string(i) + "]";
        const nlohmann::json &row = sizes[i];
        if (!row.is_array() || row.size() != kTorchCategories + 1)
            throw InputError(path, "must list " + std::to_string(kTorchCategories + 1) +
                                       " sizes (PyTorch's baseline, then its 8 categories; got " +
                                       (row.is_array() ? std::to_string(row.size()) : quoteJson(row)) + ")");
        if (!times[i].is_number())
            throw InputError("times[" + std::to_string(i) + "]", "must be a number");
        std::array<std::uint64_t, kTorchCategories> values{};
        std::uint64_t total = 0;
        for (std::size_t c = 0; c < kTorchCategories; ++c) {
            const nlohmann::json &v = row[c + 1];
            if (!v.is_number())
                throw InputError(path + "[" + std::to_string(c + 1) + "]", "must be a number of bytes");
            // A category can dip below zero between a free and its matching allocation in
            // PyTorch's bookkeeping; it holds no memory then.
            const double bytes = std::max(0.0, v.get<double>());
            std::uint64_t b = 0;
            if (!toUint64(bytes, b) || b > (std::uint64_t(1) << 56))
                throw InputError(path + "[" + std::to_string(c + 1) + "]", "larger than any device");
            values[c] = b;
            total += b;
            t.largest[c] = std::max(t.largest[c], b);
        }
        if (total > t.peakBytes || i == 0) {
            t.peakBytes = total;
            t.peakIndex = i;
            t.peakTime = times[i].get<double>();
            t.atPeak = values;
        }
    }
    return t;
}

std::vector<TimelineRow> compareTimeline(const TorchTimeline &t, const Estimate &e)
{
    const auto cat = [&](TorchCategory c) { return t.atPeak[std::size_t(c)]; };
    std::vector<TimelineRow> rows = {
        {"weights", cat(TorchCategory::Parameter), e.bytes(ConsumerId::Weights) + e.bytes(ConsumerId::QuantMetadata),
         "the weights' dtype and count (precision.weights, the model)", {ConsumerId::Weights, ConsumerId::QuantMetadata}},
        {"gradients", cat(TorchCategory::Gradient), e.bytes(ConsumerId::Gradients),
         "which parameters train (train.method) and grad_dtype", {ConsumerId::Gradients}},
        {"optimizer state (+ master weights)", cat(TorchCategory::OptimizerState),
         e.bytes(ConsumerId::OptimizerState) + e.bytes(ConsumerId::MasterWeights), "train.optimizer and master_weights",
         {ConsumerId::OptimizerState, ConsumerId::MasterWeights}},
        {"activations (activation + autograd detail + input)",
         cat(TorchCategory::Activation) + cat(TorchCategory::AutogradDetail) + cat(TorchCategory::Input),
         e.bytes(ConsumerId::Activations) + e.bytes(ConsumerId::AttentionScores) + e.bytes(ConsumerId::Logits),
         "kernels.attention (eager keeps the score matrix, SDPA does not), gradient_checkpointing, the loss's fp32 logits",
         {ConsumerId::Activations, ConsumerId::AttentionScores, ConsumerId::Logits}},
        {"temporaries (workspace)", cat(TorchCategory::Temporary), e.bytes(ConsumerId::Workspace),
         "the kernels' scratch and the optimizer's foreach temporaries", {ConsumerId::Workspace}},
        {"unknown (PyTorch could not tell)", cat(TorchCategory::Unknown), 0, "not attributed by the profiler", {}},
    };
    std::stable_sort(rows.begin(), rows.end(), [](const TimelineRow &a, const TimelineRow &b) {
        return std::llabs(std::int64_t(a.estimated) - std::int64_t(a.measured)) >
               std::llabs(std::int64_t(b.estimated) - std::int64_t(b.measured));
    });
    return rows;
}

} // namespace headroom
