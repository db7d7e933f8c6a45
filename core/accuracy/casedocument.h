// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the validation readers: what a measured-peak case and a serving-log case share.

#include "scenario/scenario.h"
#include "accuracy/validation.h"

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace headroom {

/// Reads the keys of one case document, each error naming the file and the key.
class CaseReader
{
public:
    CaseReader(const nlohmann::json &doc, const std::string &fileName) : m_doc(doc), m_file(fileName) {}

    [[noreturn]] void fail(const std::string &key, const std::string &message) const
    {
        throw ValidationError(m_file, key, message);
    }
    /// The value at `key`; an error when it is missing.
    const nlohmann::json &required(const char *key) const;
    /// The string at `key`; an error when it is missing or not a string.
    std::string string(const char *key) const;

private:
    const nlohmann::json &m_doc;
    const std::string &m_file;
};

/// The start every case document has, checked: a JSON object with only `keys`, "format" equal
/// to `format`, "version" 1, an "id" equal to the file name without .json, and a "scenario".
struct CaseDocument
{
    nlohmann::json doc;
    std::string id;
    Scenario scenario;
};
CaseDocument readCaseDocument(std::string_view text, const std::string &fileName, const char *format,
                              std::initializer_list<const char *> keys);

} // namespace headroom
