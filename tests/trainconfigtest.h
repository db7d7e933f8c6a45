// SPDX-License-Identifier: GPL-3.0-or-later
// Shared helpers for the training-config tests: a value at a dotted path of a scenario document,
// and the message a config is refused with.
#pragma once

#include "importers/trainimport.h"

#include <nlohmann/json.hpp>
#include <string>

namespace headroom::test {

/// The value at a dotted path of a scenario document ("train.micro_batch"), or null.
inline nlohmann::json at(const nlohmann::json &doc, const std::string &path)
{
    const nlohmann::json *node = &doc;
    std::size_t start = 0;
    while (true) {
        const auto dot = path.find('.', start);
        const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
        if (!node->is_object() || !node->contains(part))
            return nullptr;
        node = &(*node)[part];
        if (dot == std::string::npos)
            return *node;
        start = dot + 1;
    }
}

/// The message importTrainConfig refuses the text with; empty when it reads it.
inline std::string refusal(const std::string &text, const std::string &file)
{
    try {
        importTrainConfig(text, file);
    } catch (const TrainConfigError &error) {
        return error.what();
    }
    return {};
}

} // namespace headroom::test
