// SPDX-License-Identifier: GPL-3.0-or-later
#include "ggufimport.h"

#include "inputfile.h"
#include "io/inputpolicy.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

namespace headroom {

namespace {

std::string local(const QString &path) { return printable(QDir::toNativeSeparators(path).toStdString()); }

/// The first read: most headers without a large vocabulary fit in 1 MiB.
constexpr std::uint64_t kFirstRead = 1024 * 1024;

GgufShard readHeader(const QString &path)
{
    GgufShard shard;
    shard.file = QFileInfo(path).fileName().toStdString();
    try {
        InputFile file(path);
        shard.fileSize = file.size();
        QByteArray bytes = file.read(std::min(shard.fileSize, kFirstRead));
        for (;;) {
            try {
                shard.header = parseGgufHeader(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                               shard.fileSize);
                break;
            } catch (const GgufNeedMore &more) {
                const std::uint64_t have = std::uint64_t(bytes.size());
                const std::uint64_t want =
                    std::min({std::max(more.needed, 4 * have), shard.fileSize, kGgufMaxHeaderBytes});
                if (want <= have)
                    throw GgufError("the file ended while its header was read");
                const QByteArray rest = file.read(want - have);
                if (rest.isEmpty())
                    throw GgufError("the file ended while its header was read");
                bytes += rest;
            }
        }
    } catch (const InputError &error) {
        throw GgufError(local(path) + ": " + error.what());
    }
    return shard;
}

} // namespace

GgufModel readGgufModel(const QString &path)
{
    const QFileInfo info(path);
    std::vector<GgufShard> shards;
    const auto split = ggufSplitName(info.fileName().toStdString());
    if (!split) {
        shards.push_back(readHeader(path));
    } else {
        const auto [no, count] = *split;
        (void)no;
        if (std::uint64_t(count) > kGgufMaxSplits)
            throw GgufError(local(path) + ": a split set of " + std::to_string(count) + " files, more than " +
                            std::to_string(kGgufMaxSplits));
        // llama_split_prefix / llama_split_path: "PREFIX-%05d-of-%05d.gguf", in the same folder.
        const QString name = info.fileName();
        const QString prefix = name.left(name.size() - 20);
        const QDir folder = info.absoluteDir();
        std::uint64_t headerBytes = 0;
        for (int i = 1; i <= count; ++i) {
            const QString part = folder.filePath(QStringLiteral("%1-%2-of-%3.gguf")
                                                     .arg(prefix)
                                                     .arg(i, 5, 10, QLatin1Char('0'))
                                                     .arg(count, 5, 10, QLatin1Char('0')));
            if (!QFileInfo::exists(part))
                throw GgufError(local(path) + ": split " + std::to_string(i) + " of " + std::to_string(count) +
                                " is missing (looked for " + local(part) + ")");
            shards.push_back(readHeader(part));
            headerBytes += shards.back().header.headerBytes;
            if (headerBytes > limits::kCheckpointHeaderBytes)
                throw GgufError(local(path) + ": the split files' headers hold more than " +
                                std::to_string(limits::kCheckpointHeaderBytes) + " bytes");
        }
    }
    try {
        return summarizeGguf(shards);
    } catch (const InputError &error) {
        throw GgufError(local(path) + ": " + error.what());
    }
}

} // namespace headroom
