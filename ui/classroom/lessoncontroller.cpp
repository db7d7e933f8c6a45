// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/lessoncontroller.h"
#include "window/plaintext.h"

#include "classroom/lessonexport.h"
#include "classroom/lessonplayer.h"
#include "document/exportdialog.h"
#include "document/scenariomodel.h"
#include "document/preferences.h"
#include "inputfile.h"
#include "scenario/scenariojson.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QToolButton>
#include <nlohmann/json.hpp>

namespace headroom {

LessonController::LessonController(QMainWindow *window, ScenarioModel *model)
    : QObject(window), m_window(window), m_model(model), m_player(new LessonPlayer(model, this)), m_bar(new QWidget),
      m_title(plainText(new QLabel)), m_caption(plainText(new QLabel)), m_counter(new QLabel)
{
    m_report = [this](const QString &text) { warnPlainText(m_window, tr("Headroom"), text); };
    QFont bold = m_title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    m_title->setFont(bold);
    m_title->setAccessibleName(tr("Lesson step title"));
    // Long lesson titles wrap: they must never widen the window.
    m_title->setWordWrap(true);
    m_title->setMinimumWidth(120);
    m_caption->setMinimumWidth(120);
    m_caption->setWordWrap(true);
    m_caption->setAccessibleName(tr("Lesson step caption"));
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_counter->setAccessibleName(tr("Lesson step counter"));
    auto *back = new QToolButton;
    auto *forward = new QToolButton;
    back->setArrowType(Qt::LeftArrow);
    forward->setArrowType(Qt::RightArrow);
    back->setAccessibleName(tr("Previous step"));
    forward->setAccessibleName(tr("Next step"));
    connect(back, &QToolButton::clicked, m_player, &LessonPlayer::previous);
    connect(forward, &QToolButton::clicked, m_player, &LessonPlayer::next);
    auto *close = new QToolButton;
    close->setText(tr("Close lesson"));
    connect(close, &QToolButton::clicked, m_player, &LessonPlayer::stop);
    auto *layout = new QGridLayout(m_bar);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_title, 0, 0);
    layout->addWidget(back, 0, 1);
    layout->addWidget(m_counter, 0, 2);
    layout->addWidget(forward, 0, 3);
    layout->addWidget(close, 0, 4);
    layout->addWidget(m_caption, 1, 0, 1, 5);
    layout->setColumnStretch(0, 1);
    m_bar->hide();
    connect(m_player, &LessonPlayer::stepChanged, this, &LessonController::refresh);
    connect(model, &ScenarioModel::changed, this, &LessonController::refresh); // the caption's unit
}

void LessonController::addActions(QMenu *menu)
{
    for (const BuiltinLesson &builtin : builtinLessons()) {
        const QString id = QString::fromUtf8(builtin.id.data(), qsizetype(builtin.id.size()));
        // The title alone: reading whole lessons (every step's scenario checked) here took a few
        // milliseconds of the first frame. Shipped lessons are tested to load (tst_lesson); the
        // id stands in for a title that is missing.
        const nlohmann::json doc = nlohmann::json::parse(builtin.json, nullptr, false);
        const auto title = doc.is_object() ? doc.find("title") : doc.end();
        const QString text = doc.is_object() && title != doc.end() && title->is_string()
                                 ? QString::fromStdString(title->get<std::string>())
                                 : id;
        QAction *action = menu->addAction(text, this, [this, id] {
            if (!m_mayReplace || m_mayReplace())
                openBuiltin(id);
        });
        action->setData(id);
    }
    menu->addSeparator();
    menu->addAction(tr("&Open lesson file..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(m_window, tr("Open lesson"), prefs::lastFolder.get(),
                                                          tr("Headroom lessons (*.json);;All files (*)"));
        if (!path.isEmpty() && (!m_mayReplace || m_mayReplace()))
            openFile(path);
    });
    menu->addSeparator();
    m_next = menu->addAction(tr("&Next step"), m_player, &LessonPlayer::next);
    m_next->setShortcut(Qt::ALT | Qt::Key_Right);
    m_previous = menu->addAction(tr("&Previous step"), m_player, &LessonPlayer::previous);
    m_previous->setShortcut(Qt::ALT | Qt::Key_Left);
    m_back = menu->addAction(tr("&Back to the step's scenario"), m_player, &LessonPlayer::restoreStep);
    m_back->setShortcut(Qt::ALT | Qt::Key_Home);
    m_close = menu->addAction(tr("&Close lesson"), m_player, &LessonPlayer::stop);
    menu->addSeparator();
    m_exportDeck = menu->addAction(tr("&Export lesson deck..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            m_window, tr("Export lesson deck"), prefs::lastFolder.get(),
            tr("PDF handout, every step (*.pdf);;PNG, one image per step (*.png);;SVG, one file per step (*.svg)"));
        if (!path.isEmpty())
            exportDeck(path);
    });
    refresh();
}

bool LessonController::openBuiltin(const QString &id)
{
    for (const BuiltinLesson &builtin : builtinLessons())
        if (id == QLatin1String(builtin.id.data(), qsizetype(builtin.id.size()))) {
            m_player->start(parseLesson(builtin.json));
            return true;
        }
    return false;
}

bool LessonController::openFile(const QString &path)
{
    Lesson lesson;
    try {
        lesson = readLessonFile(path);
    } catch (const std::exception &error) {
        m_report(tr("Cannot open lesson %1:\n%2")
                     .arg(QDir::toNativeSeparators(path), errorMessage(error)));
        return false;
    }
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    m_player->start(lesson);
    m_window->statusBar()->showMessage(tr("Opened lesson %1").arg(QFileInfo(path).fileName()), 4000);
    return true;
}

bool LessonController::exportDeck(const QString &path)
{
    if (!m_player->isActive())
        return false;
    ExportFormat format;
    if (!exportFormatFor(path, format)) {
        m_report(tr("Cannot export the lesson to %1: name it .pdf, .png or .svg").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    LessonExportOptions options;
    options.chart = ExportDialog::remembered();
    options.unit = m_model->unit();
    QStringList written;
    if (const QString error = exportLessonDeck(path, format, m_player->lesson(), options, &written); !error.isEmpty()) {
        m_report(tr("Cannot export the lesson to %1:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    m_window->statusBar()->showMessage(
        written.size() == 1 ? tr("Exported the lesson to %1").arg(QFileInfo(written.front()).fileName())
                            : tr("Exported the lesson as %1 files, %2 to %3")
                                  .arg(written.size())
                                  .arg(QFileInfo(written.front()).fileName(), QFileInfo(written.back()).fileName()),
        6000);
    return true;
}

void LessonController::refresh()
{
    const LessonStep *step = m_player->currentStep();
    m_bar->setVisible(step != nullptr);
    if (m_next) {
        m_next->setEnabled(step && m_player->stepIndex() + 1 < m_player->stepCount());
        m_previous->setEnabled(step && m_player->stepIndex() > 0);
        m_back->setEnabled(step != nullptr);
        m_close->setEnabled(step != nullptr);
        m_exportDeck->setEnabled(step != nullptr);
    }
    if (!step)
        return;
    m_title->setText(tr("%1 — %2").arg(QString::fromStdString(m_player->lesson().title),
                                       QString::fromStdString(step->title)));
    m_caption->setText(m_player->captionWithVerdict());
    m_counter->setText(m_player->counterText());
}

} // namespace headroom
