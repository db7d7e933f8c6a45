// SPDX-License-Identifier: GPL-3.0-or-later
#include "clicommon.h"

#include "cli.h"
#include "modelimport.h"
#include "scenariojson.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <nlohmann/json.hpp>

namespace headroom::cli {

QString tr(const char *text) { return QCoreApplication::translate("cli", text); }

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

QTextStream &err()
{
    static QTextStream stream(stderr);
    return stream;
}

int fail(const QString &message)
{
    err() << "headroom: " << message << Qt::endl;
    return ExitBadInput;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw ScenarioError("", "cannot open: " + file.errorString().toStdString());
    return file.readAll();
}

Scenario loadScenario(const QString &path, const QStringList &overrides,
                      const ModelFiles &modelFiles)
{
    const QByteArray bytes = readFile(path);
    nlohmann::json doc = parseJsonText(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!doc.is_object())
        throw ScenarioError("", "the scenario is not a JSON object");
    if (!modelFiles.configPath.isEmpty())
        doc["model"] = {{"config", QFileInfo(modelFiles.configPath).absoluteFilePath().toStdString()}};
    if (modelFiles.params) {
        if (!doc.contains("model"))
            doc["model"] = {{"preset", "llama-3-8b"}};
        if (doc["model"].is_object())
            doc["model"]["params"] = *modelFiles.params;
    }
    return scenarioFromDocument(doc, path, overrides);
}

Scenario scenarioFromDocument(nlohmann::json doc, const QString &path, const QStringList &overrides,
                              std::optional<std::uint64_t> params)
{
    if (params) {
        if (!doc.contains("model"))
            doc["model"] = {{"preset", "llama-3-8b"}};
        if (doc["model"].is_object())
            doc["model"]["params"] = *params;
    }
    for (const QString &assignment : overrides)
        applyOverride(doc, assignment.toStdString());
    return scenarioFromJson(doc, builtinCatalog(), configResolver(path));
}

std::optional<int> parseCommand(QCommandLineParser &parser, const QStringList &arguments,
                                int positional, const QString &usage)
{
    if (!parser.parse(arguments))
        return fail(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out() << parser.helpText();
        out().flush();
        return ExitOk;
    }
    if (parser.positionalArguments().size() != positional)
        return fail(usage);
    return std::nullopt;
}

bool parseUnit(const QString &text, Unit &unit)
{
    if (text.compare(QLatin1String("GB"), Qt::CaseInsensitive) == 0) {
        unit = Unit::GB;
        return true;
    }
    if (text.compare(QLatin1String("GiB"), Qt::CaseInsensitive) == 0) {
        unit = Unit::GiB;
        return true;
    }
    fail(tr("--unit: must be GB or GiB (got %1)").arg(text));
    return false;
}

} // namespace headroom::cli
