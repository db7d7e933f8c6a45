// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFrame>

class QPushButton;

namespace headroom {

/// The card above the chart on a first start: the three questions people come with, each a
/// button to the view that answers it (the advisor, the concurrency view, Solve). Closing it or
/// following one of them stops it from coming back (the "ui/first_run_done" setting).
class FirstRunCard : public QFrame
{
    Q_OBJECT
public:
    explicit FirstRunCard(QWidget *parent = nullptr);

    /// Whether this start is a first one (the card was never closed or followed).
    static bool wanted();
    QPushButton *fitButton() const { return m_fit; }
    QPushButton *usersButton() const { return m_users; }
    QPushButton *gpusButton() const { return m_gpus; }

signals:
    void fitAsked();   ///< "Will it fit my GPU?": the advisor
    void usersAsked(); ///< "How many users can I serve?": the concurrency view
    void gpusAsked();  ///< "How many GPUs do I need?": Solve

private:
    void done();

    QPushButton *m_fit;
    QPushButton *m_users;
    QPushButton *m_gpus;
};

} // namespace headroom
