// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A restricted reader of Python pickles (protocols 2 to 5, the binary opcodes of the pickle
// module's specification, Lib/pickletools.py): plain containers (dict, list, tuple, set) of
// None, bools, whole numbers up to 64 bits, finite floats and str. It never constructs an
// object: GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID, EXT and the out-of-band
// buffers are refused, and so are the text opcodes of protocols 0 and 1. What
// torch.cuda.memory._snapshot() pickles (_dump_snapshot) is only such containers.

#include "io/inputpolicy.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

namespace headroom {

namespace limits {
/// A pickle file (memory snapshots with their allocation traces reach tens of MB).
inline constexpr std::uint64_t kPickleBytes = 128 * 1024 * 1024;
/// Values of one pickle, each time a shared value is written out counted again.
inline constexpr std::uint64_t kPickleValues = 8'000'000;
} // namespace limits

/// Reads one pickle into JSON: dict -> object (str keys only), list/tuple/set -> array, str ->
/// string, int -> integer, float -> number, None -> null, bool -> bool. Throws InputError keyed
/// "byte N" (the opcode's offset) naming the opcode or the limit.
nlohmann::json readPickle(std::string_view bytes);

} // namespace headroom
