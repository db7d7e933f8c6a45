// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/catalog.h"
#include "estimate/estimate.h"
#include "scenario/scenario.h"
#include "scenario/units.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One step of a lesson: a title, a short caption and the whole scenario it shows. The caption
/// may quote the step's own numbers through placeholders (see expandCaption).
struct LessonStep
{
    std::string title;
    std::string caption;
    Scenario scenario; ///< resolved: a "set" step is the previous step with its changes
    /// The step is about a GPU: its scenario (whole, or the one its `set` changes) names
    /// `target_gpu`, or its `set` changes `gpus`. Other steps keep the user's target GPU.
    bool choosesGpu = false;
    bool operator==(const LessonStep &) const = default;
};

/// How a lesson's steps share the value axis ("axis" in the document).
enum class LessonAxis {
    Shared,  ///< one axis, the largest step's: the point is the shrink (the default)
    PerStep, ///< each step on its own axis: the point is each step's own split
};

/// A lesson (`*.json`, "format": "headroom-lesson"): steps to show one after another.
struct Lesson
{
    std::string title;
    std::vector<LessonStep> steps;
    LessonAxis axis = LessonAxis::Shared;
    bool comparison = false; ///< a closing slide compares every step's peak
    bool operator==(const Lesson &) const = default;
};

/// Parses a v1 lesson document. Throws ScenarioError naming the key path
/// ("steps[2].set.train.micro_batch") on malformed JSON, unknown keys, a bad scenario or an
/// unknown caption placeholder. A "set" step does not inherit the scenario `name` of the step
/// it changes (the name described that step), unless it sets one.
Lesson parseLesson(std::string_view text, const Catalog &catalog = builtinCatalog());
/// Same, from an already parsed JSON value.
Lesson lessonFromJson(const nlohmann::json &doc, const Catalog &catalog = builtinCatalog());

/// The v1 document of a lesson, every step a whole scenario (parses back to an equal Lesson).
nlohmann::json lessonToJson(const Lesson &lesson);

/// A caption with its placeholders replaced by the estimate, in `unit`: {peak} (what nvidia-smi
/// shows), {allocated}, {reserved}, {host} (CPU RAM), one per consumer id ({weights},
/// {optimizer_state}, {activations}, ...; 0 B when absent), {params} and {trainable} (counts).
/// "{{" and "}}" stand for braces. The narration can never disagree with the chart.
std::string expandCaption(std::string_view caption, const Estimate &estimate, Unit unit);
/// Throws ScenarioError at `path` when a caption names an unknown placeholder or leaves one open.
void checkCaption(std::string_view caption, const std::string &path);

/// The largest device peak over the lesson's steps: one y-axis for every step, so the ladder
/// visibly shrinks (0 when no step can be estimated).
std::uint64_t lessonPeakBytes(const Lesson &lesson, const Catalog &catalog = builtinCatalog());

/// The axis minimum a step of the lesson is drawn with: lessonPeakBytes for a shared axis, 0
/// (the step's own axis) for a per-step one.
std::uint64_t lessonAxisBytes(const Lesson &lesson, const Catalog &catalog = builtinCatalog());

/// A lesson shipped in resources/lessons/, compiled into the program.
struct BuiltinLesson
{
    std::string_view id;   ///< the file name without ".json" ("ladder")
    std::string_view json; ///< the document
};

/// The shipped lessons, in file-name order.
const std::vector<BuiltinLesson> &builtinLessons();

} // namespace headroom
