// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/missingfieldsdialog.h"
#include "window/plaintext.h"

#include "model/hfconfig.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace headroom {

MissingFieldsDialog::MissingFieldsDialog(const QString &path, const std::vector<std::string> &fields,
                                         QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Complete the model config"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("%1 lacks these keys. Enter them as in the model's config.json "
                                "and Headroom imports it again.")
                                 .arg(QFileInfo(path).fileName()),
                             this);
    plainText(intro)->setWordWrap(true);
    layout->addWidget(intro);
    auto *form = new QFormLayout;
    for (const std::string &key : fields) {
        const QString name = QString::fromStdString(key);
        QWidget *field = nullptr;
        if (key == "model_type") {
            auto *combo = new QComboBox(this);
            for (const std::string &type : supportedHfModelTypes())
                combo->addItem(QString::fromStdString(type));
            field = combo;
        } else {
            auto *spin = new QSpinBox(this);
            spin->setRange(1, 1 << 30);
            spin->setGroupSeparatorShown(true);
            field = spin;
        }
        field->setAccessibleName(name);
        form->addRow(name, field);
        m_fields.emplace_back(key, field);
    }
    layout->addLayout(form);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Import"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QWidget *MissingFieldsDialog::field(const std::string &key) const
{
    for (const auto &[name, widget] : m_fields)
        if (name == key)
            return widget;
    return nullptr;
}

void MissingFieldsDialog::fill(nlohmann::json &config) const
{
    for (const auto &[key, widget] : m_fields) {
        if (const auto *combo = qobject_cast<const QComboBox *>(widget))
            config[key] = combo->currentText().toStdString();
        else if (const auto *spin = qobject_cast<const QSpinBox *>(widget))
            config[key] = spin->value();
    }
}

bool MissingFieldsDialog::ask(QWidget *parent, const QString &path, const std::vector<std::string> &fields,
                              nlohmann::json &config)
{
    MissingFieldsDialog dialog(path, fields, parent);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    dialog.fill(config);
    return true;
}

} // namespace headroom
