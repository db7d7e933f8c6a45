// SPDX-License-Identifier: GPL-3.0-or-later
// The Hugging Face config.json fixtures (tests/data/configs), read as Headroom reads a file, and
// an architecture printed as a scenario's model block.
#pragma once

#include "model/hfconfig.h"
#include "scenario/scenariojson.h"

#include <QByteArray>
#include <QFile>
#include <QString>

#include <nlohmann/json.hpp>

namespace headroom::test {

/// The fixture `name`, Python's bare Infinity and NaN quoted first; null JSON when it is missing.
inline nlohmann::json configFixture(const QString &name)
{
    QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/") + name);
    if (!file.open(QIODevice::ReadOnly))
        return nlohmann::json();
    return nlohmann::json::parse(pythonJsonToJson(file.readAll().toStdString()), nullptr, false);
}

/// An architecture as a scenario writes it (the model block), for failure messages.
inline QByteArray describeModel(const ModelArch &arch)
{
    Scenario s;
    s.model = arch;
    return QByteArray::fromStdString(scenarioToJson(s).at("model").dump());
}

} // namespace headroom::test
