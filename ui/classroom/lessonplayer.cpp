// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/lessonplayer.h"

#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "scenario/scenariojson.h"

#include <algorithm>

namespace headroom {

LessonPlayer::LessonPlayer(ScenarioModel *model, QObject *parent) : QObject(parent), m_model(model) {}

void LessonPlayer::start(const Lesson &lesson)
{
    m_lesson = lesson;
    m_index = 0;
    m_estimates.clear();
    for (const LessonStep &step : m_lesson.steps) {
        try {
            m_estimates.push_back(estimate(step.scenario));
        } catch (const std::exception &) {
            m_estimates.emplace_back();
        }
    }
    // One y-axis for every step (the ladder visibly shrinks), unless the lesson asks for its own per step.
    m_model->setAxisMinimumBytes(lessonAxisBytes(m_lesson));
    applyStep();
}

void LessonPlayer::stop()
{
    m_lesson = {};
    m_index = 0;
    m_estimates.clear();
    m_model->setAxisMinimumBytes(0);
    emit stepChanged();
}

QString LessonPlayer::captionText() const
{
    const LessonStep *step = currentStep();
    if (!step)
        return {};
    return QString::fromStdString(expandCaption(step->caption, m_estimates.at(std::size_t(m_index)), m_model->unit()));
}

const LessonStep *LessonPlayer::currentStep() const
{
    return isActive() ? &m_lesson.steps[std::size_t(m_index)] : nullptr;
}

QString LessonPlayer::counterText() const
{
    return isActive() ? tr("%1 / %2").arg(m_index + 1).arg(stepCount()) : QString();
}

bool LessonPlayer::isModified() const
{
    const LessonStep *step = currentStep();
    return step && !(step->scenario == m_model->scenario());
}

bool LessonPlayer::goTo(int index)
{
    if (!isActive())
        return false;
    m_index = std::clamp(index, 0, stepCount() - 1);
    applyStep();
    return true;
}

bool LessonPlayer::next()
{
    if (!isActive() || m_index + 1 >= stepCount())
        return false;
    return goTo(m_index + 1);
}

bool LessonPlayer::previous()
{
    if (!isActive() || m_index == 0)
        return false;
    return goTo(m_index - 1);
}

void LessonPlayer::restoreStep()
{
    if (isActive())
        applyStep();
}

void LessonPlayer::applyStep()
{
    const LessonStep &step = m_lesson.steps[std::size_t(m_index)];
    m_model->setScenario(step.scenario, tr("Lesson step: %1").arg(QString::fromStdString(step.title)));
    emit stepChanged();
}

Lesson readLessonFile(const QString &path)
{
    const QByteArray bytes = readDocumentBytes(path);
    return parseLesson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

} // namespace headroom
