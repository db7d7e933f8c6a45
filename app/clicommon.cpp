// SPDX-License-Identifier: GPL-3.0-or-later
#include "clicommon.h"

#include "cli.h"
#include "inputfile.h"
#include "modelimport.h"
#include "displaytext.h"
#include "scenario/scenariojson.h"
#include "estimate/verdict.h"

#include <QCoreApplication>
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
    // One line, nothing a terminal would act on (a key or a value may come from the file).
    err() << "headroom: " << safe(message.toStdString()) << Qt::endl;
    return ExitBadInput;
}

QString safe(const std::string &text)
{
    return QString::fromStdString(printable(text));
}

QString errorText(const std::exception &error)
{
    return errorMessage(error);
}

QByteArray readFile(const QString &path)
{
    try {
        return readInputFile(path, limits::kDocumentBytes);
    } catch (const InputError &error) {
        throw ScenarioError("", error.detail);
    }
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
    // The file's name described the file's scenario: with changes it no longer does.
    if (!overrides.isEmpty() || !modelFiles.configPath.isEmpty() || modelFiles.params)
        doc.erase("name");
    return scenarioFromDocument(doc, path, overrides, modelFiles.params);
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
    Scenario scenario = scenarioFromJson(doc, builtinCatalog(), configResolver(path));
    // Learned positions end at the last one: such a run cannot start.
    if (const auto limit = positionLimit(scenario); limit && limit->error)
        throw ScenarioError(scenario.task == Task::Train ? "train.seq_len" : "inference.context",
                            positionLimitText(scenario, *limit)
                                .section(QLatin1Char(' '), 1)
                                .toStdString());
    return scenario;
}

std::optional<int> parseCommand(QCommandLineParser &parser, const QStringList &arguments,
                                const CommandHelp &help)
{
    describe(parser, help);
    if (!parser.parse(arguments))
        return fail(parser.errorText());
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all"))) {
        out() << parser.helpText();
        out().flush();
        return ExitOk;
    }
    const qsizetype given = parser.positionalArguments().size(), most = 1 + help.arguments.size();
    if (given > most || given < most - help.optionalArguments)
        return fail(tr("usage: %1").arg(help.usage));
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
