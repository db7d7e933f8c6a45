#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes the fuzz_gguf seeds: small GGUF files (v3 and v2, a MoE, a sliding-window model, a split
# part) in the layout of ggml/docs/gguf.md, with their tensor data (zeros).
import struct, sys, os

def s(text):
    b = text.encode()
    return struct.pack('<Q', len(b)) + b

def kv_u32(k, v): return s(k) + struct.pack('<II', 4, v)
def kv_u16(k, v): return s(k) + struct.pack('<IH', 2, v)
def kv_str(k, v): return s(k) + struct.pack('<I', 8) + s(v)
def kv_f32(k, v): return s(k) + struct.pack('<If', 6, v)
def kv_bools(k, vs): return s(k) + struct.pack('<IIQ', 9, 7, len(vs)) + bytes(vs)
def kv_strs(k, vs): return s(k) + struct.pack('<IIQ', 9, 8, len(vs)) + b''.join(s(v) for v in vs)

SIZES = {0: (1, 4), 1: (1, 2), 8: (32, 34), 12: (256, 144), 14: (256, 210), 30: (1, 2), 39: (32, 17)}

def gguf(kvs, tensors, version=3, align=32):
    out = b'GGUF' + struct.pack('<IQQ', version, len(tensors), len(kvs)) + b''.join(kvs)
    offset, data = 0, b''
    for name, typ, shape in tensors:
        blk, size = SIZES[typ]
        n = 1
        for d in shape: n *= d
        nbytes = n // blk * size
        out += s(name) + struct.pack('<I', len(shape)) + b''.join(struct.pack('<Q', d) for d in shape)
        out += struct.pack('<IQ', typ, offset)
        pad = (nbytes + align - 1) // align * align
        data += b'\0' * pad
        offset += pad
    out += b'\0' * ((align - len(out) % align) % align)
    return out + data

def llama(arch='llama', experts=0, swa=False, version=3):
    kvs = [kv_str('general.architecture', arch), kv_u32('general.file_type', 15),
           kv_u32(arch + '.block_count', 2), kv_u32(arch + '.embedding_length', 32),
           kv_u32(arch + '.feed_forward_length', 256), kv_u32(arch + '.attention.head_count', 2),
           kv_u32(arch + '.attention.head_count_kv', 1), kv_u32(arch + '.context_length', 2048),
           kv_f32(arch + '.rope.freq_base', 10000.0), kv_strs('tokenizer.ggml.tokens', ['a', 'b', 'c', 'd'])]
    if experts:
        kvs += [kv_u32(arch + '.expert_count', experts), kv_u32(arch + '.expert_used_count', 2),
                kv_u32(arch + '.expert_feed_forward_length', 256)]
    if swa:
        kvs += [kv_u32(arch + '.attention.sliding_window', 512), kv_bools(arch + '.attention.sliding_window_pattern', [1, 0])]
    # Small (the fuzzer's inputs are at most 64 KB): the blocks' shapes are not the model's.
    t = [('token_embd.weight', 8, [32, 4]), ('output_norm.weight', 0, [32]), ('output.weight', 14, [256, 1])]
    for i in range(2):
        b = 'blk.%d.' % i
        t += [(b + 'attn_norm.weight', 0, [32]), (b + 'attn_q.weight', 12, [256, 1]),
              (b + 'attn_k.weight', 8, [32, 2]), (b + 'attn_v.weight', 1, [32, 2]),
              (b + 'attn_output.weight', 8, [32, 2]), (b + 'ffn_norm.weight', 0, [32])]
        if experts:
            t += [(b + 'ffn_gate_inp.weight', 0, [32, experts]), (b + 'ffn_gate_exps.weight', 39, [32, 2, experts]),
                  (b + 'ffn_up_exps.weight', 39, [32, 2, experts]), (b + 'ffn_down_exps.weight', 39, [32, 2, experts])]
        else:
            t += [(b + 'ffn_gate.weight', 30, [32, 2]), (b + 'ffn_up.weight', 8, [32, 2]),
                  (b + 'ffn_down.weight', 14, [256, 1])]
    return gguf(kvs, t, version)

here = os.path.dirname(os.path.abspath(__file__))
seeds = {
    'llama-v3.gguf': llama(),
    'llama-v2.gguf': llama(version=2),
    'moe.gguf': llama('qwen3moe', experts=4),
    'swa.gguf': llama('gemma3', swa=True),
    'split-part.gguf': gguf([kv_u16('split.no', 1), kv_u16('split.count', 2), kv_u32('split.tensors.count', 2)],
                            [('blk.1.ffn_up.weight', 30, [64, 2])]),
}
for name, data in seeds.items():
    with open(os.path.join(here, name), 'wb') as f:
        f.write(data)
