// SPDX-License-Identifier: GPL-3.0-or-later
// Training configuration files (torchtune, LitGPT, Axolotl, LLaMA-Factory, ms-swift and
// Accelerate YAML; TrainingArguments, PEFT, BitsAndBytesConfig and DeepSpeed JSON; torchtitan
// TOML; ms-swift and LLaMA-Factory launch scripts), as --train-config and File > Import training config read them, through to the scenario
// they describe: each input as YAML (PyYAML's reading, with its alias budget), as a .json file
// (Python's json module's reading), as a .toml file (tomlplusplus, under the nesting limit) and as
// a launch script (.sh: the training command's arguments).
#include "fuzzcommon.h"
#include "importers/trainimport.h"
#include "scenario/scenariojson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace headroom;
    for (const char *name : {"config.yaml", "config.json", "config.toml", "config.sh"})
        fuzz::check([&] {
            const TrainImport import = importTrainConfig(fuzz::text(data, size), name);
            scenarioFromJson(mergeImports({import}));
        });
    return 0;
}
