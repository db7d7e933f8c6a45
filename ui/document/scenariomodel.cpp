// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/scenariomodel.h"

#include "names.h"
#include "scenariojson.h"

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

/// A short phrase for one scenario key and value ("batch 8", "ckpt full", "fused loss").
QString describeChange(const std::string &key, const std::string &value)
{
    const QString v = QString::fromStdString(value);
    static const std::pair<const char *, const char *> formats[] = {
        {"method", "%1"}, {"weights", "%1"}, {"attention", "%1"}, {"optimizer", "%1"},
        {"preset", "%1"}, {"task", "%1"}, {"loss", "%1 loss"}, {"gradient_checkpointing", "ckpt %1"},
        {"micro_batch", "batch %1"}, {"seq_len", "seq %1"}, {"grad_accum", "accum %1"},
        {"grad_dtype", "grads %1"}, {"compute", "compute %1"}, {"rank", "r%1"}, {"kv_dtype", "KV %1"},
        {"batch", "%1 seqs"}, {"context", "ctx %1"}, {"profile", "%1 profile"},
        {"kv_cache", "%1 cache"}, {"prompt_logits", "%1 logits"}, {"activation", "%1"}};
    for (const auto &[name, format] : formats)
        if (key == name)
            return QString::fromLatin1(format).arg(v);
    if (key == "master_weights")
        return value == "true" ? ScenarioModel::tr("fp32 master") : ScenarioModel::tr("no master");
    if (key == "double_quant")
        return value == "true" ? ScenarioModel::tr("double quant") : ScenarioModel::tr("single quant");
    return QString::fromStdString(key) + QLatin1Char(' ') + v;
}

/// "#2 lora<br>bf16 +3": the pin's number (categories must be unique) and its most telling
/// differences, method and precision before kernels and sizes.
QString pinCaption(int index, QStringList diff)
{
    static const char *priority[] = {"full", "lora", "qlora", "train", "inference", "fp32", "bf16",
                                      "fp16", "nf4", "int4", "int8", "fp8", "fp4", "no master", "fp32 master"};
    auto rank = [](const QString &phrase) {
        for (int i = 0; i < int(std::size(priority)); ++i)
            if (phrase == QLatin1String(priority[i]))
                return i;
        return int(std::size(priority));
    };
    std::stable_sort(diff.begin(), diff.end(),
                     [&](const QString &a, const QString &b) { return rank(a) < rank(b); });
    if (diff.isEmpty())
        return ScenarioModel::tr("#%1 same").arg(index + 1);
    QString label = ScenarioModel::tr("#%1 %2").arg(index + 1).arg(diff.mid(0, 2).join(QStringLiteral("<br>")));
    if (diff.size() > 2)
        label += ScenarioModel::tr(" +%1").arg(diff.size() - 2);
    return label;
}

/// Leaf differences between two scenario documents, as short phrases.
void differences(const nlohmann::json &pin, const nlohmann::json &current, const std::string &path,
                 QStringList &out)
{
    for (const auto &item : pin.items()) {
        if (item.key() == "name" || item.key() == "gpus" || item.key() == "format")
            continue;
        const std::string key = item.key();
        const nlohmann::json *other = current.contains(key) ? &current.at(key) : nullptr;
        if (item.value().is_object() && other && other->is_object()) {
            differences(item.value(), *other, key, out);
            continue;
        }
        if (other && *other == item.value())
            continue;
        const std::string value =
            item.value().is_string() ? item.value().get<std::string>() : item.value().dump();
        out << describeChange(key, value);
    }
    (void)path;
}

} // namespace

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
    m_scenario = scenario;
    recompute();
    relabelPins();
    emit changed();
}

void ScenarioModel::recompute()
{
    try {
        m_estimate = headroom::estimate(m_scenario);
        m_error.clear();
    } catch (const std::exception &error) {
        m_estimate = Estimate{};
        m_error = QString::fromStdString(error.what());
    }
}

bool ScenarioModel::pinCurrent()
{
    if (int(m_pins.size()) >= kMaxPins)
        return false;
    m_pins.push_back({m_scenario, m_estimate, m_error});
    m_pinDocuments.push_back(scenarioToJson(m_scenario));
    relabelPins();
    emit changed();
    return true;
}

void ScenarioModel::removePin(int index)
{
    if (index < 0 || index >= int(m_pins.size()))
        return;
    m_pins.erase(m_pins.begin() + index);
    m_pinDocuments.erase(m_pinDocuments.begin() + index);
    relabelPins();
    emit changed();
}

void ScenarioModel::clearPins()
{
    if (m_pins.empty())
        return;
    m_pins.clear();
    m_pinDocuments.clear();
    m_pinLabels.clear();
    emit changed();
}

QString ScenarioModel::pinLabel(int index) const
{
    return index >= 0 && index < m_pinLabels.size() ? m_pinLabels.at(index) : QString();
}

void ScenarioModel::relabelPins()
{
    m_pinLabels.clear();
    if (m_pins.empty())
        return;
    const nlohmann::json current = scenarioToJson(m_scenario);
    for (int index = 0; index < int(m_pins.size()); ++index) {
        QStringList diff;
        differences(m_pinDocuments[std::size_t(index)], current, "", diff);
        m_pinLabels << pinCaption(index, diff);
    }
}

void ScenarioModel::setUnit(Unit unit)
{
    if (unit == m_unit)
        return;
    m_unit = unit;
    emit changed();
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
