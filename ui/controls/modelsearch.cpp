// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/modelsearch.h"

#include "scenario/modelsearch.h"

#include <QComboBox>
#include <QCompleter>
#include <QLineEdit>
#include <QStringListModel>
#include <memory>

namespace headroom {

void installModelSearch(QComboBox *combo, const Catalog &catalog)
{
    combo->setEditable(true);
    combo->setInsertPolicy(QComboBox::NoInsert);
    combo->lineEdit()->setPlaceholderText(QComboBox::tr("Model name or Hub id"));
    combo->setToolTip(QComboBox::tr("Type a name (\"qwen3 30b\") or a Hugging Face Hub id "
                                    "(\"meta-llama/Llama-3.1-8B-Instruct\") and press Enter"));
    // The popup while typing: "Name · org/repo", matched anywhere in the text.
    QStringList entries;
    for (const ModelPreset &preset : catalog.models)
        entries << (preset.hfId.empty() ? QString::fromStdString(preset.name)
                                        : QString::fromStdString(preset.name + " \u00b7 " + preset.hfId));
    auto *completer = new QCompleter(new QStringListModel(entries, combo), combo);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    completer->setCompletionMode(QCompleter::PopupCompletion);
    combo->setCompleter(completer);

    const auto choose = [combo, &catalog](const QString &text) {
        const std::vector<const ModelPreset *> found = findModels(text.toStdString(), catalog);
        const int index = found.empty() ? -1 : combo->findData(QString::fromStdString(found.front()->id));
        if (index < 0) {
            // Nothing matches: the current model's name again, never a half-typed text.
            const QString typed = text.left(40);
            combo->setEditText(combo->itemText(combo->currentIndex()));
            combo->lineEdit()->setToolTip(QComboBox::tr("No model matches \u201c%1\u201d").arg(typed));
            return;
        }
        combo->lineEdit()->setToolTip(QString());
        combo->setCurrentIndex(index);
        combo->setEditText(combo->itemText(index));
        emit combo->activated(index);
    };
    // What the user typed: the combo itself may put the current item's text back on Enter
    // before this reads it.
    auto typed = std::make_shared<QString>();
    QObject::connect(combo->lineEdit(), &QLineEdit::textEdited, combo, [typed](const QString &text) { *typed = text; });
    // A popup entry chosen is that model, whatever was typed before it.
    QObject::connect(completer, qOverload<const QString &>(&QCompleter::activated), combo, [typed, choose](const QString &text) {
        typed->clear();
        choose(text);
    });
    QObject::connect(combo->lineEdit(), &QLineEdit::returnPressed, combo, [typed, choose] {
        if (typed->isEmpty())
            return;
        const QString text = *typed;
        typed->clear();
        choose(text);
    });
}

bool installModelSearchIn(QWidget *root, const Catalog &catalog)
{
    for (QComboBox *combo : root->findChildren<QComboBox *>())
        if (combo->accessibleName() == QLatin1String("Model preset")) {
            installModelSearch(combo, catalog);
            return true;
        }
    return false;
}

} // namespace headroom
