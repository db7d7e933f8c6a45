// SPDX-License-Identifier: GPL-3.0-or-later
#include "clicommon.h"

#include "cli.h"
#include "inputfile.h"
#include "modelimport.h"
#include "displaytext.h"
#include "scenario/scenariojson.h"
#include "estimate/verdict.h"
#include "io/inputpolicy.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QIODevice>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace headroom::cli {

QString tr(const char *text) { return QCoreApplication::translate("cli", text); }

namespace {

/// Standard output or error behind the one escaping function (printable): whatever a printer
/// writes (a scenario's name, a key, a file's folder name, a JSON or CSV value), only the line
/// breaks between lines reach the terminal raw; every other control character, C1 control,
/// bidirectional override and invalid UTF-8 byte is written as an escape (`\x1b`, `\u202e`).
/// In JSON those escapes are JSON's own, so the document still reads back the same.
class TerminalDevice : public QIODevice
{
public:
    explicit TerminalDevice(std::FILE *file) : m_file(file) { open(QIODevice::WriteOnly | QIODevice::Unbuffered); }
    ~TerminalDevice() override { emitText(true); }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 length) override
    {
        m_pending.append(data, length);
        emitText(false);
        return length;
    }

private:
    /// Writes what is pending, keeping back an incomplete UTF-8 sequence at the end (the next
    /// write may complete it) unless this is the last write.
    void emitText(bool last)
    {
        std::size_t end = std::size_t(m_pending.size());
        if (!last) {
            // Back to the lead byte of the last sequence; keep it if the sequence is cut.
            std::size_t lead = end;
            while (lead > 0 && end - lead < 4 && (static_cast<unsigned char>(m_pending[qsizetype(lead - 1)]) & 0xC0) == 0x80)
                --lead;
            if (lead > 0) {
                const auto byte = static_cast<unsigned char>(m_pending[qsizetype(lead - 1)]);
                const std::size_t need = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
                if (end - (lead - 1) < need)
                    end = lead - 1;
            }
        }
        const std::string text = terminalText(std::string_view(m_pending.constData(), end));
        std::fwrite(text.data(), 1, text.size(), m_file);
        std::fflush(m_file);
        m_pending.remove(0, qsizetype(end));
    }

    std::FILE *m_file;
    QByteArray m_pending;
};

} // namespace

std::string terminalText(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t newline = text.find('\n', start);
        out += printable(text.substr(start, newline == std::string_view::npos ? text.npos : newline - start));
        if (newline == std::string_view::npos)
            break;
        out += '\n';
        start = newline + 1;
    }
    return out;
}

QTextStream &out()
{
    static TerminalDevice device(stdout);
    static QTextStream stream(&device);
    return stream;
}

QTextStream &err()
{
    static TerminalDevice device(stderr);
    static QTextStream stream(&device);
    return stream;
}

int fail(const QString &message)
{
    // One line, nothing a terminal would act on (a key or a value may come from the file).
    err() << "headroom: " << safe(message.toStdString()) << Qt::endl;
    return ExitBadInput;
}

int failUsage(const QString &usage)
{
    const QStringList lines = usage.split(QLatin1Char('\n'));
    err() << "headroom: " << safe(tr("usage: %1").arg(lines.first()).toStdString());
    for (qsizetype i = 1; i < lines.size(); ++i)
        err() << '\n' << safe(lines.at(i).toStdString());
    err() << Qt::endl;
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
    else if (modelFiles.model)
        doc["model"] = *modelFiles.model;
    // The file's name described the file's scenario: with changes it no longer does.
    if (!overrides.isEmpty() || !modelFiles.configPath.isEmpty() || modelFiles.params || modelFiles.model)
        doc.erase("name");
    return scenarioFromDocument(doc, path, overrides, modelFiles.params, modelFiles.configPath);
}

Scenario scenarioFromDocument(nlohmann::json doc, const QString &path, const QStringList &overrides,
                              std::optional<std::uint64_t> params, const QString &modelConfig)
{
    if (params) {
        if (!doc.contains("model"))
            doc["model"] = {{"preset", "llama-3-8b"}};
        if (doc["model"].is_object())
            doc["model"]["params"] = *params;
    }
    for (const QString &assignment : overrides)
        applyOverride(doc, assignment.toStdString());
    Scenario scenario = scenarioFromJson(doc, builtinCatalog(), configResolver(path, modelConfig));
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
        return failUsage(help.usage);
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
    fail(tr("--unit: must be GB or GiB (got %1)").arg(q(quoteText(text.toStdString()))));
    return false;
}

} // namespace headroom::cli
