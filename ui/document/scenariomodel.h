// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "catalog.h"
#include "estimate.h"
#include "controls/measurement.h"
#include "scenario.h"
#include "solver.h"
#include "controls/usergpus.h"

#include <QObject>
#include <nlohmann/json.hpp>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <vector>

class QUndoStack;

namespace headroom {

/// How the chart lays out its categories.
enum class ChartView { Bars, Phases };

/// A scenario pinned for comparison, with its estimate.
struct Pin
{
    Scenario scenario;
    Estimate estimate;
    QString error; ///< non-empty when the estimate failed (e.g. beyond 2^64 bytes)
};

/// The window's single source of truth: the current scenario, its estimate, the pins and the
/// display settings. Widgets change it through apply()/setters and redraw on changed().
class ScenarioModel : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxPins = 8;

    explicit ScenarioModel(QObject *parent = nullptr);
    ~ScenarioModel() override;

    const Scenario &scenario() const { return m_scenario; }
    const Estimate &estimate() const { return m_estimate; }
    /// Non-empty when the current scenario cannot be estimated.
    const QString &estimateError() const { return m_error; }
    const Catalog &catalog() const { return builtinCatalog(); }

    /// Changes the scenario through `edit`, as one undoable step named `what`. Consecutive edits
    /// with the same non-negative `mergeKey` (a slider drag) merge into one undo step.
    void apply(const QString &what, const std::function<void(Scenario &)> &edit, int mergeKey = -1);
    /// Replaces the whole scenario (undoable), e.g. from a file or a restored session.
    void setScenario(const Scenario &scenario, const QString &what);
    /// Sets the scenario without an undo step (undo commands and start-up use it).
    void assign(const Scenario &scenario);
    QUndoStack *undoStack() const { return m_undo; }

    const std::vector<Pin> &pins() const { return m_pins; }
    /// Pins the current scenario; false when kMaxPins are pinned already.
    bool pinCurrent();
    void removePin(int index);
    void clearPins();
    /// What differs between a pin and the current scenario, e.g. "micro_batch 8, eager".
    QString pinLabel(int index) const;

    Unit unit() const { return m_unit; }
    void setUnit(Unit unit);
    ChartView view() const { return m_view; }
    void setView(ChartView view);
    bool dark() const { return m_dark; }
    void setDark(bool dark);
    /// A user-typed capacity line in bytes (0 = none).
    std::uint64_t customCapacityBytes() const { return m_customCapacity; }
    void setCustomCapacityBytes(std::uint64_t bytes);
    /// GPUs the user added (kept in QSettings, not in scenario files); shown ones are drawn.
    const std::vector<UserGpu> &userGpus() const { return m_userGpus; }
    void setUserGpus(const std::vector<UserGpu> &gpus);
    /// A peak the user measured, compared with the estimate (none by default).
    const std::optional<Measurement> &measured() const { return m_measured; }
    void setMeasured(const std::optional<Measurement> &measured);
    /// The variable whose limit each capacity line carries ("RTX 4090: micro-batch <= 3"), if any.
    const std::optional<SolveFor> &solveFor() const { return m_solveFor; }
    void setSolveFor(const std::optional<SolveFor> &what);
    /// The preset the current model came from, and whether fields were edited since.
    QString presetLabel() const;

signals:
    /// Anything shown changed: the scenario, its estimate, pins or display settings.
    void changed();

private:
    void recompute();
    void relabelPins();

    Scenario m_scenario;
    Estimate m_estimate;
    QString m_error;
    std::vector<Pin> m_pins;
    std::vector<nlohmann::json> m_pinDocuments; ///< written once per pin, for the labels
    QStringList m_pinLabels;                    ///< what differs from the current scenario
    Unit m_unit = Unit::GB;
    ChartView m_view = ChartView::Bars;
    bool m_dark = false;
    std::uint64_t m_customCapacity = 0;
    std::vector<UserGpu> m_userGpus;
    std::optional<Measurement> m_measured;
    std::optional<SolveFor> m_solveFor;
    QUndoStack *m_undo;
};

} // namespace headroom
