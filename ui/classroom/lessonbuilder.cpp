// SPDX-License-Identifier: GPL-3.0-or-later
#include "classroom/lessonbuilder.h"

#include "document/documentio.h"
#include "document/scenariomodel.h"
#include "scenario/scenariojson.h"

#include <QTextDocument>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

namespace headroom {

Lesson LessonBuilderDialog::lessonFromPins(const ScenarioModel &model, const QString &title)
{
    Lesson lesson;
    lesson.title = title.toStdString();
    for (const Pin &pin : model.pins()) {
        LessonStep step;
        step.title = pin.name.toStdString();
        step.caption = tr("Peak {peak} on the device: weights {weights}, activations {activations}.").toStdString();
        step.scenario = pin.scenario;
        step.scenario.name.clear(); // the step's title names it
        lesson.steps.push_back(step);
    }
    return lesson;
}

LessonBuilderDialog::LessonBuilderDialog(const ScenarioModel &model, QWidget *parent)
    : QDialog(parent), m_title(new QLineEdit(this)), m_steps(new QTableWidget(0, 2, this))
{
    setWindowTitle(tr("Save pins as lesson"));
    const Lesson start = lessonFromPins(model, tr("My lesson"));
    m_title->setText(QString::fromStdString(start.title));
    m_title->setAccessibleName(tr("Lesson title"));
    m_steps->setHorizontalHeaderLabels({tr("Step title"), tr("Caption")});
    m_steps->setAccessibleName(tr("Lesson steps"));
    m_steps->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_steps->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_steps->verticalHeader()->setVisible(true);
    m_steps->setRowCount(int(start.steps.size()));
    for (int row = 0; row < int(start.steps.size()); ++row) {
        const LessonStep &step = start.steps[std::size_t(row)];
        m_steps->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(step.title)));
        m_steps->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(step.caption)));
        m_scenarios.push_back(step.scenario);
    }
    m_steps->setColumnWidth(0, 220);
    auto *hint = new QLabel(tr("Captions may quote the step's own numbers, in the reader's unit: {peak}, "
                               "{allocated}, {weights}, {gradients}, {optimizer_state}, {activations}, "
                               "{logits}, {kv_cache}, {params}, {trainable}."),
                            this);
    hint->setWordWrap(true);
    auto *form = new QFormLayout;
    form->addRow(tr("&Title"), m_title);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_steps, 1);
    layout->addWidget(hint);
    layout->addWidget(buttons);
    resize(860, 420);
    const auto check = [this, save = buttons->button(QDialogButtonBox::Save)] {
        try {
            const Lesson typed = lesson();
            lessonFromJson(lessonToJson(typed));
            save->setEnabled(true);
            save->setToolTip(QString());
        } catch (const std::exception &error) {
            save->setEnabled(false);
            save->setToolTip(Qt::convertFromPlainText(QString::fromStdString(error.what())));
        }
    };
    connect(m_title, &QLineEdit::textChanged, this, check);
    connect(m_steps, &QTableWidget::itemChanged, this, check);
    check();
}

Lesson LessonBuilderDialog::lesson() const
{
    Lesson lesson;
    lesson.title = m_title->text().trimmed().toStdString();
    for (int row = 0; row < m_steps->rowCount(); ++row) {
        LessonStep step;
        step.title = m_steps->item(row, 0) ? m_steps->item(row, 0)->text().trimmed().toStdString() : std::string();
        step.caption = m_steps->item(row, 1) ? m_steps->item(row, 1)->text().trimmed().toStdString() : std::string();
        step.scenario = m_scenarios.at(std::size_t(row));
        lesson.steps.push_back(step);
    }
    return lesson;
}

QString writeLessonFile(const QString &path, const Lesson &lesson)
{
    try {
        lessonFromJson(lessonToJson(lesson)); // what is written must read back
    } catch (const std::exception &error) {
        return QString::fromStdString(error.what());
    }
    return writeFileAtomically(path, QByteArray::fromStdString(lessonToJson(lesson).dump(2) + "\n"));
}

} // namespace headroom
