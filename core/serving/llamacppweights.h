// SPDX-License-Identifier: GPL-3.0-or-later
// llama.cpp's model tensors for a model description and a file type: the tensors
// llama_model::load_tensors creates (src/llama-model.cpp, LLM_TN names), each typed as
// llama-quantize types it (src/llama-quant.cpp `llama_tensor_get_type`, `llama_tensor_get_type_impl`,
// `tensor_type_fallback`, `llama_ftype_get_default_type`), in ggml's block sizes.
#pragma once

#include "model/architecture.h"
#include "model/ggmltypes.h"
#include "scenario/scenario.h"
#include "serving/serving.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace headroom {

/// What one tensor is, for the quantizer's rules (tensor_get_category).
enum class LlamaTensorRole {
    TokenEmbd, Output, AttnQ, AttnK, AttnV, AttnQkv, AttnKvB, AttnOutput, FfnGate, FfnUp, FfnDown,
    Other,       ///< a quantizable matrix of no category (MLA's q_a/q_b/kv_a, linear-attention mixers)
    Small,       ///< norms, biases, routers (ffn_gate_inp): never quantized, f32
};

/// One tensor of the model as llama.cpp creates it.
struct LlamaTensor
{
    LlamaTensorRole role = LlamaTensorRole::Other;
    int layer = -1;            ///< blk.N, -1 outside the blocks
    bool experts = false;      ///< ffn_*_exps: one 3-D tensor holding every routed expert
    const char *name = "";     ///< the LLM_TN name without "blk.N." ("ffn_down_exps.weight")
    std::uint64_t ne0 = 0;     ///< row length (the input features)
    std::uint64_t rows = 0;    ///< ne1 x ne2 x ne3
    GgmlType type;
    std::uint64_t bytes = 0;
};

/// The model's weights as llama.cpp holds them.
struct LlamaWeights
{
    std::vector<LlamaTensor> tensors;
    std::vector<std::uint64_t> layerBytes;   ///< per block
    std::vector<std::uint64_t> expertBytes;  ///< per block: the ffn_*_exps tensors (part of layerBytes)
    std::uint64_t outputBytes = 0;           ///< output.weight and output_norm: the output layer
    std::uint64_t embeddingBytes = 0;        ///< token_embd: always in CPU RAM
    std::uint64_t totalBytes = 0;
    std::map<std::string, std::uint64_t> bytesByType;
    std::vector<std::string> notes;
};

/// The tensors of `m` typed for `type` (llama-quantize's rules, without an importance matrix
/// except for the file types that need one: IQ1_*, IQ2_*, IQ3_XXS).
LlamaWeights llamaWeights(const ModelArch &m, const ParamCounts &params, GgufType type);

} // namespace headroom
