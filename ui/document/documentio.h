// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/documentjson.h"

#include <QByteArray>
#include <QString>

namespace headroom {

class ScenarioModel;

/// The bytes of a scenario, comparison or lesson file under the input policy (a regular file of
/// at most limits::kDocumentBytes). Throws ScenarioError saying what is wrong.
QByteArray readDocumentBytes(const QString &path);
/// Reads a scenario or comparison file (`model.config` relative to the file). Throws
/// ScenarioError whose message names the problem and the key.
ScenarioDocument readDocumentFile(const QString &path);
/// Writes `bytes` atomically (QSaveFile): the old file stays intact when anything fails.
/// Returns an empty string, or what went wrong.
QString writeFileAtomically(const QString &path, const QByteArray &bytes);
/// Writes a document (scenario or comparison) atomically; returns an empty string or the error.
QString writeDocumentFile(const QString &path, const ScenarioDocument &document);
/// The model's current scenario and pinned scenarios.
ScenarioDocument documentOf(const ScenarioModel &model);
/// Replaces the model's scenario and pins with the document's (no undo step).
void loadDocument(ScenarioModel &model, const ScenarioDocument &document);

} // namespace headroom
