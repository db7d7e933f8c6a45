// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelimport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace headroom {

namespace {

std::string local(const QString &path) { return QDir::toNativeSeparators(path).toStdString(); }

/// One file's header: 8 bytes of length, checked against the file size, then the JSON.
SafetensorsShard readShard(const QString &path, const std::string &name)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw SafetensorsError(local(path) + ": cannot open: " + file.errorString().toStdString());
    SafetensorsShard shard;
    shard.file = name;
    shard.fileSize = static_cast<std::uint64_t>(file.size());
    try {
        const QByteArray prefix = file.read(8);
        const std::uint64_t length = safetensorsHeaderLength(
            std::string_view(prefix.constData(), std::size_t(prefix.size())), shard.fileSize);
        const QByteArray header = file.read(static_cast<qint64>(length));
        if (std::uint64_t(header.size()) != length)
            throw SafetensorsError("could read only " + std::to_string(header.size()) + " of the " +
                                   std::to_string(length) + " header bytes");
        shard.header = parseSafetensorsHeader(
            std::string_view(header.constData(), std::size_t(header.size())), shard.fileSize);
    } catch (const SafetensorsError &error) {
        throw SafetensorsError(local(path) + ": " + error.what());
    }
    return shard;
}

WeightsSummary readIndex(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw SafetensorsError(local(path) + ": cannot open: " + file.errorString().toStdString());
    if (file.size() > 256 * 1024 * 1024)
        throw SafetensorsError(local(path) + ": too large for a safetensors index");
    const QByteArray text = file.readAll();
    SafetensorsIndex index;
    try {
        index = parseSafetensorsIndex(std::string_view(text.constData(), std::size_t(text.size())));
    } catch (const SafetensorsError &error) {
        throw SafetensorsError(local(path) + ": " + error.what());
    }
    const QDir folder = QFileInfo(path).absoluteDir();
    std::vector<SafetensorsShard> shards;
    shards.reserve(index.shards.size());
    for (const std::string &name : index.shards) {
        const QString shardPath = folder.filePath(QString::fromStdString(name));
        if (!QFileInfo::exists(shardPath))
            throw SafetensorsError(local(path) + ": missing shard " + name + " (looked for " +
                                   local(shardPath) + ")");
        shards.push_back(readShard(shardPath, name));
    }
    try {
        return summarizeSafetensors(shards, &index);
    } catch (const SafetensorsError &error) {
        throw SafetensorsError(local(path) + ": " + error.what());
    }
}

} // namespace

nlohmann::json readJsonFile(const QString &path, const std::string &key, qint64 maxBytes)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw ScenarioError(key, local(path) + ": cannot open: " + file.errorString().toStdString());
    if (file.size() > maxBytes)
        throw ScenarioError(key, local(path) + ": too large (" + std::to_string(file.size()) +
                                     " bytes) for a JSON file");
    const QByteArray text = file.readAll();
    nlohmann::json doc = nlohmann::json::parse(text.constData(), text.constData() + text.size(),
                                               nullptr, false);
    if (doc.is_discarded())
        throw ScenarioError(key, local(path) + ": not valid JSON");
    return doc;
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
