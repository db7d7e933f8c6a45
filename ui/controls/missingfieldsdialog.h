// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

class QComboBox;
class QSpinBox;

namespace headroom {

/// Asks for the config.json keys an import lacks: a whole number each, or the model type.
class MissingFieldsDialog : public QDialog
{
    Q_OBJECT
public:
    MissingFieldsDialog(const QString &path, const std::vector<std::string> &fields,
                        QWidget *parent = nullptr);

    /// The field of one key (a QSpinBox, or a QComboBox for model_type); null when not asked.
    QWidget *field(const std::string &key) const;
    /// Writes the values entered into `config`.
    void fill(nlohmann::json &config) const;

    /// Shows the dialog and fills `config`; false when the user cancels.
    static bool ask(QWidget *parent, const QString &path, const std::vector<std::string> &fields,
                    nlohmann::json &config);

private:
    std::vector<std::pair<std::string, QWidget *>> m_fields;
};

} // namespace headroom
