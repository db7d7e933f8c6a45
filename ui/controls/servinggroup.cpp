// SPDX-License-Identifier: GPL-3.0-or-later
#include "controls/servinggroup.h"
#include "window/plaintext.h"

#include "chart/consumerstyle.h"
#include "controls/sliderfield.h"
#include "document/scenariomodel.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "serving/servingollama.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace headroom {

namespace {

/// Merge keys of this group's sliders (one undo step per drag); apart from the control panel's.
enum Key { KeyUtilization = 101, KeyConcurrency, KeyPrompt, KeyOutput };

constexpr int kNone = -1;
constexpr int kOllama = 100; ///< llama.cpp as Ollama starts it (engine llama_cpp with cfg.ollama)

/// The serving section, created with the engine's defaults when the scenario has none.
ServingConfig &serving(Scenario &s)
{
    if (!s.serving) {
        s.serving = ServingConfig{};
        s.serving->maxModelLen = std::uint32_t(std::max(1, s.model.maxPositions));
    }
    return *s.serving;
}

QWidget *row(const QString &label, QWidget *field, QWidget *parent)
{
    auto *holder = new QWidget(parent);
    auto *layout = new QFormLayout(holder);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *caption = new QLabel(label, holder);
    caption->setBuddy(field);
    layout->addRow(caption, field);
    return holder;
}

} // namespace

ServingGroup::ServingGroup(ScenarioModel *model, QWidget *parent)
    : QGroupBox(tr("Serving engine"), parent), m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    layout->setSpacing(6);
    m_engine = new QComboBox(this);
    m_engine->setAccessibleName(tr("Serving engine"));
    m_engine->addItem(tr("none (batch x context)"), kNone);
    m_engine->addItem(QStringLiteral("vLLM"), int(Engine::Vllm));
    m_engine->addItem(QStringLiteral("SGLang"), int(Engine::Sglang));
    m_engine->addItem(QStringLiteral("llama.cpp"), int(Engine::LlamaCpp));
    m_engine->addItem(QStringLiteral("Ollama"), kOllama);
    m_engine->addItem(QStringLiteral("TensorRT-LLM"), int(Engine::Trtllm));
    m_engine->addItem(tr("Hugging Face generate()"), int(Engine::HfGenerate));
    layout->addWidget(row(tr("&Engine"), m_engine, this));
    connect(m_engine, &QComboBox::activated, this, [this] {
        const int engine = m_engine->currentData().toInt();
        m_model->apply(tr("Choose the serving engine"), [engine](Scenario &s) {
            if (engine == kNone) {
                s.serving.reset();
                return;
            }
            ServingConfig &cfg = serving(s);
            if (engine == kOllama) { // Ollama's defaults, mapped onto llama.cpp (servingollama.h)
                cfg.engine = Engine::LlamaCpp;
                cfg.ollama = OllamaConfig{};
                cfg.weightType = GgufType::Q4_K_M;
                try {
                    applyOllama(cfg, s);
                } catch (const ScenarioError &) { // no catalog GPU to take the defaults from
                    cfg.ollama.reset();
                }
                return;
            }
            cfg.ollama.reset();
            cfg.engine = Engine(engine);
            if (cfg.engine == Engine::HfGenerate)
                cfg.maxModelLen = 0;
            else if (!cfg.maxModelLen)
                cfg.maxModelLen = std::uint32_t(std::max(1, s.model.maxPositions));
        });
    });

    auto add = [&](QWidget *widget, std::vector<int> engines) {
        layout->addWidget(widget);
        m_engineRows.push_back({widget, std::move(engines)});
    };
    const std::vector<int> all{int(Engine::Vllm), int(Engine::Sglang), int(Engine::LlamaCpp), int(Engine::HfGenerate),
                               kOllama, int(Engine::Trtllm)};
    m_concurrency = slider(tr("Concurrent se&quences"), 1, 4096, true, KeyConcurrency,
                           [](Scenario &s, double v) { serving(s).requests.concurrency = std::uint32_t(v); });
    add(m_concurrency, all);
    m_prompt = slider(tr("&Prompt tokens per request"), 0, 1048576, true, KeyPrompt, [](Scenario &s, double v) {
        ServingConfig &cfg = serving(s);
        cfg.requests.classes.resize(1);
        cfg.requests.classes[0].share = 1;
        cfg.requests.classes[0].promptTokens = std::uint32_t(v);
    });
    add(m_prompt, all);
    m_output = slider(tr("&Output tokens per request"), 0, 1048576, true, KeyOutput, [](Scenario &s, double v) {
        ServingConfig &cfg = serving(s);
        cfg.requests.classes.resize(1);
        cfg.requests.classes[0].share = 1;
        cfg.requests.classes[0].outputTokens = std::uint32_t(v);
    });
    add(m_output, all);
    m_utilization = slider(tr("gpu_memory_&utilization"), 0.05, 1, false, KeyUtilization,
                           [](Scenario &s, double v) { serving(s).gpuMemoryUtilization = v; }, 2);
    add(m_utilization, {int(Engine::Vllm)});
    m_maxModelLen = spin(QStringLiteral("max_model_len"), 1, 16 << 20,
                         [](Scenario &s, int v) { serving(s).maxModelLen = std::uint32_t(v); });
    add(m_maxModelLen->parentWidget(), {int(Engine::Vllm), int(Engine::Sglang), int(Engine::Trtllm)});
    m_maxNumSeqs = spin(tr("max_num_seqs (0 = default)"), 0, 1 << 20,
                        [](Scenario &s, int v) { serving(s).maxNumSeqs = std::uint32_t(v); });
    add(m_maxNumSeqs->parentWidget(), {int(Engine::Vllm), int(Engine::Sglang)});
    m_batchedTokens = spin(tr("max_num_batched_tokens (0 = default)"), 0, 16 << 20,
                           [](Scenario &s, int v) { serving(s).maxNumBatchedTokens = std::uint32_t(v); });
    add(m_batchedTokens->parentWidget(), {int(Engine::Vllm)});

    m_kvDtype = new QComboBox(this);
    m_kvDtype->setAccessibleName(QStringLiteral("kv_cache_dtype"));
    for (EngineKvType type : {EngineKvType::Auto, EngineKvType::Fp8, EngineKvType::Fp8E4m3, EngineKvType::Fp8E5m2,
                              EngineKvType::Nvfp4})
        m_kvDtype->addItem(QString::fromLatin1(enumName(type)), int(type));
    connect(m_kvDtype, &QComboBox::activated, this, [this] {
        auto type = EngineKvType(m_kvDtype->currentData().toInt());
        m_model->apply(tr("Change kv_cache_dtype"), [type](Scenario &s) {
            ServingConfig &cfg = serving(s);
            // SGLang names only the two explicit fp8 formats.
            cfg.kvCacheDtype = cfg.engine == Engine::Sglang && (type == EngineKvType::Fp8 || type == EngineKvType::Nvfp4)
                                   ? EngineKvType::Fp8E4m3
                                   : type;
            // TensorRT-LLM names one fp8 format.
            if (cfg.engine == Engine::Trtllm && (type == EngineKvType::Fp8E4m3 || type == EngineKvType::Fp8E5m2))
                cfg.kvCacheDtype = EngineKvType::Fp8;
        });
    });
    add(row(QStringLiteral("kv_cache_dtype"), m_kvDtype, this), {int(Engine::Vllm), int(Engine::Sglang), int(Engine::Trtllm)});
    m_blockSize = new QComboBox(this);
    m_blockSize->setAccessibleName(QStringLiteral("block_size"));
    for (int size : {8, 16, 32, 64, 128})
        m_blockSize->addItem(QString::number(size), size);
    connect(m_blockSize, &QComboBox::activated, this, [this] {
        const int size = m_blockSize->currentData().toInt();
        m_model->apply(tr("Change block_size"), [size](Scenario &s) { serving(s).blockSize = std::uint32_t(size); });
    });
    add(row(QStringLiteral("block_size"), m_blockSize, this), {int(Engine::Vllm)});
    m_eager = new QCheckBox(tr("enforce_eager (no CUDA graphs)"), this);
    connect(m_eager, &QCheckBox::toggled, this, [this](bool on) {
        m_model->apply(tr("Toggle enforce_eager"), [on](Scenario &s) { serving(s).enforceEager = on; });
    });
    add(m_eager, {int(Engine::Vllm)});

    m_fraction = new QDoubleSpinBox(this);
    m_fraction->setRange(0, 1);
    m_fraction->setDecimals(2);
    m_fraction->setSingleStep(0.01);
    m_fraction->setSpecialValueText(tr("default"));
    m_fraction->setAccessibleName(QStringLiteral("mem_fraction_static"));
    connect(m_fraction, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        m_model->apply(tr("Change mem_fraction_static"), [v](Scenario &s) { serving(s).memFractionStatic = v < 0.01 ? 0 : v; });
    });
    add(row(QStringLiteral("mem_fraction_static"), m_fraction, this), {int(Engine::Sglang)});

    m_freeFraction = new QDoubleSpinBox(this);
    m_freeFraction->setRange(0.01, 0.99);
    m_freeFraction->setDecimals(2);
    m_freeFraction->setSingleStep(0.01);
    m_freeFraction->setAccessibleName(QStringLiteral("free_gpu_memory_fraction"));
    connect(m_freeFraction, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        m_model->apply(tr("Change free_gpu_memory_fraction"), [v](Scenario &s) { serving(s).freeGpuMemoryFraction = v; });
    });
    add(row(QStringLiteral("free_gpu_memory_fraction"), m_freeFraction, this), {int(Engine::Trtllm)});
    m_maxBatchSize = spin(QStringLiteral("max_batch_size"), 1, 1 << 20,
                          [](Scenario &s, int v) { serving(s).maxBatchSize = std::uint32_t(v); });
    add(m_maxBatchSize->parentWidget(), {int(Engine::Trtllm)});

    m_nCtx = spin(tr("n_ctx (-c)"), 1, 16 << 20, [](Scenario &s, int v) {
        ServingConfig &cfg = serving(s);
        cfg.nCtx = std::uint32_t(v);
        cfg.nParallel = std::min(cfg.nParallel, cfg.nCtx);
    });
    add(m_nCtx->parentWidget(), {int(Engine::LlamaCpp)});
    m_gpuLayers = spin(tr("n_gpu_layers (-1 = all)"), -1, 100000, [](Scenario &s, int v) { serving(s).nGpuLayers = v; });
    add(m_gpuLayers->parentWidget(), {int(Engine::LlamaCpp)});
    m_cacheTypes = new QComboBox(this);
    m_cacheTypes->setAccessibleName(tr("Cache types"));
    for (EngineKvType type : {EngineKvType::F16, EngineKvType::Q8_0, EngineKvType::Q4_0})
        m_cacheTypes->addItem(QString::fromLatin1(enumName(type)), int(type));
    connect(m_cacheTypes, &QComboBox::activated, this, [this] {
        auto type = EngineKvType(m_cacheTypes->currentData().toInt());
        m_model->apply(tr("Change the cache types"), [type](Scenario &s) {
            ServingConfig &cfg = serving(s);
            cfg.cacheTypeK = cfg.cacheTypeV = type;
            if (type != EngineKvType::F16)
                cfg.flashAttn = true; // a quantized V cache needs flash attention
        });
    });
    add(row(tr("Cache types (-ctk/-ctv)"), m_cacheTypes, this), {int(Engine::LlamaCpp)});
    m_weightType = new QComboBox(this);
    m_weightType->setAccessibleName(tr("GGUF weight type"));
    for (const auto &entry : enumEntries<GgufType>())
        m_weightType->addItem(QString::fromLatin1(entry.name), int(entry.value));
    connect(m_weightType, &QComboBox::activated, this, [this] {
        auto type = GgufType(m_weightType->currentData().toInt());
        m_model->apply(tr("Change the GGUF weight type"), [type](Scenario &s) { serving(s).weightType = type; });
    });
    add(row(tr("GGUF weights"), m_weightType, this), {int(Engine::LlamaCpp), kOllama});

    m_hfCache = new QComboBox(this);
    m_hfCache->setAccessibleName(tr("generate() cache"));
    for (const auto &entry : enumEntries<HfCacheImpl>())
        m_hfCache->addItem(QString::fromLatin1(entry.name), int(entry.value));
    connect(m_hfCache, &QComboBox::activated, this, [this] {
        auto impl = HfCacheImpl(m_hfCache->currentData().toInt());
        m_model->apply(tr("Change the generate() cache"), [impl](Scenario &s) { serving(s).cacheImplementation = impl; });
    });
    add(row(tr("Cache"), m_hfCache, this), {int(Engine::HfGenerate)});

    m_figures = plainText(new QLabel(this));
    m_figures->setAccessibleName(tr("Engine figures"));
    m_figures->setWordWrap(true);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_figures);

    connect(m_model, &ScenarioModel::changed, this, &ServingGroup::refresh);
    refresh();
}

SliderField *ServingGroup::slider(const QString &label, double min, double max, bool log, int key,
                                  void (*set)(Scenario &, double), int decimals)
{
    auto *field = new SliderField(label, min, max, log, decimals, 1, {}, this);
    const QString what = tr("Change %1").arg(QString(label).remove(QLatin1Char('&')).toLower());
    connect(field, &SliderField::valueEdited, this, [this, what, set, key](double value) {
        m_model->apply(what, [set, value](Scenario &s) { set(s, value); }, key);
    });
    return field;
}

QSpinBox *ServingGroup::spin(const QString &label, int min, int max, void (*set)(Scenario &, int))
{
    auto *box = new QSpinBox(this);
    box->setRange(min, max);
    box->setAccessibleName(label);
    box->setKeyboardTracking(false);
    row(label, box, this); // parents the spin box in its labelled row
    const QString what = tr("Change %1").arg(label);
    connect(box, &QSpinBox::valueChanged, this, [this, what, set](int value) {
        m_model->apply(what, [set, value](Scenario &s) { set(s, value); });
    });
    return box;
}

void ServingGroup::refresh()
{
    const Scenario &s = m_model->scenario();
    setVisible(s.task == Task::Inference);
    const int engine = !s.serving ? kNone : s.serving->ollama ? kOllama : int(s.serving->engine);
    {
        const QSignalBlocker block(m_engine);
        m_engine->setCurrentIndex(m_engine->findData(engine));
    }
    for (auto &[widget, engines] : m_engineRows)
        widget->setVisible(std::find(engines.begin(), engines.end(), engine) != engines.end());
    if (!s.serving) {
        m_figures->setText(tr("Without an engine the cache is sized for batch x context (the Inference "
                              "group). Choose an engine to see what it reserves and prints."));
        return;
    }
    const ServingConfig &cfg = *s.serving;
    m_concurrency->setValue(cfg.requests.concurrency);
    if (!cfg.requests.classes.empty()) {
        m_prompt->setValue(cfg.requests.classes[0].promptTokens);
        m_output->setValue(cfg.requests.classes[0].outputTokens);
    }
    m_utilization->setValue(cfg.gpuMemoryUtilization);
    const auto setSpin = [](QSpinBox *box, int value) {
        const QSignalBlocker block(box);
        box->setValue(value);
    };
    setSpin(m_maxModelLen, int(std::min<std::uint32_t>(cfg.maxModelLen, 16u << 20)));
    setSpin(m_maxNumSeqs, int(cfg.maxNumSeqs));
    setSpin(m_batchedTokens, int(cfg.maxNumBatchedTokens));
    setSpin(m_nCtx, int(cfg.nCtx));
    setSpin(m_maxBatchSize, int(cfg.maxBatchSize));
    setSpin(m_gpuLayers, cfg.nGpuLayers);
    for (auto [combo, value] : {std::pair{m_kvDtype, int(cfg.kvCacheDtype)}, std::pair{m_blockSize, int(cfg.blockSize)},
                                std::pair{m_cacheTypes, int(cfg.cacheTypeK)}, std::pair{m_weightType, int(cfg.weightType)},
                                std::pair{m_hfCache, int(cfg.cacheImplementation)}}) {
        const QSignalBlocker block(combo);
        combo->setCurrentIndex(combo->findData(value));
    }
    {
        const QSignalBlocker block(m_eager);
        m_eager->setChecked(cfg.enforceEager);
    }
    {
        const QSignalBlocker block(m_fraction);
        m_fraction->setValue(cfg.memFractionStatic);
    }
    {
        const QSignalBlocker block(m_freeFraction);
        m_freeFraction->setValue(cfg.freeGpuMemoryFraction);
    }
    const Estimate &e = m_model->estimate();
    if (!m_model->estimateError().isEmpty() || !e.serving) {
        m_figures->setText(m_model->estimateError());
        return;
    }
    const ServingFigures &f = *e.serving;
    const Unit unit = m_model->unit();
    QString text = tr("Budget %1 · KV cache %2 = %3 tokens · maximum concurrency %4x at %5 tokens")
                       .arg(bytesText(f.budgetBytes, unit), bytesText(f.kvCacheBytes, unit),
                            QString::fromStdString(groupDigits(f.kvCacheTokens)),
                            QString::number(f.maxConcurrency, 'f', 2),
                            QString::fromStdString(groupDigits(f.maxConcurrencyTokens)));
    if (!f.startsOk && f.maxLenThatFits >= f.maxConcurrencyTokens)
        text += tr(" · does not start: out of memory after the KV cache is allocated");
    else if (!f.startsOk)
        text += tr(" · does not start: the longest sequence that fits is %1 tokens")
                    .arg(QString::fromStdString(groupDigits(f.maxLenThatFits)));
    else if (!f.requestsFit)
        text += tr(" · the requests do not all run at once (%1)").arg(QString::fromLatin1(servingLimitKey(f.limit)));
    m_figures->setText(text);
}

} // namespace headroom
