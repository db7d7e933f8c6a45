// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "chart/chartexport.h"
#include "document/modelimporter.h"
#include "scenario/scenario.h"

#include <QMessageBox>
#include <QObject>
#include <QString>
#include <functional>
#include <vector>

class QChartView;
class QMainWindow;
class QMenu;

namespace headroom {

class Autosave;
class LocalModelsDialog;
class ScenarioModel;

/// The window's file: open, save (atomic), recent files, drag-and-drop, model import, exports,
/// the title with its modified marker and the question before unsaved changes are closed.
class DocumentController : public QObject
{
    Q_OBJECT
public:
    DocumentController(QMainWindow *window, ScenarioModel *model, QChartView *chartView);

    /// Adds Open, Open Recent, Save, Save As, Import model, Export and Copy chart to `file`.
    void addActions(QMenu *file);

    /// Opens a scenario or comparison file; on failure reports it and keeps what was shown.
    bool openFile(const QString &path);
    /// Saves to the current file (asks for one when there is none).
    bool save();
    /// Saves to `path` and makes it the current file.
    bool saveAs(const QString &path);
    /// Imports a model file (config.json or safetensors) into the scenario as one undo step.
    bool importModel(const QString &path);
    /// File > Models on this computer: the local Hugging Face hub cache, read again; choosing
    /// one imports it (importModel). The dialog is not modal and is kept.
    LocalModelsDialog *showLocalModels();
    /// Imports training configuration files (torchtune, LitGPT, TrainingArguments + PEFT +
    /// bitsandbytes, DeepSpeed, Accelerate, Axolotl) as one undo step.
    bool importTrainConfig(const QStringList &paths);
    /// Exports the chart (png, svg, pdf) or the breakdown (csv, json), by the file's extension.
    bool exportTo(const QString &path, const ChartExportOptions &options = {});
    /// Copies the chart, as shown, to the clipboard as an image.
    void copyChartImage();
    /// Before closing: true when nothing would be lost or the user chose Save or Discard.
    bool maybeSave();

    const QString &filePath() const { return m_path; }
    /// Unsaved changes: scenario edits since the last save (undo stack) or different pins.
    bool isModified() const;
    /// The files opened or saved most recently, newest first.
    QStringList recentFiles() const;

    /// Replaces the message box that reports failures (tests capture the text).
    void setMessageHandler(std::function<void(const QString &)> handler) { m_report = std::move(handler); }
    /// Replaces the Save / Discard / Cancel question before unsaved changes are closed.
    void setSaveQuestion(std::function<QMessageBox::StandardButton()> ask) { m_ask = std::move(ask); }
    /// Replaces the dialog that asks for the keys a config.json lacks.
    void setMissingFieldsPrompt(MissingFieldsPrompt prompt) { m_prompt = std::move(prompt); }
    /// Replaces the question whether to restore what a crashed session left unsaved (Yes / No);
    /// set it before the event loop runs, which asks it once after start-up.
    void setRestoreQuestion(std::function<QMessageBox::StandardButton(const QString &)> ask)
    {
        m_askRestore = std::move(ask);
    }

    /// The copy of unsaved changes kept for a crash (the application's data folder).
    Autosave *autosave() const { return m_autosave; }
    /// Offers back what a crashed or killed session left unsaved (done once after start-up);
    /// true when it was restored.
    bool offerRestore();

signals:
    /// The file, its modified state or the recent files changed.
    void stateChanged();
    /// A scenario file was opened: whatever the window showed before (a lesson) is over.
    void opened();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateTitle();
    void rememberRecent(const QString &path);
    void report(const QString &text);
    void chooseExport(ExportFormat format);
    void fillRecentMenu(QMenu *menu);
    std::vector<Scenario> pinnedScenarios() const;

    QMainWindow *m_window;
    ScenarioModel *m_model;
    QChartView *m_chartView;
    QString m_path;
    std::vector<Scenario> m_savedPins;
    std::function<void(const QString &)> m_report;
    std::function<QMessageBox::StandardButton()> m_ask;
    std::function<QMessageBox::StandardButton(const QString &)> m_askRestore;
    MissingFieldsPrompt m_prompt;
    Autosave *m_autosave = nullptr;
    LocalModelsDialog *m_localModels = nullptr;
};

} // namespace headroom
