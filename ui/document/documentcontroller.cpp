// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/documentcontroller.h"
#include "window/plaintext.h"

#include "chart/chartdata.h"
#include "document/autosave.h"
#include "document/documentio.h"
#include "document/localmodelsdialog.h"
#include "document/exportdialog.h"
#include "controls/missingfieldsdialog.h"
#include "document/preferences.h"
#include "inputfile.h"
#include "document/trainconfigimporter.h"
#include "document/scenariomodel.h"

#include <QChartView>
#include <QClipboard>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMainWindow>
#include <QMenu>
#include <QMimeData>
#include <QStatusBar>
#include <QTimer>
#include <QUndoStack>

namespace headroom {

namespace {

constexpr int kMaxRecent = 8;

QString fileFilter(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Png: return DocumentController::tr("PNG image (*.png)");
    case ExportFormat::Svg: return DocumentController::tr("SVG drawing (*.svg)");
    case ExportFormat::Pdf: return DocumentController::tr("PDF document (*.pdf)");
    case ExportFormat::Csv: return DocumentController::tr("CSV table (*.csv)");
    case ExportFormat::Json: return DocumentController::tr("Estimate JSON (*.json)");
    }
    return {};
}

QString suffix(ExportFormat format)
{
    static const char *names[] = {".png", ".svg", ".pdf", ".csv", ".json"};
    return QString::fromLatin1(names[int(format)]);
}

/// The local files a drag carries.
QStringList droppedFiles(const QMimeData *mime)
{
    QStringList files;
    if (!mime || !mime->hasUrls())
        return files;
    for (const QUrl &url : mime->urls())
        if (url.isLocalFile())
            files << url.toLocalFile();
    return files;
}

} // namespace

DocumentController::DocumentController(QMainWindow *window, ScenarioModel *model, QChartView *chartView)
    : QObject(window), m_window(window), m_model(model), m_chartView(chartView),
      m_savedPins(pinnedScenarios())
{
    m_report = [this](const QString &text) { warnPlainText(m_window, tr("Headroom"), text); };
    m_ask = [this] {
        return askPlainText(
            m_window, tr("Unsaved changes"),
            tr("%1 has changes that are not saved. Save them before closing?")
                .arg(m_path.isEmpty() ? tr("The comparison") : QFileInfo(m_path).fileName()),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    };
    m_prompt = [this](const QString &path, const std::vector<std::string> &fields, nlohmann::json &config) {
        return MissingFieldsDialog::ask(m_window, path, fields, config);
    };
    window->setAcceptDrops(true);
    window->installEventFilter(this);
    if (chartView) {
        chartView->setAcceptDrops(false); // drops over the chart reach the window
        chartView->viewport()->setAcceptDrops(false);
    }
    m_askRestore = [this](const QString &what) {
        return QMessageBox::question(m_window, tr("Restore unsaved changes?"), what,
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
    };
    m_autosave = new Autosave([this] { return AutosaveRecord{documentOf(*m_model), m_path}; }, this);
    m_autosave->setObjectName(QStringLiteral("autosave"));
    QTimer::singleShot(0, this, [this] { offerRestore(); });
    connect(model, &ScenarioModel::changed, this, &DocumentController::updateTitle);
    connect(model->undoStack(), &QUndoStack::cleanChanged, this, &DocumentController::updateTitle);
    // The model goes first when the window closes; its undo stack still signals on the way out.
    connect(model, &QObject::destroyed, this, [this, undo = model->undoStack()] {
        disconnect(undo, nullptr, this, nullptr);
        m_model = nullptr;
        m_autosave->discard(); // the window ends normally: nothing to restore
    });
    updateTitle();
}

void DocumentController::addActions(QMenu *file)
{
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        if (!maybeSave())
            return;
        const QString path = QFileDialog::getOpenFileName(
            m_window, tr("Open scenario"), prefs::lastFolder.get(),
            tr("Headroom scenarios and comparisons (*.headroom.json *.json);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    QMenu *recent = file->addMenu(tr("Open &Recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] { fillRecentMenu(recent); });
    fillRecentMenu(recent);
    file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { save(); });
    file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, [this] {
        QString path = QFileDialog::getSaveFileName(
            m_window, tr("Save scenario"),
            m_path.isEmpty() ? QDir(prefs::lastFolder.get()).filePath(tr("scenario.headroom.json")) : m_path,
            tr("Headroom scenarios (*.headroom.json)"));
        if (path.isEmpty())
            return;
        if (!path.endsWith(QLatin1String(".json")))
            path += QStringLiteral(".headroom.json");
        saveAs(path);
    });
    file->addSeparator();
    file->addAction(tr("&Import model..."), QKeySequence(Qt::CTRL | Qt::Key_I), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            m_window, tr("Import model"), prefs::lastFolder.get(),
            tr("Model files (config.json *.safetensors *.safetensors.index.json *.gguf);;All files (*)"));
        if (!path.isEmpty())
            importModel(path);
    });
    // The local Hugging Face hub cache, without a file dialog (issue 22).
    QAction *local = file->addAction(tr("Models on this &computer..."), this, [this] { showLocalModels(); });
    local->setObjectName(QStringLiteral("localModelsAction"));
    file->addAction(tr("Import &training config..."), this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            m_window, tr("Import training config"), prefs::lastFolder.get(),
            tr("Training configs (*.yaml *.yml *.json);;All files (*)"));
        if (!paths.isEmpty())
            importTrainConfig(paths);
    });
    QMenu *exports = file->addMenu(tr("&Export"));
    exports->addAction(tr("Chart as &PNG..."), this, [this] { chooseExport(ExportFormat::Png); });
    exports->addAction(tr("Chart as &SVG..."), this, [this] { chooseExport(ExportFormat::Svg); });
    exports->addAction(tr("Chart as P&DF..."), this, [this] { chooseExport(ExportFormat::Pdf); });
    exports->addSeparator();
    exports->addAction(tr("Breakdown as &CSV..."), this, [this] { chooseExport(ExportFormat::Csv); });
    exports->addAction(tr("Breakdown as &JSON..."), this, [this] { chooseExport(ExportFormat::Json); });
    file->addAction(tr("&Copy chart image"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this,
                    [this] { copyChartImage(); });
    file->addSeparator();
}

void DocumentController::fillRecentMenu(QMenu *menu)
{
    menu->clear();
    for (const QString &path : recentFiles())
        menu->addAction(QDir::toNativeSeparators(path), this, [this, path] {
            if (maybeSave())
                openFile(path);
        });
    menu->setEnabled(!menu->isEmpty());
}

bool DocumentController::openFile(const QString &path)
{
    ScenarioDocument document;
    try {
        document = readDocumentFile(path);
    } catch (const std::exception &error) {
        report(tr("Cannot open %1:\n%2").arg(QDir::toNativeSeparators(path), errorMessage(error)));
        return false;
    }
    loadDocument(*m_model, document);
    m_model->undoStack()->clear();
    m_path = QFileInfo(path).absoluteFilePath();
    m_savedPins = pinnedScenarios();
    rememberRecent(m_path);
    updateTitle();
    m_window->statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(path).fileName()), 4000);
    emit opened();
    return true;
}

bool DocumentController::offerRestore()
{
    QString problem;
    const std::optional<AutosaveRecord> record = m_autosave->pending(&problem);
    if (!problem.isEmpty())
        m_window->statusBar()->showMessage(
            tr("The unsaved changes of the last session could not be read: %1").arg(problem), 15000);
    if (!record || !m_model)
        return false;
    const QString name = record->file.isEmpty() ? tr("an untitled scenario")
                                                : QFileInfo(record->file).fileName();
    const QString question =
        tr("Headroom ended without saving the changes to %1 (%2 pinned). Restore them?")
            .arg(name)
            .arg(record->document.pins.size());
    if (m_askRestore(question) != QMessageBox::Yes) {
        m_autosave->discard();
        return false;
    }
    m_autosave->adopt();
    // The pins as they were, then the scenario as one undo step: it stays unsaved until saved.
    const Scenario before = m_model->scenario();
    m_model->clearPins();
    for (const Scenario &pin : record->document.pins) {
        m_model->assign(pin);
        m_model->pinCurrent();
    }
    m_model->assign(before);
    m_model->setScenario(record->document.current, tr("Restore unsaved changes"));
    if (!record->file.isEmpty() && QFileInfo(record->file).isFile())
        m_path = record->file;
    updateTitle();
    m_window->statusBar()->showMessage(tr("Restored the unsaved changes of the last session"), 8000);
    return true;
}

bool DocumentController::save()
{
    if (!m_path.isEmpty())
        return saveAs(m_path);
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save scenario"),
                                                QDir(prefs::lastFolder.get()).filePath(tr("scenario.headroom.json")),
                                                tr("Headroom scenarios (*.headroom.json)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".json")))
        path += QStringLiteral(".headroom.json");
    return saveAs(path);
}

bool DocumentController::saveAs(const QString &path)
{
    const QString error = writeDocumentFile(path, documentOf(*m_model));
    if (!error.isEmpty()) {
        report(tr("Cannot save: %1").arg(error));
        return false;
    }
    m_path = QFileInfo(path).absoluteFilePath();
    m_model->undoStack()->setClean();
    m_savedPins = pinnedScenarios();
    rememberRecent(m_path);
    updateTitle();
    m_window->statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 4000);
    return true;
}

bool DocumentController::importTrainConfig(const QStringList &paths)
{
    TrainConfigResult imported;
    try {
        imported = importTrainConfigFiles(paths, m_model->scenario());
    } catch (const std::exception &error) {
        report(tr("Cannot import the training config:\n%1").arg(QString::fromStdString(error.what())));
        return false;
    }
    const Scenario scenario = imported.scenario;
    m_model->apply(tr("Import training config %1").arg(QFileInfo(paths.value(0)).fileName()),
                   [scenario](Scenario &s) { s = scenario; });
    prefs::lastFolder.set(QFileInfo(paths.value(0)).absolutePath());
    QString message = tr("Imported %1").arg(imported.summary);
    if (!imported.warnings.isEmpty())
        message += tr(" (not modelled: %1)").arg(imported.warnings.join(QStringLiteral("; ")));
    m_window->statusBar()->showMessage(message, 15000);
    return true;
}

LocalModelsDialog *DocumentController::showLocalModels()
{
    if (!m_localModels) {
        m_localModels = new LocalModelsDialog(m_window);
        connect(m_localModels, &LocalModelsDialog::openRequested, this, [this](const QString &path) {
            if (importModel(path))
                m_localModels->accept();
        });
    }
    m_localModels->reload();
    m_localModels->show();
    m_localModels->raise();
    m_localModels->activateWindow();
    return m_localModels;
}

bool DocumentController::importModel(const QString &path)
{
    std::optional<ModelImport> imported;
    try {
        imported = importModelFile(path, m_model->scenario().model, m_prompt);
    } catch (const std::exception &error) {
        report(tr("Cannot import %1:\n%2").arg(QDir::toNativeSeparators(path), errorMessage(error)));
        return false;
    }
    if (!imported)
        return false;
    const ModelArch arch = imported->arch;
    m_model->apply(tr("Import model %1").arg(QFileInfo(path).fileName()), [arch](Scenario &s) { s.model = arch; });
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    m_window->statusBar()->showMessage(tr("Imported %1").arg(imported->summary), 8000);
    return true;
}

bool DocumentController::exportTo(const QString &path, const ChartExportOptions &options)
{
    ExportFormat format = ExportFormat::Png;
    if (!exportFormatFor(path, format)) {
        report(tr("Cannot export %1: the name must end in .png, .svg, .pdf, .csv or .json").arg(path));
        return false;
    }
    QString error;
    if (format == ExportFormat::Csv || format == ExportFormat::Json) {
        error = m_model->estimateError().isEmpty()
                    ? exportBreakdown(path, format, m_model->estimate(), m_model->unit())
                    : m_model->estimateError();
    } else {
        error = exportChart(path, format, chartDataFor(*m_model), options);
    }
    if (!error.isEmpty()) {
        report(tr("Cannot export %1: %2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    m_window->statusBar()->showMessage(tr("Exported %1").arg(QFileInfo(path).fileName()), 4000);
    return true;
}

void DocumentController::chooseExport(ExportFormat format)
{
    ChartExportOptions options = ExportDialog::remembered();
    if (format == ExportFormat::Png || format == ExportFormat::Svg || format == ExportFormat::Pdf) {
        const ChartData data = chartDataFor(*m_model);
        ExportDialog dialog(format, options, [data](QSize size, double scale, bool dark) {
            ChartData shown = data;
            shown.dark = dark;
            return renderChartImage(shown, size, scale);
        }, m_window);
        if (dialog.exec() != QDialog::Accepted)
            return;
        options = dialog.options();
        ExportDialog::remember(options);
    }
    const QString base = m_path.isEmpty() ? tr("headroom") : QFileInfo(m_path).completeBaseName().remove(QLatin1String(".headroom"));
    QString path = QFileDialog::getSaveFileName(m_window, tr("Export"),
                                                QDir(prefs::lastFolder.get()).filePath(base + suffix(format)),
                                                fileFilter(format));
    if (path.isEmpty())
        return;
    if (!path.endsWith(suffix(format), Qt::CaseInsensitive))
        path += suffix(format);
    exportTo(path, options);
}

void DocumentController::copyChartImage()
{
    QSize size(1600, 900);
    double scale = m_window->devicePixelRatioF();
    if (m_chartView && m_chartView->width() >= 200 && m_chartView->height() >= 150)
        size = m_chartView->size();
    QGuiApplication::clipboard()->setImage(renderChartImage(chartDataFor(*m_model), size, scale));
    m_window->statusBar()->showMessage(tr("Chart copied to the clipboard"), 3000);
}

bool DocumentController::isModified() const
{
    return !m_model->undoStack()->isClean() || pinnedScenarios() != m_savedPins;
}

bool DocumentController::maybeSave()
{
    // An untitled scenario without pins is kept by the session; nothing else would be lost.
    if (!isModified() || (m_path.isEmpty() && m_model->pins().empty()))
        return true;
    switch (m_ask()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

QStringList DocumentController::recentFiles() const
{
    return prefs::recentFiles.get();
}

void DocumentController::rememberRecent(const QString &path)
{
    QStringList recent = prefs::recentFiles.get();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    prefs::recentFiles.set(recent);
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    emit stateChanged();
}

void DocumentController::report(const QString &text)
{
    m_report(text);
}

void DocumentController::updateTitle()
{
    if (!m_model)
        return;
    const QString name = m_path.isEmpty() ? tr("Untitled") : QFileInfo(m_path).fileName();
    const QString title = tr("%1[*] — Headroom").arg(name);
    if (m_window->windowTitle() != title)
        m_window->setWindowTitle(title);
    const bool modified = isModified();
    if (m_autosave)
        m_autosave->changed(modified);
    if (m_window->isWindowModified() != modified) {
        m_window->setWindowModified(modified);
        emit stateChanged();
    }
}

std::vector<Scenario> DocumentController::pinnedScenarios() const
{
    return documentOf(*m_model).pins;
}

bool DocumentController::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_window)
        return false;
    if (event->type() == QEvent::DragEnter || event->type() == QEvent::DragMove) {
        auto *drag = static_cast<QDragMoveEvent *>(event);
        if (!droppedFiles(drag->mimeData()).isEmpty()) {
            drag->acceptProposedAction();
            return true;
        }
    } else if (event->type() == QEvent::Drop) {
        auto *drop = static_cast<QDropEvent *>(event);
        const QStringList files = droppedFiles(drop->mimeData());
        if (files.isEmpty())
            return false;
        drop->acceptProposedAction();
        // Model files import; training configs import together; the first other file opens
        // (after asking about unsaved changes).
        bool opened = false;
        QStringList configs;
        for (const QString &path : files)
            if (!isModelFile(path) && isTrainConfigFile(path))
                configs << path;
        if (!configs.isEmpty())
            importTrainConfig(configs);
        for (const QString &path : files) {
            if (configs.contains(path))
                continue;
            if (isModelFile(path) || QFileInfo(path).isDir())
                importModel(path);
            else if (!opened && maybeSave()) {
                opened = true;
                openFile(path);
            }
        }
        return true;
    }
    return false;
}

} // namespace headroom
