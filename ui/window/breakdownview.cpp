// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/breakdownview.h"

#include "chart/consumerstyle.h"
#include "estimate/estimatejson.h"
#include "window/explanations.h"
#include "document/scenariomodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPainter>
#include <QPixmap>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QTextBrowser>
#include <algorithm>
#include <array>
#include <cmath>

namespace headroom {

namespace {

/// The consumer's colour as a small icon, made once per colour.
const QIcon &swatch(ConsumerId id, bool dark)
{
    static std::array<std::array<QIcon, kConsumerCount>, 2> icons;
    QIcon &icon = icons[dark ? 1 : 0][std::size_t(id)];
    if (icon.isNull()) {
        QPixmap pixmap(12, 12);
        pixmap.fill(consumerColor(id, dark));
        icon = QIcon(pixmap);
    }
    return icon;
}

} // namespace

BreakdownView::BreakdownView(ScenarioModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_table(new QTableWidget(this)), m_explanation(new QTextBrowser(this))
{
    m_table->setAccessibleName(tr("Memory breakdown"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_explanation->setAccessibleName(tr("Explanation"));
    m_explanation->setOpenExternalLinks(false);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table, 3);
    layout->addWidget(m_explanation, 2);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_table->selectionModel()->selectedRows();
        if (rows.isEmpty())
            return;
        m_selected = static_cast<ConsumerId>(m_table->item(rows.first().row(), 0)->data(Qt::UserRole).toInt());
        explainSelected();
    });
    refresh();
}

void BreakdownView::refresh()
{
    const Estimate &e = m_model->estimate();
    const Unit unit = m_model->unit();
    const QSignalBlocker block(m_table);
    if (!m_model->estimateError().isEmpty()) {
        m_table->setRowCount(0);
        m_explanationHtml.clear();
        m_explanation->setHtml(QStringLiteral("<p><b>%1</b></p><p>%2</p>")
                                   .arg(tr("This scenario cannot be estimated."),
                                        m_model->estimateError().toHtmlEscaped()));
        return;
    }
    const bool measured = !m_measured.empty();
    const int columns = measured ? 6 : 4;
    if (m_table->columnCount() != columns) {
        m_table->clear();
        m_table->setColumnCount(columns);
        if (measured)
            m_table->setHorizontalHeaderLabels(
                {tr("Consumer"), tr("Size"), tr("Share"), tr("Measured"), tr("Difference"), tr("Formula")});
        else
            m_table->setHorizontalHeaderLabels({tr("Consumer"), tr("Size"), tr("Share"), tr("Formula")});
        for (int column = 0; column + 1 < columns; ++column)
            m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    m_table->setRowCount(int(e.consumers.size()));
    // One scale for the size column: no TiB beside GiB.
    const ByteScale column = scaleFor(e.peak.deviceBytes, unit);
    int selectedRow = -1;
    for (int row = 0; row < int(e.consumers.size()); ++row) {
        const Consumer &c = e.consumers[std::size_t(row)];
        auto set = [&](int column, const QString &text, Qt::Alignment align) {
            QTableWidgetItem *item = m_table->item(row, column);
            if (!item) {
                item = new QTableWidgetItem;
                item->setTextAlignment(align | Qt::AlignVCenter);
                m_table->setItem(row, column, item);
            }
            if (item->text() != text)
                item->setText(text);
            return item;
        };
        QTableWidgetItem *name = set(0, consumerDisplayName(c.id), Qt::AlignLeft);
        if (name->data(Qt::UserRole) != int(c.id) || m_iconsDark != m_model->dark()) {
            name->setData(Qt::UserRole, int(c.id));
            name->setIcon(swatch(c.id, m_model->dark()));
        }
        set(1, bytesText(c.bytes, column), Qt::AlignRight);
        set(2, QString::number(consumerShare(e, c) * 100, 'f', 1) + QLatin1Char('%'), Qt::AlignRight);
        if (measured) {
            const auto [text, difference, tip] = measuredCells(e, c.id, column);
            set(3, text, Qt::AlignRight)->setToolTip(tip);
            set(4, difference, Qt::AlignRight)->setToolTip(tip);
        }
        const QString formulaText = QString::fromStdString(c.formula(unit));
        QTableWidgetItem *formula = set(columns - 1, formulaText, Qt::AlignLeft);
        if (formula->toolTip() != formulaText)
            formula->setToolTip(formulaText);
        if (c.id == m_selected)
            selectedRow = row;
    }
    if (selectedRow < 0 && !e.consumers.empty()) {
        selectedRow = 0;
        m_selected = e.consumers.front().id;
    }
    m_iconsDark = m_model->dark();
    const auto selected = m_table->selectionModel()->selectedRows();
    if (selectedRow >= 0 && (selected.isEmpty() || selected.first().row() != selectedRow))
        m_table->selectRow(selectedRow);
    explainSelected();
}

int BreakdownView::formulaColumn() const { return m_table->columnCount() - 1; }

BreakdownView::MeasuredCells BreakdownView::measuredCells(const Estimate &e, ConsumerId id, const ByteScale &scale) const
{
    for (const MeasuredCategory &m : m_measured) {
        const auto at = std::find(m.consumers.begin(), m.consumers.end(), id);
        if (at == m.consumers.end())
            continue;
        // The category stands beside several consumers: its figure and the difference on the first
        // of them the estimate has, the others point to it.
        std::uint64_t estimated = 0;
        QStringList names;
        ConsumerId first = id;
        bool seen = false;
        for (ConsumerId other : m.consumers) {
            if (std::none_of(e.consumers.begin(), e.consumers.end(), [&](const Consumer &c) { return c.id == other; }))
                continue;
            if (!seen) {
                first = other;
                seen = true;
            }
            estimated += e.bytes(other);
            names << consumerDisplayName(other);
        }
        const QString tip = tr("Measured %1: %2, beside the estimate's %3 (%4)")
                                .arg(m.label, bytesText(std::uint64_t(std::llround(m.measured)), scale),
                                     names.join(QStringLiteral(" + ")),
                                     bytesText(estimated, scale));
        if (first != id)
            return {tr("in %1 above").arg(consumerDisplayName(first)), QString(), tip};
        const double d = double(estimated) - m.measured;
        const QString sign = d >= 0 ? QStringLiteral("+") : QStringLiteral("-");
        // The percentage in the tooltip: beside a small category it runs to four digits and
        // would widen the column past the formula.
        const QString difference = sign + bytesText(std::uint64_t(std::llround(std::abs(d))), scale);
        const QString share = m.measured > 0
                                  ? QStringLiteral(" (%1%2%)").arg(sign, QString::number(std::abs(d) / m.measured * 100, 'f', 1))
                                  : QString();
        return {bytesText(std::uint64_t(std::llround(m.measured)), scale), difference,
                tip + tr("; difference %1%2").arg(difference, share)};
    }
    return {tr("not measured"), QString(), tr("The measurement gives no category for this consumer.")};
}

void BreakdownView::explainSelected()
{
    // Laying out HTML is the expensive part of a refresh: only when the text changed.
    const QString html = explainConsumer(m_selected, m_model->scenario(), m_model->estimate(), m_model->unit());
    if (html == m_explanationHtml)
        return;
    m_explanationHtml = html;
    m_explanation->setHtml(html);
}

} // namespace headroom
