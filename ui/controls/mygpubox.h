// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGroupBox>
#include <string>

class QComboBox;
class QLabel;

namespace headroom {

class ScenarioModel;

/// "My GPU", the first control of the panel: an editable, searchable combo over the catalog's
/// GPUs and the user's own, plus a typed "24 GiB". A catalog GPU becomes `target_gpu` (ticked
/// as a capacity line), so the status bar, Solve and the serving engine's budget all follow it;
/// the first choice on a fresh settings folder ticks only that GPU and the next larger one. A
/// typed size ("24 GiB", "20 GB") does the same with a GPU of that capacity, which the scenario
/// names by its size ("24gib", docs/scenario-format.md), so it saves, reopens and reads in the
/// command line as it is shown.
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
    /// Makes the GPU `id` (a catalog or size GPU) the target.
    bool select(const std::string &id);

    ScenarioModel *m_model;
    QComboBox *m_combo;
    QLabel *m_note;
};

} // namespace headroom
