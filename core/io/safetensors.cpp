// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/safetensors.h"

#include "scenario/checked.h"
#include "io/inputpolicy.h"
#include "scenario/units.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace headroom {

using nlohmann::json;

namespace {

struct DTypeEntry
{
    const char *name;
    int bits;
};

/// Every dtype of the safetensors format (safetensors/src/tensor.rs, Dtype).
constexpr DTypeEntry kDTypes[] = {
    {"BOOL", 8},     {"U8", 8},       {"I8", 8},       {"F8_E5M2", 8}, {"F8_E4M3", 8},
    {"F8_E8M0", 8},  {"I16", 16},     {"U16", 16},     {"F16", 16},    {"BF16", 16},
    {"I32", 32},     {"U32", 32},     {"F32", 32},     {"F64", 64},    {"I64", 64},
    {"U64", 64},     {"C64", 64},     {"F4", 4},       {"F6_E2M3", 6}, {"F6_E3M2", 6},
};

std::string knownDTypes()
{
    std::string out;
    for (const DTypeEntry &entry : kDTypes)
        out += (out.empty() ? "" : ", ") + std::string(entry.name);
    return out;
}

std::string shortDump(const json &value)
{
    return quoteJson(value, 60);
}

/// A tensor or file name for a message (names are short; a hostile one is cut and escaped).
std::string nameText(std::string_view name)
{
    return quoteText(name, 120);
}

/// The JSON of a header or an index under the input policy; errors say which of them.
json parsePart(std::string_view text, std::uint64_t maxBytes, const char *what)
{
    try {
        return parseStrictJson(text, {maxBytes, limits::kJsonDepth});
    } catch (const JsonInputError &error) {
        if (error.problem == JsonProblem::DuplicateKey)
            throw SafetensorsError(std::string(what) + " names " + error.key +
                                   " twice (each name may appear once)");
        throw SafetensorsError(std::string(what) + ": " + error.what());
    }
}

std::string shapeText(const std::vector<std::uint64_t> &shape)
{
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

SafetensorsTensor readTensor(const std::string &name, const json &entry)
{
    const std::string where = "tensor \"" + nameText(name) + "\": ";
    if (!entry.is_object())
        throw SafetensorsError(where + "entry must be an object with dtype, shape, data_offsets");
    for (const char *key : {"dtype", "shape", "data_offsets"})
        if (!entry.contains(key))
            throw SafetensorsError(where + "no \"" + key + "\"");
    SafetensorsTensor tensor;
    tensor.name = name;
    const json &dtype = entry.at("dtype");
    if (!dtype.is_string())
        throw SafetensorsError(where + "dtype must be a string (got " + shortDump(dtype) + ")");
    tensor.dtype = dtype.get<std::string>();
    const int bits = safetensorsDTypeBits(tensor.dtype);
    if (bits == 0)
        throw SafetensorsError(where + "unknown dtype " + shortDump(dtype) + " (known: " +
                               knownDTypes() + ")");

    const json &shape = entry.at("shape");
    if (!shape.is_array())
        throw SafetensorsError(where + "shape must be a list of sizes (got " + shortDump(shape) + ")");
    tensor.elements = 1;
    for (const json &size : shape) {
        if (!size.is_number_unsigned())
            throw SafetensorsError(where + "shape " + shortDump(shape) +
                                   " must hold whole numbers of 0 or more");
        const auto value = size.get<std::uint64_t>();
        tensor.shape.push_back(value);
        if (__builtin_mul_overflow(tensor.elements, value, &tensor.elements))
            throw SafetensorsError(where + "shape " + shortDump(shape) + " overflows 64 bits");
    }

    const json &offsets = entry.at("data_offsets");
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
        throw SafetensorsError(where + "data_offsets must be [begin, end] (got " +
                               shortDump(offsets) + ")");
    tensor.begin = offsets[0].get<std::uint64_t>();
    tensor.end = offsets[1].get<std::uint64_t>();
    if (tensor.end < tensor.begin)
        throw SafetensorsError(where + "data_offsets " + shortDump(offsets) + " end before they begin");

    std::uint64_t bitCount = 0;
    if (__builtin_mul_overflow(tensor.elements, std::uint64_t(bits), &bitCount))
        throw SafetensorsError(where + "shape " + shapeText(tensor.shape) + " overflows 64 bits");
    if (bitCount % 8 != 0)
        throw SafetensorsError(where + shapeText(tensor.shape) + " x " + tensor.dtype +
                               " is not a whole number of bytes");
    const std::uint64_t needed = bitCount / 8;
    if (tensor.end - tensor.begin != needed)
        throw SafetensorsError(where + "data_offsets [" + std::to_string(tensor.begin) + ", " +
                               std::to_string(tensor.end) + "] hold " +
                               std::to_string(tensor.end - tensor.begin) + " bytes, but shape " +
                               shapeText(tensor.shape) + " x " + tensor.dtype + " needs " +
                               std::to_string(needed));
    return tensor;
}

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// Scales, zero points, absmax and other tensors that only serve a quantized format.
bool isQuantMetadata(std::string_view name)
{
    static constexpr std::string_view suffixes[] = {
        ".scales",        ".qzeros",           ".g_idx",          ".absmax",
        ".quant_map",     ".nested_absmax",    ".nested_quant_map", ".SCB",
        ".weight_format", ".weight_scale",     ".weight_scale_inv", ".weight_scale_2",
        ".input_scale",   ".weight_zero_point", ".weight_shape",   ".weight_global_scale",
        ".input_global_scale"};
    if (name.find(".quant_state.") != std::string_view::npos)
        return true;
    return std::any_of(std::begin(suffixes), std::end(suffixes),
                       [&](std::string_view suffix) { return endsWith(name, suffix); });
}

/// The bits per weight of a packed int32 GPTQ/AWQ `qweight`, from its siblings' shapes: the
/// zero points are packed at the weights' width, qzeros [groups, out x bits / 32] beside
/// scales [groups, out] (AutoGPTQ, GPTQModel and AutoAWQ alike); without qzeros, GPTQ's
/// qweight [in x bits / 32, out] beside g_idx [in]. 0 when the shapes do not tell; throws when
/// they tell a width no packer writes.
int packedBitsFromShapes(const SafetensorsTensor &qweight,
                         const std::map<std::string_view, const SafetensorsTensor *> &byName)
{
    const std::string_view base = std::string_view(qweight.name).substr(0, qweight.name.size() - 8);
    const auto sibling = [&](std::string_view suffix) -> const SafetensorsTensor * {
        const auto it = byName.find(std::string(base) + std::string(suffix));
        return it == byName.end() ? nullptr : it->second;
    };
    const SafetensorsTensor *scales = sibling(".scales");
    const SafetensorsTensor *zeros = sibling(".qzeros");
    const SafetensorsTensor *order = sibling(".g_idx");
    std::uint64_t numerator = 0, denominator = 0; // bits = numerator x 32 / denominator
    if (scales && zeros && scales->shape.size() == 2 && zeros->shape.size() == 2 && scales->shape[1] > 0 &&
        zeros->shape[0] == scales->shape[0]) {
        numerator = zeros->shape[1];
        denominator = scales->shape[1];
    } else if (order && order->shape.size() == 1 && order->shape[0] > 0 && qweight.shape.size() == 2 &&
               (!scales || (scales->shape.size() == 2 && scales->shape[1] == qweight.shape[1]))) {
        numerator = qweight.shape[0];
        denominator = order->shape[0];
    } else {
        return 0;
    }
    // A size beside a 0 may be anything up to 2^64: x 32 must not wrap.
    if (numerator <= std::numeric_limits<std::uint64_t>::max() / 32 && numerator * 32 % denominator == 0) {
        const std::uint64_t bits = numerator * 32 / denominator;
        if (bits == 2 || bits == 3 || bits == 4 || bits == 8)
            return int(bits);
    }
    throw SafetensorsError("tensor \"" + nameText(qweight.name) + "\": its " +
                           std::string(zeros && numerator == zeros->shape[1] ? "qzeros and scales" : "qweight and g_idx") +
                           " shapes give " + std::to_string(numerator) + " x 32 / " + std::to_string(denominator) +
                           " bits per weight; GPTQ and AWQ pack 2, 3, 4 or 8");
}

} // namespace

int safetensorsDTypeBits(std::string_view dtype)
{
    for (const DTypeEntry &entry : kDTypes)
        if (dtype == entry.name)
            return entry.bits;
    return 0;
}

std::uint64_t safetensorsHeaderLength(std::string_view firstBytes, std::uint64_t fileSize)
{
    if (firstBytes.size() < 8 || fileSize < 8)
        throw SafetensorsError("too short for a safetensors file (" + std::to_string(fileSize) +
                               " bytes; the header length alone takes 8)");
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i)
        length = (length << 8) | static_cast<unsigned char>(firstBytes[std::size_t(i)]);
    if (length == 0)
        throw SafetensorsError("the header length is 0: not a safetensors file");
    if (length > kSafetensorsMaxHeaderBytes)
        throw SafetensorsError("the header claims " + std::to_string(length) +
                               " bytes, more than the 100,000,000-byte limit: not a safetensors "
                               "file, or a damaged one");
    if (length > fileSize - 8)
        throw SafetensorsError("the header claims " + std::to_string(length) +
                               " bytes, but the file has only " + std::to_string(fileSize - 8) +
                               " after the length: the file is truncated");
    return length;
}

SafetensorsHeader parseSafetensorsHeader(std::string_view headerJson, std::uint64_t fileSize)
{
    SafetensorsHeader header;
    header.headerBytes = headerJson.size();
    if (fileSize < 8 || header.headerBytes > fileSize - 8)
        throw SafetensorsError("the header runs past the end of the file");
    header.dataBytes = fileSize - 8 - header.headerBytes;
    if (headerJson.empty() || headerJson.front() != '{')
        throw SafetensorsError("the header is not JSON (it must start with '{')");
    const json doc = parsePart(headerJson, kSafetensorsMaxHeaderBytes, "the header");
    if (!doc.is_object())
        throw SafetensorsError("the header is not a JSON object");
    if (doc.size() > limits::kTensors)
        throw SafetensorsError("the header lists " + groupDigits(doc.size()) +
                               " tensors, more than the " + groupDigits(limits::kTensors) +
                               " a checkpoint may have");

    for (const auto &item : doc.items()) {
        if (item.key() == "__metadata__") {
            if (!item.value().is_object())
                throw SafetensorsError("__metadata__ must be an object of strings");
            for (const auto &meta : item.value().items()) {
                if (!meta.value().is_string())
                    throw SafetensorsError("__metadata__ \"" + nameText(meta.key()) +
                                           "\" must be a string");
                header.metadata[meta.key()] = meta.value().get<std::string>();
            }
            continue;
        }
        header.tensors.push_back(readTensor(item.key(), item.value()));
    }

    std::sort(header.tensors.begin(), header.tensors.end(),
              [](const SafetensorsTensor &a, const SafetensorsTensor &b) {
                  return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
              });
    std::uint64_t position = 0;
    const SafetensorsTensor *previous = nullptr;
    for (const SafetensorsTensor &tensor : header.tensors) {
        if (tensor.begin < position)
            throw SafetensorsError("tensor \"" + nameText(tensor.name) + "\" (bytes " +
                                   std::to_string(tensor.begin) + "-" + std::to_string(tensor.end) +
                                   ") overlaps \"" + nameText(previous->name) + "\" (ends at " +
                                   std::to_string(position) + ")");
        if (tensor.begin > position)
            throw SafetensorsError("a gap of " + std::to_string(tensor.begin - position) +
                                   " bytes before tensor \"" + nameText(tensor.name) + "\" (at " +
                                   std::to_string(position) + ")");
        position = tensor.end;
        previous = &tensor;
    }
    if (position > header.dataBytes)
        throw SafetensorsError("tensor \"" + nameText(previous->name) + "\" ends at byte " +
                               std::to_string(position) + " of the data, but the file holds only " +
                               std::to_string(header.dataBytes) +
                               " after the header: the file is truncated");
    if (position < header.dataBytes)
        throw SafetensorsError("the tensors fill " + std::to_string(position) +
                               " bytes, but the file holds " + std::to_string(header.dataBytes) +
                               " after the header");
    return header;
}

SafetensorsIndex parseSafetensorsIndex(std::string_view text)
{
    const json doc = parsePart(text, limits::kIndexBytes, "the index");
    if (!doc.is_object())
        throw SafetensorsError("the index is not a JSON object");
    const auto map = doc.find("weight_map");
    if (map == doc.end() || !map->is_object())
        throw SafetensorsError("the index has no \"weight_map\" object");
    if (map->size() > limits::kTensors)
        throw SafetensorsError("the index's weight_map lists " + groupDigits(map->size()) +
                               " tensors, more than the " + groupDigits(limits::kTensors) +
                               " a checkpoint may have");
    SafetensorsIndex index;
    std::set<std::string> shards;
    for (const auto &item : map->items()) {
        if (!item.value().is_string())
            throw SafetensorsError("weight_map \"" + nameText(item.key()) + "\" must name a file");
        const std::string file = item.value().get<std::string>();
        if (file.empty() || file.front() == '/' || file.find("..") != std::string::npos ||
            file.find('\\') != std::string::npos)
            throw SafetensorsError("weight_map \"" + nameText(item.key()) + "\" names \"" +
                                   nameText(file) +
                                   "\": shards must be files next to the index");
        index.weightMap[item.key()] = file;
        shards.insert(file);
    }
    if (shards.size() > limits::kShards)
        throw SafetensorsError("the index names " + groupDigits(shards.size()) +
                               " shard files, more than the " + groupDigits(limits::kShards) +
                               " a checkpoint may have");
    index.shards.assign(shards.begin(), shards.end());
    if (const auto meta = doc.find("metadata"); meta != doc.end() && meta->is_object())
        if (const auto total = meta->find("total_size");
            total != meta->end() && total->is_number_unsigned())
            index.totalSize = total->get<std::uint64_t>();
    return index;
}

WeightsSummary summarizeSafetensors(const std::vector<SafetensorsShard> &shards,
                                    const SafetensorsIndex *index, int packedBits)
{
    const char *what = "checkpoint size";
    WeightsSummary summary;
    std::map<std::string, std::string> shardOf; // tensor -> file
    std::set<std::string> names;
    for (const SafetensorsShard &shard : shards)
        for (const SafetensorsTensor &tensor : shard.header.tensors)
            names.insert(tensor.name);

    std::map<std::string_view, const SafetensorsTensor *> byName;
    for (const SafetensorsShard &shard : shards)
        for (const SafetensorsTensor &tensor : shard.header.tensors)
            byName.emplace(tensor.name, &tensor);
    const int fallbackBits = packedBits == 2 || packedBits == 3 || packedBits == 8 ? packedBits : 4;
    std::set<int> packedWidths;
    bool assumed = false, bnb4 = false;
    for (const SafetensorsShard &shard : shards) {
        ++summary.files;
        summary.fileBytes = addChecked(summary.fileBytes, shard.fileSize, what);
        for (const SafetensorsTensor &tensor : shard.header.tensors) {
            const auto [it, inserted] = shardOf.emplace(tensor.name, shard.file);
            if (!inserted)
                throw SafetensorsError("tensor \"" + nameText(tensor.name) + "\" is in both " +
                                       nameText(it->second) + " and " + nameText(shard.file));
            const std::uint64_t bytes = tensor.end - tensor.begin;
            ++summary.tensors;
            summary.elements = addChecked(summary.elements, tensor.elements, what);
            summary.bytes = addChecked(summary.bytes, bytes, what);
            DTypeTotal &total = summary.byDType[tensor.dtype];
            ++total.tensors;
            total.elements = addChecked(total.elements, tensor.elements, what);
            total.bytes = addChecked(total.bytes, bytes, what);

            if (isQuantMetadata(tensor.name)) {
                summary.quantMetadataBytes = addChecked(summary.quantMetadataBytes, bytes, what);
                continue;
            }
            std::uint64_t params = tensor.elements;
            if ((endsWith(tensor.name, ".qweight") || endsWith(tensor.name, ".weight_packed")) &&
                (tensor.dtype == "I32" || tensor.dtype == "U32")) {
                // 32 / bits weights per int32: 16, 10 2/3, 8 or 4 (a 3-bit qweight packs 32
                // weights into 3 words).
                int bits = endsWith(tensor.name, ".qweight") ? packedBitsFromShapes(tensor, byName) : 0;
                if (!bits) {
                    bits = fallbackBits;
                    assumed = true;
                }
                params = ceilDiv(mulChecked(tensor.elements, 32, what), std::uint64_t(bits));
                packedWidths.insert(bits);
            } else if (tensor.dtype == "U8" &&
                       (names.count(tensor.name + ".quant_state.bitsandbytes__nf4") ||
                        names.count(tensor.name + ".quant_state.bitsandbytes__fp4"))) {
                params = mulChecked(tensor.elements, 2, what);
                bnb4 = true;
            }
            summary.params = addChecked(summary.params, params, what);
        }
    }

    if (index) {
        for (const auto &[tensor, file] : index->weightMap) {
            const auto found = shardOf.find(tensor);
            if (found == shardOf.end() || found->second != file)
                throw SafetensorsError("the index puts tensor \"" + nameText(tensor) + "\" in " +
                                       nameText(file) + ", but " + nameText(file) +
                                       " has no such tensor");
        }
        const std::uint64_t unlisted = shardOf.size() - index->weightMap.size();
        if (unlisted)
            summary.notes.push_back(std::to_string(unlisted) +
                                    " tensors in the shards are not in the index's weight_map "
                                    "(counted).");
        if (index->totalSize && *index->totalSize != summary.bytes)
            summary.notes.push_back("the index's metadata.total_size (" +
                                    groupDigits(*index->totalSize) +
                                    ") differs from the tensor bytes in the headers (" +
                                    groupDigits(summary.bytes) + ").");
    }
    if (!packedWidths.empty()) {
        std::string widths;
        for (int bits : packedWidths)
            widths += (widths.empty() ? "" : ", ") + std::to_string(bits);
        summary.notes.push_back("packed int32 weights (GPTQ/AWQ qweight): " + widths + " bits per weight" +
                                (assumed ? " (" + std::to_string(fallbackBits) +
                                               " assumed where no qzeros, scales or g_idx shape tells)"
                                         : " (from the qzeros, scales and g_idx shapes)") +
                                ".");
    }
    if (bnb4)
        summary.notes.push_back("bitsandbytes 4-bit weights: 2 parameters per byte.");
    if (summary.quantMetadataBytes)
        summary.notes.push_back("quantization metadata (scales, zero points, absmax): " +
                                groupDigits(summary.quantMetadataBytes) +
                                " bytes, not counted as parameters.");
    return summary;
}

} // namespace headroom
