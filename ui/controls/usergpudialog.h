// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QDoubleSpinBox;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace headroom {

class ScenarioModel;

/// Edit > My GPUs: add, show/hide and remove GPUs of the user's own (name and capacity). Each
/// change goes to the model and to QSettings at once.
class UserGpuDialog : public QDialog
{
    Q_OBJECT
public:
    explicit UserGpuDialog(ScenarioModel *model, QWidget *parent = nullptr);

    QLineEdit *nameField() const { return m_name; }
    QDoubleSpinBox *capacityField() const { return m_capacity; }
    QPushButton *addButton() const { return m_add; }
    QPushButton *removeButton() const { return m_remove; }
    QListWidget *list() const { return m_list; }

private:
    void addGpu();
    void removeSelected();
    void showList();

    ScenarioModel *m_model;
    QListWidget *m_list;
    QLineEdit *m_name;
    QDoubleSpinBox *m_capacity;
    QPushButton *m_add;
    QPushButton *m_remove;
};

} // namespace headroom
