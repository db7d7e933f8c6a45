// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/presenterview.h"
#include "window/plaintext.h"

#include "chart/budgetchart.h"
#include "chart/chartdata.h"
#include "chart/consumerstyle.h"
#include "controls/controlpanel.h"
#include "classroom/lessonplayer.h"
#include "document/scenariomodel.h"

#include <QChart>
#include <QChartView>
#include <QCloseEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>

namespace headroom {

namespace {

QColor background(bool dark) { return dark ? QColor(0x1E1F22) : QColor(Qt::white); }
QColor foreground(bool dark) { return dark ? QColor(0xE6E6E6) : QColor(0x202020); }
QColor muted(bool dark) { return dark ? QColor(0xA0A0A0) : QColor(0x606060); }

void setLabelStyle(QLabel *label, double points, bool bold, const QColor &color)
{
    QFont font = label->font();
    font.setPointSizeF(points);
    font.setBold(bold);
    label->setFont(font);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, color);
    label->setPalette(palette);
}

} // namespace

PresenterView::PresenterView(ScenarioModel *model, LessonPlayer *player, QWidget *parent)
    : QWidget(parent, Qt::Window), m_model(model), m_player(player), m_chart(new BudgetChart(this)),
      m_title(plainText(new QLabel)), m_caption(plainText(new QLabel)), m_verdict(plainText(new QLabel)), m_counter(new QLabel),
      m_hint(new QLabel)
{
    setWindowTitle(tr("Headroom — presenter mode"));
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(true);
    m_chartView = new QChartView(m_chart->chart());
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setFocusPolicy(Qt::NoFocus);
    m_chartView->setAccessibleName(tr("Memory chart"));
    m_title->setAccessibleName(tr("Lesson step title"));
    m_caption->setAccessibleName(tr("Lesson step caption"));
    m_counter->setAccessibleName(tr("Lesson step counter"));
    m_verdict->setAccessibleName(tr("Lesson step verdict"));
    m_caption->setWordWrap(true);
    // The verdict keeps one line whatever its length, so the chart above keeps its height (and
    // its axis) from step to step; a longer verdict is cut at the window's edge.
    m_verdict->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_title->setWordWrap(true);
    m_counter->setAlignment(Qt::AlignRight | Qt::AlignTop);
    m_hint->setText(tr("→ next   ← previous   R back to the step   C controls   Esc leave"));

    auto *header = new QHBoxLayout;
    header->addWidget(m_title, 1);
    header->addWidget(m_counter, 0, Qt::AlignTop);
    auto *centre = new QVBoxLayout;
    centre->addLayout(header);
    centre->addWidget(m_chartView, 1);
    centre->addWidget(m_caption);
    centre->addWidget(m_verdict);
    centre->addWidget(m_hint);
    auto *layout = new QHBoxLayout(this);
    layout->addLayout(centre, 1);

    connect(m_model, &ScenarioModel::changed, this, [this] {
        if (isVisible())
            refresh();
    });
    connect(m_player, &LessonPlayer::stepChanged, this, [this] {
        if (isVisible())
            refresh();
    });
}

PresenterView::~PresenterView() = default;

void PresenterView::enter()
{
    showFullScreen();
    raise();
    activateWindow();
    setFocus();
    applyScale();
    refresh();
}

void PresenterView::leave()
{
    if (!isVisible())
        return;
    hide();
    emit left();
}

void PresenterView::toggle()
{
    if (isVisible())
        leave();
    else
        enter();
}

void PresenterView::applyScale()
{
    // 2x the window's text at 1080 lines: legible from the back of a room.
    const double scale = std::clamp(height() / 540.0, 1.5, 4.0);
    if (scale == m_scale)
        return;
    m_scale = scale;
    m_chart->setScale(scale);
    const int margin = int(16 * scale);
    layout()->setContentsMargins(margin, margin / 2, margin, margin / 2);
    m_scale = scale;
}

void PresenterView::refresh()
{
    const bool dark = m_model->dark();
    QPalette palette = this->palette();
    palette.setColor(QPalette::Window, background(dark));
    setPalette(palette);
    setLabelStyle(m_title, 16 * m_scale, true, foreground(dark));
    setLabelStyle(m_counter, 14 * m_scale, true, muted(dark));
    setLabelStyle(m_caption, 12 * m_scale, false, foreground(dark));
    setLabelStyle(m_verdict, 10 * m_scale, true, foreground(dark));
    setLabelStyle(m_hint, 6 * m_scale, false, muted(dark));

    ChartData data = chartDataFor(*m_model);
    const QString keys = tr("→ next   ← previous   R back to the step   C controls   Esc leave");
    if (const LessonStep *step = m_player->currentStep()) {
        m_hint->setText(QString::fromStdString(m_player->lesson().title) + QStringLiteral("   \u00b7   ") + keys);
        m_title->setText(QString::fromStdString(step->title));
        m_caption->setText(m_player->captionText());
        reserveCaptionHeight();
        const QString verdict = m_player->verdictText();
        m_verdict->setText(verdict.isEmpty() ? QString() : tr("Verdict: %1").arg(verdict));
        QString counter = m_player->counterText();
        if (m_player->isModified())
            counter = tr("changed — R returns to the step\n%1").arg(counter);
        m_counter->setText(counter);
    } else {
        m_hint->setText(keys);
        m_title->setText(data.title);
        m_caption->setText(tr("No lesson open: the Lessons menu has some, or open your own."));
        m_verdict->clear();
        m_caption->setMinimumHeight(0);
        m_counter->clear();
    }
    m_chart->setData(data);
}

void PresenterView::reserveCaptionHeight()
{
    // Every step's caption gets the room of the lesson's longest, so the chart above keeps one
    // height, and with it one axis, from step to step (a caption a line longer shrinks the chart
    // and can move the axis to the next round number).
    const int width = m_caption->width();
    if (width <= 0)
        return;
    QLabel sizer;
    sizer.setFont(m_caption->font());
    sizer.setWordWrap(true);
    int reserve = 0;
    for (int step = 0; step < m_player->stepCount(); ++step) {
        sizer.setText(m_player->captionText(step));
        reserve = std::max(reserve, sizer.heightForWidth(width));
    }
    m_caption->setMinimumHeight(reserve);
}

void PresenterView::toggleControls()
{
    if (!m_controls) {
        m_controls = new ControlPanel(m_model);
        m_controlsScroll = new QScrollArea;
        m_controlsScroll->setWidget(m_controls);
        m_controlsScroll->setWidgetResizable(true);
        m_controlsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        m_controlsScroll->setMinimumWidth(m_controls->minimumSizeHint().width() + 24);
        static_cast<QHBoxLayout *>(layout())->addWidget(m_controlsScroll);
        connect(m_model, &ScenarioModel::changed, m_controls, [this] {
            if (m_controlsScroll->isVisible())
                m_controls->refresh();
        });
        m_controlsScroll->hide();
    }
    m_controlsScroll->setVisible(!m_controlsScroll->isVisible());
    if (m_controlsScroll->isVisible())
        m_controls->refresh();
    setFocus();
}

void PresenterView::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_Space:
    case Qt::Key_PageDown:
    case Qt::Key_Down:
        m_player->next();
        break;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
    case Qt::Key_Up:
    case Qt::Key_Backspace:
        m_player->previous();
        break;
    case Qt::Key_R:
    case Qt::Key_Home:
        m_player->restoreStep();
        break;
    case Qt::Key_C:
        toggleControls();
        break;
    case Qt::Key_P:
        // Ctrl+P pins, as in the window (whose shortcut does not reach this top-level view).
        if (!(event->modifiers() & Qt::ControlModifier)) {
            QWidget::keyPressEvent(event);
            return;
        }
        if (event->modifiers() & Qt::ShiftModifier)
            m_model->removePin(int(m_model->pins().size()) - 1);
        else
            m_model->pinCurrent();
        break;
    case Qt::Key_Escape:
    case Qt::Key_F5:
    case Qt::Key_F11:
        leave();
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void PresenterView::closeEvent(QCloseEvent *event)
{
    event->accept();
    emit left();
}

void PresenterView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (isVisible()) {
        applyScale();
        refresh();
    }
}

} // namespace headroom
