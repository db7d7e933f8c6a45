// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom models --local [--cache DIR] [--format text|json] [--unit GiB|GB]`: the models of
// the local Hugging Face hub cache (issue 22), read without the network (common/localmodels.h).
#include "servingcommands.h"

#include "cli.h"
#include "clicommon.h"
#include "commandhelp.h"
#include "io/inputpolicy.h"
#include "localmodels.h"
#include "scenario/units.h"

#include <QCoreApplication>
#include <QDir>
#include <nlohmann/json.hpp>

namespace headroom::cli {

CommandHelp modelsHelp()
{
    return {QStringLiteral("models"),
            tr("the models on this computer: the local Hugging Face hub cache"),
            tr("Lists each model snapshot of the local Hugging Face hub cache (HF_HUB_CACHE, else HF_HOME/hub, "
               "else ~/.cache/huggingface/hub): its name, parameters (from the safetensors headers, else "
               "counted from config.json), dtype, size on disk and revision, and the config.json to give "
               "`headroom estimate --model-config`. Only config.json and the safetensors headers are read, "
               "never the weights; nothing goes to the network. A link that leaves the model's folder of "
               "the cache is refused."),
            tr("headroom models --local [--cache DIR] [--format text|json] [--unit GiB|GB]"),
            {},
            {QCommandLineOption(QStringLiteral("local"), tr("The models of the local Hugging Face hub cache.")),
             QCommandLineOption(QStringLiteral("cache"), tr("The hub cache folder (default: as huggingface_hub finds it)."),
                                QStringLiteral("DIR")),
             QCommandLineOption(QStringLiteral("format"), tr("text or json."), QStringLiteral("format"),
                                QStringLiteral("text")),
             unitOption()}};
}

int runModels(const QStringList &arguments)
{
    QCommandLineParser parser;
    const CommandHelp help = modelsHelp();
    if (const auto stop = parseCommand(parser, arguments, help))
        return *stop;
    if (!parser.isSet(QStringLiteral("local")))
        return fail(tr("models: give --local (the catalog's models are listed in the window's model box)"));
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return fail(tr("--format: must be text or json (got %1)").arg(q(quotedText(format.toStdString()))));
    Unit unit = Unit::GiB;
    if (!parseUnit(parser.value(QStringLiteral("unit")), unit))
        return ExitBadInput;
    const QString cache = parser.isSet(QStringLiteral("cache")) ? parser.value(QStringLiteral("cache")) : defaultHubCache();
    const LocalModelList list = listLocalModels(cache);
    const std::string folder = QDir::toNativeSeparators(cache).toStdString();
    if (format == QLatin1String("json")) {
        nlohmann::json doc = {{"cache", folder}, {"exists", list.cacheExists}, {"models", nlohmann::json::array()},
                              {"notes", list.notes}};
        for (const LocalModel &m : list.models) {
            nlohmann::json row = {{"repo", m.repoId}, {"revision", m.revision}, {"folder", m.folder.toStdString()}};
            if (m.arch) {
                row["name"] = m.name;
                row["params"] = m.params;
                row["params_from"] = m.paramsFromWeights ? "safetensors headers" : "config.json";
                row["dtype"] = m.dtype;
                row["disk_bytes"] = m.diskBytes;
                row["config"] = QDir(m.folder).filePath(QStringLiteral("config.json")).toStdString();
            }
            if (!m.problem.empty())
                row["problem"] = m.problem;
            if (!m.weightsProblem.empty())
                row["weights_problem"] = m.weightsProblem;
            doc["models"].push_back(row);
        }
        out() << q(doc.dump(2)) << '\n'; // JSON escapes control characters itself
        return ExitOk;
    }
    if (!list.cacheExists) {
        out() << tr("No Hugging Face hub cache at %1 (set HF_HUB_CACHE or HF_HOME, or give --cache).").arg(safe(folder))
              << '\n';
        return ExitOk;
    }
    out() << tr("Hugging Face hub cache %1: %2 snapshots").arg(safe(folder), q(groupDigits(list.models.size())))
          << '\n';
    for (const LocalModel &m : list.models) {
        out() << "\n" << safe(m.repoId) << (m.revision.empty() ? QString() : tr(" @ %1").arg(safe(m.revision.substr(0, 12))))
              << '\n';
        if (!m.arch) {
            out() << "  " << tr("cannot open: %1").arg(safe(m.problem)) << '\n';
            continue;
        }
        out() << "  " << safe(m.name) << ": "
              << tr("%1 params (%2)")
                     .arg(safe(groupDigits(m.params)),
                          m.paramsFromWeights ? tr("from the safetensors headers") : tr("counted from config.json"));
        if (!m.dtype.empty())
            out() << ", " << safe(m.dtype);
        if (m.diskBytes)
            out() << ", " << tr("%1 on disk").arg(safe(formatBytes(m.diskBytes, unit)));
        out() << '\n';
        if (!m.weightsProblem.empty())
            out() << "  " << tr("weights not read: %1").arg(safe(m.weightsProblem)) << '\n';
        out() << "  " << tr("estimate: headroom estimate SCENARIO --model-config %1")
                             .arg(safe(QDir::toNativeSeparators(QDir(m.folder).filePath(QStringLiteral("config.json"))).toStdString()))
              << '\n';
    }
    for (const std::string &note : list.notes)
        out() << tr("note: %1").arg(safe(note)) << '\n';
    return ExitOk;
}

} // namespace headroom::cli
