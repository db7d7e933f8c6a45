#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measure real peak GPU memory of small training runs, for Headroom's validation cases.

Builds GPT-2-small-shaped and ~1B Llama-shaped models from their configuration with random
weights (nothing is downloaded), runs a few training steps for each configuration of a grid
(full fine-tune and LoRA; micro-batch 1-8; sequence 512-4096; eager and SDPA attention;
gradient checkpointing on and off) and prints one JSON line per run with
torch.cuda.max_memory_allocated(), max_memory_reserved() and the nvidia-smi reading.

    python3 tests/measure/measure_peaks.py --out runs.jsonl [--quick]
    python3 tests/measure/to_cases.py runs.jsonl tests/data/measured/

The model code mirrors Hugging Face's (RMSNorm upcast to fp32, repeat_kv before attention,
logits upcast for the loss) so the "huggingface" profile applies. Only PyTorch is needed.
"""
import argparse
import itertools
import json
import math
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

MODELS = {
    # GPT-2 small: 124,439,808 parameters.
    "gpt2": dict(family="gpt2", layers=12, hidden=768, intermediate=3072, heads=12, kv_heads=12,
                 vocab=50257, max_positions=1024, tied=True),
    # Llama 3.2 1B shape: 1,235,814,400 parameters.
    "llama-1b": dict(family="llama", layers=16, hidden=2048, intermediate=8192, heads=32, kv_heads=8,
                     vocab=128256, max_positions=131072, tied=True),
}


class RMSNorm(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)  # as transformers' LlamaRMSNorm
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5)
        return self.weight * x.to(dtype)


class LoRALinear(nn.Module):
    """A frozen linear layer with a rank-r adapter (as PEFT: fp32 adapters, dropout on the input)."""

    def __init__(self, base, rank, dropout):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        if self.base.bias is not None:
            self.base.bias.requires_grad_(False)
        self.a = nn.Linear(base.in_features, rank, bias=False, dtype=torch.float32, device=base.weight.device)
        self.b = nn.Linear(rank, base.out_features, bias=False, dtype=torch.float32, device=base.weight.device)
        nn.init.zeros_(self.b.weight)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.base(x) + self.b(self.a(self.dropout(x).to(self.a.weight.dtype))).to(x.dtype)


class Attention(nn.Module):
    def __init__(self, cfg, impl):
        super().__init__()
        h, heads, kv = cfg["hidden"], cfg["heads"], cfg["kv_heads"]
        self.heads, self.kv, self.head_dim, self.impl = heads, kv, h // heads, impl
        bias = cfg["family"] == "gpt2"
        self.q = nn.Linear(h, heads * self.head_dim, bias=bias)
        self.k = nn.Linear(h, kv * self.head_dim, bias=bias)
        self.v = nn.Linear(h, kv * self.head_dim, bias=bias)
        self.o = nn.Linear(heads * self.head_dim, h, bias=bias)

    def forward(self, x):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(x).view(b, s, self.kv, self.head_dim).transpose(1, 2)
        v = self.v(x).view(b, s, self.kv, self.head_dim).transpose(1, 2)
        if self.kv != self.heads:  # repeat_kv, as transformers
            k = k.repeat_interleave(self.heads // self.kv, dim=1)
            v = v.repeat_interleave(self.heads // self.kv, dim=1)
        if self.impl == "eager":
            scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
            mask = torch.full((s, s), float("-inf"), device=x.device).triu(1)
            probs = F.softmax(scores + mask, dim=-1, dtype=torch.float32).to(q.dtype)
            out = probs @ v
        else:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o(out.transpose(1, 2).contiguous().view(b, s, -1))


class Block(nn.Module):
    def __init__(self, cfg, impl):
        super().__init__()
        h, f = cfg["hidden"], cfg["intermediate"]
        self.llama = cfg["family"] == "llama"
        norm = (lambda: RMSNorm(h)) if self.llama else (lambda: nn.LayerNorm(h))
        self.norm1, self.norm2 = norm(), norm()
        self.attn = Attention(cfg, impl)
        if self.llama:
            self.gate = nn.Linear(h, f, bias=False)
        self.up = nn.Linear(h, f, bias=not self.llama)
        self.down = nn.Linear(f, h, bias=not self.llama)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        y = self.norm2(x)
        y = F.silu(self.gate(y)) * self.up(y) if self.llama else F.gelu(self.up(y), approximate="tanh")
        return x + self.down(y)


class Model(nn.Module):
    def __init__(self, cfg, impl, checkpointing):
        super().__init__()
        self.cfg, self.checkpointing = cfg, checkpointing
        self.embed = nn.Embedding(cfg["vocab"], cfg["hidden"])
        self.pos = nn.Embedding(cfg["max_positions"], cfg["hidden"]) if cfg["family"] == "gpt2" else None
        self.blocks = nn.ModuleList(Block(cfg, impl) for _ in range(cfg["layers"]))
        self.norm = RMSNorm(cfg["hidden"]) if cfg["family"] == "llama" else nn.LayerNorm(cfg["hidden"])
        self.lm_head = nn.Linear(cfg["hidden"], cfg["vocab"], bias=False)
        if cfg["tied"]:
            self.lm_head.weight = self.embed.weight

    def forward(self, ids, labels):
        x = self.embed(ids)
        if self.pos is not None:
            x = x + self.pos(torch.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if self.checkpointing else block(x)
        logits = self.lm_head(self.norm(x))
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), labels.view(-1))


def nvidia_smi_used_mib():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20).stdout
        return int(out.split()[0])
    except Exception:  # no nvidia-smi: leave the device reading out
        return None


def run(name, method, batch, seq, impl, checkpointing, steps=3):
    cfg = MODELS[name]
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    torch.manual_seed(0)
    model = Model(cfg, impl, checkpointing).to(device="cuda", dtype=torch.bfloat16)
    if method == "lora":
        for p in model.parameters():
            p.requires_grad_(False)
        for block in model.blocks:
            for proj in ("q", "k", "v", "o"):
                setattr(block.attn, proj, LoRALinear(getattr(block.attn, proj), 16, 0.05))
        if checkpointing:
            model.embed.weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-5)  # foreach path, states in the params' dtype
    ids = torch.randint(0, cfg["vocab"], (batch, seq), device="cuda")
    peak_smi = 0
    try:
        for _ in range(steps):
            loss = model(ids, ids)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            peak_smi = max(peak_smi, nvidia_smi_used_mib() or 0)
        outcome = "fits"
    except torch.cuda.OutOfMemoryError:
        outcome = "oom"
    result = dict(model=name, method=method, micro_batch=batch, seq_len=seq, attention=impl,
                  checkpointing="full" if checkpointing else "none", outcome=outcome,
                  allocated_bytes=torch.cuda.max_memory_allocated(),
                  reserved_bytes=torch.cuda.max_memory_reserved(),
                  nvidia_smi_mib=peak_smi or None,
                  torch=torch.__version__, cuda=torch.version.cuda,
                  gpu=torch.cuda.get_device_name(), time=time.strftime("%Y-%m-%d"))
    del model, optimizer, params
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="-", help="JSON lines file (default: stdout)")
    parser.add_argument("--quick", action="store_true", help="a small grid (a few minutes)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("measure_peaks: no CUDA device")
    batches = [1, 4] if args.quick else [1, 2, 4, 8]
    seqs = [512, 2048] if args.quick else [512, 1024, 2048, 4096]
    out = sys.stdout if args.out == "-" else open(args.out, "a")
    for name, method, batch, seq, impl, ckpt in itertools.product(
            MODELS, ["full", "lora"], batches, seqs, ["sdpa", "eager"], [False, True]):
        result = run(name, method, batch, seq, impl, ckpt)
        print(json.dumps(result), file=out, flush=True)


if __name__ == "__main__":
    main()
