// SPDX-License-Identifier: GPL-3.0-or-later
// The model description a GGUF file's metadata gives (llama.cpp's `{arch}.*` keys, as
// llama_model::load_hparams reads them) and its tensors confirm.
#pragma once

#include "io/gguf.h"
#include "scenario/scenario.h"
#include "serving/serving.h"

#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// What the metadata says of the shape.
struct GgufArch
{
    std::optional<ModelArch> arch; ///< nothing when a part of the shape is not read (see `notes`)
    std::vector<std::string> notes;
};

/// Reads layers, widths, heads, KV heads, head widths, vocabulary (the token embedding's rows),
/// context, experts (routed, shared, dense-first), sliding windows and MLA ranks; the parameter
/// total is the file's own. Architectures with recurrent or per-layer-varying shapes are not
/// read (the note says which key), and the caller keeps its own shape.
GgufArch ggufArchitecture(const GgufModel &model);

/// The file's tensor bytes as llama.cpp places them, for a model of `layers` blocks (the
/// llama.cpp engine uses them instead of the file type's rules).
LlamaFileBytes ggufFileBytes(const GgufModel &model, int layers);

} // namespace headroom
