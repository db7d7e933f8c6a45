// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/mainwindow.h"
#include "window/plaintext.h"

#include "classroom/advisorview.h"
#include "window/aboutdialog.h"
#include "window/breakdownview.h"
#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/consumerstyle.h"
#include "controls/controlpanel.h"
#include "document/documentcontroller.h"
#include "classroom/lessoncontroller.h"
#include "classroom/lessonplayer.h"
#include "controls/modelsearch.h"
#include "window/shortcutsdialog.h"
#include "window/firstruncard.h"
#include "document/preferences.h"
#include "document/sessionrestore.h"
#include "classroom/presenterview.h"
#include "scenario/scenariojson.h"
#include "document/scenariomodel.h"
#include "classroom/fitsview.h"
#include "classroom/frontierview.h"
#include "classroom/sweepview.h"
#include "controls/solvepanel.h"
#include "window/measurementview.h"
#include "window/theme.h"
#include "controls/usergpudialog.h"
#include "controls/usergpus.h"

#include "classroom/lessonbuilder.h"
#include "estimate/verdict.h"
#include "servingheadline.h"

#include <QTextDocument>
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScreen>
#include <QChartView>
#include <QCloseEvent>
#include <QCursor>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QToolTip>
#include <QUndoStack>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

namespace headroom {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_model(new ScenarioModel(this)), m_chart(new BudgetChart(this))
{
    setWindowTitle(tr("Headroom"));
    restoreState();
    // Before any widget exists: a style or palette set afterwards re-polishes every widget
    // (about a tenth of the time to the first frame).
    applyTheme();

    m_controls = new ControlPanel(m_model);
    installModelSearchIn(m_controls, m_model->catalog()); // the preset combo finds "qwen3 30b"
    auto *scroll = new QScrollArea;
    m_controlsScroll = scroll;
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_controls->minimumSizeHint().width() + 24);

    // The chart view lives in a plain widget (no propagateSizeHints noise offscreen).
    auto *chartHolder = new QWidget;
    auto *chartLayout = new QVBoxLayout(chartHolder);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    m_chartView = new QChartView(m_chart->chart(), chartHolder);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setAccessibleName(tr("Memory chart"));
    m_chartView->setMinimumSize(360, 240);
    m_chartView->viewport()->installEventFilter(this);
    chartLayout->addWidget(m_chartView);

    m_breakdown = new BreakdownView(m_model);
    m_rightSplitter = new QSplitter(Qt::Vertical);
    m_rightSplitter->addWidget(chartHolder);
    m_rightSplitter->addWidget(m_breakdown);
    m_rightSplitter->setStretchFactor(0, 3);
    m_rightSplitter->setStretchFactor(1, 2);
    m_mainSplitter = new QSplitter(Qt::Horizontal);
    m_mainSplitter->addWidget(scroll);
    m_mainSplitter->addWidget(m_rightSplitter);
    m_mainSplitter->setStretchFactor(1, 1);
    m_mainSplitter->setCollapsible(0, true);
    m_mainSplitter->setCollapsible(1, false);
    m_rightSplitter->setCollapsible(0, false);
    setCentralWidget(m_mainSplitter);

    m_status = plainText(new QLabel);
    m_status->setAccessibleName(tr("Peak and fit"));
    // A long status must not widen the window: it is cut at the right (the verdict comes first)
    // and whole in the tooltip.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status->setMinimumWidth(0);
    statusBar()->addWidget(m_status, 1);

    m_document = new DocumentController(this, m_model, m_chartView);
    m_lessons = new LessonController(this, m_model);
    m_measurements = new MeasurementController(this, m_model);
    m_lessons->setReplaceQuestion([this] { return m_document->maybeSave(); });
    chartLayout->insertWidget(0, m_lessons->captionBar());
    // An opened scenario is not the lesson's step: its caption and shared axis go with it.
    connect(m_document, &DocumentController::opened, m_lessons->player(), &LessonPlayer::stop);
    buildMenus();
    // A first start: the three questions, each leading to the view that answers it.
    if (FirstRunCard::wanted()) {
        auto *card = new FirstRunCard;
        card->setObjectName(QStringLiteral("firstRunCard"));
        chartLayout->insertWidget(0, card);
        connect(card, &FirstRunCard::fitAsked, this, [this] {
            advisor()->show();
            advisor()->raise();
        });
        connect(card, &FirstRunCard::usersAsked, this, [this] {
            frontier()->show();
            frontier()->raise();
        });
        connect(card, &FirstRunCard::gpusAsked, this, [this] { m_solveAction->setChecked(true); });
    }
    connect(m_model, &ScenarioModel::changed, this, &MainWindow::refresh);
    connect(m_chart, &BudgetChart::segmentHovered, this, [this](const QString &text) {
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(QCursor::pos(), text, m_chartView);
    });
    if (const QByteArray geometry = prefs::geometry.get(); !restoreGeometry(geometry)) {
        if (!geometry.isEmpty())
            prefs::geometry.reset();
        resize(1440, 900);
    }
    if (const QByteArray splitters = prefs::splitters.get();
        !splitters.isEmpty() && !m_mainSplitter->restoreState(splitters))
        prefs::splitters.reset();
    fitToScreen();
    // The controls at their narrowest readable width; the chart takes the rest.
    if (prefs::splitters.get().isEmpty())
        m_mainSplitter->setSizes({scroll->minimumWidth(), std::max(400, width() - scroll->minimumWidth())});
    // Ctrl+Z and Ctrl+Shift+Z undo the scenario whatever widget has the focus.
    qApp->installEventFilter(this);
    refresh();
    QStringList notes;
    if (m_restoreLost)
        notes << tr("The last session's scenario (%1) could not be read (%2): the default scenario is shown")
                     .arg(prefs::scenario.key(), m_restoreProblems.join(QLatin1String("; ")));
    else if (!m_restoreProblems.isEmpty())
        notes << tr("The last session's scenario (%1) was restored; what could not be read went back to its "
                    "default (%2)").arg(prefs::scenario.key(), m_restoreProblems.join(QLatin1String("; ")));
    if (!m_restoreProblems.isEmpty())
        resetPreferences().removeAll(prefs::scenario.key()); // said above: one message, not two
    if (!resetPreferences().isEmpty())
        notes << tr("Some settings could not be read (another version wrote them, or "
                    "they are damaged) and were reset: %1")
                     .arg(resetPreferences().join(QLatin1String(", ")));
    if (!notes.isEmpty())
        statusBar()->showMessage(notes.join(QLatin1String(". ")), 30000);
    resetPreferences().clear();
}

void MainWindow::fitToScreen()
{
    const QScreen *screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (!screen)
        return;
    const QRect available = screen->availableGeometry();
    // The frame (title bar, borders) comes on top of the window's own size.
    const QMargins frame(8, 32, 8, 8);
    const QSize most = available.marginsRemoved(frame).size();
    if (isMaximized() || isFullScreen())
        return;
    resize(std::min(width(), most.width()), std::min(height(), most.height()));
    QRect placed(pos(), size());
    if (!available.contains(placed)) {
        placed.moveLeft(std::clamp(placed.left(), available.left() + frame.left(),
                                   std::max(available.left() + frame.left(), available.right() - frame.right() - placed.width())));
        placed.moveTop(std::clamp(placed.top(), available.top() + frame.top(),
                                  std::max(available.top() + frame.top(), available.bottom() - frame.bottom() - placed.height())));
        move(placed.topLeft());
    }
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::ShortcutOverride) {
        // Text fields would take Ctrl+Z for their own text; the scenario's undo wins here.
        auto *key = static_cast<QKeyEvent *>(event);
        auto *widget = qobject_cast<QWidget *>(watched);
        const QKeySequence pressed(key->keyCombination());
        if (widget && widget->window() == this &&
            (pressed == QKeySequence(QKeySequence::Undo) || pressed == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z) ||
             key->matches(QKeySequence::Redo) || key->matches(QKeySequence::Undo)))
            return true; // not accepted: the window's shortcut fires
    }
    if (!m_painted && watched == m_chartView->viewport() && event->type() == QEvent::Paint) {
        m_painted = true;
        QMetaObject::invokeMethod(this, &MainWindow::firstFramePainted, Qt::QueuedConnection);
    }
    if (watched == m_chartView->viewport() && event->type() == QEvent::MouseButtonDblClick) {
        // A double-click on a pin's name renames it.
        const QPoint at = static_cast<QMouseEvent *>(event)->position().toPoint();
        const QPointF inChart = m_chart->chart()->mapFromScene(m_chartView->mapToScene(at));
        const int column = m_chart->categoryAt(inChart);
        const std::vector<ChartColumn> &columns = m_chart->data().columns;
        if (column >= 0 && column < int(columns.size()) && columns[std::size_t(column)].pin >= 0) {
            renamePin(columns[std::size_t(column)].pin);
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::renamePin(int index)
{
    if (index < 0 || index >= int(m_model->pins().size()))
        return;
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Rename pin"), tr("Name of %1:").arg(m_model->pinLabel(index)),
                                               QLineEdit::Normal, m_model->pins()[std::size_t(index)].name, &ok);
    if (ok)
        m_model->renamePin(index, name);
}

void MainWindow::savePinsAsLesson()
{
    if (m_model->pins().empty())
        return;
    LessonBuilderDialog dialog(*m_model, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString path = QFileDialog::getSaveFileName(this, tr("Save lesson"),
                                                QDir(prefs::lastFolder.get()).filePath(tr("lesson.json")),
                                                tr("Headroom lessons (*.json)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".json")))
        path += QStringLiteral(".json");
    if (const QString error = writeLessonFile(path, dialog.lesson()); !error.isEmpty()) {
        warnPlainText(this, tr("Headroom"), tr("Cannot save the lesson: %1").arg(error));
        return;
    }
    m_lessons->openFile(path);
}

void MainWindow::pinCurrent()
{
    if (const int same = m_model->duplicatePin(); same >= 0) {
        statusBar()->showMessage(tr("This scenario is already pinned as %1.").arg(m_model->pinLabel(same)), 6000);
        return;
    }
    if (!m_model->pinCurrent()) {
        statusBar()->showMessage(tr("At most %1 pinned scenarios: remove one first.").arg(ScenarioModel::kMaxPins), 6000);
        return;
    }
    statusBar()->showMessage(tr("Pinned as %1 (double-click its name on the chart to rename it).")
                                 .arg(m_model->pinLabel(int(m_model->pins().size()) - 1)), 6000);
}

MainWindow::~MainWindow()
{
    // ~QWidget closes the window, which hides its docks; their toggle actions would then call this
    // window's lambdas (solveDock(), ...) on an object already destroyed down to QWidget.
    for (QAction *action : findChildren<QAction *>())
        disconnect(action, nullptr, this, nullptr);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_document->addActions(file);
    file->addSeparator();
    file->addAction(tr("Open &measurement..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open measurement"), QString(),
            tr("Start-up logs and probe files (*.log *.txt *.json);;All files (*)"));
        if (!path.isEmpty())
            m_measurements->open(path);
    });
    file->addAction(tr("Save as a measured &case..."), m_measurements, &MeasurementController::saveCase);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = m_model->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_model->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo});
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("My &GPUs..."), this, [this] { UserGpuDialog(m_model, this).exec(); });

    QMenu *view = menuBar()->addMenu(tr("&View"));
    auto *views = new QActionGroup(this);
    QAction *bars = view->addAction(tr("&Scenarios side by side"));
    bars->setShortcut(Qt::CTRL | Qt::Key_1);
    QAction *phases = view->addAction(tr("&Phases of the current scenario"));
    phases->setShortcut(Qt::CTRL | Qt::Key_2);
    QAction *ranks = view->addAction(tr("Every &rank of the current scenario"));
    ranks->setShortcut(Qt::CTRL | Qt::Key_3);
    ranks->setStatusTip(tr("One bar per kind of GPU (first and last pipeline stage) and the CPU RAM bar"));
    for (QAction *action : {bars, phases, ranks}) {
        action->setCheckable(true);
        views->addAction(action);
    }
    bars->setChecked(m_model->view() == ChartView::Bars);
    phases->setChecked(m_model->view() == ChartView::Phases);
    ranks->setChecked(m_model->view() == ChartView::Ranks);
    connect(bars, &QAction::triggered, this, [this] { m_model->setView(ChartView::Bars); });
    connect(phases, &QAction::triggered, this, [this] { m_model->setView(ChartView::Phases); });
    connect(ranks, &QAction::triggered, this, [this] { m_model->setView(ChartView::Ranks); });
    view->addSeparator();
    auto *units = new QActionGroup(this);
    QAction *gib = view->addAction(tr("Sizes in G&iB (2^30 bytes, as nvidia-smi and PyTorch print)"));
    QAction *gb = view->addAction(tr("Sizes in &GB (10^9 bytes, as the articles write)"));
    for (QAction *action : {gib, gb}) {
        action->setCheckable(true);
        units->addAction(action);
    }
    connect(gb, &QAction::triggered, this, [this] { m_model->setUnit(Unit::GB); });
    connect(gib, &QAction::triggered, this, [this] { m_model->setUnit(Unit::GiB); });
    connect(m_model, &ScenarioModel::changed, this, [this, gb, gib, bars, phases, ranks] {
        gb->setChecked(m_model->unit() == Unit::GB);
        gib->setChecked(m_model->unit() == Unit::GiB);
        bars->setChecked(m_model->view() == ChartView::Bars);
        phases->setChecked(m_model->view() == ChartView::Phases);
        ranks->setChecked(m_model->view() == ChartView::Ranks);
    });
    gb->setChecked(m_model->unit() == Unit::GB);
    gib->setChecked(m_model->unit() == Unit::GiB);
    view->addSeparator();
    QAction *dark = view->addAction(tr("&Dark theme"));
    dark->setCheckable(true);
    dark->setChecked(m_model->dark());
    dark->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_D);
    connect(dark, &QAction::toggled, m_model, &ScenarioModel::setDark);
    view->addSeparator();
    QAction *controls = view->addAction(tr("Show &controls"));
    controls->setCheckable(true);
    controls->setChecked(true);
    controls->setShortcut(Qt::CTRL | Qt::Key_Backslash);
    connect(controls, &QAction::toggled, m_controlsScroll, &QWidget::setVisible);
    view->addSeparator();
    view->addAction(tr("What fits my &machine..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), this, [this] {
        fits()->show();
        fits()->raise();
        fits()->activateWindow();
    });
    view->addSeparator();
    QAction *present = view->addAction(tr("&Presenter mode"), this, [this] { presenter()->toggle(); });
    present->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::Key_F11)});

    QMenu *scenario = menuBar()->addMenu(tr("&Scenario"));
    QAction *pin = scenario->addAction(tr("&Pin for comparison"));
    pin->setShortcut(Qt::CTRL | Qt::Key_P);
    connect(pin, &QAction::triggered, this, &MainWindow::pinCurrent);
    QAction *unpin = scenario->addAction(tr("&Remove the last pin"));
    unpin->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_P);
    connect(unpin, &QAction::triggered, this, [this] { m_model->removePin(int(m_model->pins().size()) - 1); });
    // One entry per pin, listed afresh whenever the menu opens.
    QMenu *removePin = scenario->addMenu(tr("Remove &pin"));
    connect(removePin, &QMenu::aboutToShow, this, [this, removePin] {
        removePin->clear();
        for (int i = 0; i < int(m_model->pins().size()); ++i)
            removePin->addAction(m_model->pinLabel(i), this, [this, i] { m_model->removePin(i); });
        if (m_model->pins().empty())
            removePin->addAction(tr("No pinned scenarios"))->setEnabled(false);
    });
    QMenu *rename = scenario->addMenu(tr("Re&name pin"));
    connect(rename, &QMenu::aboutToShow, this, [this, rename] {
        rename->clear();
        for (int i = 0; i < int(m_model->pins().size()); ++i)
            rename->addAction(m_model->pinLabel(i) + QStringLiteral("..."), this, [this, i] { renamePin(i); });
        if (m_model->pins().empty())
            rename->addAction(tr("No pinned scenarios"))->setEnabled(false);
    });
    scenario->addAction(tr("&Clear pins"), this, [this] { m_model->clearPins(); });
    scenario->addSeparator();
    scenario->addAction(tr("&What should I change?..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A), this, [this] {
        advisor()->show();
        advisor()->raise();
    });
    scenario->addAction(tr("Memory &sweeps..."), this, [this] {
        sweeps()->show();
        sweeps()->raise();
    });
    scenario->addAction(tr("&Concurrency x context..."), this, [this] {
        frontier()->show();
        frontier()->raise();
    });
    m_solveAction = scenario->addAction(tr("Solve: exact limits"));
    m_solveAction->setCheckable(true);
    connect(m_solveAction, &QAction::toggled, this, [this](bool on) { solveDock()->setVisible(on); });

    QMenu *lessons = menuBar()->addMenu(tr("&Lessons"));
    m_lessons->addActions(lessons);
    lessons->addSeparator();
    m_savePinsAsLesson = lessons->addAction(tr("&Save pins as lesson..."), this, [this] { savePinsAsLesson(); });
    connect(m_model, &ScenarioModel::changed, this, [this] { m_savePinsAsLesson->setEnabled(!m_model->pins().empty()); });
    m_savePinsAsLesson->setEnabled(!m_model->pins().empty());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), this, [this] { ShortcutsDialog(menuBar(), this).exec(); });
    help->addAction(tr("&About Headroom"), this, [this] { AboutDialog(this).exec(); });
}

PresenterView *MainWindow::presenter()
{
    if (!m_presenter)
        m_presenter = new PresenterView(m_model, m_lessons->player(), this);
    return m_presenter;
}

AdvisorView *MainWindow::advisor()
{
    if (!m_advisor)
        m_advisor = new AdvisorView(m_model, this);
    return m_advisor;
}

FitsView *MainWindow::fits()
{
    if (!m_fits)
        m_fits = new FitsView(m_model, this);
    return m_fits;
}

FrontierView *MainWindow::frontier()
{
    if (!m_frontier)
        m_frontier = new FrontierView(m_model, this);
    return m_frontier;
}

QDockWidget *MainWindow::solveDock()
{
    if (auto *dock = findChild<QDockWidget *>(QStringLiteral("solveDock")))
        return dock;
    auto *dock = new QDockWidget(tr("Solve: exact limits"), this);
    dock->setObjectName(QStringLiteral("solveDock"));
    m_solvePanel = new SolvePanel(m_model, dock);
    dock->setWidget(m_solvePanel);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->hide();
    // Closed with its own button: the menu item follows.
    connect(dock->toggleViewAction(), &QAction::toggled, m_solveAction, &QAction::setChecked);
    return dock;
}

SolvePanel *MainWindow::solvePanel()
{
    solveDock();
    return m_solvePanel;
}

SweepView *MainWindow::sweeps()
{
    if (!m_sweeps)
        m_sweeps = new SweepView(m_model, this);
    return m_sweeps;
}

void MainWindow::restoreState()
{
    const QString saved = prefs::scenario.get();
    if (!saved.isEmpty()) {
        // Saved by another version, or damaged: a refused section goes back to its default, the
        // rest is kept, and the window says which (one message, with the settings reset).
        const RestoredScenario restored = restoreScenario(saved.toStdString());
        if (restored.scenario)
            m_model->assign(*restored.scenario);
        else
            prefs::scenario.reset();
        m_restoreProblems = restored.resetSections;
        m_restoreLost = !restored.scenario;
    }
    m_model->setUnit(prefs::unit.get() == QLatin1String("GB") ? Unit::GB : Unit::GiB);
    m_model->setView(chartViewFromName(prefs::view.get()).value_or(ChartView::Bars));
    m_model->setDark(prefs::dark.get());
    std::uint64_t capacity = 0;
    toUint64(prefs::customCapacity.get(), capacity);
    m_model->setCustomCapacityBytes(capacity);
    m_model->setUserGpus(loadUserGpus());
    m_model->undoStack()->clear();
}

void MainWindow::saveState() const
{
    prefs::geometry.set(saveGeometry());
    prefs::splitters.set(m_mainSplitter->saveState());
    prefs::scenario.set(QString::fromStdString(scenarioToJson(m_model->scenario()).dump()));
    prefs::unit.set(QString::fromLatin1(unitName(m_model->unit())));
    prefs::view.set(chartViewName(m_model->view()));
    prefs::dark.set(m_model->dark());
    prefs::customCapacity.set(double(m_model->customCapacityBytes()));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_document->maybeSave()) {
        event->ignore();
        return;
    }
    saveState();
    event->accept();
}

void MainWindow::applyTheme()
{
    if (m_darkApplied != m_model->dark()) {
        applyApplicationTheme(m_model->dark());
        m_darkApplied = m_model->dark();
    }
}

void MainWindow::refresh()
{
    applyTheme();
    m_controls->refresh();
    ChartData data = chartDataFor(*m_model);
    m_measurements->addOverlay(data);
    m_chart->setData(data);
    m_breakdown->setMeasured(m_measurements->categories());
    m_breakdown->refresh();

    m_status->setText(statusText(*m_model));
    m_status->setToolTip(Qt::convertFromPlainText(m_status->text()));
}

QString MainWindow::statusText(const ScenarioModel &model)
{
    const Estimate &e = model.estimate();
    const Unit unit = model.unit();
    if (!model.estimateError().isEmpty())
        return tr("Cannot estimate: %1").arg(model.estimateError());
    // The verdict first: when the bar is narrow, it is what stays visible.
    QStringList parts;
    if (const auto fit = targetFit(model.scenario(), e)) {
        // An engine that reserves a share up front: how many users it serves, not "N spare".
        const QString headline = e.serving && e.serving->gpuId == fit->id ? servingHeadline(model.scenario(), e) : QString();
        parts << (headline.isEmpty() ? targetVerdictText(model.scenario(), e, unit) : headline);
    }
    QString peak = tr("peak %1 on the device (%2 allocated, %3 phase)")
                       .arg(bytesText(e.peak.deviceBytes, unit), bytesText(e.peak.allocatedBytes, unit),
                            phaseDisplayName(e.peak.phase).toLower());
    if (!e.errorBands.empty())
        peak += tr(", %1 (%2 peak, %3)")
                    .arg(QString::fromStdString(errorBandText(e.errorBands.front())))
                    .arg(QString::fromLatin1(e.errorBands.front().reading))
                    .arg(e.errorBands.front().basis == BandBasis::NeverValidated
                             ? tr("no measured run like it")
                             : tr("%1 runs first seen blind, %2").arg(e.errorBands.front().cases).arg(QString::fromLatin1(e.errorBands.front().group)));
    parts << peak;
    if (const auto limit = positionLimit(model.scenario()))
        parts << QStringLiteral("\u26a0 ") + positionLimitText(model.scenario(), *limit);
    for (const std::string &warning : e.warnings)
        parts << QStringLiteral("\u26a0 ") + QString::fromStdString(warning);
    QString text = parts.join(QStringLiteral(" \u2014 "));
    text[0] = text.at(0).toUpper();
    return text;
}

} // namespace headroom
