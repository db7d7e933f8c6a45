// SPDX-License-Identifier: GPL-3.0-or-later
// Writes GGUF files for the tests and benches, byte by byte as the format says (ggml/docs/gguf.md,
// gguf.cpp gguf_write_to_buf): written here independently of the reader, so that reading one
// back checks the reader. Tensor data are zeros (a sparse file: only the header is written).
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace headroom::test {

struct GgufTensorSpec
{
    std::string name;
    std::uint32_t type = 0;             ///< ggml type number
    std::vector<std::uint64_t> shape;   ///< ne[0] first
    std::uint64_t bytes = 0;            ///< the data size, worked out by the test by hand
};

class GgufWriter
{
public:
    explicit GgufWriter(std::uint32_t version = 3) { raw("GGUF"); u32(version); }

    void u32(std::uint32_t v) { put(m_head, v, 4); }

    void keyU32(const std::string &key, std::uint32_t value) { key_(key, 4); put(m_kv, value, 4); ++m_keys; }
    void keyU16(const std::string &key, std::uint16_t value) { key_(key, 2); put(m_kv, value, 2); ++m_keys; }
    void keyI32(const std::string &key, std::int32_t value) { key_(key, 5); put(m_kv, std::uint32_t(value), 4); ++m_keys; }
    void keyF32(const std::string &key, float value)
    {
        key_(key, 6);
        std::uint32_t bits;
        static_assert(sizeof bits == sizeof value);
        std::memcpy(&bits, &value, 4);
        put(m_kv, bits, 4);
        ++m_keys;
    }
    void keyString(const std::string &key, const std::string &value) { key_(key, 8); str(m_kv, value); ++m_keys; }
    void keyStrings(const std::string &key, const std::vector<std::string> &values)
    {
        key_(key, 9);
        put(m_kv, 8, 4);
        put(m_kv, values.size(), 8);
        for (const std::string &v : values)
            str(m_kv, v);
        ++m_keys;
    }
    void keyI32s(const std::string &key, const std::vector<std::int32_t> &values)
    {
        key_(key, 9);
        put(m_kv, 5, 4);
        put(m_kv, values.size(), 8);
        for (std::int32_t v : values)
            put(m_kv, std::uint32_t(v), 4);
        ++m_keys;
    }
    /// Raw bytes appended to the metadata (for malformed files).
    void rawMetadata(const QByteArray &bytes, int keys) { m_kv += bytes; m_keys += std::uint64_t(keys); }

    void tensor(const GgufTensorSpec &t) { m_tensors.push_back(t); }

    /// The file: header, tensor infos at running offsets (each tensor padded to `alignment`),
    /// padding, then `dataBytes` of data (0: what the tensors need). `offsetShift` adds to the
    /// second tensor's offset (a malformed file).
    QByteArray header(std::uint64_t alignment = 32, std::uint64_t offsetShift = 0,
                      std::uint64_t declaredTensors = UINT64_MAX) const
    {
        QByteArray out = m_head;
        put(out, declaredTensors == UINT64_MAX ? m_tensors.size() : declaredTensors, 8);
        put(out, m_keys, 8);
        out += m_kv;
        std::uint64_t offset = 0;
        for (std::size_t i = 0; i < m_tensors.size(); ++i) {
            const GgufTensorSpec &t = m_tensors[i];
            str(out, t.name);
            put(out, t.shape.size(), 4);
            for (std::uint64_t ne : t.shape)
                put(out, ne, 8);
            put(out, t.type, 4);
            put(out, offset + (i == 1 ? offsetShift : 0), 8);
            offset += (t.bytes + alignment - 1) / alignment * alignment;
        }
        while (std::uint64_t(out.size()) % alignment)
            out.append('\0');
        return out;
    }

    /// Bytes of data after the header: every tensor padded except the last.
    std::uint64_t dataBytes(std::uint64_t alignment = 32) const
    {
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < m_tensors.size(); ++i)
            total += i + 1 < m_tensors.size() ? (m_tensors[i].bytes + alignment - 1) / alignment * alignment
                                              : m_tensors[i].bytes;
        return total;
    }

    /// Writes the header and a sparse data section; returns false on failure.
    bool write(const QString &path, std::uint64_t alignment = 32, std::int64_t trimData = 0) const
    {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return false;
        const QByteArray head = header(alignment);
        file.write(head);
        return file.resize(qint64(std::uint64_t(head.size()) + dataBytes(alignment)) - trimData);
    }

    static void put(QByteArray &out, std::uint64_t value, int bytes)
    {
        for (int i = 0; i < bytes; ++i)
            out.append(char((value >> (8 * i)) & 0xff));
    }
    static void str(QByteArray &out, const std::string &text)
    {
        put(out, text.size(), 8);
        out.append(text.data(), qsizetype(text.size()));
    }

private:
    void raw(const char *text) { m_head.append(text); }
    void key_(const std::string &key, std::uint32_t type) { str(m_kv, key); put(m_kv, type, 4); }

    QByteArray m_head;
    QByteArray m_kv;
    std::uint64_t m_keys = 0;
    std::vector<GgufTensorSpec> m_tensors;
};

} // namespace headroom::test
