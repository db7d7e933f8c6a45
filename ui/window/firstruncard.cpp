// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/firstruncard.h"

#include "document/preferences.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

namespace headroom {

namespace {
const Preference<bool> firstRunDone{"ui/first_run_done", false};
}

FirstRunCard::FirstRunCard(QWidget *parent)
    : QFrame(parent), m_fit(new QPushButton(tr("Will it fit my GPU?"), this)),
      m_users(new QPushButton(tr("How many users can I serve?"), this)),
      m_gpus(new QPushButton(tr("How many GPUs do I need?"), this))
{
    setFrameShape(QFrame::StyledPanel);
    setAccessibleName(tr("Where to start"));
    auto *label = new QLabel(tr("<b>Where to start:</b>"), this);
    m_fit->setToolTip(tr("What should I change? Every lever, cheapest first, until it fits your GPU"));
    m_users->setToolTip(tr("Concurrency x context: how many sequences of each length the engine serves"));
    m_gpus->setToolTip(tr("Solve: the exact limits, and how many GPUs the run needs"));
    auto *close = new QToolButton(this);
    close->setText(QStringLiteral("\u2715"));
    close->setAccessibleName(tr("Close the start card"));
    close->setToolTip(tr("Close; the Scenario menu has all three"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(label);
    // The card never widens the window: on a narrow one its texts shorten (whole in the tooltips).
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Maximum);
    for (QPushButton *button : {m_fit, m_users, m_gpus}) {
        button->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        button->setMinimumWidth(0);
        layout->addWidget(button, 1);
    }
    layout->addWidget(close);
    connect(m_fit, &QPushButton::clicked, this, [this] { done(); emit fitAsked(); });
    connect(m_users, &QPushButton::clicked, this, [this] { done(); emit usersAsked(); });
    connect(m_gpus, &QPushButton::clicked, this, [this] { done(); emit gpusAsked(); });
    connect(close, &QToolButton::clicked, this, &FirstRunCard::done);
}

bool FirstRunCard::wanted()
{
    return !firstRunDone.get();
}

void FirstRunCard::done()
{
    firstRunDone.set(true);
    hide();
}

} // namespace headroom
