// SPDX-License-Identifier: GPL-3.0-or-later
// Importing a config.json as `model.config` and File > Import do (issue 24: <= 5 ms each): the
// largest shapes the readers take, a Qwen3-Next config with its 48-entry layer_types list, a
// Nemotron-H config with a 1,024-layer hybrid_override_pattern, and the whole Qwen3.6-27B
// config.json (text_config with 64 layer_types, vision_config, the MTP module), from their JSON text.
#include "benchutil.h"
#include "model/hfconfig.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

using namespace headroom;
using nlohmann::json;

int main()
{
    json next = {{"model_type", "qwen3_next"}, {"time_step_limit", {0.0, 1.0}}};
    json types = json::array();
    for (int i = 0; i < 48; ++i)
        types.push_back((i + 1) % 4 ? "linear_attention" : "full_attention");
    next["layer_types"] = types;
    std::string pattern;
    for (int i = 0; i < 1024; ++i)
        pattern += "M-M*-E"[i % 6];
    const json nemotron = {{"model_type", "nemotron_h"}, {"hybrid_override_pattern", pattern},
                           {"n_routed_experts", 128}, {"num_experts_per_tok", 6}};
    const std::string nextText = next.dump(2);
    // Python's json writes the infinite limit as Infinity: the slower path of the reader.
    std::string nemotronText = nemotron.dump(2);
    nemotronText.insert(nemotronText.size() - 2, ",\n  \"time_step_limit\": [0.0, Infinity]");

    std::ifstream qwen35(HEADROOM_SOURCE_DIR "/tests/data/configs/qwen3.6-27b.json", std::ios::binary);
    const std::string qwen35Text((std::istreambuf_iterator<char>(qwen35)), std::istreambuf_iterator<char>());
    if (qwen35Text.empty()) {
        std::fprintf(stderr, "bench_config: no tests/data/configs/qwen3.6-27b.json\n");
        return 1;
    }

    std::uint64_t layers = 0;
    bench::measure("config_import_qwen3_next", 20, 500, [&] { layers += importHfConfig(std::string_view(nextText)).arch.layers; });
    bench::measure("config_import_nemotron_h_1024_layers", 20, 500,
                   [&] { layers += importHfConfig(std::string_view(nemotronText)).arch.layers; });
    bench::measure("config_import_qwen3_6_27b_vision_mtp", 20, 500,
                   [&] { layers += importHfConfig(std::string_view(qwen35Text)).arch.layers; });
    if (layers != 520ull * 48 + 520ull * 1024 + 520ull * 64) {
        std::fprintf(stderr, "bench_config: read %llu layers\n", static_cast<unsigned long long>(layers));
        return 1;
    }
    return 0;
}
