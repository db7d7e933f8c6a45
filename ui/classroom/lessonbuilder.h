// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "lesson/lesson.h"

#include <QDialog>

class QLineEdit;
class QTableWidget;

namespace headroom {

class ScenarioModel;

/// "Save pins as lesson": the pinned scenarios become the steps, in pin order, titled by the pin
/// names; the lesson's title and each caption are typed here (captions may quote the step's
/// numbers: {peak}, {weights}, {activations}, ...).
class LessonBuilderDialog : public QDialog
{
    Q_OBJECT
public:
    explicit LessonBuilderDialog(const ScenarioModel &model, QWidget *parent = nullptr);

    /// The lesson as typed so far.
    Lesson lesson() const;
    QLineEdit *titleEdit() const { return m_title; }
    /// One row per step: title, caption.
    QTableWidget *steps() const { return m_steps; }

    /// A lesson made of the model's pins, with default captions that quote each step's peak.
    static Lesson lessonFromPins(const ScenarioModel &model, const QString &title);

private:
    void validate();

    QLineEdit *m_title;
    QTableWidget *m_steps;
    std::vector<Scenario> m_scenarios;
};

/// Writes a lesson file atomically (the documented lesson format); returns an empty string or the
/// error.
QString writeLessonFile(const QString &path, const Lesson &lesson);

} // namespace headroom
