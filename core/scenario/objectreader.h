// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the readers of the v1 formats (scenario, model, serving): one JSON object read
// key by key, with the typed field readers they share.

#include "io/inputpolicy.h"
#include "scenario/names.h"
#include "scenario/scenariojson.h"
#include "scenario/units.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace headroom::detail {

/// The longest sequence the scenario format takes (train.seq_len, inference.context, serving).
inline constexpr std::int64_t kMaxTokens = 16 * 1024 * 1024;

/// Reads one JSON object, remembering which keys were asked for so that the rest are reported.
class ObjectReader
{
public:
    using json = nlohmann::json;

    ObjectReader(const json &object, std::string path) : m_object(object), m_path(std::move(path))
    {
        if (!m_object.is_object())
            throw ScenarioError(m_path, "must be an object ({...})");
    }

    std::string keyPath(const std::string &key) const
    {
        return m_path.empty() ? key : m_path + "." + key;
    }

    bool has(const std::string &key)
    {
        m_known.insert(key);
        return m_object.contains(key);
    }

    const json *child(const std::string &key) { return has(key) ? &m_object.at(key) : nullptr; }

    std::int64_t integer(const std::string &key, std::int64_t low, std::int64_t high,
                         std::int64_t fallback)
    {
        const json *value = child(key);
        if (!value)
            return fallback;
        const std::string range = "a whole number from " + groupInt(low) + " to " + groupInt(high);
        if (value->is_number_unsigned()) {
            const auto v = value->get<std::uint64_t>();
            if (v > static_cast<std::uint64_t>(high) || static_cast<std::int64_t>(v) < low)
                throw ScenarioError(keyPath(key), "must be " + range + " (got " + describe(*value) + ")");
            return static_cast<std::int64_t>(v);
        }
        if (value->is_number_integer()) {
            const auto v = value->get<std::int64_t>();
            if (v < low || v > high)
                throw ScenarioError(keyPath(key), "must be " + range + " (got " + describe(*value) + ")");
            return v;
        }
        throw ScenarioError(keyPath(key), "must be " + range + " (got " + describe(*value) + ")");
    }

    double number(const std::string &key, double low, double high, double fallback, bool highOpen)
    {
        const json *value = child(key);
        if (!value)
            return fallback;
        const std::string range = "a number from " + formatDecimal(low) + " to " +
                                  formatDecimal(high) + (highOpen ? " (exclusive)" : "");
        if (!value->is_number())
            throw ScenarioError(keyPath(key), "must be " + range + " (got " + describe(*value) + ")");
        const double v = value->get<double>();
        if (!std::isfinite(v) || v < low || v > high || (highOpen && v >= high))
            throw ScenarioError(keyPath(key), "must be " + range + " (got " + describe(*value) + ")");
        return v;
    }

    bool boolean(const std::string &key, bool fallback)
    {
        const json *value = child(key);
        if (!value)
            return fallback;
        if (!value->is_boolean())
            throw ScenarioError(keyPath(key), "must be true or false (got " + describe(*value) + ")");
        return value->get<bool>();
    }

    std::string text(const std::string &key, const std::string &fallback)
    {
        const json *value = child(key);
        if (!value)
            return fallback;
        if (!value->is_string())
            throw ScenarioError(keyPath(key), "must be a string (got " + describe(*value) + ")");
        return value->get<std::string>();
    }

    template <typename E>
    E choice(const std::string &key, E fallback)
    {
        const json *value = child(key);
        if (!value)
            return fallback;
        if (value->is_string())
            if (auto parsed = enumFromName<E>(value->get<std::string>()))
                return *parsed;
        throw ScenarioError(keyPath(key), "must be one of " + enumChoices<E>() + " (got " +
                                              describe(*value) + ")");
    }

    /// Reports the first key that no reader asked for.
    void finish() const
    {
        for (const auto &item : m_object.items()) {
            if (m_known.count(item.key()))
                continue;
            std::string allowed;
            for (const auto &key : m_known)
                allowed += (allowed.empty() ? "" : ", ") + key;
            throw ScenarioError(keyPath(keyForPath(item.key())),
                                "unknown key (allowed here: " + allowed + ")");
        }
    }

    /// A value for a message: a short prefix, never the whole (possibly huge) input.
    static std::string describe(const json &value) { return quoteJson(value); }

private:
    static std::string groupInt(std::int64_t v)
    {
        return v < 0 ? "-" + groupDigits(static_cast<std::uint64_t>(-v))
                     : groupDigits(static_cast<std::uint64_t>(v));
    }

    const json &m_object;
    std::string m_path;
    std::set<std::string> m_known;
};

/// An int field of a scenario within [low, high].
inline int readInt(ObjectReader &r, const char *key, int low, int high, int fallback)
{
    return static_cast<int>(r.integer(key, low, high, fallback));
}

/// A count (1 to high) of a scenario.
inline std::uint32_t readCount(ObjectReader &r, const char *key, std::int64_t high, std::uint32_t fallback)
{
    return static_cast<std::uint32_t>(r.integer(key, 1, high, fallback));
}

/// "a, b, c" for error messages.
inline std::string knownIds(const std::vector<std::string> &ids)
{
    std::string out;
    for (std::size_t i = 0; i < ids.size(); ++i)
        out += (i ? ", " : "") + ids[i];
    return out;
}

} // namespace headroom::detail
