// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/modelname.h"

#include "io/inputpolicy.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace headroom {

namespace {

std::vector<std::string_view> pathParts(std::string_view path)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/' || path[i] == '\\') {
            const std::string_view part = path.substr(start, i - start);
            if (!part.empty() && part != ".")
                parts.push_back(part);
            start = i + 1;
        }
    }
    return parts;
}

bool endsWith(std::string_view text, std::string_view tail)
{
    return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

/// "~/x" as Python's os.path.expanduser reads it.
std::string expandHome(const std::string &path, const std::string &home)
{
    if (path == "~")
        return home;
    if (path.rfind("~/", 0) == 0 && !home.empty())
        return home + path.substr(1);
    return path;
}

std::string joinPath(const std::string &folder, const char *tail)
{
    if (folder.empty())
        return {};
    return folder + (folder.back() == '/' ? "" : "/") + tail;
}

} // namespace

std::string hubRepoId(std::string_view folderName)
{
    constexpr std::string_view prefix = "models--";
    if (folderName.rfind(prefix, 0) != 0 || folderName.size() == prefix.size())
        return {};
    std::string id(folderName.substr(prefix.size()));
    // A repo id is "ORG/NAME" or "NAME"; neither part may hold "--" (the hub refuses it), so
    // the first "--" is the one that stood for "/".
    const std::size_t cut = id.find("--");
    if (cut != std::string::npos) {
        if (cut == 0 || cut + 2 == id.size() || id.find("--", cut + 2) != std::string::npos)
            return {};
        id.replace(cut, 2, "/");
    }
    return id;
}

std::string modelNameFromPath(std::string_view path)
{
    std::vector<std::string_view> parts = pathParts(path);
    if (!parts.empty() && parts.back() == "config.json")
        parts.pop_back();
    else if (!parts.empty() && endsWith(parts.back(), ".json") && parts.back().size() > 5)
        parts.back().remove_suffix(5);
    if (parts.empty())
        return {};
    if (parts.size() >= 3 && parts[parts.size() - 2] == "snapshots") {
        const std::string id = hubRepoId(parts[parts.size() - 3]);
        if (!id.empty())
            return id.substr(id.find('/') == std::string::npos ? 0 : id.find('/') + 1);
    }
    if (const std::string id = hubRepoId(parts.back()); !id.empty()) // the repo folder itself
        return id.substr(id.find('/') == std::string::npos ? 0 : id.find('/') + 1);
    if (parts.back() == "..")
        return {};
    return std::string(parts.back());
}

std::string importedModelName(const nlohmann::json &config, std::string_view configPath)
{
    std::string name;
    if (config.is_object()) {
        const auto own = config.find("_name_or_path");
        if (own != config.end() && own->is_string())
            name = modelNameFromPath(own->get_ref<const std::string &>());
    }
    if (name.empty())
        name = modelNameFromPath(configPath);
    if (name.empty())
        return {};
    return quoteText(name, limits::kQuoteChars);
}

std::string modelNameProblem(std::string_view name)
{
    if (name.size() > limits::kModelNameBytes)
        return "at most " + std::to_string(limits::kModelNameBytes) + " bytes (got " + std::to_string(name.size()) +
               ")";
    if (printable(name) != name)
        return "must not hold control characters, bidirectional overrides or invalid UTF-8 (got \"" +
               quoteText(name) + "\")";
    return {};
}

std::string hubCacheFolder(const HubCacheEnvironment &env)
{
    if (!env.hfHubCache.empty())
        return expandHome(env.hfHubCache, env.home);
    if (!env.legacyHubCache.empty())
        return expandHome(env.legacyHubCache, env.home);
    if (!env.hfHome.empty())
        return joinPath(expandHome(env.hfHome, env.home), "hub");
    if (!env.xdgCacheHome.empty())
        return joinPath(expandHome(env.xdgCacheHome, env.home), "huggingface/hub");
    return joinPath(env.home, ".cache/huggingface/hub");
}

} // namespace headroom
