// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/gguf.h"

#include "io/inputpolicy.h"
#include "scenario/checked.h"
#include "scenario/units.h"

#include <cstring>
#include <set>

namespace headroom {

namespace {

std::string num(std::uint64_t value) { return groupDigits(value); }

/// Reads little-endian values from the bytes given, telling a header that goes on past them
/// (GgufNeedMore) from one that goes on past the end of the file (truncated).
class Cursor
{
public:
    Cursor(std::string_view bytes, std::uint64_t fileSize) : m_bytes(bytes), m_fileSize(fileSize) {}

    std::uint64_t pos() const { return m_pos; }

    /// Makes sure `n` more bytes are there.
    void need(std::uint64_t n, const char *what)
    {
        if (n > m_fileSize || m_pos > m_fileSize - n)
            throw GgufError(std::string("truncated: ") + what + " at byte " + num(m_pos) + " needs " + num(n) +
                            " bytes, the file has " + num(m_fileSize));
        if (m_pos + n > kGgufMaxHeaderBytes)
            throw GgufError("the header runs past the " + num(kGgufMaxHeaderBytes) + "-byte limit (" + what +
                            " at byte " + num(m_pos) + ")");
        if (m_pos + n > m_bytes.size())
            throw GgufNeedMore{m_pos + n};
    }

    template <typename T>
    T read(const char *what)
    {
        need(sizeof(T), what);
        T value{};
        std::uint64_t bits = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            bits |= std::uint64_t(static_cast<unsigned char>(m_bytes[m_pos + i])) << (8 * i);
        m_pos += sizeof(T);
        if constexpr (sizeof(T) == 8) {
            std::memcpy(&value, &bits, 8);
        } else {
            const auto narrow = static_cast<std::uint32_t>(bits);
            if constexpr (sizeof(T) == 4)
                std::memcpy(&value, &narrow, 4);
            else if constexpr (sizeof(T) == 2) {
                const auto n16 = static_cast<std::uint16_t>(bits);
                std::memcpy(&value, &n16, 2);
            } else {
                const auto n8 = static_cast<std::uint8_t>(bits);
                std::memcpy(&value, &n8, 1);
            }
        }
        return value;
    }

    /// A gguf_string: a 64-bit length, then the bytes (no terminator).
    std::string_view string(const char *what)
    {
        const auto length = read<std::uint64_t>(what);
        need(length, what);
        const std::string_view text = m_bytes.substr(std::size_t(m_pos), std::size_t(length));
        m_pos += length;
        return text;
    }

    void skip(std::uint64_t n, const char *what)
    {
        need(n, what);
        m_pos += n;
    }

    /// Bytes left in the file after the cursor.
    std::uint64_t left() const { return m_fileSize - m_pos; }

private:
    std::string_view m_bytes;
    std::uint64_t m_fileSize;
    std::uint64_t m_pos = 0;
};

/// Bytes of one value of a fixed-size type; 0 for strings and arrays.
std::uint64_t fixedSize(GgufValueType type)
{
    switch (type) {
    case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::Bool: return 1;
    case GgufValueType::U16: case GgufValueType::I16: return 2;
    case GgufValueType::U32: case GgufValueType::I32: case GgufValueType::F32: return 4;
    case GgufValueType::U64: case GgufValueType::I64: case GgufValueType::F64: return 8;
    case GgufValueType::String: case GgufValueType::Array: return 0;
    }
    return 0;
}

bool knownType(std::uint32_t type) { return type <= 12; }

const char *typeName(GgufValueType type)
{
    static const char *const names[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
                                        "bool", "string", "array", "uint64", "int64", "float64"};
    return names[static_cast<std::uint32_t>(type)];
}

/// A whole-number or bool value of a fixed type.
std::int64_t readInteger(Cursor &c, GgufValueType type, std::uint64_t *big, const char *what)
{
    switch (type) {
    case GgufValueType::U8: return c.read<std::uint8_t>(what);
    case GgufValueType::I8: return c.read<std::int8_t>(what);
    case GgufValueType::Bool: {
        const auto b = c.read<std::uint8_t>(what);
        if (b > 1)
            throw GgufError(std::string(what) + ": a bool of " + std::to_string(b));
        return b;
    }
    case GgufValueType::U16: return c.read<std::uint16_t>(what);
    case GgufValueType::I16: return c.read<std::int16_t>(what);
    case GgufValueType::U32: return c.read<std::uint32_t>(what);
    case GgufValueType::I32: return c.read<std::int32_t>(what);
    case GgufValueType::I64: return c.read<std::int64_t>(what);
    case GgufValueType::U64: {
        const auto v = c.read<std::uint64_t>(what);
        if (big)
            *big = v;
        return v > std::uint64_t(INT64_MAX) ? INT64_MAX : std::int64_t(v);
    }
    default: return 0;
    }
}

bool integerType(GgufValueType type)
{
    return type != GgufValueType::F32 && type != GgufValueType::F64 && type != GgufValueType::String &&
           type != GgufValueType::Array;
}

GgufValue readValue(Cursor &c, GgufValueType type, const std::string &key)
{
    GgufValue value;
    value.type = type;
    const char *what = "a metadata value";
    if (type == GgufValueType::String) {
        const std::string_view text = c.string(what);
        if (firstInvalidUtf8(text) != std::string_view::npos)
            throw GgufError("metadata " + quotedText(key) + ": the string is not UTF-8");
        value.text = std::string(text);
    } else if (type == GgufValueType::F32) {
        value.real = c.read<float>(what);
    } else if (type == GgufValueType::F64) {
        value.real = c.read<double>(what);
    } else if (type == GgufValueType::Array) {
        const auto element = c.read<std::uint32_t>("an array's type");
        if (!knownType(element))
            throw GgufError("metadata " + quotedText(key) + ": unknown array element type " + std::to_string(element));
        value.elementType = static_cast<GgufValueType>(element);
        if (value.elementType == GgufValueType::Array)
            throw GgufError("metadata " + quotedText(key) + ": an array of arrays (gguf.cpp reads none)");
        value.count = c.read<std::uint64_t>("an array's length");
        const std::uint64_t size = fixedSize(value.elementType);
        // Every element takes at least its fixed size (a string at least its 8-byte length):
        // a count the rest of the file cannot hold is refused before anything is read.
        const std::uint64_t least = size ? size : 8;
        if (value.count > c.left() / least)
            throw GgufError("metadata " + quotedText(key) + ": an array of " + num(value.count) + " " +
                            typeName(value.elementType) + " values does not fit in the file");
        if (value.elementType == GgufValueType::String) {
            for (std::uint64_t i = 0; i < value.count; ++i)
                c.string("an array's string");
        } else if (integerType(value.elementType) && value.count <= kGgufKeptArray) {
            value.integers.reserve(std::size_t(value.count));
            for (std::uint64_t i = 0; i < value.count; ++i)
                value.integers.push_back(readInteger(c, value.elementType, nullptr, "an array value"));
        } else {
            c.skip(value.count * size, "an array's values");
        }
    } else {
        value.integer = readInteger(c, type, &value.big, what);
        if (type != GgufValueType::U64)
            value.big = std::uint64_t(value.integer);
    }
    return value;
}

} // namespace

bool GgufValue::isInteger() const { return integerType(type); }

GgufFile parseGgufHeader(std::string_view bytes, std::uint64_t fileSize)
{
    Cursor c(bytes, fileSize);
    c.need(4, "the magic");
    if (bytes.substr(0, 4) != "GGUF")
        throw GgufError("not a GGUF file (it does not start with \"GGUF\")");
    c.skip(4, "the magic");
    GgufFile file;
    file.version = c.read<std::uint32_t>("the version");
    if ((file.version & 0xffffu) == 0 && file.version != 0)
        throw GgufError("a big-endian GGUF file (version " + std::to_string(file.version >> 24) +
                        "): only little-endian files are read");
    if (file.version == 1)
        throw GgufError("GGUF version 1 (32-bit counts) is not read; llama.cpp reads versions 2 and 3");
    if (file.version < 2 || file.version > 3)
        throw GgufError("GGUF version " + std::to_string(file.version) + ": only versions 2 and 3 are read");
    const auto tensorCount = c.read<std::uint64_t>("the tensor count");
    const auto keyCount = c.read<std::uint64_t>("the metadata count");
    // A tensor info takes at least 8 (name) + 4 (dims) + 8 (ne[0]) + 4 (type) + 8 (offset) bytes.
    if (tensorCount > limits::kTensors || tensorCount > c.left() / 32)
        throw GgufError("the header declares " + num(tensorCount) + " tensors, more than " +
                        (tensorCount > limits::kTensors ? "a model may have (" + num(limits::kTensors) + ")"
                                                        : std::string("the file can hold")));
    if (keyCount > kGgufMaxKeys || keyCount > c.left() / 12)
        throw GgufError("the header declares " + num(keyCount) + " metadata keys, more than " +
                        (keyCount > kGgufMaxKeys ? num(kGgufMaxKeys) : std::string("the file can hold")));

    for (std::uint64_t i = 0; i < keyCount; ++i) {
        const std::string_view keyText = c.string("a metadata key");
        if (keyText.empty() || firstInvalidUtf8(keyText) != std::string_view::npos)
            throw GgufError("metadata key " + num(i) + " is empty or not UTF-8");
        std::string key(keyText);
        const auto type = c.read<std::uint32_t>("a metadata type");
        if (!knownType(type))
            throw GgufError("metadata " + quotedText(key) + ": unknown value type " + std::to_string(type));
        GgufValue value = readValue(c, static_cast<GgufValueType>(type), key);
        if (!file.metadata.emplace(key, std::move(value)).second)
            throw GgufError("the header names metadata " + quotedText(key) + " twice");
    }
    if (const auto it = file.metadata.find("general.alignment"); it != file.metadata.end()) {
        const GgufValue &a = it->second;
        if (a.type != GgufValueType::U32 || a.integer == 0 || (a.integer & (a.integer - 1)) != 0)
            throw GgufError("general.alignment must be a uint32 power of two (got " +
                            (a.isInteger() ? std::to_string(a.integer) : std::string(typeName(a.type))) + ")");
        file.alignment = std::uint64_t(a.integer);
    }

    std::set<std::string> names;
    file.tensors.reserve(std::size_t(tensorCount));
    std::uint64_t expected = 0, end = 0;
    for (std::uint64_t i = 0; i < tensorCount; ++i) {
        GgufTensor t;
        const std::string_view name = c.string("a tensor name");
        if (name.size() > kGgufMaxNameBytes)
            throw GgufError("tensor " + num(i) + " " + quotedText(name) + ": a name longer than " +
                            std::to_string(kGgufMaxNameBytes) + " bytes");
        if (name.empty() || firstInvalidUtf8(name) != std::string_view::npos)
            throw GgufError("tensor " + num(i) + ": the name is empty or not UTF-8");
        t.name = std::string(name);
        t.dims = c.read<std::uint32_t>("a tensor's dimensions");
        if (t.dims < 1 || t.dims > 4)
            throw GgufError("tensor " + quotedText(t.name) + ": " + std::to_string(t.dims) +
                            " dimensions (ggml has 1 to 4)");
        t.elements = 1;
        for (std::uint32_t d = 0; d < t.dims; ++d) {
            const auto ne = c.read<std::uint64_t>("a tensor's shape");
            if (ne > std::uint64_t(INT64_MAX))
                throw GgufError("tensor " + quotedText(t.name) + ": dimension " + std::to_string(d) + " is negative");
            t.shape[d] = ne;
            if (ne != 0 && t.elements > std::uint64_t(INT64_MAX) / ne)
                throw GgufError("tensor " + quotedText(t.name) + ": more than 2^63 elements");
            t.elements *= ne;
        }
        const auto typeId = c.read<std::uint32_t>("a tensor's type");
        const std::optional<GgmlType> type = ggmlType(typeId);
        if (!type)
            throw GgufError("tensor " + quotedText(t.name) + ": ggml type " + std::to_string(typeId) +
                            (typeId < 40 ? " was removed from ggml (repacked layouts are not stored in files)"
                                         : " is not known to Headroom"));
        t.type = *type;
        if (t.shape[0] % t.type.blockSize != 0)
            throw GgufError("tensor " + quotedText(t.name) + ": a row of " + num(t.shape[0]) + " is not whole " +
                            t.type.name + " blocks of " + std::to_string(t.type.blockSize));
        t.bytes = t.elements / t.type.blockSize;
        if (t.bytes > UINT64_MAX / t.type.typeSize)
            throw GgufError("tensor " + quotedText(t.name) + ": more than 2^64 bytes");
        t.bytes *= t.type.typeSize;
        t.offset = c.read<std::uint64_t>("a tensor's offset");
        if (t.offset != expected)
            throw GgufError("tensor " + quotedText(t.name) + " has offset " + num(t.offset) + ", expected " +
                            num(expected) + " (the tensors before it, each padded to " + num(file.alignment) + ")");
        const std::uint64_t padded = t.bytes + (file.alignment - t.bytes % file.alignment) % file.alignment;
        if (padded < t.bytes || expected > UINT64_MAX - padded)
            throw GgufError("tensor " + quotedText(t.name) + ": the data runs past 2^64 bytes");
        end = expected + t.bytes;
        expected += padded;
        file.tensors.push_back(std::move(t));
        if (!names.insert(file.tensors.back().name).second)
            throw GgufError("the header names tensor " + quotedText(file.tensors.back().name) + " twice");
    }
    file.headerBytes = c.pos();
    file.dataOffset = file.headerBytes + (file.alignment - file.headerBytes % file.alignment) % file.alignment;
    file.dataBytes = expected;
    // llama_model_loader refuses a tensor whose data runs past the file; the last one's padding
    // may be missing.
    if (file.dataOffset > fileSize || end > fileSize - file.dataOffset)
        throw GgufError("truncated: the tensors need " + num(end) + " bytes after byte " +
                        num(file.dataOffset) + ", the file has " + num(fileSize));
    return file;
}

std::optional<std::int64_t> ggufInteger(const std::map<std::string, GgufValue> &metadata, const std::string &key)
{
    const auto it = metadata.find(key);
    if (it == metadata.end() || !it->second.isInteger())
        return std::nullopt;
    return it->second.integer;
}

std::optional<std::pair<int, int>> ggufSplitName(std::string_view fileName)
{
    // llama_split_path: "%s-%05d-of-%05d.gguf"
    constexpr std::string_view suffix = ".gguf";
    if (fileName.size() < 20 || fileName.substr(fileName.size() - suffix.size()) != suffix)
        return std::nullopt;
    const std::string_view tail = fileName.substr(fileName.size() - 20, 15); // "-00001-of-00003"
    if (tail[0] != '-' || tail.substr(6, 4) != "-of-")
        return std::nullopt;
    int no = 0, count = 0;
    for (int i = 1; i <= 5; ++i) {
        if (tail[std::size_t(i)] < '0' || tail[std::size_t(i)] > '9' || tail[std::size_t(i + 9)] < '0' ||
            tail[std::size_t(i + 9)] > '9')
            return std::nullopt;
        no = no * 10 + (tail[std::size_t(i)] - '0');
        count = count * 10 + (tail[std::size_t(i + 9)] - '0');
    }
    if (no < 1 || count < 1 || no > count)
        return std::nullopt;
    return std::make_pair(no, count);
}

GgufModel summarizeGguf(const std::vector<GgufShard> &shards)
{
    if (shards.empty())
        throw GgufError("no GGUF file");
    GgufModel model;
    model.metadata = shards.front().header.metadata;
    const auto count = ggufInteger(model.metadata, "split.count");
    if (shards.size() > 1 || (count && *count > 1)) {
        const std::int64_t n = count.value_or(0);
        if (n != std::int64_t(shards.size()))
            throw GgufError("a split set of " + num(shards.size()) + " files whose first says split.count " +
                            (count ? std::to_string(*count) : std::string("(absent)")));
        std::int64_t declared = -1;
        for (std::size_t i = 0; i < shards.size(); ++i) {
            const auto &meta = shards[i].header.metadata;
            const auto no = ggufInteger(meta, "split.no");
            const auto own = ggufInteger(meta, "split.count");
            if (!no || *no != std::int64_t(i) || !own || *own != n)
                throw GgufError(quotedText(shards[i].file) + ": split.no " + (no ? std::to_string(*no) : "(absent)") +
                                " of split.count " + (own ? std::to_string(*own) : "(absent)") + ", expected " +
                                std::to_string(i) + " of " + std::to_string(n));
            if (const auto t = ggufInteger(meta, "split.tensors.count"))
                declared = *t;
        }
        std::uint64_t total = 0;
        for (const GgufShard &shard : shards)
            total += shard.header.tensors.size();
        if (declared >= 0 && std::uint64_t(declared) != total)
            throw GgufError("split.tensors.count says " + num(std::uint64_t(declared)) + " tensors, the files hold " +
                            num(total));
    }
    if (const auto it = model.metadata.find("general.architecture");
        it != model.metadata.end() && it->second.type == GgufValueType::String)
        model.architecture = it->second.text;
    if (const auto ft = ggufInteger(model.metadata, "general.file_type"); ft && *ft >= 0 && *ft < 1024)
        model.fileType = std::uint32_t(*ft);

    std::set<std::string> names;
    WeightsSummary &w = model.weights;
    w.files = shards.size();
    for (const GgufShard &shard : shards) {
        w.fileBytes = addChecked(w.fileBytes, shard.fileSize, "GGUF file bytes");
        if (w.tensors + shard.header.tensors.size() > limits::kTensors)
            throw GgufError("the files hold more than " + num(limits::kTensors) + " tensors");
        for (const GgufTensor &t : shard.header.tensors) {
            if (!names.insert(t.name).second)
                throw GgufError(quotedText(shard.file) + " names tensor " + quotedText(t.name) +
                                ", which an earlier file holds too");
            ++w.tensors;
            w.elements = addChecked(w.elements, t.elements, "GGUF parameters");
            w.params = w.elements;
            w.bytes = addChecked(w.bytes, t.bytes, "GGUF tensor bytes");
            DTypeTotal &byType = w.byDType[t.type.name];
            ++byType.tensors;
            byType.elements += t.elements; // at most the totals above
            byType.bytes += t.bytes;
            int layer = -1;
            if (t.name.rfind("blk.", 0) == 0) {
                std::size_t i = 4;
                int value = 0;
                while (i < t.name.size() && i < 10 && t.name[i] >= '0' && t.name[i] <= '9')
                    value = value * 10 + (t.name[i++] - '0');
                if (i > 4 && i < t.name.size() && t.name[i] == '.')
                    layer = value;
            }
            if (layer >= 0)
                model.layerBytes[layer] += t.bytes; // at most the total above
            else
                model.otherBytes += t.bytes;
            model.tensors.push_back(t);
        }
    }
    return model;
}

} // namespace headroom
