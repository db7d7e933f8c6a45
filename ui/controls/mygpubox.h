// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGroupBox>

class QComboBox;
class QLabel;

namespace headroom {

class ScenarioModel;

/// "My GPU", the first control of the panel: an editable, searchable combo over the catalog's
/// GPUs and the user's own, plus a typed "24 GiB". A catalog GPU becomes `target_gpu` (ticked
/// as a capacity line), so the status bar, Solve and the serving engine's budget all follow it;
/// the first choice on a fresh settings folder ticks only that GPU and the next larger one. A
/// typed size adds a GPU of the user's own (Edit > My GPUs), drawn as a line of its own.
class MyGpuBox : public QGroupBox
{
    Q_OBJECT
public:
    explicit MyGpuBox(ScenarioModel *model, QWidget *parent = nullptr);

    QComboBox *combo() const { return m_combo; }
    QLabel *note() const { return m_note; }
    /// Does what choosing or typing `text` does; false (and a note saying why) when it names no GPU.
    bool choose(const QString &text);
    void refresh();

private:
    void fill();

    ScenarioModel *m_model;
    QComboBox *m_combo;
    QLabel *m_note;
};

} // namespace headroom
