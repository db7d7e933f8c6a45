// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/lessonplayer.h"

#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "displaytext.h"
#include "scenario/scenariojson.h"

#include <algorithm>

namespace headroom {

LessonPlayer::LessonPlayer(ScenarioModel *model, QObject *parent) : QObject(parent), m_model(model) {}

void LessonPlayer::start(const Lesson &lesson)
{
    m_lesson = lesson;
    m_index = 0;
    m_userTarget = m_appliedTarget = m_model->scenario().targetGpu;
    m_estimates.assign(m_lesson.steps.size(), Estimate{}); // each filled when its step is shown
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
    return isActive() ? captionText(m_index) : QString();
}

QString LessonPlayer::captionText(int index) const
{
    if (!isActive() || index < 0 || index >= stepCount())
        return {};
    const LessonStep &step = m_lesson.steps[std::size_t(index)];
    if (index == m_index)
        return QString::fromStdString(expandCaption(step.caption, m_estimates.at(std::size_t(index)), m_model->unit()));
    Estimate other; // a step not shown now: its caption as it will read (the estimator is pure)
    try {
        other = estimate(shownScenario(index));
    } catch (const std::exception &) {
    }
    return QString::fromStdString(expandCaption(step.caption, other, m_model->unit()));
}

QString LessonPlayer::verdictText() const
{
    if (!isActive())
        return {};
    return targetVerdictText(shownScenario(m_index), m_estimates.at(std::size_t(m_index)), m_model->unit());
}

QString LessonPlayer::captionWithVerdict() const
{
    const QString caption = captionText();
    const QString verdict = verdictText();
    if (verdict.isEmpty())
        return caption;
    return tr("%1\nVerdict: %2").arg(caption, verdict);
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
    return isActive() && !(shownScenario(m_index) == m_model->scenario());
}

Scenario LessonPlayer::shownScenario(int index) const
{
    const LessonStep &step = m_lesson.steps.at(std::size_t(index));
    Scenario shown = step.scenario;
    if (step.choosesGpu || m_userTarget.empty() || !m_model->catalog().findGpu(m_userTarget))
        return shown;
    if (std::find(shown.gpus.begin(), shown.gpus.end(), m_userTarget) == shown.gpus.end()) {
        if (shown.gpus.size() >= 16)
            shown.gpus.pop_back();
        shown.gpus.push_back(m_userTarget);
    }
    shown.targetGpu = m_userTarget;
    return shown;
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
    // A target the user chose since the last step (My GPU, Verdict for) is theirs to keep.
    if (m_model->scenario().targetGpu != m_appliedTarget)
        m_userTarget = m_model->scenario().targetGpu;
    const LessonStep &step = m_lesson.steps[std::size_t(m_index)];
    const Scenario shown = shownScenario(m_index);
    try {
        m_estimates[std::size_t(m_index)] = estimate(shown);
    } catch (const std::exception &) {
        m_estimates[std::size_t(m_index)] = Estimate{};
    }
    m_appliedTarget = shown.targetGpu;
    m_model->setScenario(shown, tr("Lesson step: %1").arg(QString::fromStdString(step.title)));
    emit stepChanged();
}

Lesson readLessonFile(const QString &path)
{
    const QByteArray bytes = readDocumentBytes(path);
    return parseLesson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

} // namespace headroom
