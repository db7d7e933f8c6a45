// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace headroom {

class ScenarioModel;

/// The Framework choice (training frameworks and serving engines, with a version), the two
/// techniques users switch on (activation offloading, torch.compile) and a line naming what the
/// framework keeps. Choosing a framework applies its behaviours as one undo step.
class FrameworkGroup : public QGroupBox
{
    Q_OBJECT
public:
    explicit FrameworkGroup(ScenarioModel *model, QWidget *parent = nullptr);

    QComboBox *framework() const { return m_framework; }
    QLineEdit *version() const { return m_version; }
    QCheckBox *offloadActivations() const { return m_offload; }
    QCheckBox *compile() const { return m_compile; }
    QLabel *keeps() const { return m_keeps; }

    /// Shows the model's state without emitting edits.
    void refresh();

private:
    void chooseFramework();

    ScenarioModel *m_model;
    QComboBox *m_framework = nullptr;
    QLineEdit *m_version = nullptr;
    QCheckBox *m_offload = nullptr;
    QCheckBox *m_compile = nullptr;
    QLabel *m_keeps = nullptr;
};

/// The low-level knobs the framework presets set, for experts, each with a one-line explanation.
class ImplementationDetailsGroup : public QGroupBox
{
    Q_OBJECT
public:
    explicit ImplementationDetailsGroup(ScenarioModel *model, QWidget *parent = nullptr);

    QComboBox *loss() const { return m_loss; }
    QComboBox *profile() const { return m_profile; }

    void refresh();

private:
    ScenarioModel *m_model;
    QComboBox *m_profile = nullptr;
    QComboBox *m_loss = nullptr;
    QComboBox *m_loraDType = nullptr;
    QComboBox *m_optimizerImpl = nullptr;
    QComboBox *m_quantizer = nullptr;
    QComboBox *m_unquantized = nullptr;
    QCheckBox *m_flatParams = nullptr;
    QComboBox *m_kvCache = nullptr;
    QComboBox *m_promptLogits = nullptr;
};

} // namespace headroom
