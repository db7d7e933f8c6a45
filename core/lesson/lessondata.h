// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string_view>

/// The resources/lessons/*.json documents, compiled in by CMake (lessondata.cpp is generated).
namespace headroom::lessondata {
extern const std::size_t count;
extern const std::string_view ids[];       ///< file names without ".json"
extern const std::string_view documents[]; ///< the documents, in the same order
} // namespace headroom::lessondata
