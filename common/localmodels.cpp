// SPDX-License-Identifier: GPL-3.0-or-later
#include "localmodels.h"

#include "inputfile.h"
#include "io/inputpolicy.h"
#include "io/safetensors.h"
#include "model/architecture.h"
#include "model/hfconfig.h"
#include "modelimport.h"
#include "scenario/units.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace headroom {

namespace {

std::string text(const QString &value) { return value.toStdString(); }

/// The entries of one folder (links included, not followed), sorted, at most
/// limits::kHubFolderEntries looked at; `more` is set when the folder held more.
QStringList folderEntries(const QString &folder, bool &more)
{
    QStringList names;
    more = false;
    QDirIterator it(folder, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
    while (it.hasNext()) {
        if (std::size_t(names.size()) >= limits::kHubFolderEntries) {
            more = true;
            break;
        }
        it.next();
        names.push_back(it.fileName());
    }
    names.sort();
    return names;
}

/// The dtype that holds most of the weight bytes ("BF16").
std::string mainDType(const WeightsSummary &weights)
{
    std::string best;
    std::uint64_t bytes = 0;
    for (const auto &[dtype, total] : weights.byDType)
        if (total.bytes > bytes) {
            best = dtype;
            bytes = total.bytes;
        }
    return best;
}

/// A config.json's torch_dtype (or `dtype`, what transformers 4.56 and later write).
std::string configDType(const nlohmann::json &config)
{
    for (const char *key : {"torch_dtype", "dtype"})
        if (config.is_object() && config.contains(key) && config[key].is_string())
            return quoteText(config[key].get_ref<const std::string &>());
    return {};
}

LocalModel readSnapshot(const QString &modelFolder, const std::string &repoId, const QString &revision)
{
    LocalModel m;
    m.repoId = repoId;
    m.revision = quoteText(text(revision));
    m.folder = QDir(modelFolder).filePath(QStringLiteral("snapshots/") + revision);
    const QDir snapshot(m.folder);
    // Every file is resolved, links followed, before it is looked at: a snapshot's files link
    // to ../../blobs/ of the same model folder, and nothing else is read.
    if (!resolvesInside(m.folder, modelFolder)) {
        m.problem = "the snapshot folder leads outside its model's folder of the cache; not read";
        return m;
    }
    const QString configPath = snapshot.filePath(QStringLiteral("config.json"));
    if (!resolvesInside(configPath, modelFolder)) {
        m.problem = "config.json leads outside its model's folder of the cache; not read";
        return m;
    }
    const QFileInfo configInfo(configPath);
    if (!configInfo.exists()) {
        m.problem = configInfo.isSymLink() ? "config.json links to a blob that is not there (an interrupted download?)"
                                           : "has no config.json (a download of some files only?)";
        return m;
    }
    nlohmann::json config;
    try {
        config = readModelConfigJson(configPath);
        HfImport import = importHfConfig(config);
        import.arch.name = importedModelName(config, text(configInfo.absoluteFilePath()));
        m.arch = import.arch;
        m.name = import.arch.name;
        m.dtype = configDType(config);
    } catch (const std::exception &error) {
        m.problem = "config.json: " + text(errorMessage(error));
        return m;
    }
    try {
        m.params = countParams(*m.arch).total;
    } catch (const std::exception &error) {
        m.problem = "config.json: " + text(errorMessage(error));
        m.arch.reset();
        return m;
    }
    for (const char *file : {"model.safetensors.index.json", "model.safetensors"}) {
        const QString weightsPath = snapshot.filePath(QLatin1String(file));
        if (!QFileInfo(weightsPath).isSymLink() && !QFileInfo::exists(weightsPath))
            continue;
        if (!resolvesInside(weightsPath, modelFolder)) {
            m.weightsProblem = std::string(file) + " leads outside its model's folder of the cache; not read";
            break;
        }
        try {
            // Headers only (8 bytes and the JSON of each file), never the tensor data.
            const WeightsSummary weights = readModelWeights(weightsPath);
            m.params = weights.params;
            m.paramsFromWeights = true;
            m.arch->params = weights.params; // as File > Import does with a checkpoint
            m.diskBytes = weights.fileBytes;
            if (const std::string dtype = mainDType(weights); !dtype.empty())
                m.dtype = quoteText(dtype);
        } catch (const std::exception &error) {
            m.weightsProblem = text(errorMessage(error));
        }
        break;
    }
    return m;
}

} // namespace

QString defaultHubCache()
{
    HubCacheEnvironment env;
    env.hfHubCache = text(qEnvironmentVariable("HF_HUB_CACHE"));
    env.legacyHubCache = text(qEnvironmentVariable("HUGGINGFACE_HUB_CACHE"));
    env.hfHome = text(qEnvironmentVariable("HF_HOME"));
    env.xdgCacheHome = text(qEnvironmentVariable("XDG_CACHE_HOME"));
    env.home = text(QDir::homePath());
    return QString::fromStdString(hubCacheFolder(env));
}

LocalModelList listLocalModels(const QString &cacheFolder)
{
    LocalModelList list;
    list.cacheFolder = cacheFolder;
    if (cacheFolder.isEmpty() || !QFileInfo(cacheFolder).isDir())
        return list;
    list.cacheExists = true;
    bool more = false;
    QStringList repos = folderEntries(cacheFolder, more);
    repos.erase(std::remove_if(repos.begin(), repos.end(),
                               [](const QString &name) { return hubRepoId(text(name)).empty(); }),
                repos.end());
    if (more)
        list.notes.push_back("the cache folder holds more than " + groupDigits(limits::kHubFolderEntries) +
                             " entries: only the first were looked at");
    if (std::size_t(repos.size()) > limits::kHubRepos) {
        list.notes.push_back("the cache holds more than " + groupDigits(limits::kHubRepos) +
                             " models: the first " + groupDigits(limits::kHubRepos) + " by name are listed");
        repos = repos.mid(0, qsizetype(limits::kHubRepos));
    }
    const QDir cache(cacheFolder);
    for (const QString &repo : repos) {
        const std::string repoId = quoteText(hubRepoId(text(repo)), 200);
        const QString modelFolder = cache.filePath(repo);
        LocalModel broken;
        broken.repoId = repoId;
        broken.folder = modelFolder;
        if (!resolvesInside(modelFolder, cacheFolder)) {
            broken.problem = "the model's folder leads outside the cache; not read";
            list.models.push_back(broken);
            continue;
        }
        const QString snapshots = QDir(modelFolder).filePath(QStringLiteral("snapshots"));
        if (!resolvesInside(snapshots, modelFolder) || !QFileInfo(snapshots).isDir()) {
            broken.problem = "has no snapshots folder inside its model's folder (an interrupted download?)";
            list.models.push_back(broken);
            continue;
        }
        QStringList revisions = folderEntries(snapshots, more);
        if (revisions.isEmpty()) {
            broken.problem = "has no snapshot (an interrupted download?)";
            list.models.push_back(broken);
            continue;
        }
        if (more || std::size_t(revisions.size()) > limits::kHubSnapshots) {
            list.notes.push_back(repoId + ": more than " + groupDigits(limits::kHubSnapshots) +
                                 " snapshots: the first " + groupDigits(limits::kHubSnapshots) + " by name are listed");
            revisions = revisions.mid(0, qsizetype(limits::kHubSnapshots));
        }
        for (const QString &revision : revisions)
            list.models.push_back(readSnapshot(modelFolder, repoId, revision));
    }
    return list;
}

} // namespace headroom
