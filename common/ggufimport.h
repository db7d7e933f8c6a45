// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "io/gguf.h"

#include <QString>

namespace headroom {

/// Reads the headers of a GGUF model: one `.gguf` file, or every file of the split set that
/// `path` (any of its `PREFIX-0000N-of-0000M.gguf` files) belongs to, from the same folder. Reads
/// only each file's header (growing the read until the header ends, at most
/// kGgufMaxHeaderBytes), never the tensor data. Throws GgufError naming the file.
GgufModel readGgufModel(const QString &path);

} // namespace headroom
