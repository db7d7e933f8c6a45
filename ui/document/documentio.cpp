// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/documentio.h"

#include "inputfile.h"
#include "modelimport.h"
#include "document/scenariomodel.h"

#include <QCoreApplication>
#include <QSaveFile>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace headroom {

static_assert(ScenarioModel::kMaxPins == int(limits::kPins), "the window pins what a file may hold");

namespace {

QString tr(const char *text) { return QCoreApplication::translate("documentio", text); }

/// Why a write failed: Qt says "Unknown error" for a short write (a full disk), while the
/// system's own reason ("No space left on device") is still in errno.
QString writeError(const QSaveFile &file, int systemError)
{
    const QString qtError = file.errorString();
    if (systemError != 0 && (file.error() == QFileDevice::NoError || qtError.isEmpty() ||
                             qtError == QLatin1String("Unknown error")))
        return QString::fromLocal8Bit(std::strerror(systemError));
    return qtError;
}

} // namespace

QByteArray readDocumentBytes(const QString &path)
{
    try {
        return readInputFile(path, limits::kDocumentBytes);
    } catch (const InputError &error) {
        throw ScenarioError("", error.detail);
    }
}

ScenarioDocument readDocumentFile(const QString &path)
{
    const QByteArray bytes = readDocumentBytes(path);
    const nlohmann::json doc =
        parseJsonText(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    try {
        return documentFromJson(doc, builtinCatalog(), configResolver(path));
    } catch (const ScenarioError &error) {
        // A written scenario carries every architecture key next to `model.config`: it reads
        // back without the config.json when that file is not at hand.
        if (error.key.find("model.config") == std::string::npos)
            throw;
        try {
            return documentFromJson(doc, builtinCatalog());
        } catch (const ScenarioError &) {
            throw error;
        }
    }
}

QString writeFileAtomically(const QString &path, const QByteArray &bytes)
{
    QSaveFile file(path);
    errno = 0;
    if (!file.open(QIODevice::WriteOnly)) {
        const int systemError = errno;
        return tr("cannot write %1: %2").arg(path, writeError(file, systemError));
    }
    errno = 0;
    if (file.write(bytes) != bytes.size()) {
        const QString error = writeError(file, errno);
        file.cancelWriting();
        return tr("cannot write %1: %2").arg(path, error);
    }
    errno = 0;
    if (!file.commit()) {
        const int systemError = errno;
        return tr("cannot write %1: %2").arg(path, writeError(file, systemError));
    }
    return {};
}

QString writeDocumentFile(const QString &path, const ScenarioDocument &document)
{
    const std::string text = documentToJson(document).dump(2) + "\n";
    return writeFileAtomically(path, QByteArray::fromStdString(text));
}

ScenarioDocument documentOf(const ScenarioModel &model)
{
    ScenarioDocument document{model.scenario(), {}};
    for (const Pin &pin : model.pins()) {
        // A pin's name travels as its scenario's name.
        Scenario named = pin.scenario;
        named.name = pin.name.toStdString();
        document.pins.push_back(named);
    }
    return document;
}

void loadDocument(ScenarioModel &model, const ScenarioDocument &document)
{
    model.clearPins();
    model.assign(document.current);
    for (const Scenario &pin : document.pins)
        model.addPin(pin, QString::fromStdString(pin.name));
}

} // namespace headroom
