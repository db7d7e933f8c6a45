// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGroupBox>
#include <utility>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace headroom {

struct Scenario;
class ScenarioModel;
class SliderField;

/// The serving engine and its own settings (shown for inference): vLLM's
/// gpu_memory_utilization, max_model_len, max_num_seqs, KV dtype and block size, SGLang's
/// mem_fraction_static, llama.cpp's n_ctx and n_gpu_layers, generate()'s cache, and the requests
/// (concurrency, prompt and output tokens). Edits go to the model; it shows the model's state.
class ServingGroup : public QGroupBox
{
    Q_OBJECT
public:
    explicit ServingGroup(ScenarioModel *model, QWidget *parent = nullptr);

    QComboBox *engine() const { return m_engine; }
    SliderField *concurrency() const { return m_concurrency; }
    SliderField *promptTokens() const { return m_prompt; }
    SliderField *utilization() const { return m_utilization; }
    QLabel *figures() const { return m_figures; }

private:
    void refresh();
    SliderField *slider(const QString &label, double min, double max, bool log, int key,
                        void (*set)(Scenario &, double), int decimals = 0);
    QSpinBox *spin(const QString &label, int min, int max, void (*set)(Scenario &, int));

    ScenarioModel *m_model;
    QComboBox *m_engine;
    SliderField *m_utilization;
    SliderField *m_concurrency;
    SliderField *m_prompt;
    SliderField *m_output;
    QSpinBox *m_maxModelLen;
    QSpinBox *m_maxNumSeqs;
    QSpinBox *m_batchedTokens;
    QComboBox *m_kvDtype;
    QComboBox *m_blockSize;
    QCheckBox *m_eager;
    QDoubleSpinBox *m_fraction;
    QDoubleSpinBox *m_freeFraction; ///< TensorRT-LLM's free_gpu_memory_fraction
    QSpinBox *m_maxBatchSize;       ///< TensorRT-LLM's max_batch_size
    QSpinBox *m_nCtx;
    QSpinBox *m_gpuLayers;
    QComboBox *m_cacheTypes;
    QComboBox *m_weightType;
    QComboBox *m_hfCache;
    QLabel *m_figures;
    std::vector<std::pair<QWidget *, std::vector<int>>> m_engineRows; ///< rows and the engines showing them
};

} // namespace headroom
