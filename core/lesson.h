// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "catalog.h"
#include "scenario.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One step of a lesson: a title, a short caption and the whole scenario it shows.
struct LessonStep
{
    std::string title;
    std::string caption;
    Scenario scenario; ///< resolved: a "set" step is the previous step with its changes
    bool operator==(const LessonStep &) const = default;
};

/// A lesson (`*.json`, "format": "headroom-lesson"): steps to show one after another.
struct Lesson
{
    std::string title;
    std::vector<LessonStep> steps;
    bool operator==(const Lesson &) const = default;
};

/// Parses a v1 lesson document. Throws ScenarioError naming the key path
/// ("steps[2].set.train.micro_batch") on malformed JSON, unknown keys or a bad scenario.
Lesson parseLesson(std::string_view text, const Catalog &catalog = builtinCatalog());
/// Same, from an already parsed JSON value.
Lesson lessonFromJson(const nlohmann::json &doc, const Catalog &catalog = builtinCatalog());

/// A lesson shipped in resources/lessons/, compiled into the program.
struct BuiltinLesson
{
    std::string_view id;   ///< the file name without ".json" ("ladder")
    std::string_view json; ///< the document
};

/// The shipped lessons, in file-name order.
const std::vector<BuiltinLesson> &builtinLessons();

} // namespace headroom
