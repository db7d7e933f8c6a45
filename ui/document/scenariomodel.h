// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "estimate/estimate.h"
#include "controls/measurement.h"
#include "scenario/scenario.h"
#include "solve/solver.h"
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

/// How the chart lays out its categories: scenarios side by side (the busiest GPU of each, and
/// the current one's CPU RAM), the current scenario's phases, or every kind of rank of it.
enum class ChartView { Bars, Phases, Ranks };
/// "bars", "phases", "ranks": the view's name in settings and on the command line.
QString chartViewName(ChartView view);
/// The view of a name; nullopt for an unknown one.
std::optional<ChartView> chartViewFromName(const QString &name);

/// A scenario pinned for comparison, with its estimate and its name.
struct Pin
{
    Scenario scenario;
    Estimate estimate;
    QString error; ///< non-empty when the estimate failed (e.g. beyond 2^64 bytes)
    int number = 0; ///< "#2": given when pinned, never changed
    QString name;   ///< what set it apart when it was pinned ("full FT · bf16 · mb 4"); editable
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
    /// The scenario's own name still describes it: it has one and nothing but the name changed
    /// since the name was given (a file, a lesson step). Edits make a name stale.
    bool nameDescribesScenario() const;

    const std::vector<Pin> &pins() const { return m_pins; }
    /// Pins the current scenario, named by what differs from the pin before it (or, for the
    /// first, by its method, precision and micro-batch). False when kMaxPins are pinned or an
    /// identical scenario is pinned already (duplicatePin() says which).
    bool pinCurrent();
    /// The pin equal to the current scenario, or -1.
    int duplicatePin() const;
    /// Adds a pin as it was saved (a comparison file): its name, or one made as pinCurrent does.
    bool addPin(const Scenario &scenario, const QString &name = {});
    void removePin(int index);
    void clearPins();
    /// Renames a pin (the name the user typed; empty keeps the old one).
    void renamePin(int index, const QString &name);
    /// "#2 full FT · bf16 · mb 4": the pin's number and name, as the chart labels it.
    QString pinLabel(int index) const;
    /// A short name for `scenario` next to `previous` (what differs), or its key facts.
    static QString pinName(const Scenario &scenario, const Scenario *previous);

    Unit unit() const { return m_unit; }
    void setUnit(Unit unit);
    ChartView view() const { return m_view; }
    void setView(ChartView view);
    bool dark() const { return m_dark; }
    void setDark(bool dark);
    /// The y-axis reaches at least this (a lesson's largest step: one axis for every step).
    std::uint64_t axisMinimumBytes() const { return m_axisMinimum; }
    void setAxisMinimumBytes(std::uint64_t bytes);
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

    Scenario m_scenario;
    Scenario m_named; ///< the scenario as it was when its name was given
    Estimate m_estimate;
    QString m_error;
    std::vector<Pin> m_pins;
    Unit m_unit = Unit::GiB;
    std::uint64_t m_axisMinimum = 0;
    ChartView m_view = ChartView::Bars;
    bool m_dark = false;
    std::uint64_t m_customCapacity = 0;
    std::vector<UserGpu> m_userGpus;
    std::optional<Measurement> m_measured;
    std::optional<SolveFor> m_solveFor;
    QUndoStack *m_undo;
};

} // namespace headroom
