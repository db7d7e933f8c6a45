// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scenario/scenario.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace headroom {

/// One enum value and its stable name in the v1 format.
template <typename E>
struct EnumEntry
{
    E value;
    const char *name;
};

/// All values of an enum with their format names, in display order.
template <typename E>
std::span<const EnumEntry<E>> enumEntries();

/// The format name of an enum value.
template <typename E>
const char *enumName(E value)
{
    for (const auto &entry : enumEntries<E>())
        if (entry.value == value)
            return entry.name;
    return "?";
}

/// The enum value with this format name, if any.
template <typename E>
std::optional<E> enumFromName(std::string_view name)
{
    for (const auto &entry : enumEntries<E>())
        if (name == entry.name)
            return entry.value;
    return std::nullopt;
}

/// "a, b, c": the allowed names, for error messages.
template <typename E>
std::string enumChoices()
{
    std::string out;
    for (const auto &entry : enumEntries<E>()) {
        if (!out.empty())
            out += ", ";
        out += entry.name;
    }
    return out;
}

} // namespace headroom
