// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "lesson/lesson.h"

#include <QObject>
#include <QString>
#include <string>

namespace headroom {

class ScenarioModel;

/// The lesson being shown: its steps, the current one, and stepping through them on the model
/// (each step is one undoable change of the scenario).
class LessonPlayer : public QObject
{
    Q_OBJECT
public:
    explicit LessonPlayer(ScenarioModel *model, QObject *parent = nullptr);

    /// Starts a lesson at its first step.
    void start(const Lesson &lesson);
    /// Stops showing a lesson (the scenario stays).
    void stop();
    bool isActive() const { return !m_lesson.steps.empty(); }
    const Lesson &lesson() const { return m_lesson; }
    int stepIndex() const { return m_index; }
    int stepCount() const { return int(m_lesson.steps.size()); }
    /// The step shown; null without a lesson.
    const LessonStep *currentStep() const;
    /// "3 / 6" (empty without a lesson).
    QString counterText() const;
    /// The step's caption with its numbers filled in from the step's own estimate, in the
    /// model's unit (empty without a lesson).
    QString captionText() const;
    /// Step `index`'s caption as it reads when that step is shown (the presenter sizes its
    /// caption for the lesson's longest); empty out of range.
    QString captionText(int index) const;
    /// The shown step's verdict on its target GPU, with its band ("fits H100 80GB SXM with 12.30 GiB
    /// to spare", "... may not fit: within the ±16% this estimate carries"); empty without a GPU.
    QString verdictText() const;
    /// The caption and, on its own line, "Verdict: " and verdictText(): what the lesson bar and
    /// the presenter show.
    QString captionWithVerdict() const;
    /// The scenario differs from what the current step shows (the user changed a parameter).
    bool isModified() const;

    /// Shows step `index` (clamped); false when there is no lesson.
    bool goTo(int index);
    /// The next step; false at the last one.
    bool next();
    /// The previous step; false at the first one.
    bool previous();
    /// Puts the current step's own scenario back after parameter changes.
    void restoreStep();

    /// What step `index` shows: its scenario, with the user's target GPU (ticked if it was not)
    /// unless the step is about a GPU (LessonStep::choosesGpu) or the user has none.
    Scenario shownScenario(int index) const;

signals:
    /// The lesson or the step changed.
    void stepChanged();

private:
    void applyStep();

    ScenarioModel *m_model;
    Lesson m_lesson;
    std::string m_userTarget;    ///< the user's target GPU, kept over steps not about a GPU
    std::string m_appliedTarget; ///< the target the last step put on the model
    std::vector<Estimate> m_estimates; ///< one per step, for the captions (empty on an error)
    int m_index = 0;
};

/// Reads and parses a lesson file. Throws ScenarioError naming the key on a bad file.
Lesson readLessonFile(const QString &path);

} // namespace headroom
