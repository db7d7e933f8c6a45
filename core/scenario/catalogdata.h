// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

/// The resources/*.json catalogs, compiled in by CMake (catalogdata.cpp is generated).
namespace headroom::catalogdata {
extern const std::string_view modelsJson;
extern const std::string_view gpusJson;
} // namespace headroom::catalogdata
