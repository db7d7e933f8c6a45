// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelimport.h"

#include "inputfile.h"
#include "io/inputpolicy.h"
#include "scenario/units.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace headroom {

namespace {

/// A path for a message (escaped when it holds control characters).
std::string local(const QString &path) { return printable(QDir::toNativeSeparators(path).toStdString()); }

/// One file's header: 8 bytes of length, checked against the file size, then the JSON.
SafetensorsShard readShard(const QString &path, const std::string &name)
{
    SafetensorsShard shard;
    shard.file = name;
    try {
        InputFile file(path);
        shard.fileSize = file.size();
        const QByteArray prefix = file.read(8);
        const std::uint64_t length = safetensorsHeaderLength(
            std::string_view(prefix.constData(), std::size_t(prefix.size())), shard.fileSize);
        const QByteArray header = file.read(length);
        if (std::uint64_t(header.size()) != length)
            throw SafetensorsError("could read only " + std::to_string(header.size()) + " of the " +
                                   std::to_string(length) + " header bytes");
        shard.header = parseSafetensorsHeader(
            std::string_view(header.constData(), std::size_t(header.size())), shard.fileSize);
    } catch (const InputError &error) {
        throw SafetensorsError(local(path) + ": " + error.what());
    } catch (const SafetensorsError &error) {
        throw SafetensorsError(local(path) + ": " + error.what());
    }
    return shard;
}

WeightsSummary readIndex(const QString &path)
{
    SafetensorsIndex index;
    try {
        const QByteArray text = readInputFile(path, limits::kIndexBytes);
        index = parseSafetensorsIndex(std::string_view(text.constData(), std::size_t(text.size())));
    } catch (const InputError &error) {
        throw SafetensorsError(local(path) + ": " + error.what());
    } catch (const SafetensorsError &error) {
        throw SafetensorsError(local(path) + ": " + error.what());
    }
    const QDir folder = QFileInfo(path).absoluteDir();
    std::vector<SafetensorsShard> shards;
    shards.reserve(index.shards.size());
    std::uint64_t headerBytes = 0, tensors = 0;
    for (const std::string &name : index.shards) {
        const QString shardPath = folder.filePath(QString::fromStdString(name));
        if (!QFileInfo::exists(shardPath))
            throw SafetensorsError(local(path) + ": missing shard " + quoteText(name, 120) +
                                   " (looked for " + local(shardPath) + ")");
        shards.push_back(readShard(shardPath, name));
        headerBytes += shards.back().header.headerBytes;
        tensors += shards.back().header.tensors.size();
        if (headerBytes > limits::kCheckpointHeaderBytes || tensors > limits::kTensors)
            throw SafetensorsError(local(path) + ": the shards' headers hold more than " +
                                   groupDigits(limits::kTensors) + " tensors or " +
                                   groupDigits(limits::kCheckpointHeaderBytes) +
                                   " bytes, more than a checkpoint may have");
    }
    try {
        return summarizeSafetensors(shards, &index);
    } catch (const SafetensorsError &error) {
        throw SafetensorsError(local(path) + ": " + error.what());
    }
}

} // namespace

nlohmann::json readJsonFile(const QString &path, const std::string &key, std::uint64_t maxBytes)
{
    try {
        const QByteArray text = readInputFile(path, maxBytes);
        return parseStrictJson(std::string_view(text.constData(), std::size_t(text.size())),
                               {maxBytes, limits::kJsonDepth});
    } catch (const InputError &error) {
        throw ScenarioError(key, local(path) + ": " + error.what());
    }
}

HfImport importModelConfig(const QString &path)
{
    const nlohmann::json config = readJsonFile(path, "model.config");
    try {
        return importHfConfig(config);
    } catch (const HfConfigError &error) {
        throw HfConfigError(local(path) + ": " + error.what(), error.modelType, error.missingFields);
    }
}

WeightsSummary readModelWeights(const QString &path)
{
    const QFileInfo info(path);
    if (info.isDir()) {
        const QDir folder(path);
        if (QFileInfo::exists(folder.filePath(QStringLiteral("model.safetensors.index.json"))))
            return readIndex(folder.filePath(QStringLiteral("model.safetensors.index.json")));
        if (QFileInfo::exists(folder.filePath(QStringLiteral("model.safetensors"))))
            return readModelWeights(folder.filePath(QStringLiteral("model.safetensors")));
        throw SafetensorsError(local(path) + ": holds neither model.safetensors nor "
                                             "model.safetensors.index.json");
    }
    if (path.endsWith(QLatin1String(".json")))
        return readIndex(path);
    return summarizeSafetensors({readShard(path, info.fileName().toStdString())});
}

ConfigResolver configResolver(const QString &scenarioPath)
{
    const QDir folder = QFileInfo(scenarioPath).absoluteDir();
    return [folder](const std::string &configPath) {
        return readJsonFile(folder.filePath(QString::fromStdString(configPath)), "model.config");
    };
}

} // namespace headroom
