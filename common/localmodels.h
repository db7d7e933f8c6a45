// SPDX-License-Identifier: GPL-3.0-or-later
// "Models on this computer" (issue 22): the local Hugging Face hub cache, read without the
// network and without reading any tensor data.
#pragma once

#include "model/modelname.h"
#include "scenario/scenario.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// One snapshot of one model in the cache (`models--ORG--NAME/snapshots/REV/`).
struct LocalModel
{
    std::string repoId;    ///< "meta-llama/Llama-3.1-8B" (escaped, from the folder's name)
    std::string revision;  ///< the snapshot folder: the commit hash (escaped, at most 40 characters)
    QString folder;        ///< the snapshot folder as listed (inside the cache)
    std::string name;      ///< what the user calls it (importedModelName of its config.json)
    std::optional<ModelArch> arch; ///< from config.json, named; none when it cannot be opened
    std::uint64_t params = 0;      ///< from the safetensors headers, else counted from the config
    bool paramsFromWeights = false;
    std::string dtype;             ///< the dtype holding most weight bytes ("BF16"), else config's torch_dtype
    std::uint64_t diskBytes = 0;   ///< the safetensors files' sizes (the blobs the snapshot links to)
    /// Why this snapshot cannot be opened (no config.json, a link out of the cache, a broken
    /// header): empty when `arch` is set. A snapshot whose weights cannot be read but whose
    /// config.json can is still opened, with the reason in `weightsProblem`.
    std::string problem;
    std::string weightsProblem;
};

/// The cache as read.
struct LocalModelList
{
    QString cacheFolder;          ///< where it looked
    bool cacheExists = false;
    std::vector<LocalModel> models; ///< sorted by repo id, then revision
    std::vector<std::string> notes; ///< limits reached ("more than 1,000 models: the first ...")
};

/// The hub cache folder of this process's environment (hubCacheFolder of HF_HUB_CACHE, ...).
QString defaultHubCache();

/// Reads every `models--*` folder of `cacheFolder` (at most limits::kHubRepos, each with at most
/// limits::kHubSnapshots snapshots): each snapshot's config.json and safetensors headers. Every
/// file is resolved with its links followed and must lie inside its model's folder of the cache
/// (snapshots link to `../../blobs/`): a link that leaves it is refused, unread. Never throws for
/// one bad snapshot (its `problem` says why); a cache that does not exist is an empty list.
LocalModelList listLocalModels(const QString &cacheFolder);

} // namespace headroom
