// SPDX-License-Identifier: GPL-3.0-or-later
// What every fuzz target checks: a reader either returns or throws one of the project's own
// errors, with a bounded message; anything else (a library exception such as nlohmann's
// type_error, std::bad_alloc, a crash, a sanitizer report) is a finding.
#pragma once

#include "accuracy/validation.h"
#include "scenario/checked.h"
#include "model/hfconfig.h"
#include "importers/trainimport.h"
#include "io/inputpolicy.h"
#include "io/safetensors.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

namespace headroom::fuzz {

/// The longest error message a reader may build (messages quote short prefixes only).
inline constexpr std::size_t kMaxMessageBytes = 4096;

/// The input as text.
inline std::string_view text(const std::uint8_t *data, std::size_t size)
{
    return {reinterpret_cast<const char *>(data), size};
}

/// Aborts (a finding) unless `error` is one the readers are meant to throw, with a short message.
inline void expectReaderError(const std::exception &error)
{
    const bool ours = dynamic_cast<const InputError *>(&error) ||
                      dynamic_cast<const HfConfigError *>(&error) ||
                      dynamic_cast<const SafetensorsError *>(&error) ||
                      dynamic_cast<const OverflowError *>(&error) ||
                      dynamic_cast<const TrainConfigError *>(&error) ||
                      dynamic_cast<const ValidationError *>(&error);
    const std::string_view message = error.what();
    if (!ours || message.size() > kMaxMessageBytes) {
        std::fprintf(stderr, "unexpected %s error (%zu bytes): %.300s\n",
                     ours ? "long" : "foreign", message.size(), error.what());
        std::abort();
    }
}

/// Runs `read`, checking what it throws.
template <typename Read>
void check(Read read)
{
    try {
        read();
    } catch (const std::exception &error) {
        expectReaderError(error);
    }
}

} // namespace headroom::fuzz
