// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <functional>

class QAction;
class QLabel;
class QMainWindow;
class QMenu;
class QWidget;

namespace headroom {

class LessonPlayer;
class ScenarioModel;

/// The window's Lessons menu (shipped lessons, the user's own files, next and previous step)
/// and the bar above the chart with the step's title and caption.
class LessonController : public QObject
{
    Q_OBJECT
public:
    LessonController(QMainWindow *window, ScenarioModel *model);

    LessonPlayer *player() const { return m_player; }
    /// The title and caption bar (hidden without a lesson), for the window's layout.
    QWidget *captionBar() const { return m_bar; }
    QLabel *titleLabel() const { return m_title; }
    QLabel *captionLabel() const { return m_caption; }
    QAction *nextAction() const { return m_next; }
    QAction *previousAction() const { return m_previous; }

    /// Fills `menu` with the shipped lessons, Open lesson file, Next and Previous step.
    void addActions(QMenu *menu);
    /// Opens a shipped lesson by id ("ladder"); false when there is none.
    bool openBuiltin(const QString &id);
    /// Opens a lesson file; on failure reports one message naming the key and keeps the screen.
    bool openFile(const QString &path);

    /// Writes the open lesson as a deck (`path`.pdf: one handout; .png or .svg: one file per page)
    /// with the last export settings and the window's unit; reports and returns false on failure.
    bool exportDeck(const QString &path);
    QAction *exportDeckAction() const { return m_exportDeck; }

    /// Replaces the message box that reports failures (tests capture the text).
    void setMessageHandler(std::function<void(const QString &)> handler) { m_report = std::move(handler); }
    /// Asked before the menu opens a lesson over the scenario (unsaved changes); false cancels.
    void setReplaceQuestion(std::function<bool()> ask) { m_mayReplace = std::move(ask); }
    QAction *backAction() const { return m_back; }
    QAction *closeAction() const { return m_close; }

private:
    void refresh();

    QMainWindow *m_window;
    ScenarioModel *m_model;
    LessonPlayer *m_player;
    QWidget *m_bar;
    QLabel *m_title;
    QLabel *m_caption;
    QLabel *m_counter;
    QAction *m_next = nullptr;
    QAction *m_previous = nullptr;
    QAction *m_back = nullptr;
    QAction *m_close = nullptr;
    QAction *m_exportDeck = nullptr;
    std::function<void(const QString &)> m_report;
    std::function<bool()> m_mayReplace;
};

} // namespace headroom
