// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/scenariomodel.h"

#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "scenario/scenariotitle.h"
#include "estimate/verdict.h"
#include "displaytext.h"

#include <QUndoCommand>
#include <QUndoStack>
#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

namespace headroom {

namespace {

/// One scenario change; merges with the next one of the same key (a slider drag).
class ScenarioCommand : public QUndoCommand
{
public:
    ScenarioCommand(ScenarioModel *model, Scenario before, Scenario after, const QString &text,
                    int mergeKey)
        : QUndoCommand(text), m_model(model), m_before(std::move(before)),
          m_after(std::move(after)), m_mergeKey(mergeKey)
    {
    }
    void undo() override { m_model->assign(m_before); }
    void redo() override { m_model->assign(m_after); }
    int id() const override { return m_mergeKey; }
    bool mergeWith(const QUndoCommand *other) override
    {
        if (other->id() != m_mergeKey || m_mergeKey < 0)
            return false;
        m_after = static_cast<const ScenarioCommand *>(other)->m_after;
        return true;
    }

private:
    ScenarioModel *m_model;
    Scenario m_before;
    Scenario m_after;
    int m_mergeKey;
};

/// A short phrase for one scenario key (its dotted path) and value: "mb 8", "ckpt full".
QString describeChange(const std::string &path, const std::string &value)
{
    const QString v = QString::fromStdString(value);
    const std::string key = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
    if (path == "train.method")
        return value == "full" ? ScenarioModel::tr("full FT") : value == "lora" ? ScenarioModel::tr("LoRA") : ScenarioModel::tr("QLoRA");
    if (path == "task")
        return value == "inference" ? ScenarioModel::tr("serving") : ScenarioModel::tr("training");
    if (path == "parallel.gpus")
        return ScenarioModel::tr("%1 GPUs").arg(v);
    static const std::pair<const char *, const char *> formats[] = {
        {"weights", "%1"}, {"attention", "%1"}, {"optimizer", "%1"}, {"strategy", "%1"},
        {"loss", "%1 loss"}, {"gradient_checkpointing", "ckpt %1"}, {"micro_batch", "mb %1"},
        {"seq_len", "seq %1"}, {"grad_accum", "accum %1"}, {"grad_dtype", "grads %1"},
        {"compute", "compute %1"}, {"rank", "r%1"}, {"kv_dtype", "KV %1"}, {"batch", "%1 seqs"},
        {"context", "ctx %1"}, {"profile", "%1 profile"}, {"kv_cache", "%1 cache"},
        {"prompt_logits", "%1 logits"}, {"activation", "%1"}, {"tensor", "TP %1"},
        {"pipeline", "PP %1"}, {"dropout", "dropout %1"}, {"fragmentation", "frag %1"}};
    for (const auto &[name, format] : formats)
        if (key == name)
            return QString::fromLatin1(format).arg(v);
    if (key == "master_weights")
        return value == "true" ? ScenarioModel::tr("fp32 master") : ScenarioModel::tr("no master");
    if (key == "double_quant")
        return value == "true" ? ScenarioModel::tr("double quant") : ScenarioModel::tr("single quant");
    if (key == "offload_optimizer")
        return value == "true" ? ScenarioModel::tr("offload") : ScenarioModel::tr("no offload");
    return QString::fromStdString(key) + QLatin1Char(' ') + v;
}

/// Leaf differences of `after` from `before` as (path, value) pairs; a different model is one
/// entry ("model").
void differences(const nlohmann::json &after, const nlohmann::json &before, const std::string &prefix,
                 std::vector<std::pair<std::string, std::string>> &out)
{
    for (const auto &item : after.items()) {
        const std::string key = item.key();
        if (prefix.empty() && (key == "name" || key == "gpus" || key == "target_gpu" || key == "format" ||
                               key == "version"))
            continue;
        const std::string path = prefix.empty() ? key : prefix + "." + key;
        const nlohmann::json *other = before.contains(key) ? &before.at(key) : nullptr;
        if (other && *other == item.value())
            continue;
        if (path == "model") {
            out.emplace_back("model", std::string());
            continue;
        }
        if (item.value().is_object() && other && other->is_object()) {
            differences(item.value(), *other, path, out);
            continue;
        }
        std::string value = item.value().is_string() ? item.value().get<std::string>() : item.value().dump();
        if (item.value().is_array()) { // LoRA targets
            value.clear();
            for (const auto &element : item.value())
                value += (value.empty() ? "" : ",") + (element.is_string() ? element.get<std::string>() : element.dump());
        }
        out.emplace_back(path, value);
    }
}

} // namespace

QString ScenarioModel::pinName(const Scenario &scenario, const Scenario *previous)
{
    const QString separator = QStringLiteral(" \u00b7 ");
    if (!previous) {
        QStringList facts;
        if (scenario.task == Task::Inference) {
            facts << tr("serving") << QString::fromLatin1(enumName(scenario.precision.weights))
                  << tr("%1 x %2").arg(scenario.inference.batch).arg(scenario.inference.context);
        } else {
            facts << describeChange("train.method", enumName(scenario.train.method))
                  << QString::fromLatin1(enumName(scenario.precision.weights))
                  << tr("mb %1").arg(scenario.train.microBatch);
        }
        return facts.join(separator);
    }
    std::vector<std::pair<std::string, std::string>> diff;
    differences(scenarioToJson(scenario), scenarioToJson(*previous), "", diff);
    // Model, task, method and precision before kernels and sizes.
    static const char *priority[] = {"model", "task", "train.method", "precision.weights", "precision.compute",
                                      "train.master_weights"};
    const auto rank = [](const std::string &path) {
        for (int i = 0; i < int(std::size(priority)); ++i)
            if (path == priority[i])
                return i;
        return int(std::size(priority));
    };
    std::stable_sort(diff.begin(), diff.end(), [&](const auto &a, const auto &b) { return rank(a.first) < rank(b.first); });
    QStringList phrases;
    for (const auto &[path, value] : diff)
        phrases << (path == "model" ? QString::fromStdString(modelDisplayName(scenario)) : describeChange(path, value));
    if (phrases.isEmpty())
        return tr("same");
    QString name = phrases.mid(0, 3).join(separator);
    if (phrases.size() > 3)
        name += tr(" +%1").arg(phrases.size() - 3);
    return name;
}

ScenarioModel::ScenarioModel(QObject *parent) : QObject(parent), m_undo(new QUndoStack(this))
{
    m_scenario = parseScenario(R"({"format": "headroom-scenario", "version": 1,
        "model": {"preset": "llama-3-8b"},
        "train": {"method": "lora", "micro_batch": 2, "seq_len": 2048}})");
    recompute();
}

ScenarioModel::~ScenarioModel() = default;

void ScenarioModel::apply(const QString &what, const std::function<void(Scenario &)> &edit,
                          int mergeKey)
{
    Scenario next = m_scenario;
    edit(next);
    if (next == m_scenario)
        return;
    m_undo->push(new ScenarioCommand(this, m_scenario, next, what, mergeKey));
}

void ScenarioModel::setScenario(const Scenario &scenario, const QString &what)
{
    if (scenario == m_scenario)
        return;
    m_undo->push(new ScenarioCommand(this, m_scenario, scenario, what, -1));
}

void ScenarioModel::assign(const Scenario &scenario)
{
    if (scenario == m_scenario)
        return;
    if (scenario.name != m_scenario.name)
        m_named = scenario;
    m_scenario = scenario;
    recompute();
    emit changed();
}

bool ScenarioModel::nameDescribesScenario() const
{
    if (m_scenario.name.empty())
        return false;
    Scenario named = m_named;
    named.name = m_scenario.name;
    return named == m_scenario;
}

void ScenarioModel::recompute()
{
    try {
        m_estimate = headroom::estimate(m_scenario);
        m_error.clear();
        // Learned positions have no row past the last one: such a run cannot start.
        if (const auto limit = positionLimit(m_scenario); limit && limit->error) {
            m_estimate = Estimate{};
            m_error = positionLimitText(m_scenario, *limit);
        }
    } catch (const std::exception &error) {
        m_estimate = Estimate{};
        m_error = QString::fromStdString(error.what());
    }
}

int ScenarioModel::duplicatePin() const
{
    // The name is a label, not a setting: a renamed pin of the same set-up is the same.
    Scenario current = m_scenario;
    current.name.clear();
    for (int i = 0; i < int(m_pins.size()); ++i) {
        Scenario pinned = m_pins[std::size_t(i)].scenario;
        pinned.name.clear();
        if (pinned == current)
            return i;
    }
    return -1;
}

bool ScenarioModel::pinCurrent()
{
    if (int(m_pins.size()) >= kMaxPins || duplicatePin() >= 0)
        return false;
    return addPin(m_scenario);
}

bool ScenarioModel::addPin(const Scenario &scenario, const QString &name)
{
    if (int(m_pins.size()) >= kMaxPins)
        return false;
    Pin pin;
    pin.scenario = scenario;
    if (scenario == m_scenario) {
        pin.estimate = m_estimate;
        pin.error = m_error;
    } else {
        try {
            pin.estimate = headroom::estimate(scenario);
        } catch (const std::exception &error) {
            pin.error = QString::fromStdString(error.what());
        }
    }
    for (const Pin &other : m_pins)
        pin.number = std::max(pin.number, other.number);
    ++pin.number;
    pin.name = name.isEmpty() ? pinName(scenario, m_pins.empty() ? nullptr : &m_pins.back().scenario) : name;
    m_pins.push_back(std::move(pin));
    emit changed();
    return true;
}

void ScenarioModel::removePin(int index)
{
    if (index < 0 || index >= int(m_pins.size()))
        return;
    m_pins.erase(m_pins.begin() + index);
    emit changed();
}

void ScenarioModel::clearPins()
{
    if (m_pins.empty())
        return;
    m_pins.clear();
    emit changed();
}

void ScenarioModel::renamePin(int index, const QString &name)
{
    const QString trimmed = name.simplified();
    if (index < 0 || index >= int(m_pins.size()) || trimmed.isEmpty() || m_pins[std::size_t(index)].name == trimmed)
        return;
    m_pins[std::size_t(index)].name = trimmed;
    emit changed();
}

QString ScenarioModel::pinLabel(int index) const
{
    if (index < 0 || index >= int(m_pins.size()))
        return {};
    const Pin &pin = m_pins[std::size_t(index)];
    return tr("#%1 %2").arg(pin.number).arg(pin.name);
}

void ScenarioModel::setAxisMinimumBytes(std::uint64_t bytes)
{
    if (bytes == m_axisMinimum)
        return;
    m_axisMinimum = bytes;
    emit changed();
}

void ScenarioModel::setUnit(Unit unit)
{
    if (unit == m_unit)
        return;
    m_unit = unit;
    emit changed();
}

QString chartViewName(ChartView view)
{
    switch (view) {
    case ChartView::Bars: return QStringLiteral("bars");
    case ChartView::Phases: return QStringLiteral("phases");
    case ChartView::Ranks: return QStringLiteral("ranks");
    }
    return QStringLiteral("bars");
}

std::optional<ChartView> chartViewFromName(const QString &name)
{
    for (ChartView view : {ChartView::Bars, ChartView::Phases, ChartView::Ranks})
        if (name == chartViewName(view))
            return view;
    return std::nullopt;
}

void ScenarioModel::setView(ChartView view)
{
    if (view == m_view)
        return;
    m_view = view;
    emit changed();
}

void ScenarioModel::setSolveFor(const std::optional<SolveFor> &what)
{
    if (what == m_solveFor)
        return;
    m_solveFor = what;
    emit changed();
}

void ScenarioModel::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    emit changed();
}

void ScenarioModel::setCustomCapacityBytes(std::uint64_t bytes)
{
    if (bytes == m_customCapacity)
        return;
    m_customCapacity = bytes;
    emit changed();
}

void ScenarioModel::setUserGpus(const std::vector<UserGpu> &gpus)
{
    if (gpus == m_userGpus)
        return;
    m_userGpus = gpus;
    emit changed();
}

void ScenarioModel::setMeasured(const std::optional<Measurement> &measured)
{
    if (measured == m_measured)
        return;
    m_measured = measured;
    emit changed();
}

QString ScenarioModel::presetLabel() const
{
    const ModelArch &arch = m_scenario.model;
    if (arch.preset.empty())
        return arch.rough ? tr("custom (rough: parameters only)") : tr("custom");
    const ModelPreset *preset = catalog().findModel(arch.preset);
    if (!preset)
        return tr("custom");
    ModelArch pristine = preset->arch;
    if (pristine == arch)
        return QString::fromStdString(preset->name);
    return tr("custom (based on %1)").arg(QString::fromStdString(preset->name));
}

} // namespace headroom
