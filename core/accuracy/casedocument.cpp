// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracy/casedocument.h"

#include "scenario/scenariojson.h"

#include <algorithm>

namespace headroom {

using nlohmann::json;

namespace {

std::string withoutExtension(const std::string &fileName)
{
    const std::size_t slash = fileName.find_last_of("/\\");
    std::string base = slash == std::string::npos ? fileName : fileName.substr(slash + 1);
    if (base.size() > 5 && base.ends_with(".json"))
        base.resize(base.size() - 5);
    return base;
}

} // namespace

const json &CaseReader::required(const char *key) const
{
    const auto it = m_doc.find(key);
    if (it == m_doc.end())
        fail(key, "is required");
    return *it;
}

std::string CaseReader::string(const char *key) const
{
    const json &value = required(key);
    if (!value.is_string())
        fail(key, "must be a string");
    return value.get<std::string>();
}

CaseDocument readCaseDocument(std::string_view text, const std::string &fileName, const char *format,
                              std::initializer_list<const char *> keys)
{
    CaseDocument c;
    try {
        c.doc = parseJsonText(text);
    } catch (const ScenarioError &error) {
        throw ValidationError(fileName, "", error.what());
    }
    if (!c.doc.is_object())
        throw ValidationError(fileName, "", "must be a JSON object");
    CaseReader r(c.doc, fileName);
    for (const auto &item : c.doc.items())
        if (std::find_if(keys.begin(), keys.end(), [&](const char *k) { return item.key() == k; }) == keys.end())
            r.fail(keyForPath(item.key()), "unknown key");
    if (r.string("format") != format)
        r.fail("format", std::string("must be \"") + format + "\"");
    const json &version = r.required("version");
    if (!version.is_number_integer() || version.get<std::int64_t>() != 1)
        r.fail("version", "must be 1");
    c.id = r.string("id");
    if (c.id != withoutExtension(fileName))
        r.fail("id", "must be the file name without .json (got " + quotedText(c.id) + ")");
    const json &scenario = r.required("scenario");
    if (!scenario.is_object())
        r.fail("scenario", "must be an object");
    try {
        c.scenario = scenarioFromJson(scenario);
    } catch (const ScenarioError &error) {
        r.fail(error.key.empty() ? std::string("scenario") : "scenario." + error.key, error.what());
    }
    return c;
}

} // namespace headroom
