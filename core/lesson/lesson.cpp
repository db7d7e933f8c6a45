// SPDX-License-Identifier: GPL-3.0-or-later
#include "lesson/lesson.h"

#include "io/inputpolicy.h"
#include "lesson/lessondata.h"
#include "scenario/scenariojson.h"

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>

namespace headroom {

using nlohmann::json;

namespace {

/// Rejects the first key of `object` not in `allowed`, naming it and what is allowed.
void onlyKeys(const json &object, const std::string &path, std::initializer_list<const char *> allowed)
{
    if (!object.is_object())
        throw ScenarioError(path, "must be an object ({...})");
    for (const auto &item : object.items()) {
        if (std::find_if(allowed.begin(), allowed.end(),
                         [&](const char *key) { return item.key() == key; }) != allowed.end())
            continue;
        std::string names;
        for (const char *key : allowed)
            names += (names.empty() ? "" : ", ") + std::string(key);
        throw ScenarioError((path.empty() ? "" : path + ".") + keyForPath(item.key()),
                            "unknown key (allowed here: " + names + ")");
    }
}

/// A required, non-empty string of at most `maxBytes`.
std::string requiredText(const json &object, const std::string &key, const std::string &path,
                         std::size_t maxBytes = limits::kTitleBytes)
{
    const std::string keyPath = path.empty() ? key : path + "." + key;
    if (!object.contains(key))
        throw ScenarioError(keyPath, "is required");
    const json &value = object.at(key);
    if (!value.is_string() || value.get<std::string>().empty())
        throw ScenarioError(keyPath, "must be a non-empty string");
    if (value.get_ref<const std::string &>().size() > maxBytes)
        throw ScenarioError(keyPath, "at most " + std::to_string(maxBytes) + " bytes (got " +
                                         std::to_string(value.get_ref<const std::string &>().size()) +
                                         ")");
    return value.get<std::string>();
}

/// Re-throws a scenario error with the key path inside the lesson.
[[noreturn]] void rethrowInside(const ScenarioError &error, const std::string &path)
{
    throw ScenarioError(error.key.empty() ? path : path + "." + error.key, error.detail);
}

} // namespace

Lesson lessonFromJson(const json &doc, const Catalog &catalog)
{
    onlyKeys(doc, "", {"format", "version", "title", "axis", "comparison", "steps"});
    if (!doc.contains("format") || doc.at("format") != "headroom-lesson")
        throw ScenarioError("format", "must be \"headroom-lesson\"");
    if (!doc.contains("version") || doc.at("version") != 1)
        throw ScenarioError("version", "must be 1 (this Headroom reads version 1)");
    Lesson lesson;
    lesson.title = requiredText(doc, "title", "");
    if (doc.contains("axis")) {
        const json &axis = doc.at("axis");
        if (axis == "shared")
            lesson.axis = LessonAxis::Shared;
        else if (axis == "per-step")
            lesson.axis = LessonAxis::PerStep;
        else
            throw ScenarioError("axis", "must be \"shared\" or \"per-step\" (got " +
                                            quoteJson(axis) + ")");
    }
    if (doc.contains("comparison")) {
        if (!doc.at("comparison").is_boolean())
            throw ScenarioError("comparison", "must be true or false (got " +
                                                  quoteJson(doc.at("comparison")) + ")");
        lesson.comparison = doc.at("comparison").get<bool>();
    }
    if (!doc.contains("steps") || !doc.at("steps").is_array() || doc.at("steps").empty())
        throw ScenarioError("steps", "must be a non-empty list of steps");
    if (doc.at("steps").size() > limits::kLessonSteps)
        throw ScenarioError("steps", "at most " + std::to_string(limits::kLessonSteps) +
                                         " steps (the lesson has " +
                                         std::to_string(doc.at("steps").size()) + ")");

    json document; // the scenario document of the previous step
    const json &steps = doc.at("steps");
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const std::string path = "steps[" + std::to_string(i) + "]";
        const json &node = steps[i];
        onlyKeys(node, path, {"title", "caption", "scenario", "set"});
        LessonStep step;
        step.title = requiredText(node, "title", path);
        step.caption = requiredText(node, "caption", path, limits::kCaptionBytes);
        checkCaption(step.caption, path + ".caption");
        const bool whole = node.contains("scenario"), change = node.contains("set");
        if (whole == change)
            throw ScenarioError(path, "needs either \"scenario\" (a whole scenario) or \"set\" "
                                      "(changes to the previous step), not both or neither");
        if (change && i == 0)
            throw ScenarioError(path + ".set", "the first step needs a whole \"scenario\"");
        std::string origin = path + ".scenario";
        if (whole) {
            document = node.at("scenario");
        } else {
            const json &set = node.at("set");
            if (!set.is_object() || set.empty())
                throw ScenarioError(path + ".set", "must be an object of \"key.path\": value changes");
            // The previous step's name described the previous step.
            if (document.is_object())
                document.erase("name");
            for (const auto &item : set.items()) {
                // "a=b" would be read as the path "a" set to "b=...": name the key as written.
                if (item.key().find('=') != std::string::npos)
                    throw ScenarioError(path + ".set." + keyForPath(item.key()),
                                        "a key path cannot contain '='");
                if (item.key() == "target_gpu" || item.key() == "gpus" || item.key().rfind("gpus.", 0) == 0 ||
                    item.key().rfind("gpus[", 0) == 0)
                    step.choosesGpu = true;
                try {
                    applyOverride(document, item.key() + "=" + item.value().dump());
                } catch (const ScenarioError &error) {
                    rethrowInside(error, path + ".set");
                }
            }
            origin = path + ".set";
        }
        // A target_gpu of this step's or of the steps it changes: the lesson is about that GPU.
        if (document.is_object() && document.contains("target_gpu"))
            step.choosesGpu = true;
        try {
            step.scenario = scenarioFromJson(document, catalog);
        } catch (const ScenarioError &error) {
            rethrowInside(error, origin);
        }
        lesson.steps.push_back(std::move(step));
    }
    return lesson;
}

Lesson parseLesson(std::string_view text, const Catalog &catalog)
{
    return lessonFromJson(parseJsonText(text), catalog);
}

json lessonToJson(const Lesson &lesson)
{
    json steps = json::array();
    for (const LessonStep &step : lesson.steps)
        steps.push_back({{"title", step.title}, {"caption", step.caption}, {"scenario", scenarioToJson(step.scenario)}});
    json doc = {{"format", "headroom-lesson"}, {"version", 1}, {"title", lesson.title}};
    if (lesson.axis == LessonAxis::PerStep)
        doc["axis"] = "per-step";
    if (lesson.comparison)
        doc["comparison"] = true;
    doc["steps"] = steps;
    return doc;
}

namespace {

/// The bytes or count a placeholder stands for; false when the name is unknown.
bool placeholderValue(std::string_view name, const Estimate *estimate, std::uint64_t &value, bool &count)
{
    count = false;
    const auto pick = [&](std::uint64_t bytes) {
        value = estimate ? bytes : 0;
        return true;
    };
    const Estimate empty;
    const Estimate &e = estimate ? *estimate : empty;
    if (name == "peak")
        return pick(e.peak.deviceBytes);
    if (name == "allocated")
        return pick(e.peak.allocatedBytes);
    if (name == "reserved")
        return pick(e.peak.reservedBytes);
    if (name == "host")
        return pick(e.hostBytes);
    if (name == "params" || name == "trainable") {
        count = true;
        return pick(name == "params" ? e.totalParams : e.trainableParams);
    }
    for (int i = 0; i < kConsumerCount; ++i)
        if (name == consumerKey(ConsumerId(i)))
            return pick(e.bytes(ConsumerId(i)));
    return false;
}

/// Walks a caption: literal text to `text`, each placeholder's name to `field`. Throws
/// ScenarioError at `path` for an unclosed brace.
template <typename Text, typename Field>
void walkCaption(std::string_view caption, const std::string &path, Text text, Field field)
{
    for (std::size_t i = 0; i < caption.size(); ++i) {
        const char c = caption[i];
        if ((c == '{' || c == '}') && i + 1 < caption.size() && caption[i + 1] == c) {
            text(c);
            ++i;
            continue;
        }
        if (c == '}')
            throw ScenarioError(path, "a lone '}' (write }} for a brace)");
        if (c != '{') {
            text(c);
            continue;
        }
        const auto close = caption.find('}', i);
        if (close == std::string_view::npos)
            throw ScenarioError(path, "a '{' without its '}' (write {{ for a brace)");
        field(caption.substr(i + 1, close - i - 1));
        i = close;
    }
}

std::string placeholderNames()
{
    std::string names = "peak, allocated, reserved, host, params, trainable";
    for (int i = 0; i < kConsumerCount; ++i)
        names += std::string(", ") + consumerKey(ConsumerId(i));
    return names;
}

} // namespace

void checkCaption(std::string_view caption, const std::string &path)
{
    walkCaption(caption, path, [](char) {}, [&](std::string_view name) {
        std::uint64_t value = 0;
        bool count = false;
        if (!placeholderValue(name, nullptr, value, count))
            throw ScenarioError(path, "unknown placeholder {" + std::string(name) + "} (known: " +
                                          placeholderNames() + ")");
    });
}

std::string expandCaption(std::string_view caption, const Estimate &estimate, Unit unit)
{
    std::string out;
    walkCaption(caption, "caption", [&](char c) { out += c; }, [&](std::string_view name) {
        std::uint64_t value = 0;
        bool count = false;
        if (!placeholderValue(name, &estimate, value, count))
            out += "{" + std::string(name) + "}";
        else
            out += count ? groupDigits(value) : formatBytes(value, unit);
    });
    return out;
}

std::uint64_t lessonPeakBytes(const Lesson &lesson, const Catalog &catalog)
{
    std::uint64_t largest = 0;
    for (const LessonStep &step : lesson.steps) {
        try {
            largest = std::max(largest, estimate(step.scenario, Detail::BytesOnly, catalog).peak.deviceBytes);
        } catch (const std::exception &) {
            // A step beyond range shows its error; the others keep one axis.
        }
    }
    return largest;
}

std::uint64_t lessonAxisBytes(const Lesson &lesson, const Catalog &catalog)
{
    return lesson.axis == LessonAxis::Shared ? lessonPeakBytes(lesson, catalog) : 0;
}

const std::vector<BuiltinLesson> &builtinLessons()
{
    static const std::vector<BuiltinLesson> lessons = [] {
        std::vector<BuiltinLesson> out;
        for (std::size_t i = 0; i < lessondata::count; ++i)
            out.push_back({lessondata::ids[i], lessondata::documents[i]});
        std::sort(out.begin(), out.end(),
                  [](const BuiltinLesson &a, const BuiltinLesson &b) { return a.id < b.id; });
        return out;
    }();
    return lessons;
}

} // namespace headroom
