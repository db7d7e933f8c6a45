// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/measurementview.h"
#include "window/plaintext.h"

#include "chart/budgetchart.h"
#include "displaytext.h"
#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "estimate/verdict.h"
#include "inputfile.h"
#include "io/pickle.h"
#include "measure/servingcase.h"
#include "scenario/scenariojson.h"

#include <QDialogButtonBox>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <cmath>

namespace headroom {

namespace {

/// Text from a file, shortened for a message (at most 40 characters, no control characters).
QString shown(const std::string &text)
{
    QString s = QString::fromUtf8(text.data(), qsizetype(text.size()));
    for (QChar &c : s)
        if (c.category() == QChar::Other_Control)
            c = QLatin1Char(' ');
    return s.size() > 40 ? s.left(39) + QChar(0x2026) : s;
}

bool isProbe(std::string_view text)
{
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && text[first] == '{' &&
           text.find("\"headroom-probe\"") != std::string_view::npos;
}

QString figureText(double value, FigureUnit unit, Unit bytesUnit)
{
    const double magnitude = std::min(std::abs(value), 1e18);
    QString text;
    switch (unit) {
    case FigureUnit::Bytes: text = bytesText(std::uint64_t(std::llround(magnitude)), bytesUnit); break;
    case FigureUnit::Tokens:
    case FigureUnit::Count: text = QString::fromStdString(groupDigits(std::uint64_t(std::llround(magnitude)))); break;
    case FigureUnit::Ratio: text = QString::number(magnitude, 'f', 2) + QLatin1Char('x'); break;
    }
    return value < 0 ? QLatin1Char('-') + text : text;
}

QString differenceText(double estimated, double measured, FigureUnit unit, Unit bytesUnit)
{
    const double d = estimated - measured;
    QString text = (d >= 0 ? QStringLiteral("+") : QString()) + figureText(d, unit, bytesUnit);
    if (measured != 0)
        text += QStringLiteral(" (%1%2%)").arg(d >= 0 ? QStringLiteral("+") : QString(),
                                              QString::number(d / std::abs(measured) * 100, 'f', 1));
    return text;
}

} // namespace

bool looksLikeMeasurement(std::string_view text)
{
    return isProbe(text) || torchFileKind(text) != TorchFileKind::None || looksLikeEngineLog(text);
}

void recompare(OpenedMeasurement &m, const ScenarioModel &model)
{
    const bool estimated = model.estimateError().isEmpty();
    if (m.log)
        m.logComparison = compareLog(*m.log, estimated ? model.estimate() : Estimate{});
    if (m.probe)
        m.probeComparison = estimated ? compareProbe(*m.probe, model.estimate()) : ProbeComparison{};
    if (m.torch) {
        const std::string_view text(m.torchBytes.constData(), std::size_t(m.torchBytes.size()));
        if (estimated) {
            m.torch = compareTorchFile(text, model.scenario(), model.estimate());
        } else {
            m.torch->readings.clear();
            m.torch->findings.clear();
        }
    }
}

QString openMeasurement(const QString &path, ScenarioModel &model, OpenedMeasurement &out)
{
    out = OpenedMeasurement{};
    out.path = path;
    try {
        InputFile file(path);
        const QByteArray bytes = file.readAll(std::max(kEngineLogBytes, limits::kPickleBytes));
        const std::string_view text(bytes.constData(), std::size_t(bytes.size()));
        if (isProbe(text)) {
            out.probe = readProbeFile(text);
            if (model.estimateError().isEmpty() && !model.scenario().serving && !model.estimate().phases.empty()) {
                out.notes.push_back("compared with the current scenario");
            } else {
                // Not a training scenario: the one the probe's facts state (the GPU the current one's
                // where the probe names none).
                const Gpu *gpu = targetGpu(model.scenario());
                const LogScenario fromProbe = scenarioFromProbe(*out.probe, {std::string(), gpu ? gpu->id : std::string()});
                if (!fromProbe.missing.empty()) {
                    QString message = QObject::tr("%1: the probe's facts do not describe the run: ").arg(QFileInfo(path).fileName());
                    for (std::size_t i = 0; i < fromProbe.missing.size(); ++i)
                        message += (i ? QStringLiteral("; ") : QString()) + QString::fromStdString(fromProbe.missing[i]);
                    return message;
                }
                model.setScenario(scenarioFromJson(fromProbe.document),
                                  QObject::tr("Open measurement %1").arg(QFileInfo(path).fileName()));
                out.notes = fromProbe.notes;
                out.notes.insert(out.notes.begin(), "the scenario as the probe's facts state it");
            }
            recompare(out, model);
            return {};
        }
        if (const TorchFileKind kind = torchFileKind(text); kind != TorchFileKind::None) {
            // PyTorch's files state no model or batch: the current scenario is the run's.
            if (!model.estimateError().isEmpty())
                return QObject::tr("%1: %2 states no model or batch; describe the run in the window first (%3)")
                    .arg(QFileInfo(path).fileName(), QString::fromLatin1(torchToolName(kind)), model.estimateError());
            out.torchBytes = bytes;
            out.torch = compareTorchFile(text, model.scenario(), model.estimate());
            out.notes.push_back("compared with the current scenario (PyTorch's file states no model or batch)");
            return {};
        }
        if (std::uint64_t(bytes.size()) > kEngineLogBytes)
            return QObject::tr("%1: %2 bytes, more than the 16 MiB of a start-up log").arg(QFileInfo(path).fileName()).arg(bytes.size());
        const EngineLog log = readEngineLog(text);
        out.log = log;
        const nlohmann::json current = scenarioToJson(model.scenario());
        const char *engine = logEngineScenarioKey(log.engine);
        const bool sameEngine = *engine && current.contains("serving") && current["serving"].is_object() &&
                                current["serving"].value("engine", std::string()) == engine;
        if (sameEngine || !*engine) {
            if (!*engine)
                out.warnings.push_back(std::string("Headroom does not model ") + logEngineName(log.engine) +
                                       ": its figures are shown without estimates.");
            else
                out.notes.push_back("compared with the current scenario");
            for (const LogSetting &s : log.settings) {
                const std::size_t dot = s.key.find('.');
                const std::string section = s.key.substr(0, dot), key = s.key.substr(dot + 1);
                if (!current.contains(section) || !current[section].is_object() || !current[section].contains(key))
                    continue;
                const nlohmann::json &mine = current[section][key];
                const bool same = mine.is_number() && s.value.is_number()
                                      ? std::abs(mine.get<double>() - s.value.get<double>()) < 1e-9
                                      : mine == s.value;
                if (!same)
                    out.warnings.push_back("The log ran " + s.key + " " + s.value.dump() + " (line " +
                                           std::to_string(s.line) + "), the scenario says " + mine.dump() +
                                           ": the two describe different launches.");
            }
        } else {
            // The scenario is filled from what the log states; the GPU is the current one's where
            // the log names none.
            const Gpu *gpu = targetGpu(model.scenario());
            const LogScenario fromLog = scenarioFromLog(log, {std::string(), gpu ? gpu->id : std::string()});
            if (!fromLog.missing.empty()) {
                QString message = QObject::tr("%1: the log alone does not describe the run: ").arg(QFileInfo(path).fileName());
                for (std::size_t i = 0; i < fromLog.missing.size(); ++i)
                    message += (i ? QStringLiteral("; ") : QString()) + QString::fromStdString(fromLog.missing[i]);
                return message;
            }
            model.setScenario(scenarioFromJson(fromLog.document),
                              QObject::tr("Open measurement %1").arg(QFileInfo(path).fileName()));
            out.notes = fromLog.notes;
            out.notes.insert(out.notes.begin(), "the scenario as the log states it");
        }
        recompare(out, model);
        return {};
    } catch (const std::exception &error) {
        return QFileInfo(path).fileName() + QStringLiteral(": ") + QString::fromUtf8(error.what()).left(300);
    }
}

void addMeasuredOverlay(const OpenedMeasurement &m, const ScenarioModel &model, ChartData &data)
{
    const QString name = QFileInfo(m.path).fileName();
    QString note;
    if (m.log && model.view() == ChartView::Bars) {
        std::vector<std::string> parts;
        if (const auto total = logMeasuredTotal(*m.log, parts)) {
            data.measuredBytes = std::uint64_t(std::llround(std::min(*total, 1e18)));
            data.measuredLabel = QObject::tr("%1 log").arg(QString::fromLatin1(logEngineName(m.log->engine)));
            QStringList words;
            for (const std::string &p : parts)
                words << QString::fromStdString(p);
            note = QObject::tr("Bold line: %1 as the %2 log printed it (%3); the bar is the estimate, not tuned to it.")
                       .arg(words.join(QStringLiteral(" + ")), QString::fromLatin1(logEngineName(m.log->engine)), name);
        }
    }
    if (m.torch && m.torch->peakAllocated > 0) {
        const auto bytes = std::uint64_t(std::llround(std::min(m.torch->peakAllocated, 1e18)));
        const QString tool = QString::fromLatin1(torchToolName(m.torch->kind));
        if (model.view() == ChartView::Bars) {
            data.measuredBytes = bytes;
            data.measuredLabel = QObject::tr("PyTorch peak");
            note = QObject::tr("Bold line: the peak allocated %1 read (%2); the bar is the estimate, not tuned to it.")
                       .arg(tool, name);
        } else if (model.view() == ChartView::Phases) {
            const auto &phases = model.estimate().phases;
            for (std::size_t i = 0; i < phases.size() && i < data.columns.size(); ++i)
                if (phases[i].id == model.estimate().peak.phase)
                    data.columns[i].measuredBytes = bytes;
            data.axisToRun = true;
            note = QObject::tr("Bold line: the peak allocated %1 read (%2), across the estimate's peak phase; the bars "
                               "are the estimate, not tuned to it.")
                       .arg(tool, name);
        }
    }
    if (m.probe && model.view() == ChartView::Phases) {
        data.axisToRun = true;
        const auto &phases = model.estimate().phases;
        for (const ProbePhase &p : m.probeComparison.phases)
            for (std::size_t i = 0; i < phases.size() && i < data.columns.size(); ++i)
                if (phases[i].id == p.phase)
                    data.columns[i].measuredBytes = p.measuredPeakBytes;
        note = QObject::tr("Bold lines: the probe's measured peak of each phase (%1); the bars are the estimate, not tuned to it.")
                   .arg(name);
    }
    if (!note.isEmpty())
        data.footnote = data.footnote.isEmpty() ? note : data.footnote + QLatin1Char(' ') + note;
}

std::vector<MeasuredCategory> measuredCategories(const OpenedMeasurement &m)
{
    std::vector<MeasuredCategory> out;
    if (m.log) {
        for (const ComparedFigure &f : m.logComparison.figures)
            if (!f.consumers.empty())
                out.push_back({QString::fromStdString(f.label), f.measured, f.consumers});
    } else if (m.torch) {
        for (const TorchReading &r : m.torch->readings)
            if (!r.consumers.empty())
                out.push_back({r.label, r.measured, r.consumers});
    }
    return out;
}

std::vector<MeasuredCategory> MeasurementController::categories() const
{
    return m_current ? measuredCategories(*m_current) : std::vector<MeasuredCategory>{};
}

QString saveMeasuredCase(const OpenedMeasurement &m, const ScenarioModel &model, const QString &path)
{
    if (!m.log && !m.probe && !m.torch)
        return QObject::tr("Open a measurement first (File > Open measurement...)");
    const QString id = QFileInfo(path).completeBaseName();
    if (!path.endsWith(QLatin1String(".json")) || id.isEmpty())
        return QObject::tr("The case file must be ID.json");
    if (!model.estimateError().isEmpty())
        return model.estimateError();
    const QString source = QFileInfo(m.path).fileName();
    nlohmann::json doc;
    if (m.log) {
        std::vector<std::string> notes;
        for (const std::string &n : m.notes)
            if (n != "compared with the current scenario" && n != "the scenario as the log states it")
                notes.push_back(n);
        std::string error;
        doc = servingCaseDocument(id.toStdString(), source.toStdString(), *m.log, model.scenario(), model.estimate(), notes,
                                  error);
        if (!error.empty())
            return QString::fromStdString(error);
    } else if (m.probe) {
        QString error;
        doc = probeCaseDocument(id, source, *m.probe, model.scenario(), model.estimate(), error);
        if (!error.isEmpty())
            return error;
    } else {
        if (m.torch->peakAllocated <= 0)
            return QObject::tr("%1 has no peak allocated figure to save").arg(source);
        const QString note = QObject::tr("the reading is the peak of torch.cuda.max_memory_allocated() as the tool "
                                         "printed it, to %1 MiB")
                                 .arg(QString::number(m.torch->resolution / 1048576.0, 'f', 0));
        doc = measuredCaseDocument(id, source, torchToolName(m.torch->kind), model.scenario(), model.estimate(),
                                   m.torch->peakAllocated, note);
    }
    return writeFileAtomically(path, QByteArray::fromStdString(doc.dump(2) + "\n"));
}

MeasurementDialog::MeasurementDialog(ScenarioModel *model, QWidget *parent)
    : QDialog(parent), m_model(model), m_header(new QLabel), m_table(new QTableWidget(0, 5)), m_findings(new QPlainTextEdit),
      m_save(new QPushButton(tr("Save as a measured case...")))
{
    setWindowTitle(tr("Measured beside the estimate"));
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::PlainText);
    m_findings->setReadOnly(true);
    m_findings->setAccessibleName(tr("What explains the difference"));
    m_table->setAccessibleName(tr("Measured and estimated figures"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(m_save, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
    connect(m_save, &QPushButton::clicked, this, &MeasurementDialog::saveRequested);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(m_table, 3);
    layout->addWidget(new QLabel(tr("What explains the difference:")));
    layout->addWidget(m_findings, 2);
    layout->addWidget(buttons);
    resize(820, 600);
}

void MeasurementDialog::show(const OpenedMeasurement *m)
{
    if (!m)
        return;
    const Unit unit = m_model->unit();
    QStringList header;
    if (m->log) {
        header << tr("%1 log: %2 (%3 lines, %4 read)%5")
                      .arg(QString::fromLatin1(logEngineName(m->log->engine)), QFileInfo(m->path).fileName())
                      .arg(m->log->lines)
                      .arg(m->log->recognised)
                      .arg(m->log->version.empty() ? QString() : tr(", version %1").arg(shown(m->log->version)));
        if (!m->log->model.empty())
            header << tr("Model: %1 (line %2)").arg(shown(m->log->model)).arg(m->log->modelLine);
    } else if (m->torch) {
        header << tr("%1: %2 (%3 figures)")
                      .arg(QString::fromLatin1(torchToolName(m->torch->kind)), QFileInfo(m->path).fileName())
                      .arg(m->torch->readings.size());
    } else if (m->probe) {
        header << tr("Probe: %1 (%2 readings, %3)")
                      .arg(QFileInfo(m->path).fileName())
                      .arg(m->probe->readings.size())
                      .arg(shown(m->probe->deviceName));
    }
    for (const std::string &n : m->notes)
        header << QStringLiteral("- ") + QString::fromStdString(n);
    for (const std::string &w : m->warnings)
        header << tr("Warning: %1").arg(QString::fromStdString(w));
    m_header->setText(header.join(QLatin1Char('\n')));

    m_table->clearContents();
    if (m->torch)
        m_table->setHorizontalHeaderLabels({tr("figure"), tr("measured"), tr("estimate"), tr("difference"), tr("where")});
    else
        m_table->setHorizontalHeaderLabels({m->log ? tr("figure") : tr("phase"), m->log ? tr("log") : tr("measured peak"),
                                            tr("estimate"), tr("difference"), m->log ? tr("line") : tr("step")});
    const auto set = [this](int row, int column, const QString &text, bool right) {
        auto *item = new QTableWidgetItem(text);
        if (right)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, column, item);
    };
    QStringList findings;
    if (m->log) {
        const auto &figures = m->logComparison.figures;
        m_table->setRowCount(int(figures.size()));
        for (int row = 0; row < int(figures.size()); ++row) {
            const ComparedFigure &f = figures[std::size_t(row)];
            set(row, 0, QString::fromStdString(f.label), false);
            set(row, 1, figureText(f.measured, f.unit, unit), true);
            set(row, 2, f.estimated ? figureText(*f.estimated, f.unit, unit) : QStringLiteral("-"), true);
            set(row, 3, f.estimated ? differenceText(*f.estimated, f.measured, f.unit, unit) : QString(), true);
            set(row, 4, QString::number(f.line), true);
            m_table->item(row, 1)->setToolTip(QStringLiteral("<qt>") + QString::fromStdString(f.text).left(300).toHtmlEscaped());
        }
        for (const std::string &s : m->logComparison.findings)
            findings << QStringLiteral("- ") + QString::fromStdString(s);
        if (m->log->refusal)
            findings << tr("The engine refused to start (line %1).").arg(m->log->refusal->line);
    } else if (m->torch) {
        const auto &readings = m->torch->readings;
        m_table->setRowCount(int(readings.size()));
        for (int row = 0; row < int(readings.size()); ++row) {
            const TorchReading &r = readings[std::size_t(row)];
            set(row, 0, r.label, false);
            set(row, 1, figureText(r.measured, FigureUnit::Bytes, unit), true);
            set(row, 2, r.estimated ? figureText(*r.estimated, FigureUnit::Bytes, unit) : QStringLiteral("-"), true);
            set(row, 3, r.estimated ? differenceText(*r.estimated, r.measured, FigureUnit::Bytes, unit) : QString(), true);
            set(row, 4, r.where, false);
        }
        for (const QString &f : m->torch->findings)
            findings << QStringLiteral("- ") + f;
    } else if (m->probe) {
        const auto &phases = m->probeComparison.phases;
        m_table->setRowCount(int(phases.size()));
        for (int row = 0; row < int(phases.size()); ++row) {
            const ProbePhase &p = phases[std::size_t(row)];
            set(row, 0, QString::fromLatin1(phaseKey(p.phase)), false);
            set(row, 1, bytesText(p.measuredPeakBytes, unit), true);
            set(row, 2, bytesText(p.estimatedBytes, unit), true);
            set(row, 3, differenceText(double(p.estimatedBytes), double(p.measuredPeakBytes), FigureUnit::Bytes, unit), true);
            set(row, 4, QString::number(p.step), true);
        }
        for (const std::string &s : m->probeComparison.findings)
            findings << QStringLiteral("- ") + QString::fromStdString(s);
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    findings << tr("The estimate is not tuned to the measurement: both are shown as they are (\"Where the memory actually goes\").");
    m_findings->setPlainText(findings.join(QLatin1Char('\n')));
    m_save->setEnabled(m->log || m->probe || (m->torch && m->torch->peakAllocated > 0));
    QDialog::show();
    raise();
}

MeasurementController::MeasurementController(QMainWindow *window, ScenarioModel *model)
    : QObject(window), m_window(window), m_model(model)
{
    m_report = [this](const QString &text) { warnPlainText(m_window, tr("Open measurement"), text); };
    // Installed after the document's filter, so it sees drops first and passes on what is not a measurement.
    window->installEventFilter(this);
    connect(m_model, &ScenarioModel::changed, this, [this] {
        if (!m_current)
            return;
        recompare(*m_current, *m_model);
        if (m_dialog && m_dialog->isVisible())
            m_dialog->show(&*m_current);
    });
}

MeasurementDialog *MeasurementController::dialog()
{
    if (!m_dialog) {
        m_dialog = new MeasurementDialog(m_model, m_window);
        connect(m_dialog, &MeasurementDialog::saveRequested, this, &MeasurementController::saveCase);
    }
    return m_dialog;
}

bool MeasurementController::open(const QString &path)
{
    OpenedMeasurement opened;
    const QString error = openMeasurement(path, *m_model, opened);
    if (!error.isEmpty()) {
        m_report(error);
        return false;
    }
    m_current = std::move(opened);
    dialog()->show(&*m_current);
    emit m_model->changed(); // the chart draws the overlay
    return true;
}

QString MeasurementController::saveCaseTo(const QString &path)
{
    if (!m_current)
        return tr("Open a measurement first (File > Open measurement...)");
    return saveMeasuredCase(*m_current, *m_model, path);
}

void MeasurementController::saveCase()
{
    if (!m_current) {
        m_report(tr("Open a measurement first (File > Open measurement...)"));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Save as a measured case"),
                                                      QFileInfo(m_current->path).completeBaseName() + QStringLiteral(".json"),
                                                      tr("Measured case (*.json)"));
    if (path.isEmpty())
        return;
    const QString error = saveCaseTo(path);
    if (!error.isEmpty())
        m_report(error);
}

void MeasurementController::addOverlay(ChartData &data) const
{
    if (m_current)
        addMeasuredOverlay(*m_current, *m_model, data);
}

bool MeasurementController::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_window || event->type() != QEvent::Drop)
        return false;
    auto *drop = static_cast<QDropEvent *>(event);
    if (!drop->mimeData() || !drop->mimeData()->hasUrls())
        return false;
    for (const QUrl &url : drop->mimeData()->urls()) {
        if (!url.isLocalFile())
            continue;
        try {
            InputFile file(url.toLocalFile());
            const QByteArray head = file.read(1024 * 1024);
            if (!looksLikeMeasurement(std::string_view(head.constData(), std::size_t(head.size()))))
                continue;
        } catch (const std::exception &) {
            continue;
        }
        drop->acceptProposedAction();
        open(url.toLocalFile());
        return true;
    }
    return false;
}

} // namespace headroom
