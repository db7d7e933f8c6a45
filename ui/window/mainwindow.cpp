// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/mainwindow.h"

#include "classroom/advisorview.h"
#include "window/breakdownview.h"
#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/consumerstyle.h"
#include "controls/controlpanel.h"
#include "document/documentcontroller.h"
#include "classroom/lessoncontroller.h"
#include "document/preferences.h"
#include "classroom/presenterview.h"
#include "scenariojson.h"
#include "document/scenariomodel.h"
#include "classroom/frontierview.h"
#include "classroom/sweepview.h"
#include "controls/solvepanel.h"
#include "window/theme.h"
#include "controls/usergpudialog.h"
#include "controls/usergpus.h"

#include <QActionGroup>
#include <QApplication>
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

    m_controls = new ControlPanel(m_model);
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_controls->sizeHint().width() + 24);

    // The chart view lives in a plain widget (no propagateSizeHints noise offscreen).
    auto *chartHolder = new QWidget;
    auto *chartLayout = new QVBoxLayout(chartHolder);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    m_chartView = new QChartView(m_chart->chart(), chartHolder);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setAccessibleName(tr("Memory chart"));
    m_chartView->setMinimumSize(480, 320);
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
    setCentralWidget(m_mainSplitter);

    m_status = new QLabel;
    m_status->setAccessibleName(tr("Peak and fit"));
    statusBar()->addWidget(m_status, 1);

    m_document = new DocumentController(this, m_model, m_chartView);
    m_lessons = new LessonController(this, m_model);
    chartLayout->insertWidget(0, m_lessons->captionBar());
    buildMenus();
    connect(m_model, &ScenarioModel::changed, this, &MainWindow::refresh);
    connect(m_chart, &BudgetChart::segmentHovered, this, [this](const QString &text) {
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(QCursor::pos(), text, m_chartView);
    });
    if (!restoreGeometry(prefs::geometry.get()))
        resize(1440, 900);
    m_mainSplitter->restoreState(prefs::splitters.get());
    refresh();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_document->addActions(file);
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
    for (QAction *action : {bars, phases}) {
        action->setCheckable(true);
        views->addAction(action);
    }
    bars->setChecked(m_model->view() == ChartView::Bars);
    phases->setChecked(m_model->view() == ChartView::Phases);
    connect(bars, &QAction::triggered, this, [this] { m_model->setView(ChartView::Bars); });
    connect(phases, &QAction::triggered, this, [this] { m_model->setView(ChartView::Phases); });
    view->addSeparator();
    auto *units = new QActionGroup(this);
    QAction *gb = view->addAction(tr("Sizes in &GB (10^9 bytes)"));
    QAction *gib = view->addAction(tr("Sizes in G&iB (2^30 bytes)"));
    for (QAction *action : {gb, gib}) {
        action->setCheckable(true);
        units->addAction(action);
    }
    connect(gb, &QAction::triggered, this, [this] { m_model->setUnit(Unit::GB); });
    connect(gib, &QAction::triggered, this, [this] { m_model->setUnit(Unit::GiB); });
    connect(m_model, &ScenarioModel::changed, this, [this, gb, gib, bars, phases] {
        gb->setChecked(m_model->unit() == Unit::GB);
        gib->setChecked(m_model->unit() == Unit::GiB);
        bars->setChecked(m_model->view() == ChartView::Bars);
        phases->setChecked(m_model->view() == ChartView::Phases);
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
    QAction *present = view->addAction(tr("&Presenter mode"), this, [this] { presenter()->toggle(); });
    present->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::Key_F11)});

    QMenu *scenario = menuBar()->addMenu(tr("&Scenario"));
    QAction *pin = scenario->addAction(tr("&Pin for comparison"));
    pin->setShortcut(Qt::CTRL | Qt::Key_P);
    connect(pin, &QAction::triggered, this, [this] {
        if (!m_model->pinCurrent())
            statusBar()->showMessage(tr("At most %1 pinned scenarios: remove one first.")
                                         .arg(ScenarioModel::kMaxPins), 5000);
    });
    QAction *unpin = scenario->addAction(tr("&Remove the last pin"));
    unpin->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_P);
    connect(unpin, &QAction::triggered, this, [this] { m_model->removePin(int(m_model->pins().size()) - 1); });
    // One entry per pin, listed afresh whenever the menu opens.
    QMenu *removePin = scenario->addMenu(tr("Remove &pin"));
    connect(removePin, &QMenu::aboutToShow, this, [this, removePin] {
        removePin->clear();
        for (int i = 0; i < int(m_model->pins().size()); ++i)
            removePin->addAction(QString(m_model->pinLabel(i)).replace(QStringLiteral("<br>"), QStringLiteral(", ")),
                                 this, [this, i] { m_model->removePin(i); });
        if (m_model->pins().empty())
            removePin->addAction(tr("No pinned scenarios"))->setEnabled(false);
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
    scenario->addAction(solveDock()->toggleViewAction());

    m_lessons->addActions(menuBar()->addMenu(tr("&Lessons")));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Headroom"), this, [this] {
        QMessageBox::about(this, tr("About Headroom"),
                           tr("<b>Headroom %1</b><p>Where GPU memory goes when you train or serve a "
                              "large language model.</p><p>GPL-3.0-or-later.</p>")
                               .arg(QCoreApplication::applicationVersion()));
    });
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
    return dock;
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
        try {
            m_model->assign(parseScenario(saved.toStdString()));
        } catch (const std::exception &) {
            // A scenario saved by an incompatible version: keep the default.
        }
    }
    m_model->setUnit(prefs::unit.get() == QLatin1String("GiB") ? Unit::GiB : Unit::GB);
    m_model->setView(prefs::view.get() == QLatin1String("phases") ? ChartView::Phases : ChartView::Bars);
    m_model->setDark(prefs::dark.get());
    m_model->setCustomCapacityBytes(std::uint64_t(std::max(0.0, prefs::customCapacity.get())));
    m_model->setUserGpus(loadUserGpus());
    m_model->undoStack()->clear();
}

void MainWindow::saveState() const
{
    prefs::geometry.set(saveGeometry());
    prefs::splitters.set(m_mainSplitter->saveState());
    prefs::scenario.set(QString::fromStdString(scenarioToJson(m_model->scenario()).dump()));
    prefs::unit.set(QString::fromLatin1(unitName(m_model->unit())));
    prefs::view.set(m_model->view() == ChartView::Phases ? QStringLiteral("phases") : QStringLiteral("bars"));
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

void MainWindow::refresh()
{
    if (m_darkApplied != m_model->dark() || !m_darkApplied) {
        applyApplicationTheme(m_model->dark());
        m_darkApplied = m_model->dark();
    }
    m_controls->refresh();
    m_chart->setData(chartDataFor(*m_model));
    m_breakdown->refresh();

    const Estimate &e = m_model->estimate();
    const Unit unit = m_model->unit();
    if (!m_model->estimateError().isEmpty()) {
        m_status->setText(tr("Cannot estimate: %1").arg(m_model->estimateError()));
        return;
    }
    QString text = tr("Peak %1 on the device (%2 allocated, %3 phase)")
                       .arg(bytesText(e.peak.deviceBytes, unit), bytesText(e.peak.allocatedBytes, unit),
                            phaseDisplayName(e.peak.phase).toLower());
    if (e.errorBandPercent > 0)
        text += tr(", typically within ±%1% for runs like this").arg(e.errorBandPercent);
    if (!e.gpus.empty()) {
        const GpuFit &first = e.gpus.front();
        const std::uint64_t margin = std::uint64_t(first.headroomBytes < 0 ? -first.headroomBytes : first.headroomBytes);
        text += QStringLiteral(" — ") +
                (first.fits ? tr("fits %1 with %2 to spare") : tr("does not fit %1 by %2"))
                    .arg(QString::fromStdString(first.name), bytesText(margin, unit));
    }
    m_status->setText(text);
}

} // namespace headroom
