// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace headroom {

/// A scenario made from training configuration files, and a line saying what was read.
struct TrainConfigResult
{
    Scenario scenario;
    QString summary;   ///< "torchtune recipe config: torchtune, Llama 3.1 8B; 1 warning"
    QStringList warnings; ///< memory-relevant keys that could not be expressed
};

/// True for what File > Import training config reads: YAML files, and JSON files that are a
/// TrainingArguments, PEFT adapter, BitsAndBytesConfig or DeepSpeed config.
bool isTrainConfigFile(const QString &path);

/// Reads the files into a scenario: the framework they name with its preset, what they set,
/// the catalog model they name (else the current one) and the current GPUs. Throws
/// std::exception with a message naming the file and key.
TrainConfigResult importTrainConfigFiles(const QStringList &paths, const Scenario &current);

} // namespace headroom
