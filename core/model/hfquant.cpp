// SPDX-License-Identifier: GPL-3.0-or-later
// The storage format of a checkpoint from its quantization_config (at the top of config.json or
// inside text_config): fp8 (per tensor, per row, per 128 x 128 block), MXFP4 and NVFP4 experts or
// matrices, int2/int3/int4/int8 with their group sizes and zero points (GPTQ, AWQ, compressed-tensors,
// torchao, HQQ), bitsandbytes, and the modules left in 16 bit. A method or variant that cannot be
// sized is named in unmodelledFormat: the estimate then warns that it sized bf16 weights.
#include "model/hfconfigreader.h"

#include <algorithm>

namespace headroom::hf {

namespace {

/// Reads the keys of one quantization_config, naming them "quantization_config.<key>".
class QuantReader
{
public:
    QuantReader(const json &q, const std::string &type, std::string path = "quantization_config.")
        : m_q(q), m_type(type), m_path(std::move(path))
    {
    }

    [[noreturn]] void invalid(const std::string &key, const std::string &what) const
    {
        throw HfConfigError("config.json (model_type \"" + m_type + "\"): " + m_path + key + " " + what, m_type, {});
    }
    const json *find(const char *key) const
    {
        const auto it = m_q.find(key);
        return it == m_q.end() || it->is_null() ? nullptr : &*it;
    }
    std::string text(const char *key, const std::string &fallback = {}) const
    {
        const json *value = find(key);
        if (!value)
            return fallback;
        if (!value->is_string())
            invalid(key, "must be a string (got " + quoteJson(*value) + ")");
        // Compared with the formats' own short names, and otherwise shown in a note or in
        // "weights sized as bf16: ... is not modelled": never more than 64 characters of it.
        return quoteText(value->get<std::string>(), 64);
    }
    bool flag(const char *key, bool fallback) const
    {
        const json *value = find(key);
        if (!value)
            return fallback;
        if (!value->is_boolean())
            invalid(key, "must be true or false (got " + quoteJson(*value) + ")");
        return value->get<bool>();
    }
    long long integer(const char *key, long long fallback, long long low, long long high) const
    {
        const json *value = find(key);
        if (!value)
            return fallback;
        if (!value->is_number_integer() || value->get<long long>() < low || value->get<long long>() > high)
            invalid(key, "must be a whole number from " + std::to_string(low) + " to " + std::to_string(high) +
                             " (got " + quoteJson(*value) + ")");
        return value->get<long long>();
    }
    /// A list of module names (ignore, modules_to_not_convert, exclude_modules).
    std::vector<std::string> names(const char *key) const
    {
        std::vector<std::string> out;
        const json *value = find(key);
        if (!value)
            return out;
        if (!value->is_array())
            invalid(key, "must be a list of module names (got " + quoteJson(*value) + ")");
        for (const json &item : *value) {
            if (!item.is_string())
                invalid(key, "must be a list of module names (got " + quoteJson(item) + ")");
            out.push_back(item.get<std::string>());
        }
        return out;
    }

private:
    const json &m_q;
    const std::string &m_type;
    std::string m_path; // where m_q is, for messages ("quantization_config.")
};

bool mentions(const std::vector<std::string> &list, std::initializer_list<const char *> words)
{
    for (const std::string &name : list)
        for (const char *word : words)
            if (name.find(word) != std::string::npos)
                return true;
    return false;
}

bool endsWith(const std::string &name, const char *tail)
{
    const std::string_view t(tail);
    return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
}

/// Whether an ignore-list entry keeps a language-model attention matrix in 16 bit. Entries for
/// the vision tower (its blocks' attn.qkv), the small Gated DeltaNet gates (in_proj_a / _b /
/// _ba), convolutions and norms keep nothing Headroom counts as quantized: the vision tower, the
/// norms and gates are 16-bit in its count already.
bool keepsAttention(const std::string &name)
{
    for (const char *part : {"visual", "vision", "mm_projector", "multi_modal_projector", "patch_embed", "merger",
                             "conv1d", "norm"})
        if (name.find(part) != std::string::npos)
            return false;
    for (const char *gate : {"in_proj_ba", "in_proj_a", "in_proj_b", ".gate", "shared_expert_gate"})
        if (endsWith(name, gate))
            return false;
    for (const char *part : {"attn", "q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj", "in_proj_qkv", "mixer"})
        if (name.find(part) != std::string::npos)
            return true;
    return false;
}

/// Which block matrices the format covers, from the modules it leaves alone: attention kept in
/// 16 bit means only the experts are quantized (gpt-oss, Kimi-K2-Thinking). The lm_head, the
/// embeddings, norms and routers are always 16 bit in Headroom's count.
void applyIgnoreList(const std::vector<std::string> &ignored, const ModelArch &arch, HfImport &import,
                     const char *key)
{
    if (ignored.empty())
        return;
    // Whole layers kept 16-bit ("model.layers.0.", as AWQ exports of DeepSeek list them).
    std::vector<std::string> layers;
    for (const std::string &name : ignored) {
        const std::size_t at = name.find("layers.");
        if (at == std::string::npos)
            continue;
        std::size_t end = at + 7;
        while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])))
            ++end;
        if (end > at + 7 && (end == name.size() || (end + 1 == name.size() && name[end] == '.')))
            layers.push_back(name);
    }
    if (!layers.empty())
        import.notes.push_back(std::string("quantization_config.") + key + " keeps " + std::to_string(layers.size()) +
                               " whole layer(s) in 16 bit (" + quoteText(layers.front(), 40) +
                               (layers.size() > 1 ? ", ..." : "") +
                               "); Headroom sizes them quantized with the others (their weights come out too small).");
    const bool attentionKept = std::any_of(ignored.begin(), ignored.end(), keepsAttention);
    if (attentionKept && arch.moeLayers() > 0) {
        import.storedModules = QuantizedModules::Experts;
        import.notes.push_back(std::string("quantization_config.") + key +
                               " keeps attention in 16 bit: only the experts' matrices are quantized.");
        if (arch.sharedExperts > 0 && mentions(ignored, {"shared_expert"}))
            import.notes.push_back(std::string("quantization_config.") + key +
                                   " also keeps the shared experts in 16 bit; Headroom sizes them quantized "
                                   "with the routed experts (their weights come out about 3/4 too small).");
    } else if (attentionKept) {
        import.unmodelledFormat = std::string("a ") + key + " list that keeps attention in 16 bit";
    } else {
        import.notes.push_back(std::string("quantization_config.") + key +
                               ": the lm_head, embeddings, norms and router gates stay 16-bit.");
    }
}

void readCompressedTensors(const QuantReader &q, const json &config, const ModelArch &arch, HfImport &import)
{
    const json *groups = q.find("config_groups");
    if (!groups || !groups->is_object() || groups->empty())
        q.invalid("config_groups", "must be an object of quantization schemes (got " +
                                       (groups ? quoteJson(*groups) : std::string("nothing")) + ")");
    if (groups->size() > 1) {
        import.unmodelledFormat = "compressed-tensors with " + std::to_string(groups->size()) + " schemes";
        return;
    }
    const json &scheme = groups->begin().value();
    const auto weightsIt = scheme.find("weights");
    if (!scheme.is_object() || weightsIt == scheme.end() || !weightsIt->is_object())
        q.invalid("config_groups", "scheme must have a \"weights\" object");
    const QuantReader w(*weightsIt, import.modelType, "quantization_config.config_groups." + quoteText(groups->begin().key()) + ".weights.");
    const long long bits = w.integer("num_bits", 8, 1, 16);
    const std::string type = w.text("type", "int");
    const std::string strategy = w.text("strategy", "tensor");
    const long long group = w.integer("group_size", 0, 0, 1 << 20);
    const bool symmetric = w.flag("symmetric", true);
    std::string format = q.text("format", "");
    if (const auto it = scheme.find("format"); it != scheme.end() && it->is_string())
        format += " " + it->get<std::string>();
    if (type == "float" && bits == 8) {
        import.storedWeights = DType::FP8;
        import.storedScales = strategy == "block" ? WeightScales::Block : WeightScales::Tensor;
        if (strategy == "channel")
            import.storedGroupSize = -1;
        import.notes.push_back("quantization_config: compressed-tensors fp8 weights (" + strategy + " scales).");
    } else if (bits == 4 && (format.find("mxfp4") != std::string::npos ||
                             w.text("format", "").find("mxfp4") != std::string::npos) &&
               (group == 32 || group == 0)) {
        // mxfp4-pack-quantized: fp4 values with an e8m0 scale per 32 (Kimi K3's experts).
        import.storedWeights = DType::MXFP4;
        import.notes.push_back("quantization_config: compressed-tensors MXFP4 (fp4 values, a shared 8-bit "
                               "exponent per 32).");
    } else if (type == "float" && bits == 4 && strategy == "tensor_group" && group == 16) {
        import.storedWeights = DType::NVFP4;
        import.notes.push_back("quantization_config: compressed-tensors NVFP4 (fp4 values, an fp8 scale per 16, "
                               "an fp32 global scale per tensor).");
    } else if (type == "int" && (bits == 4 || bits == 8) && (strategy == "group" || strategy == "channel")) {
        import.storedWeights = bits == 4 ? DType::INT4 : DType::INT8;
        import.storedGroupSize = strategy == "channel" ? -1 : static_cast<std::int32_t>(group);
        import.storedZeroPoints = !symmetric;
        if (strategy == "group" && group <= 0)
            w.invalid("group_size", "must be set for the group strategy");
        import.notes.push_back("quantization_config: compressed-tensors int" + std::to_string(bits) + " (" + format +
                               ", " + (strategy == "channel" ? std::string("per channel") : "groups of " + std::to_string(group)) +
                               (symmetric ? ", symmetric" : ", with zero points") + ").");
    } else {
        import.unmodelledFormat = "compressed-tensors " + type + std::to_string(bits) + " " + strategy;
        return;
    }
    (void)config;
    applyIgnoreList(q.names("ignore"), arch, import, "ignore");
}

void readGptqAwq(const QuantReader &q, const std::string &method, const ModelArch &arch, HfImport &import)
{
    const long long bits = q.integer("bits", q.integer("w_bit", 4, 1, 64), 1, 64);
    if (bits != 2 && bits != 3 && bits != 4 && bits != 8)
        q.invalid("bits", "must be 2, 3, 4 or 8 for " + method + " (got " + std::to_string(bits) + ")");
    const long long group = q.integer("group_size", q.integer("q_group_size", 128, -1, 1 << 20), -1, 1 << 20);
    if (group == 0)
        q.invalid("group_size", "must be -1 (per channel) or a positive group size");
    // AWQ's packing (AutoAWQ's WQLinear, vLLM's awq: "only 4-bit weight quantization is
    // supported for AWQ") is 4-bit only; a 2- or 3-bit AWQ file has no layout to size.
    if (method == "awq" && (bits == 2 || bits == 3)) {
        import.unmodelledFormat = method + " " + std::to_string(bits) + "-bit";
        return;
    }
    // GPTQ 2- and 3-bit: AutoGPTQ / GPTQModel pack 32 values into `bits` int32 words (qweight
    // [in x bits / 32, out], qzeros [groups, out x bits / 32]), exactly bits / 8 bytes a weight.
    import.storedWeights = bits == 2 ? DType::INT2 : bits == 3 ? DType::INT3 : bits == 4 ? DType::INT4 : DType::INT8;
    import.storedGroupSize = static_cast<std::int32_t>(group);
    // GPTQ and AWQ checkpoints store qzeros beside the fp16 scales (packed at the weights' width).
    import.storedZeroPoints = !(method == "gptq" && q.flag("sym", true) && q.flag("checkpoint_format_v2", false));
    import.notes.push_back("quantization_config: " + method + " " + std::to_string(bits) + "-bit weights, " +
                           (group < 0 ? std::string("one scale per output channel") : "groups of " + std::to_string(group)) +
                           ", fp16 scales and packed zero points.");
    applyIgnoreList(q.names("modules_to_not_convert"), arch, import, "modules_to_not_convert");
}

} // namespace

void readQuantization(const json &outer, const json &text, HfImport &import)
{
    const json *node = nullptr;
    for (const json *where : {&outer, &text})
        for (const char *key : {"quantization_config", "compression_config"})
            if (!node)
                if (const auto it = where->find(key); it != where->end() && !it->is_null())
                    node = &*it;
    if (!node)
        return;
    if (!node->is_object())
        throw HfConfigError("config.json (model_type \"" + import.modelType +
                                "\"): quantization_config must be an object (got " + quoteJson(*node) + ")",
                            import.modelType, {});
    const QuantReader q(*node, import.modelType);
    const ModelArch &arch = import.arch;
    std::string method = q.text("quant_method", "");
    std::transform(method.begin(), method.end(), method.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    // ModelOpt writes quant_algo with no quant_method in hf_quant_config.json ("quantization":
    // {"quant_algo": ...}) and in some config.json exports; vLLM then treats the weights as
    // unquantized, Headroom reads them as ModelOpt's.
    if (method.empty() && (q.find("quant_algo") || q.find("quantization")))
        method = "modelopt";
    if (method == "fp8") {
        import.storedWeights = DType::FP8;
        const json *block = q.find("weight_block_size");
        if (block && block->is_array() && !block->empty())
            import.storedScales = WeightScales::Block;
        import.notes.push_back("quantization_config: fp8 weights" +
                               std::string(import.storedScales == WeightScales::Block
                                               ? " with a fp32 scale per 128 x 128 block" : "") +
                               "; embeddings, lm_head and norms stay 16-bit.");
        applyIgnoreList(q.names("modules_to_not_convert"), arch, import, "modules_to_not_convert");
    } else if (method == "fbgemm_fp8") {
        import.storedWeights = DType::FP8;
        import.storedGroupSize = -1; // FbgemmFp8Linear: one fp32 scale per output row
        import.notes.push_back("quantization_config: fbgemm fp8 weights with a fp32 scale per output row.");
        applyIgnoreList(q.names("modules_to_not_convert"), arch, import, "modules_to_not_convert");
    } else if (method == "mxfp4") {
        import.storedWeights = DType::MXFP4;
        import.storedModules = QuantizedModules::Experts;
        import.notes.push_back("quantization_config: MXFP4 experts (4.25 bits per weight); "
                               "attention, router, embeddings and lm_head stay 16-bit.");
    } else if (method == "bitsandbytes") {
        const bool four = q.flag("load_in_4bit", false);
        const bool eight = q.flag("load_in_8bit", false);
        if (four == eight)
            q.invalid("load_in_4bit", "or load_in_8bit must be true (exactly one)");
        const std::string kind = q.text("bnb_4bit_quant_type", "fp4");
        import.storedWeights = eight ? DType::INT8 : kind == "nf4" ? DType::NF4 : DType::FP4;
        import.notes.push_back(std::string("quantization_config: bitsandbytes ") +
                               (eight ? "8-bit (LLM.int8())" : kind + " 4-bit") + " weights.");
        applyIgnoreList(q.names("llm_int8_skip_modules"), arch, import, "llm_int8_skip_modules");
    } else if (method == "gptq" || method == "awq") {
        readGptqAwq(q, method, arch, import);
    } else if (method == "compressed-tensors") {
        readCompressedTensors(q, outer, arch, import);
    } else if (method == "modelopt") {
        // NVIDIA ModelOpt checkpoints (the hf_quant_config.json content, inlined by Transformers).
        const json *inner = q.find("quantization");
        const QuantReader m(inner && inner->is_object() ? *inner : *node, import.modelType);
        const std::string algo = m.text("quant_algo", "");
        if (algo == "FP8") {
            import.storedWeights = DType::FP8;
        } else if (algo == "NVFP4") {
            import.storedWeights = DType::NVFP4;
        } else {
            import.unmodelledFormat = "modelopt " + (algo.empty() ? std::string("(no quant_algo)") : algo);
            return;
        }
        import.notes.push_back("quantization_config: NVIDIA ModelOpt " + algo + " weights.");
        // hf_quant_config.json says exclude_modules, the newer config.json form ignore.
        if (m.find("exclude_modules"))
            applyIgnoreList(m.names("exclude_modules"), arch, import, "exclude_modules");
        else
            applyIgnoreList(m.names("ignore"), arch, import, "ignore");
    } else if (method == "torchao") {
        const json *type = q.find("quant_type");
        std::string name;
        const json *config = nullptr; // quant_type.default (the serialized AOBaseConfig)
        if (type && type->is_string())
            name = quoteText(type->get<std::string>(), 64);
        else if (type && type->is_object() && type->contains("default") && type->at("default").is_object())
            config = &type->at("default");
        if (config) {
            const QuantReader d(*config, import.modelType, "quantization_config.quant_type.default.");
            name = d.text("_type");
        }
        if (name == "Int4WeightOnlyConfig" || name == "int4_weight_only") {
            import.storedWeights = DType::INT4;
            import.storedGroupSize = 128;
            if (config && config->contains("_data") && config->at("_data").is_object()) {
                const QuantReader data(config->at("_data"), import.modelType,
                                       "quantization_config.quant_type.default._data.");
                import.storedGroupSize = static_cast<std::int32_t>(data.integer("group_size", 128, 1, 1 << 20));
            }
        } else if (name == "Int8WeightOnlyConfig" || name == "int8_weight_only") {
            import.storedWeights = DType::INT8;
        } else if (name == "Float8WeightOnlyConfig" || name == "Float8DynamicActivationFloat8WeightConfig") {
            import.storedWeights = DType::FP8;
            import.storedGroupSize = -1;
        } else {
            import.unmodelledFormat = "torchao " + (name.empty() ? std::string("(no quant_type)") : name);
            return;
        }
        import.notes.push_back("quantization_config: torchao " + name + ".");
    } else if (method == "hqq") {
        const json *cfg = q.find("quant_config");
        const json *params = cfg && cfg->is_object() && cfg->contains("weight_quant_params") ? &(*cfg)["weight_quant_params"] : cfg;
        const QuantReader h(params && params->is_object() ? *params : *node, import.modelType);
        const long long bits = h.integer("nbits", 4, 1, 8);
        if (bits != 4 && bits != 8) {
            import.unmodelledFormat = "hqq " + std::to_string(bits) + "-bit";
            return;
        }
        import.storedWeights = bits == 4 ? DType::INT4 : DType::INT8;
        import.storedGroupSize = static_cast<std::int32_t>(h.integer("group_size", 64, 1, 1 << 20));
        import.notes.push_back("quantization_config: HQQ " + std::to_string(bits) + "-bit, groups of " +
                               std::to_string(import.storedGroupSize) + " with a scale and a zero point each.");
    } else if (!method.empty()) {
        import.unmodelledFormat = method;
    } else {
        q.invalid("quant_method", "is missing: the weight format cannot be known");
    }
}

} // namespace headroom::hf
