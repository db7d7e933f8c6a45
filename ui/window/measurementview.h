// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File > Open measurement... and a dropped log, probe or PyTorch file (memory_summary() text, a
// memory timeline, a snapshot pickle): the file read by the core's readers (measure/), compared
// with the current scenario (or filling it from what the log or probe states), shown in a dialog
// beside the estimate, and drawn across the chart. "Save as a measured case..." writes the case
// `headroom compare --save-case` writes (servingCaseDocument, measuredCaseDocument, probeCaseDocument).

#include "measure/enginelog.h"
#include "measure/logcompare.h"
#include "measure/probefile.h"
#include "torchcompare.h"

#include <QByteArray>

#include <QDialog>
#include <QObject>
#include <QString>
#include <optional>
#include <string>
#include <vector>

class QLabel;
class QMainWindow;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace headroom {

struct ChartData;
class ScenarioModel;

/// One measurement file, read, and what it says beside the current estimate.
struct OpenedMeasurement
{
    QString path;
    std::optional<EngineLog> log;
    std::optional<ProbeFile> probe;
    LogComparison logComparison;
    ProbeComparison probeComparison;
    /// PyTorch's file (its bytes kept to compare again when the scenario changes) and its comparison.
    QByteArray torchBytes;
    std::optional<TorchComparison> torch;
    /// Where the scenario came from and what differs from the log (said in the dialog).
    std::vector<std::string> notes, warnings;
};

/// True when the text is a file Open measurement reads: an engine's start-up log, the probe's JSON
/// or one of PyTorch's memory files.
bool looksLikeMeasurement(std::string_view text);

/// Reads `path` and compares it with `model`'s scenario. A log of the scenario's engine compares
/// with the scenario as it is; any other log fills the scenario from what it states (the GPU the
/// current scenario's when the log names none), refused where it does not state enough. The
/// probe's file compares with the current (training) scenario, PyTorch's files with the current
/// scenario, whatever it is (they state no model). Returns the error, empty on success.
QString openMeasurement(const QString &path, ScenarioModel &model, OpenedMeasurement &out);

/// The comparison again, against `model`'s current estimate (after the user edits the scenario).
void recompare(OpenedMeasurement &m, const ScenarioModel &model);

/// Draws the measurement across `data`: a log's budget or PyTorch's peak allocated across the bars
/// view, the probe's peak of each phase across the phases view's bars (ChartColumn::measuredBytes;
/// PyTorch's peak across the estimate's peak phase), the axis to the run's scale there.
void addMeasuredOverlay(const OpenedMeasurement &m, const ScenarioModel &model, ChartData &data);

/// One category the measurement gives, on the estimate's consumers it stands beside.
struct MeasuredCategory
{
    QString label;                     ///< "weights", "KV cache", ...
    double measured = 0;               ///< bytes
    std::vector<ConsumerId> consumers; ///< never empty
};
/// The measurement's categories for the Breakdown view: a memory timeline's at its peak, a log's
/// weights / KV cache / activation peak (the mappings of compareTimeline and compareLog). Empty
/// where the source gives no categories (memory_summary(), a snapshot, the probe's phases).
std::vector<MeasuredCategory> measuredCategories(const OpenedMeasurement &m);

/// Writes the measured case (ID.json) of the measurement beside `model`'s scenario: a
/// headroom-serving-log case for a log, a headroom-measurement case for the probe's or PyTorch's
/// peak allocated. Returns the error.
QString saveMeasuredCase(const OpenedMeasurement &m, const ScenarioModel &model, const QString &path);

/// The comparison table, what explains the difference, and Save as a measured case.
class MeasurementDialog : public QDialog
{
    Q_OBJECT
public:
    MeasurementDialog(ScenarioModel *model, QWidget *parent);
    void show(const OpenedMeasurement *m);
    QTableWidget *table() const { return m_table; }
    QPlainTextEdit *findings() const { return m_findings; }
    QPushButton *saveButton() const { return m_save; }

signals:
    void saveRequested();

private:
    ScenarioModel *m_model;
    QLabel *m_header;
    QTableWidget *m_table;
    QPlainTextEdit *m_findings;
    QPushButton *m_save;
};

/// The main window's hooks: the File menu's two actions, drops of measurement files, the overlay.
class MeasurementController : public QObject
{
    Q_OBJECT
public:
    MeasurementController(QMainWindow *window, ScenarioModel *model);
    /// Opens the file (the action's function), or reports why not. True when opened.
    bool open(const QString &path);
    /// Asks for a file name and saves the measured case.
    void saveCase();
    /// Saves without asking (tests, and the dialog's button after asking). Returns the error.
    QString saveCaseTo(const QString &path);
    const OpenedMeasurement *current() const { return m_current ? &*m_current : nullptr; }
    /// The current measurement's categories (empty without one).
    std::vector<MeasuredCategory> categories() const;
    MeasurementDialog *dialog();
    void addOverlay(ChartData &data) const;
    /// Replaces the message box that reports an error (tests).
    void setReporter(std::function<void(const QString &)> report) { m_report = std::move(report); }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QMainWindow *m_window;
    ScenarioModel *m_model;
    MeasurementDialog *m_dialog = nullptr;
    std::optional<OpenedMeasurement> m_current;
    std::function<void(const QString &)> m_report;
};

} // namespace headroom
