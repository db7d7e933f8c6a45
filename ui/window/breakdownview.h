// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate/estimate.h"

#include <QWidget>

class QTableWidget;
class QTextBrowser;

namespace headroom {

class ScenarioModel;

/// The breakdown table (consumer, size, share, formula) and the explanation of the selected row.
class BreakdownView : public QWidget
{
    Q_OBJECT
public:
    explicit BreakdownView(ScenarioModel *model, QWidget *parent = nullptr);
    void refresh();
    QTableWidget *table() const { return m_table; }
    QTextBrowser *explanation() const { return m_explanation; }

private:
    void explainSelected();

    ScenarioModel *m_model;
    QTableWidget *m_table;
    QTextBrowser *m_explanation;
    ConsumerId m_selected = ConsumerId::Activations;
    QString m_explanationHtml;
    bool m_iconsDark = false;
};

} // namespace headroom
