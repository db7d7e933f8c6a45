// SPDX-License-Identifier: GPL-3.0-or-later
// Training configuration files (torchtune, LitGPT, Axolotl and Accelerate YAML; TrainingArguments,
// PEFT, BitsAndBytesConfig and DeepSpeed JSON), as --train-config and File > Import training
// config read them, through to the scenario they describe.
#include "fuzzcommon.h"
#include "importers/trainimport.h"
#include "scenario/scenariojson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    fuzz::check([&] {
        const TrainImport import = importTrainConfig(fuzz::text(data, size), "config.yaml");
        scenarioFromJson(mergeImports({import}));
    });
    return 0;
}
