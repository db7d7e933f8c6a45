#!/usr/bin/env python3
"""Check resources/models.json and resources/gpus.json.

For every model, derive the parameter count with the estimator's formula and
compare it with published_params; check that the required model, GPU and machine
ids are present and that each entry has the expected keys and values (a machine
names a catalog GPU, a sane GPU count and RAM, and a source).
Exit status 0 when everything passes, 1 otherwise. Standard library only.

Usage: python3 scripts/check_catalog.py [models.json] [gpus.json]
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODEL_KEYS = [
    "id", "name", "hf_id", "family", "layers", "hidden", "intermediate", "heads",
    "kv_heads", "head_dim", "vocab", "tied_embeddings", "mlp", "norm", "bias",
    "position", "max_positions", "experts", "experts_per_token", "sliding_window",
    "norms_per_layer", "published_params", "source",
]
# Keys a model may carry besides the required ones (mixtures of experts, latent attention,
# hybrid attention, released checkpoint formats, totals published in rounded form).
OPTIONAL_KEYS = [
    "activation", "expert_intermediate", "shared_experts", "shared_expert_intermediate",
    "dense_layers", "moe_every", "global_every", "qk_norm", "attention_sinks", "router_bias",
    "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
    "stored_weights", "stored_scales", "stored_modules", "published_total",
    "mtp_layers", "mtp_params",
    # Hybrid layers (the scenario's model keys): each layer's mixer and MLP, the linear mixers' shape.
    "layer_kinds", "layer_mlps", "linear_heads", "linear_key_heads", "linear_key_dim", "linear_value_dim",
    "linear_groups", "linear_conv_kernel", "linear_conv_bias", "linear_proj_bias", "linear_dt_rank",
]
LAYER_KINDS = ("full_attention", "sliding_attention", "chunked_attention", "mla", "kda", "mamba2", "mamba1", "none")
LAYER_MLPS = ("dense", "moe", "none")
ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "gelu_new", "relu", "relu2")
INT_KEYS = [
    "layers", "hidden", "intermediate", "heads", "kv_heads", "head_dim", "vocab",
    "max_positions", "experts", "experts_per_token", "sliding_window",
    "norms_per_layer", "published_params",
]
ENUMS = {
    "mlp": ("gated", "standard"),
    "norm": ("rmsnorm", "layernorm"),
    "bias": ("none", "qkv", "all"),
    "position": ("rope", "alibi", "learned"),
}
REQUIRED_MODELS = [
    "gpt2", "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b",
    "llama-3.2-1b", "llama-3.2-3b", "mistral-7b", "qwen2.5-7b", "phi-3-mini",
    "qwen3-8b", "qwen3-30b-a3b", "deepseek-v3", "gpt-oss-20b", "gpt-oss-120b", "gemma-3-27b",
    "llama-4-scout", "phi-4", "olmo-2-7b",
]
KNOWN_TOTALS = {
    "llama-2-7b": 6738415616,
    "llama-3-8b": 8030261248,
    "gpt2": 124439808,
    "mistral-7b": 7241732096,
}
GPU_KEYS = ["id", "name", "marketing_gb", "capacity_mib", "vendor", "class", "source"]
GPU_CLASSES = ("consumer", "workstation", "datacenter", "apple")
REQUIRED_GPUS = [
    "t4", "rtx-3060-12gb", "rtx-3090", "rtx-4090", "l4", "a10g", "a100-40gb",
    "a100-80gb", "h100-80gb", "h200", "l40s", "mi300x",
]
KNOWN_CAPACITY = {
    "rtx-4090": 24564, "h200": 143771, "a100-80gb": 81920, "h100-80gb": 81559, "t4": 15360,
}
MACHINE_KEYS = ["id", "name", "gpu", "gpus", "ram_gib", "source"]
# System RAM in GiB as each machine's source prints it (NVIDIA user guides, cloud instance tables).
KNOWN_MACHINE_RAM = {
    "dgx-a100-640gb": 2048, "dgx-h100": 2048, "dgx-h200": 2048, "dgx-b200": 2048,
    "azure-nd-mi300x-v5": 1850, "aws-p4d-24xlarge": 1152, "aws-p5-48xlarge": 2048,
    "gcp-a3-highgpu-8g": 1872,
}


def linear_mixers(m):
    """Parameters of one linear-attention layer of each kind (weights, convolutions, per-head scalars).

    Kimi Delta Attention (fla's KimiDeltaAttention: q, k, v, the low-rank decay f_a/f_b and output
    gate g_a/g_b of rank head_v_dim, beta, o; short convolutions on q, k, v; A_log per head, dt_bias
    per key channel, the gated norm) and Mamba-2 (transformers' NemotronHMamba2Mixer: in_proj to z, x,
    B, C per group and dt per head; conv1d over x, B and C; dt_bias, A_log and D per head; the gated
    norm over the inner width; out_proj), and Mamba-1 below."""
    g = m.get
    h = m["hidden"]
    heads = g("linear_heads", 0)
    key_heads = g("linear_key_heads", 0) or heads
    key_dim, value_dim, kernel = g("linear_key_dim", 0), g("linear_value_dim", 0), g("linear_conv_kernel", 0)
    out = {}
    key, value = key_heads * key_dim, heads * value_dim
    out["kda"] = (2 * h * key + h * value + h * value_dim + value_dim * key + h * heads + h * value_dim
                  + value_dim * value + value * h
                  + (2 * key + value) * kernel + heads + key + value_dim)
    groups = g("linear_groups", 1)
    key, value = groups * key_dim, heads * value_dim
    conv = value + 2 * key
    mamba = h * (2 * value + 2 * key + heads) + value * h
    mamba += conv * kernel + (conv if g("linear_conv_bias", True) else 0) + 3 * heads + value
    if g("linear_proj_bias", False):
        mamba += 2 * value + 2 * key + heads + h
    out["mamba2"] = mamba
    # Mamba-1 (transformers' JambaMambaMixer): d_inner = linear_heads channels of width 1, in_proj
    # to x and z, conv1d per channel, x_proj to dt (dt_rank) and B, C (d_state each), dt_proj
    # with its bias, A_log (d_inner x d_state), D, the dt / B / C RMSNorms, out_proj.
    inner, state, rank = heads * value_dim, key_dim, g("linear_dt_rank", 0)
    mamba1 = h * 2 * inner + inner * (rank + 2 * state) + rank * inner + inner * h
    mamba1 += inner * kernel + (inner if g("linear_conv_bias", True) else 0) + inner + inner * state + inner
    mamba1 += rank + 2 * state
    if g("linear_proj_bias", False):
        mamba1 += 2 * inner + h
    out["mamba1"] = mamba1
    return out


def derived_params(m):
    """The parameter count, written out independently of the estimator's C++, term by term.

    Returns (total, active): active leaves out the routed experts a token does not use."""
    g = m.get
    h, heads, kv, hd, inter, layers = (m["hidden"], m["heads"], m["kv_heads"], m["head_dim"],
                                        m["intermediate"], m["layers"])
    gated = m["mlp"] == "gated"
    norm_size = 2 * h if m["norm"] == "layernorm" else h
    # Attention of one layer.
    if g("kv_lora_rank", 0):
        qk = g("qk_nope_head_dim") + g("qk_rope_head_dim")
        q = h * g("q_lora_rank") + g("q_lora_rank") * heads * qk if g("q_lora_rank", 0) else h * heads * qk
        attn = (q + h * (g("kv_lora_rank") + g("qk_rope_head_dim"))
                + g("kv_lora_rank") * heads * (g("qk_nope_head_dim") + g("v_head_dim"))
                + heads * g("v_head_dim") * h)
        attn += g("kv_lora_rank") + g("q_lora_rank", 0)  # their RMSNorms
        q_width, kv_width = heads * qk, 0
    else:
        q_width, kv_width = heads * hd, kv * hd
        attn = 2 * h * q_width + 2 * h * kv_width
    if m["bias"] in ("qkv", "all"):
        attn += q_width + 2 * kv_width
    if m["bias"] == "all":
        attn += h  # o_proj bias
    if g("qk_norm") == "head":
        attn += 2 * hd
    elif g("qk_norm") == "full":
        attn += q_width + kv_width
    if g("attention_sinks"):
        attn += heads
    mixer = {"full_attention": attn, "sliding_attention": attn, "chunked_attention": attn, "mla": attn, "none": 0}
    if "layer_kinds" in m:
        mixer.update(linear_mixers(m))
        if "mla" in m["layer_kinds"] and not g("kv_lora_rank", 0):
            raise KeyError("mla layers without kv_lora_rank")

    def mlp(width):
        weights = (3 if gated else 2) * h * width
        bias = ((2 * width if gated else width) + h) if m["bias"] == "all" else 0
        return weights + bias

    experts = m["experts"]
    moe_layers = 0
    if experts > 1:
        dense_first, every = g("dense_layers", 0), g("moe_every", 1)
        moe_layers = sum(1 for i in range(layers) if i >= dense_first and (i + 1) % every == 0)
    routed = g("expert_intermediate", 0) or inter
    shared = g("shared_expert_intermediate", 0) or routed
    moe = experts * mlp(routed) + g("shared_experts", 0) * mlp(shared) + h * experts
    if m["bias"] == "all" or g("router_bias"):
        moe += experts
    kinds, mlps = g("layer_kinds"), g("layer_mlps")
    if kinds or mlps:
        # Each layer: its mixer, its MLP, and its norms (one per sub-block it has).
        per_mlp = {"dense": mlp(inter), "moe": moe, "none": 0}
        total = 0
        moe_layers = 0
        for i in range(layers):
            kind = kinds[i % len(kinds)] if kinds else ("mla" if g("kv_lora_rank", 0) else "full_attention")
            if mlps:
                layer_mlp = mlps[i % len(mlps)]
            else:
                dense_first, every = g("dense_layers", 0), g("moe_every", 1)
                layer_mlp = "moe" if experts > 1 and i >= dense_first and (i + 1) % every == 0 else "dense"
            moe_layers += layer_mlp == "moe"
            norms = m["norms_per_layer"] if kind != "none" and layer_mlp != "none" else max(1, m["norms_per_layer"] // 2)
            total += mixer[kind] + per_mlp[layer_mlp] + norms * norm_size
    else:
        attn += m["norms_per_layer"] * norm_size
        total = layers * attn + (layers - moe_layers) * mlp(inter) + moe_layers * moe
    total += m["vocab"] * h                                   # embeddings
    total += 0 if m["tied_embeddings"] else m["vocab"] * h    # lm_head, no bias
    total += m["max_positions"] * h if m["position"] == "learned" else 0
    total += norm_size                                        # final norm
    active = total - moe_layers * (experts - m["experts_per_token"]) * mlp(routed)
    return total, active


def load(path, fmt, listkey, errors):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        errors.append(f"{path}: cannot load: {exc}")
        return []
    if doc.get("format") != fmt or doc.get("version") != 1:
        errors.append(f"{path}: expected format {fmt!r} version 1")
    items = doc.get(listkey)
    if not isinstance(items, list):
        errors.append(f"{path}: {listkey!r} is not a list")
        return []
    return items


def check_models(path, errors):
    models = load(path, "headroom-model-catalog", "models", errors)
    seen = set()
    for i, m in enumerate(models):
        mid = m.get("id", f"#{i}")
        missing = [k for k in MODEL_KEYS if k not in m]
        extra = [k for k in m if k not in MODEL_KEYS and k not in OPTIONAL_KEYS]
        if missing or extra:
            errors.append(f"model {mid}: missing keys {missing}, unexpected keys {extra}")
            continue
        if mid in seen:
            errors.append(f"model {mid}: duplicate id")
        seen.add(mid)
        bad = [k for k in INT_KEYS if not isinstance(m[k], int) or isinstance(m[k], bool)]
        if bad or not isinstance(m["tied_embeddings"], bool):
            errors.append(f"model {mid}: non-integer {bad} or non-bool tied_embeddings")
            continue
        for k, allowed in ENUMS.items():
            if m[k] not in allowed:
                errors.append(f"model {mid}: {k}={m[k]!r} not in {allowed}")
        if m["experts"] < 1 or not 1 <= m["experts_per_token"] <= m["experts"]:
            errors.append(f"model {mid}: bad experts/experts_per_token")
        if m.get("activation", "silu") not in ACTIVATIONS:
            errors.append(f"model {mid}: activation={m['activation']!r} not in {ACTIVATIONS}")
        for key, allowed in (("layer_kinds", LAYER_KINDS), ("layer_mlps", LAYER_MLPS)):
            if key in m and (not isinstance(m[key], list) or not m[key] or any(x not in allowed for x in m[key])):
                errors.append(f"model {mid}: {key} must be a non-empty list of {allowed}")
        if m["heads"] % m["kv_heads"]:
            errors.append(f"model {mid}: heads not a multiple of kv_heads")
        if not str(m["source"]).strip():
            errors.append(f"model {mid}: empty source")
        try:
            got, active = derived_params(m)
        except (TypeError, KeyError) as exc:
            errors.append(f"model {mid}: formula failed: {exc}")
            continue
        if got != m["published_params"]:
            errors.append(f"model {mid}: derived {got:,} != published {m['published_params']:,} "
                          f"(diff {got - m['published_params']:+,})")
        published = m.get("published_total")
        if published:
            # A total published rounded ("20.9B"): the count must round to it.
            if abs(got - published["value"]) > published["round"]:
                errors.append(f"model {mid}: derived {got:,} is not {published['text']!r} "
                              f"(+-{published['round']:,.0f})")
            if "active" in published and abs(active - published["active"]) > 0.05 * published["active"]:
                errors.append(f"model {mid}: active {active:,} is not within 5% of {published['active']:,.0f}")
        if mid in KNOWN_TOTALS and m["published_params"] != KNOWN_TOTALS[mid]:
            errors.append(f"model {mid}: published {m['published_params']:,} != known {KNOWN_TOTALS[mid]:,}")
    for rid in REQUIRED_MODELS:
        if rid not in seen:
            errors.append(f"models: required id {rid!r} missing")
    return len(models)


def check_gpus(path, errors):
    gpus = load(path, "headroom-gpu-catalog", "gpus", errors)
    seen = {}
    for i, g in enumerate(gpus):
        gid = g.get("id", f"#{i}")
        missing = [k for k in GPU_KEYS if k not in g]
        if missing:
            errors.append(f"gpu {gid}: missing keys {missing}")
            continue
        if gid in seen:
            errors.append(f"gpu {gid}: duplicate id")
        seen[gid] = g
        if not isinstance(g["capacity_mib"], int) or g["capacity_mib"] <= 0:
            errors.append(f"gpu {gid}: capacity_mib must be a positive integer")
        if not isinstance(g["marketing_gb"], (int, float)) or g["marketing_gb"] <= 0:
            errors.append(f"gpu {gid}: marketing_gb must be positive")
        if g["class"] not in GPU_CLASSES:
            errors.append(f"gpu {gid}: class {g['class']!r} not in {GPU_CLASSES}")
        if not str(g["source"]).strip():
            errors.append(f"gpu {gid}: empty source")
    for rid in REQUIRED_GPUS:
        if rid not in seen:
            errors.append(f"gpus: required id {rid!r} missing")
    for gid, cap in KNOWN_CAPACITY.items():
        if gid in seen and seen[gid].get("capacity_mib") != cap:
            errors.append(f"gpu {gid}: capacity_mib {seen[gid].get('capacity_mib')} != known {cap}")
    return len(gpus)


def check_machines(path, errors):
    gpu_ids = {g.get("id") for g in load(path, "headroom-gpu-catalog", "gpus", [])}
    machines = load(path, "headroom-gpu-catalog", "machines", errors)
    seen = {}
    for i, m in enumerate(machines):
        mid = m.get("id", f"#{i}") if isinstance(m, dict) else f"#{i}"
        if not isinstance(m, dict):
            errors.append(f"machine {mid}: not an object")
            continue
        missing = [k for k in MACHINE_KEYS if k not in m]
        extra = [k for k in m if k not in MACHINE_KEYS]
        if missing or extra:
            errors.append(f"machine {mid}: missing keys {missing}, unexpected keys {extra}")
            continue
        if mid in seen or mid in gpu_ids:
            errors.append(f"machine {mid}: duplicate id")
        seen[mid] = m
        if m["gpu"] not in gpu_ids:
            errors.append(f"machine {mid}: gpu {m['gpu']!r} is not a catalog GPU")
        count = m["gpus"]
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 1024:
            errors.append(f"machine {mid}: gpus must be a whole number from 1 to 1024")
        ram = m["ram_gib"]
        if not isinstance(ram, (int, float)) or isinstance(ram, bool) or not 0 < ram <= 2 ** 24:
            errors.append(f"machine {mid}: ram_gib must be above 0 and at most 2^24")
        if not str(m["source"]).strip():
            errors.append(f"machine {mid}: empty source")
    for mid, ram in KNOWN_MACHINE_RAM.items():
        if mid not in seen:
            errors.append(f"machines: required id {mid!r} missing")
        elif seen[mid].get("ram_gib") != ram:
            errors.append(f"machine {mid}: ram_gib {seen[mid].get('ram_gib')} != known {ram}")
    return len(machines)


def main(argv):
    models_path = argv[1] if len(argv) > 1 else os.path.join(ROOT, "resources", "models.json")
    gpus_path = argv[2] if len(argv) > 2 else os.path.join(ROOT, "resources", "gpus.json")
    errors = []
    n_models = check_models(models_path, errors)
    n_gpus = check_gpus(gpus_path, errors)
    n_machines = check_machines(gpus_path, errors)
    for e in errors:
        print("FAIL:", e)
    print(f"{n_models} models, {n_gpus} GPUs, {n_machines} machines checked: "
          + ("all pass" if not errors else f"{len(errors)} problem(s)"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
