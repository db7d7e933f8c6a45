// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelimport.h"

#include "ggufimport.h"
#include "inputfile.h"
#include "io/inputpolicy.h"
#include "model/modelname.h"
#include "scenario/units.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace headroom {

namespace {

/// A path for a message (escaped when it holds control characters).
std::string local(const QString &path) { return printable(QDir::toNativeSeparators(path).toStdString()); }

/// Where a path leads with every link followed, also when its end does not exist (so that a
/// missing file outside a folder is told apart from an existing one by nothing at all); empty
/// for a loop of links.
QString resolvedPath(const QString &path)
{
    QString head = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    QString tail;
    for (int hops = 0; hops < 256; ++hops) {
        const QFileInfo info(head);
        if (info.exists()) {
            const QString canonical = info.canonicalFilePath();
            if (canonical.isEmpty())
                return {};
            return tail.isEmpty() ? canonical : QDir::cleanPath(canonical + QLatin1Char('/') + tail);
        }
        if (info.isSymLink()) { // a link to nothing: follow it anyway
            head = QDir::cleanPath(info.symLinkTarget());
            continue;
        }
        const qsizetype slash = head.lastIndexOf(QLatin1Char('/'));
        if (slash <= 0)
            return QDir::cleanPath(head + QLatin1Char('/') + tail);
        tail = tail.isEmpty() ? head.mid(slash + 1) : head.mid(slash + 1) + QLatin1Char('/') + tail;
        head = head.left(slash);
    }
    return {};
}

/// True when `path` is `folder` or below it (both resolved).
bool isInside(const QString &path, const QString &folder)
{
    if (path.isEmpty() || folder.isEmpty())
        return false;
    if (folder == QLatin1String("/"))
        return true;
    return path == folder || path.startsWith(folder + QLatin1Char('/'));
}

/// The folder a checkpoint's shards must stay inside: the index's own folder, or for a
/// snapshot of the Hugging Face hub's cache (`models--org--name/snapshots/REV/`, whose files
/// link to `../../blobs/`) the model's folder of that cache.
QString checkpointFolder(const QString &indexPath)
{
    const QDir folder = QFileInfo(indexPath).absoluteDir();
    QDir up = folder;
    if (up.cdUp() && up.dirName() == QLatin1String("snapshots") && up.cdUp() &&
        up.dirName().startsWith(QLatin1String("models--")))
        return resolvedPath(up.absolutePath());
    return resolvedPath(folder.absolutePath());
}

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
    const QString root = checkpointFolder(path);
    std::vector<SafetensorsShard> shards;
    shards.reserve(index.shards.size());
    std::uint64_t headerBytes = 0, tensors = 0;
    for (const std::string &name : index.shards) {
        const QString shardPath = folder.filePath(QString::fromStdString(name));
        // Every link followed first (a downloaded archive can carry `link -> /` or a shard that
        // links to /etc/passwd): a shard outside is refused before anything about it is looked
        // at, so the message says nothing of whether it exists or how large it is.
        if (!isInside(resolvedPath(shardPath), root))
            throw SafetensorsError(local(path) + ": shard " + quotedText(name) +
                                   " is outside the checkpoint folder");
        if (!QFileInfo::exists(shardPath))
            throw SafetensorsError(local(path) + ": missing shard " + quoteText(name, 120) + " (looked in " +
                                   local(folder.absolutePath()) + ")"); // the name, not the path, is from the file
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

/// NVIDIA ModelOpt checkpoints describe their weight format in hf_quant_config.json beside
/// config.json (older exports leave config.json without a quantization_config): read it into the
/// config so that the weights are sized as stored, never silently as 16-bit.
void addSiblingQuantConfig(nlohmann::json &config, const QString &configPath)
{
    if (!config.is_object())
        return;
    for (const nlohmann::json *where : {&config, config.contains("text_config") ? &config["text_config"] : nullptr})
        if (where && where->is_object() && where->contains("quantization_config") &&
            !(*where)["quantization_config"].is_null())
            return;
    const QString sibling = QFileInfo(configPath).absoluteDir().filePath(QStringLiteral("hf_quant_config.json"));
    if (!QFileInfo(sibling).isFile())
        return;
    // Inside the config's folder, or for a hub cache snapshot its model's folder (the snapshot
    // links to ../../blobs/).
    if (!isInside(resolvedPath(sibling), checkpointFolder(configPath)))
        throw ScenarioError("model.config", local(sibling) + " leads outside the config's folder");
    nlohmann::json quant = readJsonFile(sibling, "model.config", limits::kConfigBytes);
    if (!quant.is_object())
        throw ScenarioError("model.config", local(sibling) + ": is not a JSON object");
    if (!quant.contains("quant_method"))
        quant["quant_method"] = "modelopt";
    config["quantization_config"] = std::move(quant);
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

nlohmann::json readModelConfigJson(const QString &path)
{
    nlohmann::json config;
    try {
        const QByteArray text = readInputFile(path, limits::kConfigBytes);
        // Python's json writes float('inf') as Infinity (Nemotron-H's time_step_limit): read as
        // importHfConfig reads a config's text (the quotes may add a few bytes).
        config = parseStrictJson(pythonJsonToJson(std::string_view(text.constData(), std::size_t(text.size()))),
                                 {limits::kConfigBytes + std::uint64_t(text.size()) / 4, limits::kJsonDepth});
    } catch (const InputError &error) {
        throw ScenarioError("model.config", local(path) + ": " + error.what());
    }
    addSiblingQuantConfig(config, path);
    return config;
}

HfImport importModelConfig(const QString &path)
{
    const nlohmann::json config = readModelConfigJson(path);
    try {
        HfImport import = importHfConfig(config);
        import.arch.name = importedModelName(config, QFileInfo(path).absoluteFilePath().toStdString());
        return import;
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
    if (path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive))
        return readGgufModel(path).weights;
    return summarizeSafetensors({readShard(path, info.fileName().toStdString())});
}

bool resolvesInside(const QString &path, const QString &folder)
{
    return isInside(resolvedPath(path), resolvedPath(folder));
}

bool insideUsersFolders(const QString &path, const QStringList &folders)
{
    const QString where = resolvedPath(path);
    if (where.isEmpty())
        return false;
    const QString home = resolvedPath(QDir::homePath());
    if (home != QLatin1String("/") && isInside(where, home))
        return true;
    return std::any_of(folders.begin(), folders.end(),
                       [&](const QString &folder) { return isInside(where, resolvedPath(folder)); });
}

ConfigResolver configResolver(const QString &scenarioPath, const QString &explicitConfig)
{
    const QDir folder = QFileInfo(scenarioPath).absoluteDir();
    const QString own = resolvedPath(folder.absolutePath());
    const QString home = resolvedPath(QDir::homePath());
    const QString allowed = explicitConfig.isEmpty() ? QString() : resolvedPath(explicitConfig);
    return [folder, own, home, allowed](const std::string &configPath) {
        // A scenario (perhaps downloaded) names files relative to itself or in the user's own
        // folders; `/etc/shadow` or `../../..` elsewhere is refused before it is looked at.
        const QString path = folder.filePath(QString::fromStdString(configPath));
        const QString where = resolvedPath(path);
        const bool homeCounts = home != QLatin1String("/");
        if (where.isEmpty() || (where != allowed && !isInside(where, own) && !(homeCounts && isInside(where, home))))
            throw ScenarioError("model.config", quotedText(configPath) +
                                                    " is outside the scenario's folder and your home "
                                                    "folder: give that file with --model-config");
        return readModelConfigJson(path);
    };
}

} // namespace headroom
